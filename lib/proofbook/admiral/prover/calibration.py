"""Calibrating the sufficiency rules on training-claim selections (AdMIRaL §3.4; a stated departure).

AdMIRaL's reference rule keeps generated proofs whose length-normalised log-probability is above -0.9, a value
calibrated to ProoFVer's BART-large.  The models trained here score on other scales, so every rule keeps its
form and has its threshold chosen on *calibration selections*: selections of training claims (not used to
train the model being calibrated) whose sufficiency is known, complete ones and ones with a gold sentence
removed.

* :func:`roc_auc` -- how well a score separates complete from incomplete selections;
* :func:`best_threshold` -- the threshold on any score that decides the selections best (ties: nearest a
  reference value), with the shares called sufficient among complete and incomplete selections;
* :func:`calibrate_aligned` -- the aligned proofs' score (``proven``, ``weakest`` or ``mean``, or the one with
  the highest ROC AUC for ``"auto"``) and its threshold, overall and per training
  dataset (:func:`proofbook.admiral.prover.trained_prover.calibration_source`);
* :func:`calibrate_on_loop` -- the aligned rule's threshold chosen again on the retrieval loop's own decision
  points of training claims, by balanced accuracy (the selection sets above are gold sentences plus random
  distractors; the loop's are five retrieved sentences, judged complete by the loop's own truth);
* :func:`calibrate_threshold` -- the reference rule's log-probability threshold for generated proofs;
* :func:`calibrate_classifier` -- the probability threshold of the sufficiency classifier;
* :func:`calibration_glue` -- all of these as the sufficiency chapter's text shows them.
"""
from __future__ import annotations

from typing import Sequence

from proofbook.admiral.prover.aligned_proofs import SCORES, chosen_score
from proofbook.admiral.prover.sufficiency import (REFERENCE_THRESHOLD, ClassifierSufficiency, NatlogSufficiency,
                                                  reference_rule)
from proofbook.admiral.prover.trained_prover import Prover, SufficiencySettings


#: what :func:`best_threshold` maximises: the share of selections decided right, or the mean of the shares of
#: complete and of incomplete selections decided right (a threshold that calls everything sufficient scores .5)
OBJECTIVES = ("accuracy", "balanced_accuracy")


def roc_auc(scores: Sequence[float], positive: Sequence[bool]) -> float:
    """ROC AUC of ``scores`` for ``positive`` (ties count one half); NaN without both classes."""
    from sklearn.metrics import roc_auc_score

    if len(set(positive)) < 2:
        return float("nan")
    return float(roc_auc_score(list(positive), list(scores)))


def best_threshold(scores: Sequence[float], truth: Sequence[bool], reference: float = 0.5,
                   objective: str = "accuracy") -> dict:
    """The threshold on a sufficiency score that decides the selections best by ``objective`` (one of
    :data:`OBJECTIVES`; ``score >= threshold`` means sufficient; ties go to the value nearest ``reference``), with
    its accuracy, balanced accuracy and the shares called sufficient among complete and incomplete selections."""
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; expected one of {OBJECTIVES}")
    scores, truth = list(scores), list(truth)
    if len(scores) != len(truth):
        raise ValueError(f"best_threshold: {len(scores)} scores but {len(truth)} truths")
    if not scores:
        return {"threshold": reference, "accuracy": 0.0, "balanced_accuracy": 0.0, "n": 0}

    def summary(t):
        decided = [s >= t for s in scores]
        complete = [d for d, y in zip(decided, truth) if y]
        incomplete = [d for d, y in zip(decided, truth) if not y]
        recalls = ([sum(complete) / len(complete)] if complete else []) + \
                  ([1 - sum(incomplete) / len(incomplete)] if incomplete else [])
        return {"threshold": t, "accuracy": sum(d == y for d, y in zip(decided, truth)) / len(scores),
                "balanced_accuracy": sum(recalls) / len(recalls),
                "said_sufficient_complete": sum(complete) / len(complete) if complete else 0.0,
                "said_sufficient_incomplete": sum(incomplete) / len(incomplete) if incomplete else 0.0}

    candidates = sorted(set(scores) | {reference, 1.0 + 1e-9})
    best = max((summary(t) for t in candidates), key=lambda row: (row[objective], -abs(row["threshold"] - reference)))
    return {**best, "n": len(scores)}


def calibrate_threshold(generator, sets, beam: int, reference: float = REFERENCE_THRESHOLD) -> dict:
    """The log-probability threshold of the reference rule that decides ``sets`` (training-claim selections
    with known sufficiency, not used to train the generator) best; ties go to the value nearest ``reference``.

    Each row of the table also holds the share called sufficient among the complete selections and among
    those missing a gold sentence: where the two are equal, the rule carries no information at that
    threshold, whatever its accuracy.

    A departure, stated in the chapter: -0.9 is calibrated to ProoFVer's BART-large; our small generator's
    length-normalised log-probabilities live on another scale, so the same rule is kept with its threshold
    chosen on training claims.
    """
    found = NatlogSufficiency(generator, beam=beam, threshold=float("-inf")).decide_many(
        [s.claim for s in sets], [list(s.sentences) for s in sets])
    scores = sorted({round(p.score, 4) for d in found for p in d.proofs})
    candidates = sorted(set([reference] + [x - 1e-4 for x in scores]))
    complete = [s.sufficient for s in sets]

    def share(decided, kind):
        picked = [d for d, c in zip(decided, complete) if c == kind]
        return sum(picked) / len(picked) if picked else 0.0

    table = []
    for threshold in candidates:
        decided = [reference_rule(d.proofs, threshold)[0] for d in found]
        accuracy = sum(a == c for a, c in zip(decided, complete)) / max(1, len(sets))
        table.append({"threshold": threshold, "accuracy": accuracy, "said_sufficient": sum(decided) / max(1, len(sets)),
                      "said_sufficient_complete": share(decided, True), "said_sufficient_incomplete": share(decided, False)})
    best = max(table, key=lambda row: (row["accuracy"], -abs(row["threshold"] - reference)))
    return {"threshold": best["threshold"], "table": table, "n": len(sets)}


def calibrate_classifier(classifier: ClassifierSufficiency, sets, reference: float = 0.5) -> dict:
    """The probability threshold of ``classifier`` that decides ``sets`` best (ties: nearest ``reference``),
    with its accuracy -- the classifier's counterpart of :func:`calibrate_threshold`, on the same selections."""
    probs = classifier.probabilities([s.claim for s in sets], [s.sentences for s in sets])
    truth = [s.sufficient for s in sets]
    best = best_threshold(probs, truth, reference)
    reference_accuracy = sum((p >= reference) == t for p, t in zip(probs, truth)) / max(1, len(sets))
    return {"threshold": best["threshold"], "accuracy": best["accuracy"], "reference_accuracy": reference_accuracy,
            "n": len(sets)}


def aligned_scores(prover: Prover, settings: SufficiencySettings, claims: Sequence[str],
                   evidence: Sequence[Sequence[tuple[str, str]]]) -> dict[str, list[float]]:
    """Every sufficiency score of :data:`~proofbook.admiral.prover.aligned_proofs.SCORES` (kind -> one value per claim) of
    the aligned proofs of ``claims`` from their ``(title, text)`` evidence."""
    found = prover.aligned_prover(settings).prove_many(list(claims), list(evidence))
    return {kind: [f.score(kind) for f in found] for kind in SCORES}


def calibrate_aligned(prover: Prover, settings: SufficiencySettings, sets) -> dict:
    """The aligned rule's score and threshold on the calibration selections: the ROC AUC of each sufficiency
    score there (``auc/proven``, ``auc/weakest``, ``auc/mean``), the score used (``settings.aligned.score``, or for
    ``"auto"`` the one with the highest AUC; ties: the first of :data:`~proofbook.admiral.prover.aligned_proofs.SCORES`) and its threshold
    (:func:`best_threshold`) on all selections and, under ``by_source``, on each training
    task's own (the loop knows which dataset it runs on; the datasets' claims differ in length and hops)."""
    scores = aligned_scores(prover, settings, [s.claim for s in sets], [s.evidence for s in sets])
    truth = [s.sufficient for s in sets]
    aucs = {kind: roc_auc(values, truth) for kind, values in scores.items()}
    kind = chosen_score(settings.aligned.score, aucs)
    chosen = best_threshold(scores[kind], truth, settings.aligned.threshold)
    by_source = {}
    for source in sorted({s.source for s in sets}):
        picked = [i for i, s in enumerate(sets) if s.source == source]
        by_source[source] = best_threshold([scores[kind][i] for i in picked], [truth[i] for i in picked],
                                           settings.aligned.threshold)
    return {**chosen, "score": kind, "by_source": by_source, **{f"auc/{k}": value for k, value in aucs.items()}}


def calibrate_on_loop(scores: dict[str, list[float]], truth: Sequence[bool], score: str,
                      reference: float = 0.5) -> dict | None:
    """The aligned rule's threshold chosen on the retrieval loop's own decision points of training claims
    (a selection of five retrieved sentences at each iteration, sufficient as the loop's truth says): the
    threshold on ``score`` with the best *balanced* accuracy (the loop's points are mostly of one kind: most of
    FEVEROUS-S's first selections are complete, most of HoVer's are not), ties nearest ``reference``; with the
    ROC AUC of every score in ``scores`` (``auc/<score>``) and the points' counts.  None where the points hold
    only one kind: no threshold can be told from them."""
    truth = list(truth)
    if all(truth) or not any(truth):
        return None
    if score not in scores:
        raise ValueError(f"unknown sufficiency score {score!r}; expected one of {sorted(scores)}")
    chosen = best_threshold(scores[score], truth, reference, objective="balanced_accuracy")
    return {**chosen, "score": score, "sufficient_points": sum(truth),
            **{f"auc/{kind}": roc_auc(values, truth) for kind, values in scores.items()}}


def calibration_glue(prover: Prover, settings: SufficiencySettings) -> dict[str, object]:
    """The calibrations of a trained ``prover`` as the sufficiency chapter's text shows them: ``{glue name: value}``.

    The generated proofs' threshold (``threshold``; with a calibration table, the accuracy at the reference's
    -0.9 and at the chosen value, the shares called sufficient there and the largest gap between those shares
    over all thresholds), the classifier's threshold where it was calibrated, and the aligned rule's score,
    threshold, accuracy, shares and AUCs (``n/a`` without a calibration), overall and per training dataset.
    """
    values: dict[str, object] = {"threshold": f"{prover.threshold:.3f}"}
    table = list(prover.calibration)
    if table:
        def row_at(threshold):
            return min(table, key=lambda row: abs(row["threshold"] - threshold))

        reference_row, chosen = row_at(REFERENCE_THRESHOLD), row_at(prover.threshold)
        gap = max(abs(row["said_sufficient_complete"] - row["said_sufficient_incomplete"]) for row in table)
        values.update({"reference_accuracy": f"{reference_row['accuracy']:.3f}",
                       "calibrated_accuracy": f"{max(row['accuracy'] for row in table):.3f}",
                       "said_complete": f"{chosen['said_sufficient_complete']:.2f}",
                       "said_incomplete": f"{chosen['said_sufficient_incomplete']:.2f}",
                       "largest_gap": f"{gap:.2f}"})
    classifier = prover.classifier_calibration
    if classifier:
        values.update({"classifier_threshold": f"{classifier['threshold']:.3f}",
                       "classifier_accuracy": f"{classifier['accuracy']:.3f}",
                       "classifier_reference_accuracy": f"{classifier['reference_accuracy']:.3f}"})
    aligned = prover.aligned_calibration or {"threshold": settings.aligned.threshold}
    values["aligned_threshold"] = f"{aligned['threshold']:.3f}"
    for key in ("accuracy", "said_sufficient_complete", "said_sufficient_incomplete", "auc/weakest", "auc/proven",
                "auc/mean"):
        values[f"aligned_{key.replace('/', '_')}"] = (f"{aligned[key]:.2f}" if key in aligned
                                                      else "n/a (no calibration in this run)")
    values["aligned_score"] = aligned.get("score", settings.aligned.score)
    for source, found in aligned.get("by_source", {}).items():
        values[f"aligned_threshold_{source}"] = f"{found['threshold']:.3f}"
        values[f"aligned_accuracy_{source}"] = f"{found['accuracy']:.2f}"
    return values
