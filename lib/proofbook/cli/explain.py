"""``python -m proofbook explain``: one claim or question through a paper's method, step by step.

The book's method chapters walk one example through each pipeline; this is the same walk for a claim or
question of the reader's own, on the command line, with the models that ``make book`` trained and cached:

- ``explain admiral "CLAIM"``: AdMIRaL's retrieval loop on HoVer's pooled corpus (Aly & Vlachos 2022, §3):
  BM25's pages, the titles generated from the claim (the GENRE step), the reranked sentences, each hop's
  beams (titles with their scores and sentence pointers) and new sentences, the natural-logic sufficiency
  decision after every iteration with its proofs (§3.3: the loop stops when the evidence suffices), and
  the final ranking;
- ``explain entailer "QUESTION" --options A B ...``: Entailer (Tafjord et al. 2022, §3): one hypothesis per
  option, the candidate premise sets of each with their scores and why a set was rejected, the chosen
  tree per option, and the three answers (Entailer, direct, Entailer+Direct);
- ``explain wild --claim-id ID``: the five stages of claims in the wild (Chen et al. 2023, §3) for a
  ClaimDecomp claim: questions, search results and the filters, fine-grained passages, claim-focused
  summaries, and the veracity classifier's six-way probabilities in every evidence condition.

Each prints text; ``--json`` prints the same trace as JSON and ``--html FILE`` writes it as a standalone
page with the book's renderers.  The models come from the artifact cache only (:class:`LoadOnlyCache`):
when one is missing the command stops with :class:`MissingModels`, naming what to run.  ``--smoke`` trains
the chapters' smoke-size models instead (seconds; their answers mean nothing), which is what the tests use.

Each command imports its paper's package inside the function that runs it (heavy and optional: a paper's
modules load torch, transformers and its models' code, and a command needs one paper only).
"""
from __future__ import annotations

import dataclasses
import html
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from proofbook.core.cache import ArtifactCache
from proofbook.render.chapter import sized_settings

#: what each explainer needs ``make book`` to have cached, for the error message
BUILT_BY = {"admiral": "make book (the chapters admiral/02_experiments and admiral/05_natural_logic)",
            "entailer": "make book (the chapter entailer/01_method)",
            "wild": "make book (the chapter wild/01_method)"}


class MissingModels(RuntimeError):
    """A model or index that the explainer loads is not in the artifact cache."""


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
    """The text stripped; a ValueError for an empty text or one the models' tokenizer reads as unknown
    tokens only (a script or emoji missing from MiniLM's vocabulary)."""
    from proofbook.models.loading import load_tokenizer

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"the {what} is empty")
    tokenizer = load_tokenizer("minilm")
    tokens = tokenizer.tokenize(text)
    if not tokens or all(token == tokenizer.unk_token for token in tokens):
        raise ValueError(f"the {what} {text!r} has no word the models know: MiniLM's tokenizer maps all of it to "
                         f"{tokenizer.unk_token} (a script or symbols outside its English vocabulary)")
    return text.strip()


def _cache(smoke: bool, paper: str, cache: ArtifactCache | None) -> ArtifactCache:
    if cache is not None:
        return cache
    return ArtifactCache() if smoke else LoadOnlyCache(paper=paper)


def _sentence(sentence, score: float | None = None) -> dict:
    row = {"title": sentence.title, "sentence": sentence.index, "text": sentence.text}
    return row if score is None else {**row, "score": round(float(score), 4)}


def _beam(beam) -> dict:
    return {"title": beam.title, "score": round(float(beam.score), 4), "pointers": list(getattr(beam, "pointers", ()))}


# --- AdMIRaL ---------------------------------------------------------------------------------------

def explain_admiral(claim: str, data_dir=None, smoke: bool = False, seed: int = 0,
                    cache: ArtifactCache | None = None, progress: bool = True) -> dict:
    """AdMIRaL's loop on HoVer's corpus for ``claim``, stopping when the natural-logic rule finds the
    evidence sufficient (at most :class:`~proofbook.admiral.prover.experiments.SufficiencySettings` ``iterations``)."""

    from proofbook.core.paths import resolve_data_dir
    from proofbook.admiral.prover.experiments import SufficiencySettings, train_prover
    from proofbook.admiral.prover.stopping import selections
    from proofbook.admiral.retrieval import experiments
    from proofbook.admiral.retrieval.tasks import load_task, smoke_task

    claim = check_text(claim, "claim")
    data_path = resolve_data_dir(data_dir)
    cache = _cache(smoke, "admiral", cache)
    tasks = [load_task(name, data_path) for name in ("hover", "feverous_s")]
    if smoke:
        tasks = [smoke_task(task, seed=seed) for task in tasks]
    settings = sized_settings(experiments.TrainingSettings, seed, smoke)
    suff_settings = sized_settings(SufficiencySettings, seed, smoke)
    components = experiments.train_components(tasks, settings, cache)
    prover = train_prover(tasks, suff_settings, data_path, cache, progress=progress)
    rule = prover.natlog(suff_settings, tasks[0].dataset)
    config = dataclasses.replace(experiments.book_config(smoke), iterations=suff_settings.iterations)
    retriever = experiments.build_admiral(tasks[0], components, config, sufficiency=rule)
    start = time.perf_counter()
    trace = retriever.retrieve(claim)
    decisions = rule.decide_many([claim] * trace.iterations, selections(trace, config.top_sentences))
    seconds = time.perf_counter() - start
    return {
        "claim": claim, "corpus": f"{tasks[0].dataset} ({len(tasks[0].corpus.titles)} pages)",
        "bm25": [{"title": t, "score": round(float(s), 4)} for t, s in trace.bm25[:10]],
        "genre": [_beam(b) for b in trace.genre],
        "reranked_documents": list(trace.reranked_documents),
        "selected": [_sentence(s, score) for s, score in trace.initial_selected],
        "hops": [{"iteration": hop.iteration, "input_sentences": [_sentence(s) for s in hop.input_sentences],
                  "beams": [_beam(b) for b in hop.beams[:12]], "new_documents": list(hop.new_documents),
                  "new_sentences": [_sentence(s, score) for s, score in hop.new_sentences[:5]]} for hop in trace.hops],
        "sufficiency": [{"iteration": i + 1, "sufficient": d.sufficient, "threshold": round(rule.threshold, 4),
                         "score": None if d.score is None else round(d.score, 4),
                         "proofs": [p.to_text() for p in d.proofs], "kept": len(d.kept)}
                        for i, d in enumerate(decisions)],
        "stopped_by_sufficiency": trace.stopped_by_sufficiency, "iterations": trace.iterations,
        "ranking": trace.ranking()[:10], "seconds": round(seconds, 3),
    }


def _admiral_text(out: dict) -> str:
    lines = [f"claim: {out['claim']}", f"corpus: {out['corpus']}", "", "BM25 (top 10):"]
    lines += [f"  {r['score']:8.3f}  {r['title']}" for r in out["bm25"]]
    lines += ["", "titles generated from the claim (GENRE step):"]
    lines += [f"  {b['score']:8.3f}  {b['title']}" for b in out["genre"]] or ["  (none)"]
    lines += ["", "iteration 1: reranked documents: " + "; ".join(out["reranked_documents"]), "selected sentences:"]
    lines += [f"  {s['score']:.3f}  [{s['title']} {s['sentence']}] {s['text']}" for s in out["selected"]]
    for hop, decision in zip([None] + out["hops"], out["sufficiency"]):
        if hop is not None:
            lines += ["", f"iteration {hop['iteration']}: beams (title, score, pointers):"]
            lines += [f"  {b['score']:8.3f}  {b['title']}  {' '.join(f'E{p}' for p in b['pointers'])}"
                      for b in hop["beams"]] or ["  (no beam: no candidate title)"]
            lines += ["  new documents: " + ("; ".join(hop["new_documents"]) or "(none)"), "  new sentences:"]
            lines += [f"    {s['score']:.3f}  [{s['title']} {s['sentence']}] {s['text']}" for s in hop["new_sentences"]]
        verdict = "sufficient" if decision["sufficient"] else "not sufficient"
        why = (f"score {decision['score']} against the threshold {decision['threshold']}"
               if decision.get("score") is not None else
               f"{decision['kept']} of {len(decision['proofs'])} proofs above {decision['threshold']}")
        lines += [f"  sufficiency after iteration {decision['iteration']}: {verdict} ({why})"]
        if decision["proofs"]:
            lines += ["    " + line for line in decision["proofs"][0].splitlines()]
    stop = "the evidence was judged sufficient" if out["stopped_by_sufficiency"] else "the iteration limit"
    lines += ["", f"stopped after {out['iterations']} iteration(s): {stop}", "final ranking:"]
    lines += [f"  {i + 1:2d}. {title}" for i, title in enumerate(out["ranking"])]
    lines.append(f"({out['seconds']:.2f} s for the claim)")
    return "\n".join(lines)


# --- Entailer --------------------------------------------------------------------------------------

def check_options(options: Sequence[str]) -> list[str]:
    """The search's checks (at least two options, none empty) before any model loads, and no two options
    the same (ignoring case and spaces), which would make the question unanswerable."""
    from proofbook.entailer import search

    options = [o.strip() if isinstance(o, str) else o for o in options]
    labelled = [(chr(ord("A") + i), o) for i, o in enumerate(options)]
    search.check_options(labelled)
    seen: dict[str, str] = {}
    for label, option in labelled:
        key = " ".join(option.lower().split())
        if key in seen:
            raise ValueError(f"options {seen[key]!r} and {label!r} are the same: {option!r}")
        seen[key] = label
    return options


def explain_entailer(question: str, options: Sequence[str], data_dir=None, smoke: bool = False, seed: int = 0,
                     cache: ArtifactCache | None = None, system: str = "entailer-sampled-d1") -> dict:
    """Entailer's trees for a question of one's own (options labelled A, B, ...)."""
    from proofbook.core.paths import resolve_data_dir
    from proofbook.data.science_qa import Option, Question
    from proofbook.entailer import experiments
    from proofbook.entailer.components import Settings, build_components
    from proofbook.entailer.search import answer_question

    question = check_text(question, "question")
    options = check_options(options)
    for option in options:
        check_text(option, "option")
    settings = sized_settings(Settings, seed, smoke)
    components = build_components(resolve_data_dir(data_dir), settings, _cache(smoke, "entailer", cache))
    labelled = [Option(chr(ord("A") + i), text) for i, text in enumerate(options)]
    item = Question("explain", question, labelled, answer_key="", source="command line")
    [hypotheses] = experiments.write_hypotheses([item], components.writer)
    answer = answer_question(item.id, [(o.label, o.text) for o in labelled], hypotheses,
                             components.behaviours(settings.source(system)), settings.search(system))
    candidates = {o.label: [{"premises": list(c.premises), "premise_scores": [round(s, 4) for s in c.premise_scores],
                             "entailment": round(c.entailment, 4), "score": round(c.score, 4), "rejected": c.rejected}
                            for c in o.tree.candidates] for o in answer.options}
    return {
        "question": question, "system": system, "writer": components.writer.name,
        "options": {o.label: o.option for o in answer.options},
        "hypotheses": {o.label: o.hypothesis for o in answer.options},
        "candidates": candidates,
        "trees": {o.label: o.tree.to_dict() for o in answer.options},
        "scores": {o.label: {"direct": round(o.direct, 4), "proof": round(o.proof_score, 4)} for o in answer.options},
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
                  f"(premises {', '.join(f'{s:.2f}' for s in c['premise_scores'])}; entailment {c['entailment']:.2f})"
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

def find_claim(data, claim_id: str):
    """The ClaimDecomp claim with this ``example_id`` (as written in the files, compared as text)."""
    for split, claims in data.claimdecomp.items():
        for claim in claims:
            if str(claim.example_id) == str(claim_id).strip():
                return claim
    splits = ", ".join(f"{s} ({len(c)} claims)" for s, c in data.claimdecomp.items())
    raise ValueError(f"unknown claim id {claim_id!r}: no ClaimDecomp claim of {data.root} has it (splits {splits})")


def _records(frame) -> list[dict]:
    return json.loads(frame.reset_index().to_json(orient="records"))


def explain_wild(claim_id: str, data_dir=None, smoke: bool = False, seed: int = 0,
                 cache: ArtifactCache | None = None, progress: bool = True) -> dict:
    """The five stages of claims in the wild for one ClaimDecomp claim (cached search results)."""
    from proofbook.wild import experiments
    from proofbook.wild.datasets import load_data
    from proofbook.wild.pipeline import replay_pipeline
    from proofbook.wild.tables import predictions_frame, search_frame, spans_frame, summaries_frame, windows_frame
    from proofbook.wild.decomposition import AnnotatedQuestions

    if not isinstance(claim_id, str) or not claim_id.strip():
        raise ValueError("the claim id is empty")
    data = load_data(data_dir)
    claim = find_claim(data, claim_id)
    settings = sized_settings(experiments.WildSettings, seed, smoke)
    models = experiments.train_models(data, settings, _cache(smoke, "wild", cache), progress=progress)
    start = time.perf_counter()
    trace = replay_pipeline(data, models).run(claim)
    probabilities = experiments.predict_conditions(models, claim, trace)
    seconds = time.perf_counter() - start
    return {
        "claim": {"id": str(claim.example_id), "text": claim.claim, "speaker": f"{claim.person} {claim.venue}",
                  "gold": claim.label},
        "questions": {"annotated": AnnotatedQuestions().questions(claim),
                      "searched (cached LLM questions)": data.cached_questions.get(claim.example_id, [])},
        "search": _records(search_frame(data, claim)),
        "passages": {"windows": _records(windows_frame(trace)),
                     "spans": _records(spans_frame(trace)), "documents": list(trace.retrieval.documents)},
        "summaries": _records(summaries_frame(trace)),
        "veracity": _records(predictions_frame(probabilities)),
        "seconds": round(seconds, 3),
    }


def _table_text(rows: list[dict], width: int = 100) -> list[str]:
    if not rows:
        return ["  (none)"]
    return ["  " + " | ".join(f"{k}: {str(v)[:width]}" for k, v in row.items()) for row in rows]


def _wild_text(out: dict) -> str:
    claim = out["claim"]
    lines = [f"claim {claim['id']}: {claim['text']}", f"speaker: {claim['speaker']}; gold label: {claim['gold']}"]
    for name, questions in out["questions"].items():
        lines += ["", f"questions ({name}):"] + [f"  - {q}" for q in questions] if questions else \
            ["", f"questions ({name}): (none)"]
    lines += ["", "search results and the filters:"] + _table_text(out["search"][:15])
    lines += ["", "fine-grained passages (kept windows):"] + _table_text(out["passages"]["windows"][:10])
    lines += ["", "claim-focused summaries:"] + _table_text(out["summaries"], width=300)
    lines += ["", "veracity (probability of each label, per evidence condition):"] + _table_text(out["veracity"])
    lines.append(f"({out['seconds']:.2f} s for the claim)")
    return "\n".join(lines)


# --- output ----------------------------------------------------------------------------------------

TEXT = {"admiral": _admiral_text, "entailer": _entailer_text, "wild": _wild_text}


def _escape(value: Any) -> str:
    return html.escape(str(value))


def _html_table(rows: list[dict]) -> str:
    """Rows as an HTML table (pandas escapes every cell), or 'none'."""
    import pandas as pd

    return pd.DataFrame(rows).to_html(index=False, escape=True) if rows else "<p><em>none</em></p>"


def to_html(paper: str, out: dict) -> str:
    """A standalone page (no script, no request to another host) holding the trace."""
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
        for key, value in out.items():
            parts.append(f"<h2>{_escape(key)}</h2>")
            if isinstance(value, list) and value and isinstance(value[0], dict):
                parts.append(_html_table([{k: (json.dumps(v) if isinstance(v, (list, dict)) else v)
                                           for k, v in row.items()} for row in value]))
            elif isinstance(value, dict):
                parts.append(_html_table([{k: (json.dumps(v) if isinstance(v, (list, dict)) else v)
                                           for k, v in value.items()}]))
            else:
                parts.append(f"<pre>{_escape(value)}</pre>")
    style = ("body{font-family:sans-serif;max-width:70em;margin:2em auto}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:.2em .4em;vertical-align:top;font-size:90%}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_escape(paper)}: explained</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>")


def run(paper: str, args) -> dict:
    """Dispatch one ``explain`` command (the parsed arguments of :mod:`proofbook.__main__`)."""
    common = dict(data_dir=args.data_dir, smoke=args.smoke, seed=args.seed)
    if paper == "admiral":
        return explain_admiral(args.claim, **common, progress=not args.json)
    if paper == "entailer":
        return explain_entailer(args.question, args.options or [], **common)
    return explain_wild(args.claim_id, **common, progress=not args.json)


def main(paper: str, args) -> int:
    """Print the trace (text or ``--json``) and write ``--html``; a clear one-line error on bad input."""

    try:
        out = run(paper, args)
    except (ValueError, MissingModels) as err:
        print(f"explain {paper}: {err}", file=sys.stderr)
        return 2
    if args.html:
        Path(args.html).write_text(to_html(paper, out), encoding="utf-8")
    print(json.dumps(out, indent=1, ensure_ascii=False) if args.json else TEXT[paper](out))
    return 0
