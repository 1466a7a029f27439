"""What the Entailer chapters call: training the behaviours (cached), running the systems, the metrics.

Tafjord et al. 2022 (§4-5) evaluate on OBQA test with the systems named in ``entailer/02_experiments``:
``direct``, ``entailer-greedy-d1/d3``, ``entailer-sampled-d1/d3``, ``entailer+direct-d1/d3`` and
``direct-all``, metrics ``accuracy``, ``seconds_per_question`` and ``faithfulness_break``.  These search
systems draw candidate premise sets from the premise generator, as the paper does (``Settings.premise_source``,
default ``generated``).  The stand-ins ``entailer-mixed-*`` (``entailer-mixed-greedy-d1/d3``,
``entailer-mixed-sampled-d1/d3``, ``entailer-mixed+direct-d1/d3``) draw them from a mixed pool of generated
premises and facts retrieved from the fact corpus (:mod:`.proposals`, a departure), and
``entailer-retrieved-sampled-d1`` is the sampled depth-1 search on retrieved facts only.  Also per search
system ``leaf_fallback_share`` (questions where an option had no candidate at all and its direct score stood
in) and, at depth 3, ``deep_tree_share`` (questions whose chosen tree has height 2 or more) and the rows of
:func:`expansion_rows` on the premises the deeper search tried to prove (why depth changes so little).  Premises on
EntailmentBank dev: ``premise_recall`` per source (share of gold premises matched at MiniLM cosine >= 0.8 by a
premise of the set the sampled search keeps for the step's conclusion).

Runs of the systems are cached as JSON (trees included), so the error-analysis chapter reads the very
runs the experiments chapter measured; ``seconds_per_question`` is the time measured when the run was
built (it excludes writing the hypotheses, done once per question for all systems).  The depth-1 and
depth-3 systems of one kind come from one depth-3 search per question (the depth-1 answer is its first
level, timed up to the end of that level): the same trees and times as separate runs, at a third less cost.

**Departure: sampling temperature.**  The paper samples at temperature 2.0 (top-p 0.95) from T5-11B.
Our small premise generator is far less peaked: measured on 32 OBQA dev hypotheses x 6 samples, none of
its samples at temperature 2.0 was even well formed (no ``[PREMISE]``), against all of them at 1.0.
``Settings.temperature`` is therefore 1.0; ``SearchConfig.sampled`` keeps the paper's 2.0, and the method
chapter shows both.

The components the systems run on (training, the cache) are in :mod:`proofbook.entailer.components`, their
settings in :mod:`proofbook.entailer.settings`, the data the chapters read in :mod:`proofbook.entailer.datasets`,
the error analysis in :mod:`proofbook.entailer.analysis`.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from typing import Sequence

from tqdm.auto import tqdm

from proofbook.core import intervals
from proofbook.core.cache import ArtifactCache
from proofbook.data.entailmentbank import one_step_entailments
from proofbook.entailer.components import Components
from proofbook.entailer.search import (QuestionAnswer, SearchConfig, answer_directly, answer_from_dict,
                                       answer_question_depths, answer_to_dict, prove)
from proofbook.entailer.settings import Settings
from proofbook.index.dense import SentenceEmbedder

PAPER = "entailer"
MATCH_COSINE = 0.8
#: the paper's OBQA test accuracies (T5-11B) -- shown beside ours, never written as rows
PAPER_OBQA = {"direct": 0.752, "entailer-greedy-d1": 0.728, "entailer-greedy-d3": 0.690,
              "entailer-sampled-d1": 0.768, "entailer-sampled-d3": 0.748, "entailer+direct-d1": 0.746,
              "entailer+direct-d3": 0.752}
PAPER_FAITHFULNESS_BREAK = 0.168
PAPER_SECONDS = {"entailer-sampled-d1": 80.0, "entailer-sampled-d3": 360.0}
SEARCH_SYSTEMS = ("entailer-greedy-d1", "entailer-greedy-d3", "entailer-sampled-d1", "entailer-sampled-d3")
SYSTEMS = ("direct",) + SEARCH_SYSTEMS + ("entailer+direct-d1", "entailer+direct-d3")
#: the stand-ins: the same systems with premises from the mixed pool (generated and retrieved)
MIXED_SYSTEMS = tuple(name.replace("entailer", "entailer-mixed", 1) for name in SYSTEMS if name != "direct")
#: the premise-source ablations: the sampled depth-1 search with retrieved facts only (the systems above read
#: the source their name gives, else ``Settings.premise_source``)
SOURCE_SYSTEMS = ("entailer-retrieved-sampled-d1",)


# --- data ---------------------------------------------------------------------------------------------


# --- models ------------------------------------------------------------------------------------------


# --- running the systems ---------------------------------------------------------------------------

@dataclass
class SystemRun:
    """The answers of one system on the same questions, with gold labels."""

    system: str
    answers: list
    gold: list

    def predictions(self) -> list[str]:
        """The predicted option label per question: the direct answer for ``direct``, the Entailer+Direct
        answer for ``entailer+direct-*`` (and ``entailer-generated+direct-d1``), else the option with the best
        proof score."""
        if self.system == "direct":
            return [a.direct.label for a in self.answers]
        if is_combination(self.system):
            return [a.combined.label for a in self.answers]
        return [a.entailer.label for a in self.answers]

    @property
    def accuracy(self) -> float:
        return sum(p == g for p, g in zip(self.predictions(), self.gold)) / max(1, len(self.gold))

    @property
    def seconds_per_question(self) -> float:
        return sum(a.seconds for a in self.answers) / max(1, len(self.answers))

    @property
    def leaf_fallback_share(self) -> float:
        """Share of questions with an option that had no candidate premise set (scored by its direct score)."""
        return sum(any(o.fallback for o in a.options) for a in self.answers) / max(1, len(self.answers))

    @property
    def deep_tree_share(self) -> float:
        """Share of questions whose chosen option's tree has height 2 or more (a premise proved in turn)."""
        return sum(a.entailer.tree.height >= 2 for a in self.answers) / max(1, len(self.answers))

    @property
    def faithfulness_break(self) -> float:
        return sum(a.faithfulness_break for a in self.answers) / max(1, len(self.answers))

    def premise_expansions(self) -> list[dict]:
        """Every premise of a chosen top-level set that a deeper search tried to prove in turn, for every option.

        Per premise: its direct confidence c_d = max(s_d, 1 - s_d), the proof score s_r of the best surviving
        candidate (``None`` when every candidate was rejected), and whether the search kept the proof (s_r > c_d).
        Empty for depth-1 runs.  This is why depth can change nothing: a premise keeps its proof only when the
        product of its own premises' scores and an inference score beats the belief it already has.
        """
        rows = []
        for answer in self.answers:
            for option in answer.options:
                for node in option.tree.walk():
                    if node.depth >= 1 and node.candidates:
                        proof = node.proof_score if node.expanded else node.dropped_proof
                        rows.append({"question": answer.question_id, "option": option.label,
                                     "chosen option": option.label == answer.entailer.label, "premise": node.statement,
                                     "direct confidence": node.direct_confidence, "proof": proof,
                                     "kept": node.expanded, "note": node.note})
        return rows


def write_hypotheses(questions, writer) -> list[list[str]]:
    """One hypothesis per option of every question (batched)."""
    stems = [q.stem for q in questions for _ in q.options]
    options = [o.text for q in questions for o in q.options]
    flat = writer.write(stems, options) if stems else []
    out, start = [], 0
    for q in questions:
        out.append(flat[start:start + len(q.options)])
        start += len(q.options)
    return out


def run_system(system: str, questions, hypotheses, components: Components, settings: Settings,
                memory=None, progress: bool = True) -> list[QuestionAnswer]:
    """One system on every question (for a search system: one search per question at its depth)."""
    return _run_family(system, [system], questions, hypotheses, components, settings, memory, progress)[system]


def _run_family(label: str, systems: Sequence[str], questions, hypotheses, components: Components,
                settings: Settings, memory=None, progress: bool = True) -> dict[str, list[QuestionAnswer]]:
    """``direct``, or search systems of one kind at several depths from one search per question."""

    out: dict[str, list[QuestionAnswer]] = {system: [] for system in systems}
    depths = {system: int(system.rsplit("-d", 1)[1]) for system in systems if system != "direct"}
    config = replace(settings.search(systems[-1]), max_depth=max(depths.values())) if depths else None
    model = components.behaviours(settings.source(systems[-1])) if depths else components.model
    for q, hs in tqdm(list(zip(questions, hypotheses)), desc=label, unit="q", file=sys.stderr,
                      disable=not progress, leave=False):
        options = [(o.label, o.text) for o in q.options]
        if not depths:
            out["direct"].append(answer_directly(q.id, options, hs, components.model, memory))
            continue
        answers = answer_question_depths(q.id, options, hs, model, config, sorted(set(depths.values())), memory)
        for system, depth in depths.items():
            out[system].append(answers[depth])
    return out


#: bumped when the stored trees gain a field (2: ``ProofNode.dropped_proof``), so that older cached runs are rebuilt
TREE_FORMAT = 2

FAMILIES = {"direct": ("direct",),
            **{f"{name}-{search}": (f"{name}-{search}-d1", f"{name}-{search}-d3")
               for name in ("entailer", "entailer-mixed") for search in ("greedy", "sampled")},
            **{system.rsplit("-d", 1)[0]: (system,) for system in SOURCE_SYSTEMS}}


def run_systems(questions, components: Components, settings: Settings, dataset: str, split: str, cache=None,
                families: Sequence[str] = tuple(FAMILIES), progress: bool = True) -> dict[str, SystemRun]:
    """Every system on the same questions, cached as JSON; Entailer+Direct from the sampled and direct runs.

    Greedy (and sampled) search at depths 1 and 3 come from one depth-3 search per question (see
    :func:`proofbook.entailer.search.prove_depths`): the depth-1 answer and its time are those of
    the first level of that search.
    """

    cache = cache or ArtifactCache()
    hypotheses = write_hypotheses(questions, components.writer)
    gold = [q.answer_key for q in questions]
    runs = {}
    for family in families:
        systems = FAMILIES[family]
        source = settings.source(systems[-1])
        search = settings.search_settings(source).cache_config() if family != "direct" else {}
        config = {"family": family, "dataset": dataset, "split": split, "questions": [q.id for q in questions],
                  "tree_format": TREE_FORMAT,
                  "hypotheses": hypotheses, "models": components.keys, "search": search}
        stored = cache.cache_json("entailer-run", config, lambda systems=systems, family=family: {
            system: [answer_to_dict(a) for a in answers] for system, answers in _run_family(
                family, systems, questions, hypotheses, components, settings, progress=progress).items()})
        for system in systems:
            runs[system] = SystemRun(system, [answer_from_dict(a) for a in stored[system]], gold)
    direct = runs.get("direct")
    for proof_system, system in COMBINATIONS:
        sampled = runs.get(proof_system)
        if sampled is None or direct is None:
            continue
        combined = [replace(proof, seconds=proof.seconds + plain.seconds)
                    for proof, plain in zip(sampled.answers, direct.answers)]
        runs[system] = SystemRun(system, combined, gold)
    return runs


#: Entailer+Direct: (the proof system, the combination's name) -- the sampled search at depths 1 and 3, on the
#: paper's generated premises and on the mixed pool
COMBINATIONS = tuple((f"{name}-sampled-d{depth}", f"{name}+direct-d{depth}")
                     for name in ("entailer", "entailer-mixed") for depth in (1, 3))


def is_combination(system: str) -> bool:
    """Whether ``system`` is an Entailer+Direct combination (:data:`COMBINATIONS`)."""
    return system in {name for _, name in COMBINATIONS}


#: the paired comparisons ``A-vs-B`` of the chapter (on the same questions), for the paper's generated premises
#: and for the mixed pool: proof against direct answering ("no accuracy penalty"), sampling against greedy
#: search, depth 1 against depth 3, and the combination against direct; and the premise sources against each other
COMPARISONS = tuple(pair for name in ("entailer", "entailer-mixed") for pair in (
    (f"{name}-sampled-d1", "direct"), (f"{name}-sampled-d1", f"{name}-greedy-d1"),
    (f"{name}-sampled-d1", f"{name}-sampled-d3"), (f"{name}-greedy-d1", f"{name}-greedy-d3"),
    (f"{name}+direct-d1", "direct"))) + (("entailer-sampled-d1", "entailer-mixed-sampled-d1"),
                                          ("entailer-sampled-d1", "entailer-retrieved-sampled-d1"))


def run_rows(runs: dict[str, SystemRun], dataset: str, split: str, seed: int = 0) -> list[dict]:
    """Accuracy (with its 95% bootstrap interval), seconds per question, the faithfulness break (with its
    interval) and the paired accuracy differences of :data:`COMPARISONS`."""

    base = dict(dataset=dataset, split=split)
    correct = {system: [float(p == g) for p, g in zip(run.predictions(), run.gold)] for system, run in runs.items()}
    rows = []
    for system, run in runs.items():
        n = len(run.answers)
        rows += intervals.mean_rows({**base, "system": system}, "accuracy", correct[system], seed)
        rows.append(dict(**base, system=system, metric="seconds_per_question", value=run.seconds_per_question, n=n))
        if system != "direct" and not is_combination(system):
            rows.append(dict(**base, system=system, metric="leaf_fallback_share", value=run.leaf_fallback_share, n=n))
            if system.endswith("-d3"):
                rows.append(dict(**base, system=system, metric="deep_tree_share", value=run.deep_tree_share, n=n))
                rows += expansion_rows(run, base)
        if is_combination(system):
            breaks = [float(a.faithfulness_break) for a in run.answers]
            rows += intervals.mean_rows({**base, "system": system}, "faithfulness_break", breaks, seed)
            if "direct" in runs:
                same = [float(p == d) for p, d in zip(run.predictions(), runs["direct"].predictions())]
                rows += intervals.mean_rows({**base, "system": system}, "same_answer_as_direct", same, seed)
    for a, b in COMPARISONS:
        if a in correct and b in correct:
            rows += intervals.difference_rows(base, a, b, "accuracy", correct[a], correct[b], seed)
    return rows


def expansion_rows(run: SystemRun, base: dict) -> list[dict]:
    """Rows on the premises a deeper search tried to prove (:meth:`SystemRun.premise_expansions`):
    ``premise_expansions`` (how many), ``premise_proof_kept_share`` (proofs kept, s_r > c_d),
    ``premise_no_survivor_share`` (every candidate rejected) and ``premise_proof_gap`` (mean c_d - s_r over
    premises with a surviving candidate); ``n`` is the number of premises."""
    expansions = run.premise_expansions()
    n = len(expansions)
    rows = [dict(**base, system=run.system, metric="premise_expansions", value=n, n=len(run.answers))]
    if not n:
        return rows
    proved = [e for e in expansions if e["proof"] is not None]
    rows.append(dict(**base, system=run.system, metric="premise_proof_kept_share",
                     value=sum(e["kept"] for e in expansions) / n, n=n))
    rows.append(dict(**base, system=run.system, metric="premise_no_survivor_share", value=1 - len(proved) / n, n=n))
    if proved:
        rows.append(dict(**base, system=run.system, metric="premise_proof_gap",
                         value=sum(e["direct confidence"] - e["proof"] for e in proved) / len(proved), n=len(proved)))
    return rows


def chance_row(questions, dataset: str, split: str) -> dict:
    """The accuracy of guessing uniformly among each question's options (OBQA: 1/4; QASC: 1/8)."""
    if not questions:
        raise ValueError(f"{dataset} {split}: no questions")
    value = sum(1 / len(q.options) for q in questions) / len(questions)
    return dict(dataset=dataset, split=split, system="chance", metric="accuracy", value=value, n=len(questions))


def combined_text(same_share: float, break_share: float) -> str:
    """What Entailer+Direct did, from its share of answers equal to ``direct``'s and of faithfulness breaks."""
    if same_share == 1.0:
        return ("it gave `direct`'s answer on every question: the combination collapsed into `direct` (the "
                "direct score outweighs the proof score wherever they disagree), so every disagreement between "
                f"proof and answer is a faithfulness break ({break_share:.0%} of the questions)")
    return (f"it gave `direct`'s answer on {same_share:.0%} of the questions and broke faithfulness on "
            f"{break_share:.0%}")


def chance_text(results, system: str, data: Sequence[tuple[str, str]]) -> str:
    """``system``'s accuracy with its 95% interval on each ``(dataset, split)`` of ``data``, and where the
    interval lies against chance: ``"obqa dev: 0.550 [0.450, 0.650], above chance (0.250); ..."``."""
    parts = []
    for dataset, split in data:
        level = results.value(dataset, split, "chance", "accuracy")
        value, low, high = (results.value(dataset, split, system, "accuracy" + bound)
                            for bound in ("", intervals.LOW, intervals.HIGH))
        parts.append(f"{dataset} {split}: {value:.3f} [{low:.3f}, {high:.3f}], "
                     f"{intervals.relation(low, high, level)} chance ({level:.3f})")
    return "; ".join(parts)


def comparison_glue(results, data: Sequence[tuple[str, str]], n_questions: int) -> dict[str, object]:
    """The experiments chapter's numbers as its text shows them: ``{glue name: value}``, on the first
    ``(dataset, split)`` of ``data`` (``n_questions`` questions) unless said otherwise.

    Per system of :data:`SYSTEMS`, :data:`MIXED_SYSTEMS` and :data:`SOURCE_SYSTEMS` its accuracy (``acc_<system>``) and seconds per
    question (``sec_<system>``); the sampled depth-1 search's gap to ``direct``, its leaf fallback share and
    Entailer+Direct's faithfulness breaks at depth 1 (with the paper's); ``direct`` and the sampled depth-1
    search against chance on every ``(dataset, split)`` of ``data`` (:func:`chance_text`).
    """
    dataset, split = data[0]

    def value(system: str, metric: str) -> float:
        return results.value(dataset, split, system, metric)

    values: dict[str, object] = {}
    for system in SYSTEMS + MIXED_SYSTEMS + SOURCE_SYSTEMS:
        values[f"acc_{system}"] = f"{value(system, 'accuracy'):.3f}"
        values[f"sec_{system}"] = f"{value(system, 'seconds_per_question'):.2f}"
    values["gap_sampled_direct"] = f"{value('entailer-sampled-d1', 'accuracy') - value('direct', 'accuracy'):+.3f}"
    values["break_d1"] = f"{value('entailer+direct-d1', 'faithfulness_break'):.3f}"
    values["combined_d1"] = combined_text(value("entailer+direct-d1", "same_answer_as_direct"),
                                          value("entailer+direct-d1", "faithfulness_break"))
    for system in ("direct", "entailer-sampled-d1"):
        values[f"{system}_vs_chance"] = chance_text(results, system, data)
    values.update({"paper_break": f"{PAPER_FAITHFULNESS_BREAK:.3f}", "n_questions": n_questions,
                   "fallback_d1": f"{value('entailer-sampled-d1', 'leaf_fallback_share'):.3f}",
                   "first_data": f"{dataset} {split}"})
    return values


def direct_all(questions, components: Components, batch_size: int = 256, progress: bool = True) -> tuple[float, float]:
    """``direct-all``: accuracy and seconds per question of ``direct`` on every question (batched scoring)."""
    start = time.perf_counter()
    hypotheses = write_hypotheses(questions, components.writer)
    flat = [h for hs in hypotheses for h in hs]
    pairs = [components.model.truth_context.pair(h) for h in flat]
    probabilities = components.model.truth_scorer.predict_proba(pairs, batch_size=batch_size, progress=progress)[:, 1]
    correct, at = 0, 0
    for q, hs in zip(questions, hypotheses):
        scores = probabilities[at:at + len(hs)]
        at += len(hs)
        correct += q.options[int(scores.argmax())].label == q.answer_key
    seconds = time.perf_counter() - start
    return correct / max(1, len(questions)), seconds / max(1, len(questions))


def sampling_check(components: Components, hypotheses: Sequence[str], k: int, seed: int = 0,
                   settings: Sequence[tuple[float, float]] = ((2.0, 0.95), (1.0, 0.95))) -> list[dict]:
    """How many of k nucleus samples per hypothesis are well-formed premise sets, per (temperature, top-p)."""
    rows = []
    for temperature, top_p in settings:
        before = components.model.malformed
        sets = components.model.generate_premises(list(hypotheses), k, True, temperature, top_p, seed)
        good = sum(len(s) for s in sets)
        rows.append({"temperature": temperature, "top-p": top_p, "samples": good + components.model.malformed - before,
                     "well-formed": good, "example": " | ".join(next((s[0] for s in sets if s), []))})
    return rows


# --- premise recall on EntailmentBank -------------------------------------------------------------------

def premise_recall(components: Components, trees, source: str, config: SearchConfig, embedder=None,
                   batch_size: int = 32, progress: bool = True) -> tuple[float, int, list]:
    """Share of gold premises (over all one-step entailments) matched at MiniLM cosine >= 0.8 by a premise of
    the set the search keeps for the step's conclusion: the top level of ``config``'s search, with premises
    from ``source`` (:mod:`.proposals`).  Returns (recall, number of gold premises, examples)."""


    embedder = embedder or SentenceEmbedder("minilm")
    model = components.behaviours(source)
    one_level = replace(config, max_depth=1)
    steps = [e for t in trees for e in one_step_entailments(t)]
    generated = []
    for first in tqdm(range(0, len(steps), batch_size), desc=f"premise recall ({source})", unit="batch",
                      file=sys.stderr, disable=not progress, leave=False):
        kept = prove([e.conclusion for e in steps[first:first + batch_size]], model, one_level)
        generated += [[p.statement for p in tree.premises] for tree in kept]
    matched, total, examples = 0, 0, []
    gold_texts = [p for e in steps for p in e.premises]
    gen_texts = [p for g in generated for p in g]
    gold_vectors = embedder.encode(gold_texts, progress=False) if gold_texts else None
    gen_vectors = embedder.encode(gen_texts, progress=False) if gen_texts else None
    gi = pi = 0
    for e, g in zip(steps, generated):
        gold = gold_vectors[gi:gi + len(e.premises)]
        gi += len(e.premises)
        gen = gen_vectors[pi:pi + len(g)] if g else None
        pi += len(g)
        hits = (gold @ gen.T).max(axis=1) >= MATCH_COSINE if g else [False] * len(e.premises)
        matched += int(sum(hits))
        total += len(e.premises)
        if len(examples) < 8:
            examples.append({"conclusion": e.conclusion, "gold premises": " | ".join(e.premises),
                             "kept premises": " | ".join(g), "matched": f"{int(sum(hits))}/{len(e.premises)}"})
    return matched / max(1, total), total, examples


# --- error analysis ----------------------------------------------------------------------------------


# --- the belief memory demonstration ---------------------------------------------------------------------


