"""The sufficiency decisions and the stopping simulation (proofbook.admiral.prover.sufficiency)."""
import pytest

from proofbook.core.corpus import Sentence
from proofbook.admiral.prover.natlog import Proof
from proofbook.admiral.prover.sufficiency import NO_EVIDENCE, Decision, NatlogSufficiency, reference_rule
from proofbook.admiral.prover.stopping import (decision_points, fixed_rule, selection_is_sufficient, selections,
                                               simulate_stopping, stopping_metrics, truncated)
from proofbook.admiral.retrieval.multihop import HopTrace, RetrievalTrace
from proofbook.admiral.retrieval.tasks import RetrievalClaim

pytestmark = pytest.mark.unit


def proof(ops, score):
    return Proof.from_triples([(f"c{i}", f"e{i}", op) for i, op in enumerate(ops)], score=score)


def test_reference_rule():
    assert reference_rule([proof("==", -0.2), proof("=!", -0.5)]) == (True, [proof("==", -0.2), proof("=!", -0.5)])
    ok, kept = reference_rule([proof("==", -0.2), proof("=#", -0.5)])
    assert not ok and len(kept) == 2                         # a kept proof ends in NEI
    assert reference_rule([proof("==", -0.2), proof("=#", -1.5)])[0]  # the NEI proof is below the threshold
    assert reference_rule([proof("==", -1.2)]) == (False, [])          # nothing kept
    assert not reference_rule([])[0]
    assert reference_rule([proof("=>", -0.1)], threshold=-2)[0] is False  # reverse entailment: NEI


S = {name: Sentence(name.split(":")[0], int(name.split(":")[1]), f"text of {name}") for name in
     ["A:0", "B:0", "C:0", "D:0", "E:0", "F:0"]}


def trace(claim="claim one"):
    initial = [(S["A:0"], 0.9), (S["D:0"], 0.5)]
    hops = [HopTrace(2, [S["A:0"]], [], ["B"], [(S["B:0"], 0.7)]),
            HopTrace(3, [S["A:0"]], [], ["C"], [(S["C:0"], 0.6)])]
    t = RetrievalTrace(claim, [], [], ["A", "D", "E", "F"], ["A", "D", "E"], list(initial), list(initial))
    t.hops = hops
    return t


def claim(gold_titles, gold_sentences, cid="1"):
    return RetrievalClaim(cid, "claim one", tuple(gold_titles), tuple(gold_sentences), len(gold_titles), "SUPPORTED")


def test_selections_and_truncation():
    t = trace()
    sels = selections(t, top_sentences=2)
    assert [[s.title for s in sel] for sel in sels] == [["A", "D"], ["A", "B"], ["A", "B"]]
    assert truncated(t, 1).ranking()[:3] == ["A", "D", "E"]
    assert truncated(t, 2).ranking()[:3] == ["A", "D", "B"] and truncated(t, 3).ranking()[:4] == ["A", "D", "B", "C"]


def test_truth_rule():
    c = claim(["A", "B"], [("A", 0), ("B", 0)])
    assert not selection_is_sufficient(c, [S["A:0"], S["D:0"]], "hover")
    assert selection_is_sufficient(c, [S["A:0"], S["B:0"]], "hover")
    assert selection_is_sufficient(claim(["A", "B"], []), [S["A:0"], S["B:0"]], "feverous_s+distractors")


def test_simulation_of_fixed_rules_and_oracle():
    traces = [trace("claim one"), trace("claim two")]
    claims = [claim(["A", "B"], [("A", 0), ("B", 0)], "1"), claim(["A", "C"], [("A", 0), ("C", 0)], "2")]
    always = simulate_stopping("suff-always", traces, claims, "hover", fixed_rule(1), limit=3)
    never = simulate_stopping("suff-never", traces, claims, "hover", fixed_rule(99), limit=3)
    fixed2 = simulate_stopping("fixed-2", traces, claims, "hover", fixed_rule(2), limit=3)
    oracle = simulate_stopping("oracle", traces, claims, "hover", "oracle", limit=3)
    assert always.stops == [1, 1] and never.stops == [3, 3] and fixed2.stops == [2, 2]
    assert oracle.stops == [2, 3]                      # claim 2's C sentence arrives with iteration 3
    rows = {r["metric"]: r["value"] for r in stopping_metrics(oracle, claims)}
    assert rows["suff_acc"] == 1.0 and rows["avg_hops"] == 2.5 and rows["suff_balanced_acc"] == 1.0
    assert rows["suff_f1@iter2"] == 1.0 and rows["suff_f1@iter1"] == 0.0      # no claim is sufficient at 1
    rows = {r["metric"]: r for r in stopping_metrics(never, claims)}
    assert rows["suff_acc"]["n"] == 4 and rows["suff_acc"]["value"] == 0.75 and rows["suff_f1"]["value"] == 0.0
    assert rows["suff_balanced_acc"]["value"] == 0.5                           # a constant rule
    assert rows["suff_f1@iter1"]["n"] == 2 and rows["suff_f1@iter2"]["n"] == 2
    assert rows["recall@5"]["value"] == 1.0
    rows = {r["metric"]: r["value"] for r in stopping_metrics(always, claims)}
    assert rows["suff_acc"] == 0.0 and rows["recall@5"] == 0.0 and rows["avg_hops"] == 1.0


def test_decision_points_are_the_points_the_simulation_asks():
    traces = [trace("claim one"), trace("claim two")]
    claims = [claim(["A", "B"], [("A", 0), ("B", 0)], "1"), claim(["A", "C"], [("A", 0), ("C", 0)], "2")]
    points = decision_points(traces, claims, "hover", limit=3)
    assert [(c, [s.title for s in sel][:3], t) for c, sel, t in points] == [
        ("claim one", ["A", "D"], False), ("claim one", ["A", "B", "D"], True),
        ("claim two", ["A", "D"], False), ("claim two", ["A", "B", "D"], False)]
    asked = simulate_stopping("suff-never", traces, claims, "hover", fixed_rule(99), limit=3)
    assert [t for per in asked.decisions for _, t in per] == [t for _, _, t in points]
    assert len(decision_points(traces, claims, "hover", limit=2)) == 2        # only iteration 1 is asked
    short = trace("claim one")
    short.hops = []                                                            # the loop had no further hop
    assert len(decision_points([short], claims[:1], "hover", limit=3)) == 1


class FakeGenerator:
    """Proofs ending in NEI unless the selection holds sentence B."""

    def generate(self, claims, evidence, beam=5, constrained=True, batch_size=8):
        self.calls = getattr(self, "calls", 0) + 1
        return [[proof("==" if any(t == "B" for t, _ in ev) else "=#", -0.3)] for ev in evidence]


def test_natlog_decision_is_the_admiral_hook():
    rule = NatlogSufficiency(FakeGenerator(), beam=2)
    assert rule("claim", [S["A:0"], S["B:0"]]) is True and rule("claim", [S["A:0"]]) is False
    empty = rule.decide_many(["x"], [[]])[0]                          # nothing selected: insufficient, and why
    assert empty == Decision(False, reason=NO_EVIDENCE)
    traces, claims = [trace()], [claim(["A", "B"], [("A", 0), ("B", 0)])]
    run = simulate_stopping("suff-natlog", traces, claims, "hover", rule.decide_many, limit=3)
    assert run.stops == [2] and run.decisions == [[(False, False), (True, True)]]
    assert run.details[0][1].kept and run.seconds_per_decision >= 0


def test_error_kinds():
    from proofbook.admiral.prover.stopping import error_kind

    c = claim(["A", "B"], [("A", 0), ("B", 0)])
    sels = [S["A:0"], S["B:0"], S["D:0"]]
    nei_on_gold = Proof.from_triples([("c1", "text of A:0", "="), ("c2", "text of B:0", "#")], score=-0.1)
    nei_on_other = Proof.from_triples([("c1", "text of A:0", "="), ("c2", "text of D:0", "#")], score=-0.1)
    after_negation = Proof.from_triples([("c1", "text of A:0", "!"), ("c2", "text of B:0", "<")], score=-0.1)
    assert error_kind(c, sels, Decision(False, [nei_on_gold], [nei_on_gold]), True, "hover") == "operator"
    assert error_kind(c, sels, Decision(False, [nei_on_other], [nei_on_other]), True, "hover") == "alignment"
    assert error_kind(c, sels, Decision(False, [after_negation], [after_negation]), True, "hover") == "automaton"
    assert error_kind(c, sels, Decision(False), True, "hover") == "no proof kept"
    assert error_kind(c, sels, Decision(True, [proof("==", -0.1)], [proof("==", -0.1)]), True, "hover") is None
    wrong_yes = Proof.from_triples([("c1", "text of A:0", "="), ("c2", "text of D:0", "=")], score=-0.1)
    assert error_kind(c, [S["A:0"], S["D:0"]], Decision(True, [wrong_yes], [wrong_yes]), False, "hover") == "alignment"


def test_verdict_accuracy_counts_missing_proofs_as_wrong():
    from proofbook.data.fever_symmetric import SymmetricPair
    from proofbook.admiral.prover.sufficiency_experiments import verdict_accuracy

    class Gen:
        def generate(self, claims, evidence, beam=1, batch_size=16):
            return [[proof("=", -0.1)] if "yes" in c else [] for c in claims]

    pairs = [SymmetricPair("1", "yes claim", "ev", "SUPPORTS"), SymmetricPair("2", "yes claim", "ev", "REFUTES"),
             SymmetricPair("3", "no claim", "ev", "SUPPORTS")]
    accuracy, best = verdict_accuracy(Gen(), pairs)
    assert accuracy == pytest.approx(1 / 3) and best[2] is None


def test_threshold_calibration_picks_the_best_cut():
    from proofbook.admiral.prover.training_proofs import EvidenceSet
    from proofbook.admiral.prover.calibration import calibrate_threshold

    class Gen:   # sufficient selections get a confident S proof, insufficient ones an unsure S proof
        def generate(self, claims, evidence, beam=5, constrained=True, batch_size=8):
            return [[proof("==", -1.2 if c == "full" else -2.5)] for c in claims]

    sets = [EvidenceSet("full", "1", (S["A:0"],), (S["A:0"],)), EvidenceSet("part", "2", (S["D:0"],), (), S["A:0"])]
    found = calibrate_threshold(Gen(), sets, beam=2)
    assert -2.5 <= found["threshold"] < -1.2 and found["n"] == 2
    assert max(row["accuracy"] for row in found["table"]) == 1.0
    assert any(row["threshold"] == -0.9 and row["accuracy"] == 0.5 for row in found["table"])
    best = next(row for row in found["table"] if row["threshold"] == found["threshold"])
    assert (best["said_sufficient_complete"], best["said_sufficient_incomplete"]) == (1.0, 0.0)
    loose = min(found["table"], key=lambda row: row["threshold"])   # keeps both proofs: no information
    assert loose["said_sufficient_complete"] == loose["said_sufficient_incomplete"] == 1.0


def test_earlier_traces_come_from_the_experiments_run_only_when_it_holds_every_claim(tmp_path):
    from proofbook.core.corpus import Corpus
    from proofbook.core.cache import ArtifactCache
    from proofbook.admiral.prover.sufficiency_experiments import earlier_traces
    from proofbook.admiral.retrieval import retrieval_experiments
    from proofbook.admiral.retrieval.tasks import RetrievalTask

    corpus = Corpus("toy")
    corpus.add("A", ["A first."])
    claims = [RetrievalClaim(str(i), f"claim {i}", ("A",), (), 1, "SUPPORTED") for i in range(3)]
    task = RetrievalTask("toy", corpus, [], claims)
    settings, cache = retrieval_experiments.TrainingSettings.smoke(0), ArtifactCache(tmp_path)
    assert earlier_traces(task, claims[:2], settings, 5, claims, cache) is None          # no run cached
    run = retrieval_experiments.TaskRun("toy", claims, {}, [trace(c.claim) for c in claims], [], [], [], {})
    cache.cache_pickle("admiral-run", retrieval_experiments.run_key(task, claims, settings, retrieval_experiments.book_config(beam=5),
                                                           False), lambda: run)
    found = earlier_traces(task, [claims[2], claims[0]], settings, 5, claims, cache)
    assert [t.claim for t in found] == ["claim 2", "claim 0"]
    other = RetrievalClaim("9", "claim 9", ("A",), (), 1, "SUPPORTED")
    assert earlier_traces(task, [claims[0], other], settings, 5, claims, cache) is None  # a claim the run lacks


def test_classifier_threshold_is_calibrated_on_the_selections():
    from proofbook.admiral.prover.training_proofs import EvidenceSet
    from proofbook.admiral.prover.sufficiency import CLASSIFIER_LABELS, ClassifierSufficiency
    from proofbook.admiral.prover.calibration import calibrate_classifier

    class Encoder:   # unsure on every selection, a little surer on the complete ones
        labels = list(CLASSIFIER_LABELS)

        def predict_proba(self, pairs, progress=False):
            return [[0.4, 0.6] if "B" in passage else [0.3, 0.7] for _, passage in pairs]

    sets = [EvidenceSet("c", "1", (S["A:0"],), (S["A:0"],)), EvidenceSet("c", "2", (S["B:0"],), (), S["A:0"])]
    classifier = ClassifierSufficiency(Encoder())
    assert [d.sufficient for d in classifier.decide_many(["c", "c"], [s.sentences for s in sets])] == [True, True]
    found = calibrate_classifier(classifier, sets)
    assert found["threshold"] == pytest.approx(0.7) and found["accuracy"] == 1.0 and found["reference_accuracy"] == 0.5
    classifier.threshold = found["threshold"]
    assert [d.sufficient for d in classifier.decide_many(["c", "c"], [s.sentences for s in sets])] == [True, False]


def test_verdict_rows_count_nei_and_missing_proofs_as_wrong():
    from proofbook.data.fever_symmetric import SymmetricPair
    from proofbook.admiral.prover.natlog import NEI, REFUTES, SUPPORTS
    from proofbook.admiral.prover.sufficiency_experiments import verdict_rows

    pairs = [SymmetricPair(str(i), "c", "e", label) for i, label in enumerate([SUPPORTS, REFUTES, SUPPORTS, REFUTES])]
    rows = {r["metric"]: r for r in verdict_rows(pairs, [SUPPORTS, NEI, None, REFUTES], "dev", "natlog-aligned")}
    assert rows["verdict_acc"]["value"] == 0.5 and rows["nei_share"]["value"] == 0.5
    assert rows["verdict_acc"]["system"] == "natlog-aligned" and rows["verdict_acc"]["n"] == 4
    with pytest.raises(ValueError, match="4 pairs but 1 verdicts"):
        verdict_rows(pairs, [SUPPORTS], "dev", "x")


def test_generated_score_is_the_beam_share_reaching_a_verdict():
    import math

    from proofbook.admiral.prover.sufficiency_experiments import generated_score

    assert generated_score([]) == 0.0
    assert generated_score([proof("==", -0.5)]) == 1.0 and generated_score([proof("=#", -0.5)]) == 0.0
    mixed = generated_score([proof("==", math.log(0.3)), proof("=#", math.log(0.1))])
    assert mixed == pytest.approx(0.75)


def test_calibration_auc_rows_resample_claims():
    from types import SimpleNamespace

    from proofbook.admiral.prover.sufficiency_experiments import calibration_auc_rows

    sets = [SimpleNamespace(claim_id=str(i // 2), sufficient=i % 2 == 0) for i in range(8)]
    scores = {"natlog-aligned": [0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.4], "natlog-lexical": [1.0] * 8}
    rows = {(r["system"], r["metric"]): r for r in calibration_auc_rows("hover", "dev", sets, scores)}
    assert rows[("natlog-aligned", "calibration_auc")]["value"] == 1.0
    assert rows[("natlog-lexical", "calibration_auc")]["value"] == 0.5
    assert rows[("natlog-aligned", "calibration_auc:ci95_low")]["value"] == 1.0
    assert rows[("natlog-aligned", "calibration_auc")]["n"] == 8
