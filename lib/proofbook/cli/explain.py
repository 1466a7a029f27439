"""``python -m proofbook explain``: one claim or question through a paper's method, step by step.

The book's method chapters walk one example through each pipeline; this is the same walk for a claim or
question of the reader's own, on the command line, with the models that ``make book`` trained and cached:

- ``explain admiral "CLAIM"``: AdMIRaL's retrieval loop on HoVer's pooled corpus (Aly & Vlachos 2022, §3):
  BM25's pages, the titles generated from the claim (the GENRE step), the reranked sentences, each hop's
  beams (titles with their scores, sentence pointers and how much of each title came by copying from the
  input, :meth:`~proofbook.admiral.retrieval.autoregressive.AutoregressiveRetriever.copy_shares`) and new
  sentences, the natural-logic sufficiency
  decision after every iteration with its proofs (§3.3: the loop stops when the evidence suffices), and
  the final ranking.  By default the paper's method (``admiral`` with ``suff-natlog``: each hop decodes over
  every corpus title, proofs are generated); ``--stand-in`` runs the book's stand-ins instead
  (``admiral-mentions`` with ``suff-aligned``: hops narrowed to the mentioned titles, proofs by alignment);
- ``explain entailer "QUESTION" --options A B ...``: Entailer (Tafjord et al. 2022, §3): one hypothesis per
  option, the candidate premise sets of each with their scores and why a set was rejected, the chosen
  tree per option, and the three answers (Entailer, direct, Entailer+Direct);
- ``explain wild --claim-id ID``: the five stages of claims in the wild (Chen et al. 2023, §3) for a
  ClaimDecomp claim: questions, search results and the filters, fine-grained passages, claim-focused
  summaries, and the veracity classifier's six-way probabilities in every evidence condition.  Any
  ClaimDecomp claim (dev or test) is accepted: the questions are the cached LLM questions where the copy
  has them (the 95 test claims), else the claim's annotated subquestions, else the claim itself as its one
  question (:func:`questions_for`; the trace's ``questions_source`` says which).  The search results are
  replayed from the cache, which holds the test claims only: for any other claim the search stage finds
  nothing, so the web conditions read no evidence (the trace's ``search_note`` says so).  Nothing else of
  the method changes.

Each prints text; ``--json`` prints the same trace as JSON, at full precision, and ``--html FILE`` writes it
as a standalone page with the book's renderers; text and page show probabilities and scores to 3 decimals.
The models come from the artifact cache only (:class:`LoadOnlyCache`): when one is missing the command stops
with :class:`MissingModels`, naming what to run.  ``--smoke`` trains the chapters' smoke-size models instead
(seconds; their answers mean nothing), which is what the tests use.

Every refusal (an empty or unreadable text, bad options, an unknown claim id, a missing data directory or
data file, missing models, a bad ``--seed`` or ``--html`` path) is a :class:`RefusedInput`; :func:`main`
prints it as one line on stderr and returns exit status 2.  Any other exception is a bug and propagates.

Each command imports its paper's package inside the function that runs it (heavy and optional: a paper's
modules load torch, transformers and its models' code, and a command needs one paper only).
"""
from __future__ import annotations

import dataclasses
import html
import json
import re
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Sequence

from proofbook.core.cache import ArtifactCache
from proofbook.render.chapter import sized_settings

#: what each explainer needs ``make book`` to have cached, for the error message
BUILT_BY = {"admiral": "make book (the chapters admiral/02_experiments and admiral/05_natural_logic)",
            "entailer": "make book (the chapter entailer/01_method)",
            "wild": "make book (the chapter wild/01_method)"}


class RefusedInput(ValueError):
    """Input the explainers refuse (empty text, bad options, unknown claim id, missing data or models, ...):
    ``str(err)`` is one line for the command line to print; :func:`main` exits with status 2."""


class MissingModels(RefusedInput, RuntimeError):
    """A model or index that the explainer loads is not in the artifact cache (a :class:`RefusedInput`;
    still a RuntimeError, as it was)."""


class LoadOnlyCache(ArtifactCache):
    """An :class:`ArtifactCache` that loads what is stored and never trains: a miss raises
    :class:`MissingModels` naming the artifact and the command that builds it."""

    def __init__(self, root=None, paper: str = "admiral"):
        super().__init__(root)
        self.paper = paper

    def get_or_build(self, kind, config, build, save, load, data=None):
        """The stored entry, as :meth:`ArtifactCache.get_or_build` loads it; a miss raises
        :class:`MissingModels` instead of building."""
        missing = object()
        value = self.get(kind, config, load, data=data, default=missing)
        if value is missing:
            raise MissingModels(f"the {kind} artifact is not in the model cache {self.root}: run "
                                f"`{BUILT_BY[self.paper]}` first, or pass --smoke for tiny models trained in seconds")
        return value


def check_text(text: str, what: str = "claim") -> str:
    """The text stripped; :class:`RefusedInput` for an empty text, one the models' tokenizer reads as unknown
    tokens only (a script or emoji missing from MiniLM's vocabulary), or one without a letter or digit."""
    from proofbook.models.loading import load_tokenizer

    if not isinstance(text, str) or not text.strip():
        raise RefusedInput(f"the {what} is empty")
    tokenizer = load_tokenizer("minilm")
    tokens = tokenizer.tokenize(text)
    if not tokens or all(token == tokenizer.unk_token for token in tokens):
        raise RefusedInput(f"the {what} {text!r} has no word the models know: MiniLM's tokenizer maps all of it to "
                         f"{tokenizer.unk_token} (a script or symbols outside its English vocabulary)")
    if not re.search(r"[^\W_]", text):
        raise RefusedInput(f"the {what} {text!r} has no letter or digit (punctuation or symbols only)")
    return text.strip()


def data_root(data_dir=None) -> Path:
    """The data directory (:func:`proofbook.core.paths.resolve_data_dir`); :class:`RefusedInput` when it
    does not exist or is not a folder."""
    from proofbook.core.paths import resolve_data_dir

    root = resolve_data_dir(data_dir)
    if not root.is_dir():
        where = "--data-dir" if data_dir not in (None, "") else "$PROOFBOOK_DATA or data/"
        what = "is not a folder" if root.exists() else "does not exist"
        raise RefusedInput(f"the data directory {root} ({where}) {what}: run `make data`, or pass --data-dir or set "
                           f"PROOFBOOK_DATA to a copy of the datasets")
    return root


@contextmanager
def reading_data(root: Path):
    """Turn a missing or malformed dataset file read inside the block into :class:`RefusedInput`."""
    from proofbook.data.textfile import DataError

    try:
        yield
    except (FileNotFoundError, NotADirectoryError, DataError) as err:
        raise RefusedInput(f"the data directory {root} cannot be used: {one_line(err)}") from err


def one_line(value: Any) -> str:
    """``str(value)`` on one line (line breaks become '; ')."""
    return "; ".join(line.strip() for line in str(value).splitlines() if line.strip())


def _cache(smoke: bool, paper: str, cache: ArtifactCache | None) -> ArtifactCache:
    if cache is not None:
        return cache
    return ArtifactCache() if smoke else LoadOnlyCache(paper=paper)


def _sentence(sentence, score: float | None = None) -> dict:
    row = {"title": sentence.title, "sentence": sentence.index, "text": sentence.text}
    return row if score is None else {**row, "score": float(score)}


def _beam(beam, copied: float | None = None) -> dict:
    row = {"title": beam.title, "score": float(beam.score), "pointers": list(getattr(beam, "pointers", ()))}
    return row if copied is None else {**row, "copied": round(float(copied), 3)}


# --- AdMIRaL ---------------------------------------------------------------------------------------

def explain_admiral(claim: str, data_dir=None, smoke: bool = False, seed: int = 0,
                    cache: ArtifactCache | None = None, progress: bool = True, stand_in: bool = False) -> dict:
    """AdMIRaL's loop on HoVer's corpus for ``claim``, stopping when the natural-logic rule finds the
    evidence sufficient (at most :class:`~proofbook.admiral.prover.trained_prover.SufficiencySettings` ``iterations``):
    the paper's method, or with ``stand_in`` the book's stand-ins (mention-narrowed hops, aligned proofs)."""

    from proofbook.admiral.prover.alignment import FUNCTION_WORDS, word_matches
    from proofbook.admiral.prover.sufficiency_experiments import train_prover
    from proofbook.admiral.prover.trained_prover import SufficiencySettings
    from proofbook.admiral.prover.stopping import selections
    from proofbook.admiral.retrieval import retrieval_experiments
    from proofbook.admiral.retrieval.tasks import load_task, smoke_task

    claim = check_text(claim, "claim")
    if not any(w.group().lower() not in FUNCTION_WORDS for w in word_matches(claim)):
        raise RefusedInput(f"the claim {claim!r} has no content word for the natural-logic proofs to align "
                           f"(only function words such as 'the', 'of', 'a')")
    data_path = data_root(data_dir)
    cache = _cache(smoke, "admiral", cache)
    with reading_data(data_path):
        tasks = [load_task(name, data_path) for name in ("hover", "feverous_s")]
    if smoke:
        tasks = [smoke_task(task, seed=seed) for task in tasks]
    settings = sized_settings(retrieval_experiments.TrainingSettings, seed, smoke)
    suff_settings = sized_settings(SufficiencySettings, seed, smoke)
    components = retrieval_experiments.train_components(tasks, settings, cache)
    with reading_data(data_path):   # the prover's training data (read only when its models are built)
        prover = train_prover(tasks, suff_settings, data_path, cache, progress=progress)
    rule = prover.aligned(suff_settings, tasks[0].dataset) if stand_in else prover.generated(suff_settings)
    config = dataclasses.replace(retrieval_experiments.book_config(smoke), iterations=suff_settings.iterations,
                                 **({} if stand_in else {"hop_titles": "corpus"}))
    retriever = retrieval_experiments.build_admiral(tasks[0], components, config, sufficiency=rule)
    start = time.perf_counter()
    trace = retriever.retrieve(claim)
    decisions = rule.decide_many([claim] * trace.iterations, selections(trace, config.top_sentences))
    seconds = time.perf_counter() - start
    hop_model = retriever.hop_models[1]
    copied = [hop_model.copy_shares([(claim, hop.input_sentences)], [hop.beams[:12]])[0] for hop in trace.hops]
    return {
        "claim": claim, "corpus": f"{tasks[0].dataset} ({len(tasks[0].corpus.titles)} pages)",
        "system": "admiral-mentions with suff-aligned (the book's stand-ins)" if stand_in else
                  "admiral with suff-natlog (the paper's method)",
        "bm25": [{"title": t, "score": float(s)} for t, s in trace.bm25[:10]],
        "genre": [_beam(b) for b in trace.genre],
        "reranked_documents": list(trace.reranked_documents),
        "selected": [_sentence(s, score) for s, score in trace.initial_selected],
        "hops": [{"iteration": hop.iteration, "input_sentences": [_sentence(s) for s in hop.input_sentences],
                  "beams": [_beam(b, c) for b, c in zip(hop.beams[:12], shares)],
                  "new_documents": list(hop.new_documents),
                  "new_sentences": [_sentence(s, score) for s, score in hop.new_sentences[:5]]}
                 for hop, shares in zip(trace.hops, copied)],
        "sufficiency": [{"iteration": i + 1, "sufficient": d.sufficient, "threshold": float(rule.threshold),
                         "score": None if d.score is None else float(d.score),
                         "proofs": [p.to_text() for p in d.proofs], "kept": len(d.kept)}
                        for i, d in enumerate(decisions)],
        "stopped_by_sufficiency": trace.stopped_by_sufficiency, "iterations": trace.iterations,
        "ranking": trace.ranking()[:10], "seconds": round(seconds, 3),
    }


def _admiral_text(out: dict) -> str:
    lines = [f"claim: {out['claim']}", f"system: {out['system']}", f"corpus: {out['corpus']}", "", "BM25 (top 10):"]
    lines += [f"  {r['score']:8.3f}  {r['title']}" for r in out["bm25"]]
    lines += ["", "titles generated from the claim (GENRE step):"]
    lines += [f"  {b['score']:8.3f}  {b['title']}" for b in out["genre"]] or ["  (none)"]
    lines += ["", "iteration 1: reranked documents: " + "; ".join(out["reranked_documents"]), "selected sentences:"]
    lines += [f"  {s['score']:.3f}  [{s['title']} {s['sentence']}] {s['text']}" for s in out["selected"]]
    for hop, decision in zip([None] + out["hops"], out["sufficiency"]):
        if hop is not None:
            lines += ["", f"iteration {hop['iteration']}: beams (title, score, pointers; copied: the share of the "
                          "title's probability that came by copying from the input):"]
            lines += [f"  {b['score']:8.3f}  {b['title']}  {' '.join(f'E{p}' for p in b['pointers'])}"
                      + (f"  copied {b['copied']:.0%}" if "copied" in b else "")
                      for b in hop["beams"]] or ["  (no beam: no candidate title)"]
            lines += ["  new documents: " + ("; ".join(hop["new_documents"]) or "(none)"), "  new sentences:"]
            lines += [f"    {s['score']:.3f}  [{s['title']} {s['sentence']}] {s['text']}" for s in hop["new_sentences"]]
        verdict = "sufficient" if decision["sufficient"] else "not sufficient"
        why = (f"score {decision['score']:.3f} against the threshold {decision['threshold']:.3f}"
               if decision.get("score") is not None else
               f"{decision['kept']} of {len(decision['proofs'])} proofs above {decision['threshold']:.3f}")
        lines += [f"  sufficiency after iteration {decision['iteration']}: {verdict} ({why})"]
        if decision["proofs"]:
            lines += ["    " + line for line in decision["proofs"][0].splitlines()]
    stop = "the evidence was judged sufficient" if out["stopped_by_sufficiency"] else "the iteration limit"
    lines += ["", f"stopped after {out['iterations']} iteration(s): {stop}", "final ranking:"]
    lines += [f"  {i + 1:2d}. {title}" for i, title in enumerate(out["ranking"])]
    lines.append(f"({out['seconds']:.2f} s for the claim)")
    return "\n".join(lines)


# --- Entailer --------------------------------------------------------------------------------------

#: options are labelled A to Z
MAX_OPTIONS = 26


def check_options(options: Sequence[str]) -> list[str]:
    """The search's checks (at least two options, none empty) before any model loads, no more options than
    letters, and no two options the same (ignoring case and spaces), which would make the question
    unanswerable; :class:`RefusedInput` otherwise."""
    from proofbook.entailer import search

    options = [o.strip() if isinstance(o, str) else o for o in options]
    if len(options) > MAX_OPTIONS:
        raise RefusedInput(f"at most {MAX_OPTIONS} options (labelled A to Z), got {len(options)}")
    labelled = [(chr(ord("A") + i), o) for i, o in enumerate(options)]
    try:
        search.check_options(labelled)
    except ValueError as err:
        raise RefusedInput(one_line(err)) from err
    seen: dict[str, str] = {}
    for label, option in labelled:
        key = " ".join(option.lower().split())
        if key in seen:
            raise RefusedInput(f"options {seen[key]!r} and {label!r} are the same: {option!r}")
        seen[key] = label
    return options


def explain_entailer(question: str, options: Sequence[str], data_dir=None, smoke: bool = False, seed: int = 0,
                     cache: ArtifactCache | None = None, system: str = "entailer-sampled-d1") -> dict:
    """Entailer's trees for a question of one's own (options labelled A, B, ...)."""
    from proofbook.data.science_qa import Option, Question
    from proofbook.entailer import entailer_experiments
    from proofbook.entailer.components import build_components
    from proofbook.entailer.settings import Settings
    from proofbook.entailer.datasets import evaluation_files, training_files
    from proofbook.entailer.search import answer_question

    question = check_text(question, "question")
    options = check_options(options)
    for option in options:
        check_text(option, "option")
    settings = sized_settings(Settings, seed, smoke)
    root = data_root(data_dir)
    with reading_data(root):
        training_files(root), evaluation_files(root)       # the files build_components reads, checked first
        components = build_components(root, settings, _cache(smoke, "entailer", cache))
    labelled = [Option(chr(ord("A") + i), text) for i, text in enumerate(options)]
    item = Question("explain", question, labelled, answer_key="", source="command line")
    [hypotheses] = entailer_experiments.write_hypotheses([item], components.writer)
    answer = answer_question(item.id, [(o.label, o.text) for o in labelled], hypotheses,
                             components.behaviours(settings.source(system)), settings.search(system))
    candidates = {o.label: [{"premises": list(c.premises), "premise_scores": [float(s) for s in c.premise_scores],
                             "entailment": float(c.entailment), "score": float(c.score), "rejected": c.rejected}
                            for c in o.tree.candidates] for o in answer.options}
    return {
        "question": question, "system": system, "writer": components.writer.name,
        "options": {o.label: o.option for o in answer.options},
        "hypotheses": {o.label: o.hypothesis for o in answer.options},
        "candidates": candidates,
        "trees": {o.label: o.tree.to_dict() for o in answer.options},
        "scores": {o.label: {"direct": float(o.direct), "proof": float(o.proof_score)} for o in answer.options},
        "answer": {"entailer": answer.entailer.label, "direct": answer.direct.label,
                   "entailer+direct": answer.combined.label, "faithfulness_break": answer.faithfulness_break},
        "seconds": round(answer.seconds, 3),
    }


def _entailer_text(out: dict) -> str:
    from proofbook.entailer.trees import ProofNode, render_text

    lines = [f"question: {out['question']}", f"system: {out['system']} (hypotheses by the {out['writer']} writer)"]
    for label, option in out["options"].items():
        scores = out["scores"][label]
        lines += ["", f"({label}) {option}", f"  hypothesis: {out['hypotheses'][label]}",
                  f"  direct s_d(H) = {scores['direct']:.3f}; proof score s_r(H) = {scores['proof']:.3f}",
                  "  candidate premise sets:"]
        lines += [f"    {c['score']:.3f}  {' + '.join(c['premises'])}  "
                  f"(premises {', '.join(f'{s:.3f}' for s in c['premise_scores'])}; entailment {c['entailment']:.3f})"
                  + (f"  rejected: {c['rejected']}" if c["rejected"] else "")
                  for c in out["candidates"][label]] or ["    (none generated)"]
        lines += ["  tree:"] + ["    " + line for line in
                                render_text(ProofNode.from_dict(out["trees"][label])).splitlines()]
    answer = out["answer"]
    lines += ["", f"answers: Entailer ({answer['entailer']}), direct ({answer['direct']}), Entailer+Direct "
                  f"({answer['entailer+direct']})" + ("; a faithfulness break" if answer["faithfulness_break"] else ""),
              f"({out['seconds']:.2f} s for the question)"]
    return "\n".join(lines)


# --- claims in the wild ----------------------------------------------------------------------------

#: where a claim's questions come from (the trace's ``questions_source``), in the order they are tried
CACHED_QUESTIONS, ANNOTATED_QUESTIONS, CLAIM_ITSELF = "cached LLM questions", "annotated questions", "the claim itself"


def locate_claim(data, claim_id: str) -> tuple[str, Any]:
    """``(split, claim)``: the ClaimDecomp claim with this ``example_id`` (as written in the files, compared as
    text); :class:`RefusedInput` for an empty or unknown id (naming LIAR's file when the id is a LIAR statement's)."""
    if not isinstance(claim_id, str) or not claim_id.strip():
        raise RefusedInput("the claim id is empty")
    wanted = claim_id.strip()
    for split, claims in data.claimdecomp.items():
        for claim in claims:
            if str(claim.example_id) == wanted:
                return split, claim
    splits = ", ".join(f"{s} ({len(c)} claims)" for s, c in data.claimdecomp.items())
    liar = [s for s, statements in data.liar.items() if any(str(x.id) == wanted for x in statements)]
    if liar:
        raise RefusedInput(f"claim id {claim_id!r} is a LIAR statement (liar/{liar[0]}.tsv), not a ClaimDecomp "
                           f"claim: explain wild takes the example_id of a ClaimDecomp claim of {data.root} "
                           f"(splits {splits}), whose record holds the justification and annotated questions")
    raise RefusedInput(f"unknown claim id {claim_id!r}: no ClaimDecomp claim of {data.root} has it "
                       f"(splits {splits})")


def find_claim(data, claim_id: str):
    """The ClaimDecomp claim with this ``example_id`` (see :func:`locate_claim`)."""
    return locate_claim(data, claim_id)[1]


def questions_for(data, claim) -> tuple[list[str], str]:
    """``(questions, source)``: the claim's cached LLM questions (what the experiments search with), else its
    annotated subquestions, else the claim itself as its one question; ``source`` is one of
    :data:`CACHED_QUESTIONS`, :data:`ANNOTATED_QUESTIONS`, :data:`CLAIM_ITSELF`."""
    from proofbook.wild.decomposition import AnnotatedQuestions

    cached = list(data.cached_questions.get(claim.example_id) or [])
    if cached:
        return cached, CACHED_QUESTIONS
    annotated = [q for q in AnnotatedQuestions().questions(claim) if q.strip()]
    if annotated:
        return annotated, ANNOTATED_QUESTIONS
    return [claim.claim], CLAIM_ITSELF


class _GivenQuestions:
    """A decomposer that returns the questions chosen by :func:`questions_for`."""

    def __init__(self, questions: Sequence[str], name: str):
        self._questions, self.name = list(questions), name

    def questions(self, claim) -> list[str]:
        return list(self._questions)


class _NoCachedResults:
    """The search stage for a claim the search cache does not hold: no page, and a note saying why."""

    def __init__(self, note: str):
        self.note = note

    def search(self, claim, questions: Sequence[str] = ()):
        from proofbook.wild.search import SearchOutcome

        return SearchOutcome([], message=self.note)


def _plain(value: Any) -> Any:
    """A table cell as JSON: numpy scalars as Python numbers (full precision), dates as ISO text, NaN as null."""
    import datetime
    import math

    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, datetime.date):          # datetime.datetime too
        return value.isoformat()
    return value


def _records(frame, index: str = "index") -> list[dict]:
    """A frame's rows (its index first, named ``index``) as JSON-ready dicts, numbers at full precision."""
    if frame is None or len(frame) == 0:
        return []
    rows = frame.rename_axis(index).reset_index().to_dict(orient="records")
    return [{str(k): _plain(v) for k, v in row.items()} for row in rows]


def explain_wild(claim_id: str, data_dir=None, smoke: bool = False, seed: int = 0,
                 cache: ArtifactCache | None = None, progress: bool = True) -> dict:
    """The five stages of claims in the wild for one ClaimDecomp claim (dev or test).

    As the experiments run it (:func:`proofbook.wild.pipeline.replay_pipeline`: cached questions, replayed
    search, extractive summaries), except where the copy lacks a claim's cached data: questions from
    :func:`questions_for`, and no search result for a claim the search cache does not hold."""
    from proofbook.wild import wild_experiments
    from proofbook.wild.datasets import load_data
    from proofbook.wild.decomposition import AnnotatedQuestions
    from proofbook.wild.pipeline import replay_pipeline
    from proofbook.wild.tables import predictions_frame, search_frame, spans_frame, summaries_frame, windows_frame

    if not isinstance(claim_id, str) or not claim_id.strip():
        raise RefusedInput("the claim id is empty")
    root = data_root(data_dir)
    with reading_data(root):
        data = load_data(root)
    split, claim = locate_claim(data, claim_id)
    if not str(claim.claim).strip():
        raise RefusedInput(f"claim {claim.example_id} ({split}) has an empty claim text in {data.root}")
    questions, source = questions_for(data, claim)
    searched = claim.example_id in data.search_cache
    settings = sized_settings(wild_experiments.WildSettings, seed, smoke)
    with reading_data(root):
        models = wild_experiments.train_models(data, settings, _cache(smoke, "wild", cache), progress=progress)
    pipeline = replay_pipeline(data, models)
    if source != CACHED_QUESTIONS:
        pipeline.decomposer = _GivenQuestions(questions, source)
    note = None
    if not searched:
        note = (f"no search results: the search cache replays the results of the {len(data.search_cache)} "
                f"ClaimDecomp test claims only, so this {split} claim finds no page and the web-snippets and "
                f"web-summaries conditions read no evidence")
        pipeline.search = _NoCachedResults(note)
    start = time.perf_counter()
    trace = pipeline.run(claim)
    probabilities = wild_experiments.predict_conditions(models, claim, trace)
    seconds = time.perf_counter() - start
    if searched and trace.search.message:
        note = trace.search.message
    return {
        "claim": {"id": str(claim.example_id), "split": split, "text": claim.claim,
                  "speaker": f"{claim.person} {claim.venue}", "gold": claim.label},
        "questions_source": source,
        "questions": list(trace.questions),
        "annotated_questions": AnnotatedQuestions().questions(claim),
        "search_note": note,
        "search": _records(search_frame(data, claim)) if searched else [],
        "passages": {"windows": _records(windows_frame(trace)),
                     "spans": _records(spans_frame(trace)), "documents": list(trace.retrieval.documents)},
        "summaries": _records(summaries_frame(trace)),
        "veracity": _records(predictions_frame(probabilities), index="condition"),
        "seconds": seconds,
    }


def _cell(value: Any, width: int) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)[:width]


def _table_text(rows: list[dict], width: int = 100) -> list[str]:
    if not rows:
        return ["  (none)"]
    return ["  " + " | ".join(f"{k}: {_cell(v, width)}" for k, v in row.items()) for row in rows]


def _wild_text(out: dict) -> str:
    claim = out["claim"]
    lines = [f"claim {claim['id']} (ClaimDecomp {claim['split']}): {claim['text']}",
             f"speaker: {claim['speaker']}; gold label: {claim['gold']}"]
    source = out["questions_source"]
    why = {CACHED_QUESTIONS: "the LLM questions whose search results the cache holds",
           ANNOTATED_QUESTIONS: "this claim has no cached LLM questions, so its annotated subquestions stand in",
           CLAIM_ITSELF: "this claim has neither cached LLM questions nor annotated subquestions"}.get(source, "")
    lines += ["", f"questions source: {source} ({why})" if why else f"questions source: {source}"]
    lines += ["questions:"] + ([f"  - {q}" for q in out["questions"]] or ["  (none)"])
    if source != ANNOTATED_QUESTIONS:
        lines += ["annotated questions (ClaimDecomp, for comparison):"]
        lines += [f"  - {q}" for q in out["annotated_questions"]] or ["  (none)"]
    lines += ["", "search results and the filters:"]
    if out.get("search_note"):
        lines += [f"  note: {out['search_note']}"]
    lines += _table_text(out["search"][:15])
    lines += ["", "fine-grained passages (kept windows):"] + _table_text(out["passages"]["windows"][:10])
    lines += ["", "claim-focused summaries:"] + _table_text(out["summaries"], width=300)
    lines += ["", "veracity (probability of each label, per evidence condition):"] + _table_text(out["veracity"])
    lines.append(f"({out['seconds']:.2f} s for the claim)")
    return "\n".join(lines)


# --- output ----------------------------------------------------------------------------------------

TEXT = {"admiral": _admiral_text, "entailer": _entailer_text, "wild": _wild_text}
#: decimals of the probabilities and scores in the text and HTML output (``--json`` keeps full precision)
DIGITS = 3


def rounded(value: Any, digits: int = DIGITS) -> Any:
    """``value`` with every float inside it (dicts, lists, tuples) rounded to ``digits`` decimals, for reading."""
    if isinstance(value, bool) or not isinstance(value, (float, dict, list, tuple)):
        return value
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: rounded(v, digits) for k, v in value.items()}
    return [rounded(v, digits) for v in value]


def _escape(value: Any) -> str:
    return html.escape(str(value))


def _html_table(rows: list[dict]) -> str:
    """Rows as an HTML table (pandas escapes every cell; floats to :data:`DIGITS` decimals), or 'none'."""
    import pandas as pd

    if not rows:
        return "<p><em>none</em></p>"
    return pd.DataFrame(rows).to_html(index=False, escape=True, float_format=lambda x: f"{x:.{DIGITS}f}",
                                      na_rep="")


def _html_cells(row: dict) -> dict:
    return {k: (json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v) for k, v in row.items()}


def to_html(paper: str, out: dict) -> str:
    """A standalone page (no script, no request to another host) holding the trace, numbers rounded for reading."""
    parts = [f"<h1>{_escape(paper)}: explained</h1>"]
    if paper == "entailer":
        from proofbook.entailer.trees import ProofNode, render_html

        parts.append(f"<p>{_escape(out['question'])}</p>")
        for label, option in out["options"].items():
            parts += [f"<h2>({_escape(label)}) {_escape(option)}</h2>",
                      render_html(ProofNode.from_dict(out["trees"][label]), candidates=True,
                                  title=out["hypotheses"][label])]
        parts.append(_html_table([out["answer"]]))
    else:
        for key, value in rounded(out).items():
            parts.append(f"<h2>{_escape(key)}</h2>")
            if isinstance(value, list) and value and isinstance(value[0], dict):
                parts.append(_html_table([_html_cells(row) for row in value]))
            elif isinstance(value, dict):
                parts.append(_html_table([_html_cells(value)]))
            elif isinstance(value, list):
                parts.append("<ul>" + "".join(f"<li>{_escape(v)}</li>" for v in value) + "</ul>"
                             if value else "<p><em>none</em></p>")
            elif value is None:
                parts.append("<p><em>none</em></p>")
            else:
                parts.append(f"<pre>{_escape(value)}</pre>")
    style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:.2em .4em;vertical-align:top;font-size:90%}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_escape(paper)}: explained</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>")


def check_args(paper: str, args) -> None:
    """The options every explainer shares, before any data or model loads: :class:`RefusedInput` for an
    unknown paper, a seed outside ``0 .. 2**32 - 1`` (what numpy's seeding takes) or an ``--html`` path
    that cannot be written."""
    if paper not in TEXT:
        raise RefusedInput(f"unknown paper {paper!r}: expected one of {', '.join(TEXT)}")
    seed = getattr(args, "seed", 0)
    if not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
        raise RefusedInput(f"--seed {seed!r}: expected a whole number from 0 to {2 ** 32 - 1}")
    page = getattr(args, "html", None)
    if page:
        path = Path(page).expanduser()
        if path.is_dir():
            raise RefusedInput(f"--html {page}: is a folder, not a file")
        if not path.parent.is_dir():
            raise RefusedInput(f"--html {page}: the folder {path.parent} does not exist")


def run(paper: str, args) -> dict:
    """Dispatch one ``explain`` command (the parsed arguments of :mod:`proofbook.__main__`)."""
    check_args(paper, args)
    common = dict(data_dir=args.data_dir, smoke=args.smoke, seed=args.seed)
    if paper == "admiral":
        return explain_admiral(args.claim, **common, progress=not args.json, stand_in=getattr(args, "stand_in", False))
    if paper == "entailer":
        return explain_entailer(args.question, args.options or [], **common)
    return explain_wild(args.claim_id, **common, progress=not args.json)


def main(paper: str, args) -> int:
    """Print the trace (text or ``--json``) and write ``--html``; exit status 2 and one line on stderr
    (``explain PAPER: message``, no traceback) for input it refuses (:class:`RefusedInput`)."""
    try:
        out = run(paper, args)
        if args.html:
            try:
                Path(args.html).expanduser().write_text(to_html(paper, out), encoding="utf-8")
            except OSError as err:
                raise RefusedInput(f"--html {args.html}: cannot write it ({err.strerror or err})") from err
    except RefusedInput as err:
        if getattr(args, "debug", False):     # `python -m proofbook --debug explain ...`: the traceback
            raise
        print(f"explain {paper}: {one_line(err)}", file=sys.stderr)
        return 2
    print(json.dumps(out, indent=1, ensure_ascii=False) if args.json else TEXT[paper](out))
    return 0
