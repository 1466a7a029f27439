"""Aligned natural-logic proofs (proofbook.admiral.prover.aligned_proofs) and their sufficiency hook."""
import math

import pytest

from proofbook.core.corpus import Sentence
from proofbook.admiral.prover import natlog
from proofbook.admiral.prover.aligned_proofs import (AlignedProof, AlignedProver, AlignedSettings, ContextExample, ContextData,
                                                     SCORES, built_examples, decided_verdict, pair_text,
                                                     sentence_of, train_context_model, tune_nei_threshold, window)
from proofbook.admiral.prover.calibration import roc_auc
from proofbook.admiral.prover.operators import LABELS, OperatorModel
from proofbook.admiral.prover.training_proofs import TrainingProof
from proofbook.admiral.prover.sufficiency import NO_EVIDENCE, AlignedSufficiency
from proofbook.admiral.prover.calibration import best_threshold

pytestmark = pytest.mark.unit


def one_hot(op, p=0.9):
    rest = (1 - p) / (len(LABELS) - 1)
    return {x: (p if x == op else rest) for x in LABELS}


def test_verdict_probabilities_run_the_automaton_forward():
    certain = [{op: float(op == o) for op in LABELS} for o in "=!"]
    assert natlog.verdict_probabilities(certain) == {natlog.SUPPORTS: 0.0, natlog.REFUTES: 1.0, natlog.NEI: 0.0}
    assert natlog.verdict_probabilities([]) == {natlog.SUPPORTS: 1.0, natlog.REFUTES: 0.0, natlog.NEI: 0.0}
    steps = [one_hot("="), {"=": 0.5, "#": 0.5}]
    found = natlog.verdict_probabilities(steps)
    assert math.isclose(sum(found.values()), 1.0)
    first = one_hot("=")
    # NEI after step 1 stays; SUPPORTS (= <) and REFUTES (! |) each go to NEI on the second step's #
    assert found[natlog.NEI] == pytest.approx(first[">"] + first["#"] + (first["="] + first["<"]) * 0.5
                                              + (first["!"] + first["|"]) * 0.5)
    with pytest.raises(natlog.ProofError, match="operator"):
        natlog.verdict_probabilities([{"?": 1.0}])


def aligned_proof(ops, covered=None):
    probabilities = [one_hot(op) for op in ops]
    proof = natlog.Proof.from_triples([(f"c{i}", f"e{i}", op) for i, op in enumerate(ops)])
    covered = covered or [1 - p["#"] for p in probabilities]
    return AlignedProof(proof, probabilities, natlog.verdict_probabilities(probabilities), covered)


def test_scores_and_shown_proof():
    found = aligned_proof("==#")
    assert found.score("weakest") == pytest.approx(0.1)                 # the # step: 1 - 0.9
    assert found.score("mean") == pytest.approx((0.98 + 0.98 + 0.1) / 3)   # 1 - P(#): 1 - 0.1 / 5 on each = step
    empty = AlignedProof(found.proof, [], {}, [])
    assert empty.score("mean") == 0.0 and empty.score("weakest") == 0.0
    assert found.score("proven") == pytest.approx(1 - found.verdicts[natlog.NEI])
    assert decided_verdict(found) == natlog.NEI
    shown = found.shown(natlog.SUPPORTS)
    assert shown.verdict == natlog.SUPPORTS and shown.operators[:2] == ("=", "=") and shown.score < 0
    assert found.shown(natlog.NEI).operators == ("=", "=", "#")
    with pytest.raises(ValueError, match="unknown sufficiency score"):
        found.score("median")


def test_roc_auc_and_best_threshold():
    assert roc_auc([0.9, 0.8, 0.2, 0.1], [True, True, False, False]) == 1.0
    assert roc_auc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0
    assert roc_auc([0.5, 0.5], [True, False]) == 0.5                   # a tie counts one half
    assert math.isnan(roc_auc([0.3, 0.4], [True, True]))
    found = best_threshold([0.9, 0.8, 0.3, 0.1], [True, True, False, False])
    assert found["accuracy"] == 1.0 and 0.3 < found["threshold"] <= 0.8 and found["n"] == 4
    assert found["said_sufficient_complete"] == 1.0 and found["said_sufficient_incomplete"] == 0.0
    with pytest.raises(ValueError, match="2 scores but 1 truths"):
        best_threshold([0.1, 0.2], [True])


def test_settings_reject_unknown_values():
    with pytest.raises(ValueError, match="unknown sufficiency score"):
        AlignedSettings(score="median")
    with pytest.raises(ValueError, match="rerank"):
        AlignedSettings(rerank=0)


def test_built_examples_keep_complete_steps_and_independence_and_count_unreadable():
    evidence = (("Rice", "Anne Rice was born in New Orleans."), ("Other", "Something else."))
    complete = TrainingProof("Anne Rice was born in Paris.", evidence,
                             "{ Anne Rice } [ Anne Rice ] = { was born in Paris } [ born in New Orleans ] |", True,
                             "hover", "7")
    partial = TrainingProof(complete.claim, evidence[1:],
                            "{ Anne Rice } [ Something ] = { was born in Paris } [ else ] #", False, "hover", "7")
    broken = TrainingProof("x", evidence, "{ x } [ {'1 ] =", True, "hover", "8")
    examples, unreadable = built_examples([complete, partial, broken, TrainingProof("a", (), "", True, "fewshot", "9")])
    assert unreadable == 1
    assert [(x.claim_span, x.operator) for x in examples] == [("Anne Rice", "="), ("was born in Paris", "|"),
                                                              ("was born in Paris", "#")]
    assert examples[1].sentence == "Anne Rice was born in New Orleans." and examples[2].sentence == "Something else."
    assert examples[0].claim_id == "hover:7"
    assert sentence_of("NEW orleans", evidence) == evidence[0][1]


@pytest.fixture(scope="module")
def tiny_prover():
    from proofbook.admiral.prover.alignment import Aligner

    pairs = [("is a rapper", "is a rapper", "="), ("was born in Paris", "born in Lyon", "|"),
             ("is alive", "is not alive", "!"), ("in 2012", "the weather", "#")]
    train = [ContextExample(c, e, op, "fewshot", str(i), f"X {c}", f"Y {e}") for i, (c, e, op) in enumerate(pairs * 2)]
    model = train_context_model(ContextData(train, train[:2]), AlignedSettings.smoke().context_model)
    return AlignedProver(Aligner(), model, rerank=2)


def test_prover_builds_proofs_in_claim_order(tiny_prover):
    [found] = tiny_prover.prove_many(["Anne Rice was born in New Jersey."],
                                     [[("Rice", "Anne Rice was born in New Orleans."), ("B", "It rains.")]])
    assert [s.claim_span for s in found.proof.steps] == ["Anne Rice", "was born", "in New Jersey"]
    assert len(found.probabilities) == 3 and all(math.isclose(sum(p.values()), 1.0, rel_tol=1e-5)
                                                 for p in found.probabilities)
    assert math.isclose(sum(found.verdicts.values()), 1.0, rel_tol=1e-5)
    assert 0 <= found.score("weakest") <= 1 and 0 <= found.score("proven") <= 1
    assert found.proof.check() is found.proof


def test_prover_bad_input(tiny_prover):
    with pytest.raises(ValueError, match="no content word"):
        tiny_prover.prove_many(["it is"], [[("A", "It is.")]])
    with pytest.raises(ValueError, match="no evidence sentence"):
        tiny_prover.prove_many(["Anne Rice is a writer."], [[]])
    with pytest.raises(ValueError, match="2 claims but 1 evidence"):
        tiny_prover.prove_many(["a b", "c d"], [[("A", "x")]])
    with pytest.raises(ValueError, match="more than the span limit"):
        tiny_prover.aligner.candidates_many(["one two three four five six seven"], [["one two"]],
                                            chunks=[["one two three four five six seven"]])


def test_hook_records_empty_selections_and_thresholds(tiny_prover):
    hook = AlignedSufficiency(tiny_prover, "weakest", threshold=0.0)
    s = Sentence("Rice", 0, "Anne Rice was born in New Orleans.")
    empty, full = hook.decide_many(["Anne Rice was born in New Jersey."] * 2, [[], [s]])
    assert not empty.sufficient and empty.reason == NO_EVIDENCE and not empty.proofs
    assert full.sufficient and full.score is not None and full.kept[0].verdict != natlog.NEI
    never = AlignedSufficiency(tiny_prover, "weakest", threshold=1.1).decide(full.kept[0].claim, [s])
    assert not never.sufficient and never.kept[0].verdict == natlog.NEI


def test_an_operator_model_with_other_labels_is_refused():
    from proofbook.models.cross_encoder import CrossEncoder

    with pytest.raises(ValueError, match="operator model needs labels"):
        OperatorModel(CrossEncoder("minilm", labels=("yes", "no"), max_length=16))


def test_pair_text_cuts_contexts_around_the_spans():
    assert pair_text("is a rapper", "Future is a rapper.", "rapper", "Future is a rapper.") == (
        "is a rapper ; future is a rapper .", "rapper ; future is a rapper .")
    long = " ".join(f"w{i}" for i in range(40))
    _, evidence = pair_text("x", "x", "w20", long)
    assert evidence == "w20 ; " + " ".join(f"w{i}" for i in range(8, 33))      # 12 words either side
    assert window("absent", long) == " ".join(f"w{i}" for i in range(24))    # not found: the start


def test_the_context_model_is_keyed_by_its_training_fields_only(tmp_path):
    import dataclasses

    from proofbook.core.cache import ArtifactCache
    from proofbook.admiral.prover import aligned_proofs

    seen = []

    class Recorder(ArtifactCache):
        def get_or_build(self, kind, key, build, *codec):
            seen.append(key)
            return None

    data = ContextData([], [])
    base = AlignedSettings.smoke()
    assert type(base.context_model) is aligned_proofs.ContextModelSettings
    aligned_proofs.cached_context_model(data, base.context_model, Recorder(tmp_path))
    changed = dataclasses.replace(base, rerank=5, threshold=0.3, score="weakest")
    aligned_proofs.cached_context_model(data, changed.context_model, Recorder(tmp_path))
    assert seen[-1] == seen[0]
    aligned_proofs.cached_context_model(data, dataclasses.replace(base, epochs=2).context_model, Recorder(tmp_path))
    assert seen[-1] != seen[0]


def test_verdicts_with_and_without_an_nei_threshold():
    probabilities = [{op: float(op == "=") for op in LABELS}, {op: {"=": 0.4, "#": 0.6}.get(op, 0.0) for op in LABELS}]
    nei = AlignedProof(natlog.Proof.from_triples([("c0", "e0", "="), ("c1", "e1", "#")]), probabilities,
                       natlog.verdict_probabilities(probabilities), [1.0, 0.4])   # NEI 0.6, SUPPORTS 0.4
    supported = aligned_proof("==")
    assert decided_verdict(nei) == natlog.NEI and decided_verdict(nei, 1.1) == natlog.SUPPORTS
    assert decided_verdict(nei, 0.5) == natlog.NEI and decided_verdict(supported, 0.5) == natlog.SUPPORTS
    found = tune_nei_threshold([nei, supported], [natlog.SUPPORTS, natlog.SUPPORTS])
    assert found["accuracy"] == 1.0 and found["nei_threshold"] > 1 and found["argmax_accuracy"] == 0.5
    with pytest.raises(ValueError, match="2 proofs but 1 labels"):
        tune_nei_threshold([nei, supported], [natlog.SUPPORTS])


def test_each_dataset_gets_its_own_calibrated_threshold(tiny_prover):
    from proofbook.admiral.prover.trained_prover import Prover, SufficiencySettings, calibration_source

    assert calibration_source("feverous_s+distractors") == "feverous_s" and calibration_source(None) is None
    calibration = {"threshold": 0.4, "score": "weakest", "by_source": {"hover": {"threshold": 0.7},
                                                                        "feverous_s": {"threshold": 0.2}}}
    prover = Prover(None, None, tiny_prover.aligner, None, [], None, {}, context_model=tiny_prover.model,
                    aligned_calibration=calibration)
    settings = SufficiencySettings.smoke()
    assert prover.aligned(settings, "hover").threshold == 0.7
    assert prover.aligned(settings, "feverous_s+distractors").threshold == 0.2
    assert prover.aligned(settings).threshold == 0.4 and prover.aligned(settings, "fever").threshold == 0.4
    assert prover.aligned(settings).score == "weakest"
    uncalibrated = Prover(None, None, tiny_prover.aligner, None, [], None, {}, context_model=tiny_prover.model)
    assert uncalibrated.aligned(settings).threshold == settings.aligned.threshold
    assert uncalibrated.aligned(settings).score == "proven"          # "auto" without calibration


def test_aligned_scores_are_the_proofs_scores_of_every_kind(tiny_prover):
    from proofbook.admiral.prover.calibration import aligned_scores
    from proofbook.admiral.prover.trained_prover import Prover, SufficiencySettings

    prover = Prover(None, None, tiny_prover.aligner, None, [], None, {}, context_model=tiny_prover.model)
    claims = ["Anne Rice was born in New Jersey.", "Paris is a rapper."]
    evidence = [[("Rice", "Anne Rice was born in New Orleans.")], [("P", "Paris is a city."), ("B", "It rains.")]]
    settings = SufficiencySettings.smoke()
    found = prover.aligned_prover(settings).prove_many(claims, evidence)
    scores = aligned_scores(prover, settings, claims, evidence)
    assert scores == {kind: [f.score(kind) for f in found] for kind in SCORES}
    assert aligned_scores(prover, settings, [], []) == {kind: [] for kind in SCORES}


def test_balanced_objective_does_not_follow_the_majority():
    scores = [0.9, 0.8, 0.7, 0.6, 0.5, 0.3, 0.2]             # six complete selections, one incomplete (0.5)
    truth = [True, True, True, True, False, True, True]
    by_accuracy = best_threshold(scores, truth)
    by_balance = best_threshold(scores, truth, objective="balanced_accuracy")
    assert by_accuracy["threshold"] == 0.2 and by_accuracy["accuracy"] == 6 / 7   # everything sufficient
    assert by_accuracy["balanced_accuracy"] == 0.5
    assert by_balance["threshold"] == 0.6 and by_balance["balanced_accuracy"] == pytest.approx((4 / 6 + 1) / 2)
    with pytest.raises(ValueError, match="unknown objective"):
        best_threshold(scores, truth, objective="f1")


def test_loop_calibration_uses_the_balanced_threshold_and_needs_both_kinds(tiny_prover):
    from proofbook.admiral.prover.calibration import calibrate_on_loop
    from proofbook.admiral.prover.sufficiency_experiments import loop_calibration_rows
    from proofbook.admiral.prover.trained_prover import Prover, SufficiencySettings

    scores = {"proven": [0.9, 0.8, 0.3, 0.1], "weakest": [0.2, 0.9, 0.8, 0.3], "mean": [0.6, 0.7, 0.4, 0.5]}
    found = calibrate_on_loop(scores, [True, True, False, False], "mean")
    assert found["score"] == "mean" and 0.5 < found["threshold"] <= 0.6 and found["balanced_accuracy"] == 1.0
    assert found["auc/proven"] == 1.0 and found["auc/weakest"] == 0.5 and found["sufficient_points"] == 2
    assert calibrate_on_loop(scores, [True] * 4, "mean") is None            # one kind only: nothing to choose
    with pytest.raises(ValueError, match="unknown sufficiency score"):
        calibrate_on_loop(scores, [True, True, False, False], "median")
    prover = Prover(None, None, tiny_prover.aligner, None, [], None, {}, context_model=tiny_prover.model,
                    aligned_calibration={"threshold": 0.4, "score": "weakest",
                                         "by_source": {"hover": {"threshold": 0.7}}},
                    loop_calibration={"hover": {**found, "claims": 2}})
    settings = SufficiencySettings.smoke()
    assert prover.aligned(settings, "hover").threshold == found["threshold"]          # the loop's threshold wins
    assert prover.aligned(settings, "hover").score == "mean"
    assert prover.aligned(settings, "feverous_s+distractors").threshold == 0.4         # no loop calibration there
    assert prover.selection_threshold(settings, "hover") == 0.7                        # the selection sets' own
    hover, feverous = loop_calibration_rows(prover, settings, ("hover", "feverous_s+distractors"))
    assert hover == {"dataset": "hover", "decision points": 4, "complete": 2, "threshold on selection sets": 0.7,
                     "threshold on loop points": found["threshold"], "balanced accuracy there": 1.0,
                     "AUC proven": 1.0, "AUC weakest": 0.5, "AUC mean": found["auc/mean"]}
    assert feverous["threshold on selection sets"] == 0.4 and feverous["threshold on loop points"] is None
    assert feverous["decision points"] is None and feverous["AUC mean"] is None


def test_loop_calibration_claims_follow_the_generator_and_selection_claims():
    from types import SimpleNamespace

    from proofbook.admiral.prover.sufficiency_experiments import loop_calibration_claims
    from proofbook.admiral.prover.trained_prover import SufficiencySettings
    from proofbook.admiral.prover.training_proofs import seeded_order

    claims = [SimpleNamespace(id=str(i), gold_sentences=((f"T{i}", 0),) if i % 5 else ()) for i in range(40)]
    settings = SufficiencySettings.smoke()
    picked = loop_calibration_claims(SimpleNamespace(train=claims), settings)
    with_gold = [c for c in seeded_order(claims) if c.gold_sentences]
    skip = settings.proofgen.max_claims_per_dataset + settings.calibration_claims
    assert picked == with_gold[skip:skip + settings.loop_calibration_claims] and len(picked) == 3
    assert loop_calibration_claims(SimpleNamespace(train=claims[:3]), settings) == []


def test_auto_chooses_the_score_with_the_higher_defined_auc():
    from proofbook.admiral.prover.aligned_proofs import chosen_score

    assert chosen_score("weakest", {"proven": 0.9}) == "weakest"            # a named score is kept
    assert chosen_score("auto", {"proven": 0.6, "weakest": 0.7}) == "weakest"
    assert chosen_score("auto", {"proven": 0.7, "weakest": 0.7}) == "proven"   # a tie: the first of SCORES
    assert chosen_score("auto", {"proven": 0.71, "weakest": 0.70, "mean": 0.73}) == "mean"
    assert chosen_score("auto", {"proven": 0.7, "weakest": 0.6, "mean": 0.7}) == "proven"
    assert chosen_score("auto", {"proven": float("nan"), "weakest": 0.2}) == "weakest"   # undefined ranks last
    assert chosen_score("auto", {"proven": float("nan"), "weakest": float("nan")}) == "proven"
    assert chosen_score("auto", {}) == "proven"
