"""Backward chaining against fake behaviours: rejection, ranking, recursion, answers, Entailer+Direct."""
import math

import pytest

from proofbook.entailer.memory import BeliefMemory
from proofbook.entailer.search import SearchConfig, answer_directly, answer_question, check_options, prove
from proofbook.entailer.trees import ProofNode, TreeView, render_html, render_text

pytestmark = pytest.mark.unit


class FakeModel:
    """Premise sets per statement (greedy = the first; sampling = the first k); dict scores."""

    def __init__(self, premises, truth, entail, default_truth=0.5, default_entail=0.9):
        self.premises, self.truth, self.entail = premises, truth, entail
        self.default_truth, self.default_entail = default_truth, default_entail
        self.calls = []

    def generate_premises(self, hypotheses, k, sample, temperature, top_p, seed):
        self.calls.append((tuple(hypotheses), k, sample, temperature, top_p))
        return [[list(p) for p in self.premises.get(h, [])[:k]] for h in hypotheses]

    def truth_scores(self, statements):
        return [self.truth.get(s, self.default_truth) for s in statements]

    def entailment_scores(self, proofs):
        return [self.entail.get((tuple(p), h), self.default_entail) for p, h in proofs]


def world():
    premises = {
        "H": [["bad premise", "p2"], ["p1", "p2"], ["p1", "p3"]],
        "p1": [["q1", "q2"]],
        "p2": [["r1"]],
    }
    truth = {"H": 0.6, "bad premise": 0.2, "p1": 0.7, "p2": 0.9, "p3": 0.95, "q1": 0.99, "q2": 0.99, "r1": 0.5}
    entail = {(("p1", "p2"), "H"): 0.8, (("p1", "p3"), "H"): 0.7, (("q1", "q2"), "p1"): 0.95, (("r1",), "p2"): 0.9}
    return FakeModel(premises, truth, entail)


def test_one_step_rejects_and_ranks_by_the_product():
    model = world()
    [root] = prove(["H"], model, SearchConfig.sampled(max_depth=1, k=3))
    assert [c.rejected is not None for c in root.candidates] == [True, False, False]
    assert "premise score 0.20 < 0.5" in root.candidates[0].rejected
    # (0.7*0.9)*0.8 = 0.504 vs (0.7*0.95)*0.7 = 0.4655
    assert [p.statement for p in root.premises] == ["p1", "p2"]
    assert math.isclose(root.proof_score, 0.7 * 0.9 * 0.8)
    assert all(not p.expanded for p in root.premises)
    # the paper's sampling settings reach the generator at the top level
    assert model.calls[0][1:] == (3, True, 2.0, 0.95)


def test_recursion_keeps_a_proof_only_when_it_beats_direct_confidence():
    model = world()
    [root] = prove(["H"], model, SearchConfig.sampled(max_depth=2, k=3))
    p1, p2 = root.premises
    # p1: proof 0.99*0.99*0.95 = 0.931 > c_d 0.7 -> kept
    assert p1.expanded and math.isclose(p1.proof_score, 0.99 * 0.99 * 0.95)
    # p2: proof 0.5*0.9 = 0.45 <= c_d 0.9 -> leaf, the dropped proof's score kept for the reader
    assert not p2.expanded and "kept as a leaf" in p2.note
    assert math.isclose(p2.dropped_proof, 0.5 * 0.9) and p1.dropped_proof is None
    assert math.isclose(ProofNode.from_dict(root.to_dict()).premises[1].dropped_proof, 0.45)
    assert math.isclose(root.proof_score, p1.proof_score * 0.9 * 0.8)
    # below the top level the search is greedy (k=1, no sampling)
    assert model.calls[1][1:3] == (1, False)


def test_one_search_gives_every_depth():
    from proofbook.entailer.search import answer_question_depths, prove_depths
    model = world()
    trees = prove_depths(["H"], model, SearchConfig.sampled(max_depth=2, k=3), [1, 2])
    [d1], seconds1 = trees[1]
    [d2], seconds2 = trees[2]
    assert seconds1 <= seconds2
    assert render_text(d1, True) == render_text(prove(["H"], world(), SearchConfig.sampled(max_depth=1, k=3))[0], True)
    assert render_text(d2, True) == render_text(prove(["H"], world(), SearchConfig.sampled(max_depth=2, k=3))[0], True)
    answers = answer_question_depths("q", [("A", "a"), ("B", "b")], ["H", "p2"], world(),
                                     SearchConfig.greedy(max_depth=3), [1, 3])
    assert set(answers) == {1, 3} and answers[1].seconds <= answers[3].seconds
    with pytest.raises(ValueError, match="depths"):
        prove_depths(["H"], model, SearchConfig.greedy(max_depth=1), [1, 3])


def test_depth_limit_and_top_level_always_expanded():
    model = world()
    [root] = prove(["H"], model, SearchConfig.greedy(max_depth=1))
    # greedy: the first candidate only, which is rejected -> still expanded (best rejected)
    assert len(root.candidates) == 1 and root.expanded
    assert "every candidate rejected" in root.note
    assert all(p.note == "depth limit" for p in root.premises)


def test_loop_guard_and_memory_override():
    model = FakeModel({"H": [["H2", "x"]], "H2": [["H", "y"]]}, {"H": 0.6, "H2": 0.6, "x": 0.9, "y": 0.9}, {})
    [root] = prove(["H"], model, SearchConfig.greedy(max_depth=3))
    # level 1 expands H -> (H2, x); level 2 expands H2 -> (H, y) and x (no premises); at level 3 the
    # premise H repeats its ancestor H and is not sent to the generator: only y is (without the guard: H, y)
    assert [c[0] for c in model.calls] == [("H",), ("H2", "x"), ("y",)]
    # H2's proof 0.6 * 0.9 * 0.9 = 0.486 <= its direct confidence 0.6: a leaf in the settled tree
    h2 = root.premises[0]
    assert h2.statement == "H2" and h2.premises == [] and "kept as a leaf" in h2.note
    assert math.isclose(root.proof_score, 0.6 * 0.9 * 0.9)
    memory = BeliefMemory()
    memory.teach("x", False)
    [taught] = prove(["H"], model, SearchConfig.greedy(max_depth=3), memory=memory)
    x = [n for n in taught.walk() if n.statement == "x"][0]
    assert x.source == "memory" and x.direct == 0.0
    assert taught.candidates[0].rejected  # a premise now scores 0 < 0.5
    assert taught.candidates[0].premise_sources == ("model", "memory") and taught.memory_uses() == 2


def test_answers_direct_entailer_and_combined():
    premises = {"A is right": [["fact a"]], "B is right": [["fact b"]]}
    truth = {"A is right": 0.55, "B is right": 0.9, "fact a": 0.95, "fact b": 0.6}
    entail = {(("fact a",), "A is right"): 0.95, (("fact b",), "B is right"): 0.7}
    model = FakeModel(premises, truth, entail)
    options = [("A", "a"), ("B", "b")]
    result = answer_question("q1", options, ["A is right", "B is right"], model, SearchConfig.greedy())
    assert result.entailer.label == "A"  # 0.9025 vs 0.42
    assert result.direct.label == "B"
    assert result.combined.label == "A" and not result.faithfulness_break  # proof 0.9025 > direct 0.9
    truth["B is right"] = 0.97
    result = answer_question("q1", options, ["A is right", "B is right"], model, SearchConfig.greedy())
    assert result.combined.label == "B" and result.faithfulness_break
    direct = answer_directly("q1", options, ["A is right", "B is right"], model)
    assert direct.direct.label == "B" and direct.seconds >= 0


@pytest.mark.parametrize("options, message", [([("A", "x")], "at least two options"),
                                              ([("A", "x"), ("B", " ")], "option 'B' is empty"),
                                              ([], "at least two options")])
def test_bad_questions(options, message):
    with pytest.raises(ValueError, match=message):
        check_options(options, "q7")
    with pytest.raises(ValueError, match="q7"):
        answer_question("q7", options, ["h"] * len(options), world(), SearchConfig())


def test_bad_config():
    with pytest.raises(ValueError, match="max_depth"):
        SearchConfig(max_depth=0)


def test_trees_render_with_scores_and_round_trip():
    [root] = prove(["H"], world(), SearchConfig.sampled(max_depth=2, k=3))
    text = render_text(root, candidates=True)
    assert text.splitlines()[0].startswith("H  [direct 0.60, entail 0.80, proof")
    assert "x candidate: bad premise (0.20)" in text and "rejected" in text
    assert "└── p2" in text
    html = render_html(root, candidates=True, title="option A")
    assert "<script" not in html and "direct 0.60" in html and "option A" in html
    assert "rejected: premise score" in html
    assert TreeView(root)._repr_html_().startswith("<style>")
    copy = ProofNode.from_dict(root.to_dict())
    assert render_text(copy, True) == text
    assert root.height == 2 and len(root.leaves()) == 3


def test_premise_expansions_of_a_deeper_search():
    """A depth-3 search's tried premises: kept proofs, dropped ones (with their score) and ones with no survivor."""
    from proofbook.entailer import entailer_experiments as ex
    from proofbook.entailer.search import answer_question_depths

    model = world()
    model.premises["p3"] = [["s1"]]
    model.truth["s1"] = 0.2          # p3's only candidate is rejected (premise score below 0.5)
    answers = answer_question_depths("q", [("A", "a"), ("B", "b")], ["H", "p3"], model,
                                     SearchConfig.sampled(max_depth=3, k=3), [1, 3])
    run = ex.SystemRun("entailer-sampled-d3", [answers[3]], ["A"])
    tried = {(e["option"], e["premise"]): e for e in run.premise_expansions()}
    assert tried[("A", "p1")]["kept"] and tried[("A", "p1")]["proof"] > tried[("A", "p1")]["direct confidence"]
    assert not tried[("A", "p2")]["kept"] and tried[("A", "p2")]["proof"] == pytest.approx(0.45)
    assert not any(e["premise"] == "q1" for e in tried.values())      # q1 has no candidate set: never tried
    assert ex.SystemRun("entailer-sampled-d1", [answers[1]], ["A"]).premise_expansions() == []
    rows = {r["metric"]: r for r in ex.expansion_rows(run, {"dataset": "obqa", "split": "dev"})}
    n = len(tried)
    assert rows["premise_expansions"]["value"] == n and rows["premise_expansions"]["n"] == 1
    assert rows["premise_proof_kept_share"]["value"] == pytest.approx(sum(e["kept"] for e in tried.values()) / n)
    proved = [e for e in tried.values() if e["proof"] is not None]
    assert rows["premise_proof_gap"]["n"] == len(proved)
    assert rows["premise_proof_gap"]["value"] == pytest.approx(
        sum(e["direct confidence"] - e["proof"] for e in proved) / len(proved))
