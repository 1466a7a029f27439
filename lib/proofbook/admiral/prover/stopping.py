"""When to stop retrieving: the truth at each decision point and the stopping simulation (AdMIRaL §3.4, Table 6).

AdMIRaL runs its retrieval loop until the sufficiency check says the selected evidence suffices, or a limit
of iterations is reached.  The book measures each stopping rule on cached multi-hop traces instead of rerunning
retrieval: :func:`simulate_stopping` replays a trace iteration by iteration, asks the rule at each iteration
whether the top sentences selected so far suffice, and stops there (:class:`StoppingRun`).

The truth at a decision point (:func:`selection_is_sufficient`): HoVer -- the selected sentences contain every
gold sentence; FEVEROUS-S, whose pages hold only gold sentences -- the selected sentences' pages cover every
gold page (page recall).  :func:`decision_points` lists the points where a rule is asked, with their
truth, without deciding.  :func:`stopping_metrics` gives recall@5 at the stopping point, the iterations used
and the decisions' precision, recall, F1 and balanced accuracy; :func:`stopping_differences` the paired
differences of ``suff-natlog`` and ``suff-aligned`` against each other rule, with bootstrap intervals; :func:`error_kind` sorts a
wrong decision of a natural-logic rule into alignment, operator, automaton or no-proof errors.
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from tqdm.auto import tqdm

from proofbook.admiral.prover.natlog import NEI, span_position
from proofbook.admiral.prover.sufficiency import Decision
from proofbook.admiral.retrieval.metrics import recall_at_k
from proofbook.core import intervals
from proofbook.core.corpus import Sentence


def selection_is_sufficient(claim, sentences: Sequence[Sentence], dataset: str) -> bool:
    """Whether the selected sentences hold a full gold evidence set (module docstring)."""
    if dataset.startswith("feverous_s") or not claim.gold_sentences:
        return set(claim.gold_titles) <= {s.title for s in sentences}
    return set(claim.gold_sentences) <= {s.id for s in sentences}


def selections(trace, top_sentences: int = 5) -> list[list[Sentence]]:
    """The selected sentences after each iteration of a trace (1, 2, ...), as the loop computed them."""
    current = list(trace.initial_selected)
    out = [[s for s, _ in current]]
    for hop in trace.hops:
        current = sorted(current + hop.new_sentences, key=lambda pair: -pair[1])[:top_sentences]
        out.append([s for s, _ in current])
    return out


def selection_truth(claims, per_claim: Sequence[Sequence[Sequence[Sentence]]], dataset: str) -> list[list[bool]]:
    """For each claim, whether each of its selections is sufficient (:func:`selection_is_sufficient`)."""
    return [[selection_is_sufficient(claim, selected, dataset) for selected in sels]
            for claim, sels in zip(claims, per_claim)]


def decision_points(traces, claims, dataset: str, limit: int = 3, top_sentences: int = 5) -> list[tuple]:
    """Every point where the loop would ask the sufficiency check, as :func:`simulate_stopping` asks it:
    ``(claim text, selected sentences, truly sufficient)`` after iterations 1 .. ``limit`` - 1 of each trace (as
    far as the trace goes), claim by claim."""
    sels = [selections(trace, top_sentences)[:limit - 1] for trace in traces]
    truth = selection_truth(claims, sels, dataset)
    return [(trace.claim, selected, sufficient) for trace, per, flags in zip(traces, sels, truth)
            for selected, sufficient in zip(per, flags)]


def truncated(trace, iterations: int, top_sentences: int = 5):
    """The trace as if the loop had stopped after ``iterations`` (the loop is deterministic given its state)."""
    chosen = selections(trace, top_sentences)[iterations - 1]
    kept = trace.hops[:iterations - 1]
    scored = {s.id: score for hop in [None] + kept for s, score in
              (trace.initial_selected if hop is None else hop.new_sentences)}
    return dataclasses.replace(trace, hops=list(kept), selected=[(s, scored.get(s.id, 0.0)) for s in chosen],
                               stopped_by_sufficiency=iterations < trace.iterations)


@dataclass
class StoppingRun:
    """What one sufficiency system did on a set of traces."""

    system: str
    stops: list[int]                                   # iterations run, per claim
    decisions: list[list[tuple[bool, bool]]]           # per claim: (decided sufficient, truly sufficient) per point
    rankings: dict[str, list[str]]
    details: list[list[Decision]]
    seconds_per_decision: float = 0.0


Decide = Callable[[Sequence[str], Sequence[Sequence[Sentence]]], list[Decision]]


def fixed_rule(stop_after: int) -> Decide:
    """``suff-always`` (1), ``fixed-2`` (2), ``suff-never`` (a number past the limit)."""
    def decide(claims, sels, iteration=None):
        return [Decision(iteration is not None and iteration >= stop_after) for _ in claims]
    decide.needs_iteration = True
    return decide


def simulate_stopping(system: str, traces, claims, dataset: str, decide, limit: int = 3, top_sentences: int = 5,
                      progress: bool = False) -> StoppingRun:
    """Run a sufficiency decision on traces made to ``limit`` iterations without stopping, claim by
    claim as the loop would: at iterations 1..limit-1 decide; stop at the first "sufficient".

    ``decide`` is a hook's ``decide_many``, :func:`fixed_rule`, or ``"oracle"``.
    """
    sels = [selections(t, top_sentences) for t in traces]
    truth = selection_truth(claims, sels, dataset)
    stops = [None] * len(traces)
    decisions: list[list[tuple[bool, bool]]] = [[] for _ in traces]
    details: list[list[Decision]] = [[] for _ in traces]
    seconds, count = 0.0, 0
    for iteration in tqdm(range(1, limit), desc=system, disable=not progress):
        active = [i for i in range(len(traces)) if stops[i] is None]
        if not active:
            break
        claims_now, sels_now = [traces[i].claim for i in active], [sels[i][iteration - 1] for i in active]
        if decide == "oracle":
            made = [Decision(truth[i][iteration - 1]) for i in active]
        elif getattr(decide, "needs_iteration", False):
            made = decide(claims_now, sels_now, iteration)
        else:
            start = time.perf_counter()
            made = decide(claims_now, sels_now)
            seconds += time.perf_counter() - start
            count += len(active)
        for i, decision in zip(active, made):
            decisions[i].append((decision.sufficient, truth[i][iteration - 1]))
            details[i].append(decision)
            if decision.sufficient or iteration >= len(sels[i]):   # stop; or the loop had no further hop
                stops[i] = iteration
    stops = [s if s is not None else min(limit, len(sels[i])) for i, s in enumerate(stops)]
    rankings = {c.id: truncated(t, k, top_sentences).ranking() for c, t, k in zip(claims, traces, stops)}
    return StoppingRun(system, stops, decisions, rankings, details, seconds / count if count else 0.0)


def _decision_scores(decisions: Sequence[Sequence[tuple[bool, bool]]]) -> tuple[float, float, float]:
    """``(suff_acc, suff_f1, suff_balanced_acc)`` over the decision points of the given claims (``(decided,
    truth)`` pairs).  The balanced accuracy is the mean of the recall on truly sufficient and on truly
    insufficient points (a constant rule scores .5); with only one kind of point, that kind's recall."""
    points = [p for per in decisions for p in per]
    if not points:
        return 0.0, 0.0, 0.0
    tp = sum(d and t for d, t in points)
    fp = sum(d and not t for d, t in points)
    fn = sum(t and not d for d, t in points)
    recalls = [sum(d == t for d, t in points if t == kind) / n for kind in (True, False)
               if (n := sum(t == kind for _, t in points))]
    return (sum(d == t for d, t in points) / len(points), (2 * tp / (2 * tp + fp + fn) if tp else 0.0),
            sum(recalls) / len(recalls))


def _per_claim_recall(run: StoppingRun, claims) -> list[float]:

    return [float(recall_at_k(run.rankings[c.id], c.gold_titles, 5)) for c in claims]


def stopping_metrics(run: StoppingRun, claims, seed: int = 0) -> list[dict]:
    """Rows ``{"metric", "value", "n"}``: suff_acc, suff_f1, suff_balanced_acc (over decision points),
    suff_f1@iter1 / @iter2 (the decisions at that iteration), recall@5, avg_hops (over claims), each with its 95%
    bootstrap interval; the bootstrap resamples claims, with all their decision
    points (:mod:`proofbook.core.intervals`)."""

    rows = []
    n_points = sum(len(per) for per in run.decisions)
    if n_points:
        for index, (metric, value) in enumerate(zip(("suff_acc", "suff_f1", "suff_balanced_acc"),
                                                    _decision_scores(run.decisions))):
            low, high = intervals.interval(lambda idx: _decision_scores([run.decisions[i] for i in idx])[index],
                                           len(run.decisions), seed)
            rows += intervals.interval_rows({"metric": metric, "value": value, "n": n_points}, low, high)
    for iteration in (1, 2):               # the decision at iteration k, on the claims that got that far
        at = [per[iteration - 1:iteration] for per in run.decisions]
        n_at = sum(len(per) for per in at)
        if n_at:
            low, high = intervals.interval(lambda idx: _decision_scores([at[i] for i in idx])[1], len(at), seed)
            rows += intervals.interval_rows({"metric": f"suff_f1@iter{iteration}", "value": _decision_scores(at)[1],
                                             "n": n_at}, low, high)
    rows += intervals.mean_rows({}, "recall@5", _per_claim_recall(run, claims), seed)
    rows += intervals.mean_rows({}, "avg_hops", [float(s) for s in run.stops], seed)
    return rows


#: the paired comparisons ``A-vs-B`` (same claims, same traces): the natural-logic rule, on generated proofs (the
#: paper's method, ``suff-natlog``) and on aligned proofs (the stand-in ``suff-aligned``), against each baseline of
#: the paper's Table 6
COMPARISONS = tuple((rule, other) for rule in ("suff-natlog", "suff-aligned")
                    for other in ("suff-always", "suff-never", "suff-classifier", "suff-lexical", "fixed-2"))


def stopping_differences(runs: dict[str, StoppingRun], claims, seed: int = 0) -> list[dict]:
    """System ``A-vs-B`` rows in suff_f1 and recall@5 for :data:`COMPARISONS`, with paired intervals."""

    rows = []
    for a, b in COMPARISONS:
        if a not in runs or b not in runs:
            continue
        run_a, run_b = runs[a], runs[b]
        rows += intervals.difference_rows({}, a, b, "recall@5", _per_claim_recall(run_a, claims),
                                          _per_claim_recall(run_b, claims), seed)
        value = _decision_scores(run_a.decisions)[1] - _decision_scores(run_b.decisions)[1]
        low, high = intervals.interval(
            lambda idx: _decision_scores([run_a.decisions[i] for i in idx])[1]
            - _decision_scores([run_b.decisions[i] for i in idx])[1], len(claims), seed)
        n = sum(len(per) for per in run_a.decisions)
        rows += intervals.interval_rows({"system": f"{a}-vs-{b}", "metric": "suff_f1", "value": value, "n": n},
                                        low, high)
    return rows


ERROR_KINDS = ("alignment", "operator", "automaton", "no proof kept")


def _source(span: str, sentences: Sequence[Sentence]) -> list[Sentence]:

    return [s for s in sentences if span_position(span, s.text) is not None]


def error_kind(claim, sentences: Sequence[Sentence], decision: Decision, truth: bool, dataset: str) -> str | None:
    """Where a wrong decision went wrong (None if it is right):

    * ``no proof kept`` -- no beam scored above the threshold;
    * false *insufficient*: the step that sent the best kept NEI proof to NOT ENOUGH INFO is ``#`` / ``>``
      on an evidence span from a gold sentence (``operator``) or only from other sentences
      (``alignment``), or ``<`` / ``|`` after a negation (``automaton``: the table sends it to NEI);
    * false *sufficient*: a step aligned only to a non-gold sentence without ``#`` (``alignment``), else
      a missing sentence's span was not marked independent (``operator``).
    """
    if decision.sufficient == truth:
        return None
    if not decision.kept:
        return "no proof kept"
    gold = set(claim.gold_sentences)
    is_gold = (lambda s: s.id in gold) if gold and not dataset.startswith("feverous_s") else \
        (lambda s: s.title in set(claim.gold_titles))
    if truth:
        proof = next(p for p in decision.kept if p.verdict == NEI)
        path = proof.path
        step_index = next(i for i in range(len(proof.steps)) if path[i + 1] == NEI)
        step = proof.steps[step_index]
        if step.operator in "#>":
            sources = _source(step.evidence_span, sentences)
            return "operator" if any(is_gold(s) for s in sources) else "alignment"
        return "automaton"
    for proof in decision.kept:
        for step in proof.steps:
            sources = _source(step.evidence_span, sentences)
            if step.operator != "#" and sources and not any(is_gold(s) for s in sources):
                return "alignment"
    return "operator"
