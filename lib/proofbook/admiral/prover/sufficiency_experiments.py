"""The natural-logic experiments of ``admiral/05_natural_logic`` and ``admiral/06_sufficiency``: training every
model of the sufficiency check with the artifact cache, the multi-hop traces the stopping rules are replayed on,
and the result rows of the chapters.

* :func:`train_prover` -- the operator models (span and context), the proof generator, the sufficiency
  classifier and the calibrations (:mod:`proofbook.admiral.prover.calibration`), in stages, all cached, with
  every setting of the chapters' systems in a
  :class:`~proofbook.admiral.prover.trained_prover.SufficiencySettings`; the
  :class:`~proofbook.admiral.prover.trained_prover.Prover` holds them and builds each system's decision;
* :func:`cached_traces` -- AdMIRaL runs of 3 iterations (extending the retrieval chapters' 2-iteration runs);
  :func:`calibrate_loop` -- the aligned rule's threshold chosen again on such runs of training claims;
  :func:`run_systems` -- every stopping rule on them (:mod:`proofbook.admiral.prover.stopping`);
* :func:`verdict_rows`, :func:`calibration_auc_rows` -- FEVER-Symmetric verdicts and the ROC AUC of each proof
  builder's score on complete vs incomplete selections (does a score see missing evidence at all?).
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Sequence

import numpy as np

from proofbook.admiral.prover.aligned_proofs import (SCORES, cached_context_model, chosen_score, context_operator_data,
                                                     decided_verdict)
from proofbook.admiral.prover.alignment import Aligner
from proofbook.admiral.prover.calibration import (aligned_scores, calibrate_aligned, calibrate_classifier,
                                                  calibrate_on_loop, calibrate_threshold, roc_auc)
from proofbook.admiral.prover.natlog import NEI, Proof
from proofbook.admiral.prover.operators import cached_operator_model
from proofbook.admiral.prover.proofgen import cached_generator
from proofbook.admiral.prover.training_proofs import cached_training_proofs, evidence_sets, seeded_order
from proofbook.admiral.prover.stopping import StoppingRun, decision_points, simulate_stopping
from proofbook.admiral.prover.sufficiency import (AlignedSufficiency, LexicalSufficiency, NatlogSufficiency,
                                                  evidence_pairs, train_classifier)
from proofbook.admiral.prover.trained_prover import Prover, SufficiencySettings
from proofbook.admiral.retrieval import retrieval_experiments
from proofbook.core import intervals
from proofbook.core.cache import ArtifactCache, fingerprint


def operator_key(settings, data) -> str:
    """Which operator model labelled the generator's training proofs (part of the generator's cache key)."""

    return fingerprint({"settings": dataclasses.asdict(settings), "train": [dataclasses.astuple(x) for x in data.train]})


def train_prover(tasks, settings: SufficiencySettings, data_dir=None, cache=None, progress: bool = True,
                 stage: str = "all") -> Prover:
    """Operator model, aligner, proof generator and sufficiency classifier, each from the artifact cache
    (trained on a miss) on the training claims of ``tasks`` and the QA-NatVer proofs.

    ``stage`` builds only part of it (each part is cached, so a full-size run can be split into commands
    of a few minutes each): ``"operators"``, ``"proofs"`` (+ the built training proofs), ``"context"`` (+ the
    aligned builder's operator model), ``"generator"``, ``"all"`` (+ the classifier); a partial stage returns None.
    """

    stages = ("operators", "proofs", "context", "generator", "all")
    if stage not in stages:
        raise ValueError(f"unknown stage {stage!r}; expected one of {stages}")
    cache = cache or ArtifactCache()
    seconds = {}
    operator_model, data, seconds["operator model"] = cached_operator_model(data_dir, settings.operators, cache)
    if stage == "operators":
        return None
    aligner = Aligner()
    key = operator_key(settings.operators, data)
    proofs = cached_training_proofs(tasks, aligner, operator_model, settings.proofgen, data_dir, cache, key, progress)
    if stage == "proofs":
        return None
    context_data = context_operator_data(data_dir, data, proofs, settings.aligned.context_model)
    context_model, seconds["context operator model"] = cached_context_model(context_data, settings.aligned.context_model, cache)
    if stage == "context":
        return None
    generator, proofs, seconds["proof generator"] = cached_generator(tasks, aligner, operator_model, settings.proofgen,
                                                                     data_dir, cache, key, progress)
    if stage == "generator":
        return None
    classifier, seconds["sufficiency classifier"] = train_classifier(tasks, settings.classifier, cache)
    prover = Prover(operator_model, data, aligner, generator, proofs, classifier, seconds, settings.threshold,
                    context_model=context_model, context_data=context_data)
    if settings.calibration_claims:
        start = time.perf_counter()
        sets = evidence_sets(tasks, settings.calibration_claims, settings.proofgen.distractors,
                             settings.proofgen.max_evidence, settings.seed, skip=settings.proofgen.max_claims_per_dataset)
        key = {"generator": fingerprint([dataclasses.astuple(p) for p in proofs]), "proofgen": dataclasses.asdict(settings.proofgen),
               "beam": settings.beam, "sets": fingerprint([(s.claim_id, [x.id for x in s.sentences]) for s in sets]),
               "table": 2}
        found = cache.cache_json("natlog-threshold", key, lambda: calibrate_threshold(generator, sets, settings.beam))
        prover.threshold, prover.calibration = found["threshold"], found["table"]
        prover.classifier_calibration = calibrate_classifier(classifier, sets)
        classifier.threshold = prover.classifier_calibration["threshold"]
        prover.aligned_calibration = calibrate_aligned(prover, settings, sets)
        seconds["threshold calibration"] = time.perf_counter() - start
    return prover


def cached_traces(task, components, claims, retrieval_settings, iterations: int = 3, beam: int = 25, cache=None,
                  progress: bool = True, earlier_claims: Sequence | None = None) -> list:
    """AdMIRaL run to ``iterations`` without stopping (``suff-never``), cached; every other system is
    simulated from these traces (the loop is deterministic given its state).

    ``earlier_claims``: the claims of the experiments chapter's run (:func:`proofbook.admiral.retrieval.retrieval_experiments.cached_run`
    with the book's config at this ``beam``).  When that run is in the cache and holds every one of ``claims``, its
    2-iteration traces are extended (:meth:`proofbook.admiral.retrieval.multihop.Admiral.extend`) instead of running the first
    two iterations again; otherwise the loop runs from the start.
    """

    cache = cache or ArtifactCache()
    config = retrieval_experiments.book_config(iterations=iterations, beam=beam)
    key = retrieval_experiments.task_key(task, claims, retrieval_settings, config)

    def build() -> list:
        admiral = retrieval_experiments.build_admiral(task, components, config)
        earlier = earlier_traces(task, claims, retrieval_settings, beam, earlier_claims, cache) if earlier_claims else None
        if earlier is not None:
            return admiral.extend(earlier, progress=progress)
        return admiral.retrieve_many([c.claim for c in claims], progress=progress)

    return cache.cache_pickle("admiral-traces", key, build)


def earlier_traces(task, claims, retrieval_settings, beam: int, run_claims: Sequence, cache=None) -> list | None:
    """The experiments chapter's AdMIRaL traces for ``claims``, from its cached run on ``run_claims``; None if
    that run is not in the cache or lacks one of ``claims``."""

    run = retrieval_experiments.stored_run(task, list(run_claims), retrieval_settings, retrieval_experiments.book_config(beam=beam), cache)
    if run is None:
        return None
    by_id = {c.id: t for c, t in zip(run.claims, run.traces)}
    if any(c.id not in by_id or by_id[c.id].claim != c.claim for c in claims):
        return None
    return [by_id[c.id] for c in claims]


def loop_calibration_claims(task, settings: SufficiencySettings) -> list:
    """The training claims whose loop traces recalibrate the aligned rule: ``settings.loop_calibration_claims``
    of the seeded order of ``task``'s training claims with gold sentences, after the proof generator's and the
    selection calibration's (:func:`~proofbook.admiral.prover.training_proofs.evidence_sets`)."""
    skip = settings.proofgen.max_claims_per_dataset + settings.calibration_claims
    ordered = [c for c in seeded_order(task.train, settings.seed) if c.gold_sentences]
    return ordered[skip:skip + settings.loop_calibration_claims]


def calibrate_loop(prover: Prover, settings: SufficiencySettings, task, components, retrieval_settings, beam: int,
                   cache=None, progress: bool = True) -> dict | None:
    """Choose the aligned rule's threshold for ``task`` again, on the retrieval loop's decision points of
    training claims (:func:`loop_calibration_claims`; their AdMIRaL traces come from :func:`cached_traces`):
    :func:`~proofbook.admiral.prover.calibration.calibrate_on_loop` on the score chosen on the selection sets.
    Stored in ``prover.loop_calibration[task.dataset]``, which
    :meth:`~proofbook.admiral.prover.trained_prover.Prover.aligned` then uses; None (and
    nothing stored) without claims, or where every point is of one kind.  A point whose selection is empty has
    no proof and is left out, counted as ``empty_points`` (the loop's selections always hold its first retrieval)."""
    claims = loop_calibration_claims(task, settings)
    if not claims:
        return None
    traces = cached_traces(task, components, claims, retrieval_settings, settings.iterations, beam, cache, progress)
    every = decision_points(traces, claims, task.dataset, settings.iterations)
    points = [p for p in every if p[1]]
    scores = aligned_scores(prover, settings, [c for c, _, _ in points], [evidence_pairs(sel) for _, sel, _ in points])
    score = prover.aligned_calibration.get("score") or chosen_score(settings.aligned.score, {})
    result = calibrate_on_loop(scores, [t for _, _, t in points], score, settings.aligned.threshold)
    if result is not None:
        prover.loop_calibration[task.dataset] = {**result, "claims": len(claims),
                                                 "empty_points": len(every) - len(points)}
    return prover.loop_calibration.get(task.dataset)


def loop_calibration_rows(prover: Prover, settings: SufficiencySettings, datasets: Sequence[str]) -> list[dict]:
    """One row per dataset comparing the aligned rule's threshold on the selection sets with the one on the loop's
    decision points (:func:`calibrate_loop`, already run), with the loop points' counts and each score's AUC there;
    None where the dataset has no loop calibration."""
    rows = []
    for name in datasets:
        found = prover.loop_calibration.get(name) or {}
        rows.append({"dataset": name, "decision points": found.get("n"), "complete": found.get("sufficient_points"),
                     "threshold on selection sets": prover.selection_threshold(settings, name),
                     "threshold on loop points": found.get("threshold"),
                     "balanced accuracy there": found.get("balanced_accuracy"),
                     **{f"AUC {kind}": found.get(f"auc/{kind}") for kind in SCORES}})
    return rows


def run_systems(task, claims, traces, deciders: dict, iterations: int = 3, progress: bool = True) -> dict[str, StoppingRun]:
    """Every sufficiency system of ``deciders`` on the same traces."""
    return {name: simulate_stopping(name, traces, claims, task.dataset, decide, limit=iterations, progress=progress)
            for name, decide in deciders.items()}


def verdict_accuracy(generator, pairs, beam: int = 1, batch_size: int = 16) -> tuple[float, list[Proof | None]]:
    """Share of FEVER-Symmetric pairs whose best proof's automaton verdict equals the label (no proof: wrong)."""
    claims = [p.claim for p in pairs]
    evidence = [[("", p.evidence)] for p in pairs]
    proofs = generator.generate(claims, evidence, beam=beam, batch_size=batch_size)
    best = [found[0] if found else None for found in proofs]
    correct = [b is not None and b.verdict == p.label for b, p in zip(best, pairs)]
    return (sum(correct) / len(pairs) if pairs else 0.0), best


def verdict_rows(pairs, verdicts: Sequence[str | None], split: str, system: str, seed: int = 0) -> list[dict]:
    """``verdict_acc`` (no verdict or NOT ENOUGH INFO counts as wrong: every pair is SUPPORTS or REFUTES) and
    ``nei_share`` of ``system``'s verdicts on FEVER-Symmetric ``split``, with 95% bootstrap intervals."""

    if len(pairs) != len(verdicts):
        raise ValueError(f"{len(pairs)} pairs but {len(verdicts)} verdicts")
    base = {"dataset": "fever_symmetric", "split": split, "system": system}
    correct = [float(v is not None and v == p.label) for v, p in zip(verdicts, pairs)]
    return (intervals.mean_rows(base, "verdict_acc", correct, seed)
            + intervals.mean_rows(base, "nei_share", [float(v in (None, NEI)) for v in verdicts], seed))


def majority_row(pairs, split: str) -> dict:
    """The share of FEVER-Symmetric ``split``'s pairs that carry its most frequent label (system
    ``majority-class``, metric ``verdict_acc``): what a constant answer reaches, the floor a verdict must beat."""

    labels = [p.label for p in pairs]
    share = max(labels.count(label) for label in set(labels)) / len(labels) if labels else 0.0
    return {"dataset": "fever_symmetric", "split": split, "system": "majority-class", "metric": "verdict_acc",
            "value": share, "n": len(labels)}


def aligned_proofs(hook: AlignedSufficiency, pairs) -> list:
    """The aligned builder's :class:`~proofbook.admiral.prover.aligned_proofs.AlignedProof` of each FEVER-Symmetric pair."""
    return hook.prover.prove_many([p.claim for p in pairs], [[("", p.evidence)] for p in pairs])


def aligned_verdicts(found, nei_threshold: float | None = None) -> list[Proof]:
    """The proof of each aligned proof's verdict (:func:`proofbook.admiral.prover.aligned_proofs.decided_verdict`), reaching it."""

    return [f.shown(decided_verdict(f, nei_threshold)) for f in found]


#: the proof builders compared by calibration_auc, as named in the results files
BUILDER_SYSTEMS = ("natlog-aligned", "natlog-generated", "natlog-lexical")


def generated_score(proofs: Sequence[Proof]) -> float:
    """The generator's sufficiency score: the share of the beam's probability (``exp`` of each proof's
    length-normalised log-probability, normalised over the beam) on proofs that reach a verdict; 0 without proofs."""

    scored = [(math.exp(p.score), p.verdict != NEI) for p in proofs if p.score is not None]
    total = sum(w for w, _ in scored)
    return sum(w for w, reaches in scored if reaches) / total if total else 0.0


def builder_scores(prover: Prover, settings: SufficiencySettings, sets) -> dict[str, list[float]]:
    """Each builder's sufficiency score on each selection (:data:`BUILDER_SYSTEMS`): the aligned score, the
    generator's :func:`generated_score`, and the lexical proof's verdict (1 reaches a verdict, 0 NEI)."""
    claims, chosen = [s.claim for s in sets], [list(s.sentences) for s in sets]
    aligned = prover.aligned(settings).scores(claims, chosen)
    generated = [generated_score(d.proofs) for d in
                 NatlogSufficiency(prover.generator, beam=settings.beam, threshold=float("-inf")).decide_many(claims, chosen)]
    lexical = [float(d.sufficient) for d in LexicalSufficiency(prover.aligner).decide_many(claims, chosen)]
    return dict(zip(BUILDER_SYSTEMS, (aligned, generated, lexical)))


def calibration_auc_rows(dataset: str, split: str, sets, scores: dict[str, list[float]], seed: int = 0) -> list[dict]:
    """``calibration_auc`` of each builder: ROC AUC of its score on complete vs one-gold-sentence-removed
    selections, with a 95% bootstrap interval that resamples claims (both selections of a claim together)."""


    truth = [s.sufficient for s in sets]
    claim_ids = sorted({s.claim_id for s in sets})
    members = {cid: [i for i, s in enumerate(sets) if s.claim_id == cid] for cid in claim_ids}
    rows = []
    for system, values in scores.items():
        def statistic(idx, values=values):
            chosen = [i for k in idx for i in members[claim_ids[k]]]
            found = roc_auc([values[i] for i in chosen], [truth[i] for i in chosen])
            return 0.5 if np.isnan(found) else found
        low, high = intervals.interval(statistic, len(claim_ids), seed)
        rows += intervals.interval_rows({"dataset": dataset, "split": split, "system": system,
                                         "metric": "calibration_auc", "value": roc_auc(values, truth), "n": len(sets)},
                                        low, high)
    return rows
