"""The experiment helpers on hand-made answers: system metrics, rows, error categories, the memory demo's pick."""
from types import SimpleNamespace

import pytest

from proofbook.entailer import entailer_experiments as ex
from proofbook.entailer import analysis
from proofbook.entailer import datasets as edata
from proofbook.entailer.settings import Settings
from proofbook.entailer.search import OptionProof, QuestionAnswer, answer_from_dict, answer_to_dict
from proofbook.entailer.trees import ProofNode



def node(statement, direct, premises=(), entailment=None):
    return ProofNode(statement, direct, premises=list(premises), entailment=entailment)


def answer(qid, a, b, seconds=1.0):
    """Two options; each (direct, proof premises [(text, s_d)], entailment)."""
    options = []
    for label, (direct, premises, entail) in zip("AB", (a, b)):
        tree = node(f"hyp {label}", direct, [node(t, s) for t, s in premises], entail)
        options.append(OptionProof(label, f"option {label}", f"hyp {label}", tree))
    return QuestionAnswer(qid, options, seconds)


@pytest.mark.unit
def test_system_run_metrics_and_rows():
    answers = [answer("q1", (0.9, [("p", 0.9)], 0.9), (0.2, [("r", 0.6)], 0.6)),   # proof A, direct A
               answer("q2", (0.3, [("p", 0.9)], 0.9), (0.95, [("r", 0.6)], 0.6))]  # proof A, direct B (0.95 > 0.81)
    gold = ["A", "B"]
    runs = {"direct": ex.SystemRun("direct", answers, gold),
            "entailer-sampled-d1": ex.SystemRun("entailer-sampled-d1", answers, gold),
            "entailer+direct-d1": ex.SystemRun("entailer+direct-d1", answers, gold)}
    assert runs["direct"].accuracy == 1.0
    assert runs["entailer-sampled-d1"].accuracy == 0.5
    assert runs["entailer+direct-d1"].predictions() == ["A", "B"]
    assert runs["entailer+direct-d1"].faithfulness_break == 0.5
    rows = ex.run_rows(runs, "obqa", "dev")
    assert {(r["system"], r["metric"]) for r in rows} >= {("direct", "accuracy"), ("entailer+direct-d1", "faithfulness_break"),
                                                         ("entailer-sampled-d1", "seconds_per_question")}
    assert all(r["n"] == 2 for r in rows)
    copy = answer_from_dict(answer_to_dict(answers[1]))
    assert copy.combined.label == "B" and copy.seconds == 1.0


@pytest.mark.unit
def test_error_categories():
    tautology = answer("q", (0.5, [("hyp A", 0.9), ("x", 0.9)], 0.9), (0.5, [("y", 0.5)], 0.5))
    assert analysis.error_category(tautology, "B") == "reasoning: near-tautology"
    weak_inference = answer("q", (0.5, [("fact one", 0.95)], 0.7), (0.5, [("y", 0.5)], 0.5))
    assert analysis.error_category(weak_inference, "B") == "reasoning"
    false_belief = answer("q", (0.5, [("fact one", 0.7)], 0.95), (0.5, [("y", 0.5)], 0.5))
    assert analysis.error_category(false_belief, "B") == "belief"
    assert analysis.error_category(false_belief, "B", facts={"fact one"}) == "reasoning"   # a corpus fact is true
    same = answer("q", (0.5, [("fact one", 0.7)], 0.95), (0.5, [("y", 0.5)], 0.5))
    same.options[1].option = "option A"
    assert analysis.error_category(same, "B") == "dataset"
    run = ex.SystemRun("entailer-sampled-d1", [false_belief], ["B"])
    [error] = analysis.errors(run, [SimpleNamespace(id="q", answer_key="B")])
    assert error["category"] == "belief" and error["predicted"] == "A"
    assert analysis.strongest_premise(false_belief).statement == "fact one"
    assert analysis.strongest_premise(false_belief, facts={"fact one"}) is None     # a corpus fact is never "corrected"


@pytest.mark.data
def test_settings_and_plan(real_data_dir):
    assert Settings().search("entailer-greedy-d3").max_depth == 3
    sampled = Settings().search("entailer-sampled-d1")
    assert (sampled.k_top, sampled.sample_top, sampled.temperature, sampled.top_p) == (6, True, 1.0, 0.95)
    from proofbook.entailer.search import SearchConfig
    assert (SearchConfig.sampled().temperature, SearchConfig.sampled().top_p) == (2.0, 0.95)  # the paper's
    plan = edata.evaluation_plan(real_data_dir)
    assert plan["obqa"] == ["dev"] and plan["qasc"] == ["dev"]
    assert edata.evaluation_plan(real_data_dir, "dev") == plan
    with pytest.raises(ValueError, match="no OBQA or QASC evaluation split"):
        edata.evaluation_plan(real_data_dir, "test")


@pytest.mark.unit
def test_write_hypotheses_keeps_question_boundaries():
    from proofbook.entailer.hypotheses import RuleWriter
    questions = [SimpleNamespace(stem="What is red?", options=[SimpleNamespace(text="a rose"), SimpleNamespace(text="sky")]),
                 SimpleNamespace(stem="The sun is", options=[SimpleNamespace(text="a star")] * 3)]
    out = ex.write_hypotheses(questions, RuleWriter())
    assert [len(h) for h in out] == [2, 3] and out[0][0] == "red is a rose"


class FakeResults:
    """``value(dataset, split, system, metric)`` over a dict, as :class:`proofbook.core.results.Results` answers it."""

    def __init__(self, values):
        self.values = values

    def value(self, *key):
        return self.values[key]


@pytest.mark.unit
def test_comparison_glue_shows_the_first_split_and_chance_on_every_split():
    from proofbook.core import intervals, paper_claims
    from tests.notebook_glue import shown_not_glued_by_name

    values = {}
    for dataset, split, level in (("obqa", "dev", 0.25), ("qasc", "dev", 0.125)):
        values[dataset, split, "chance", "accuracy"] = level
        for system in ex.SYSTEMS + ex.MIXED_SYSTEMS + ex.SOURCE_SYSTEMS:
            for metric, value in (("accuracy", 0.5), ("accuracy" + intervals.LOW, 0.4), ("accuracy" + intervals.HIGH, 0.6),
                                  ("seconds_per_question", 1.234), ("faithfulness_break", 0.1),
                                  ("same_answer_as_direct", 0.8), ("leaf_fallback_share", 0.05)):
                values[dataset, split, system, metric] = value
    values["obqa", "dev", "direct", "accuracy"] = 0.45
    shown = ex.comparison_glue(FakeResults(values), [("obqa", "dev"), ("qasc", "dev")], 100)
    assert (shown["first_data"], shown["n_questions"], shown["gap_sampled_direct"]) == ("obqa dev", 100, "+0.050")
    assert (shown["acc_direct"], shown["sec_entailer-sampled-d3"], shown["break_d1"]) == ("0.450", "1.23", "0.100")
    assert shown["direct_vs_chance"] == ("obqa dev: 0.450 [0.400, 0.600], above chance (0.250); "
                                         "qasc dev: 0.500 [0.400, 0.600], above chance (0.125)")
    verdicts = {claim.id.replace("-", "_") for claim in paper_claims.REGISTRY}      # paper_claims.verdict_glue's names
    missing = shown_not_glued_by_name("entailer/02_experiments") - set(shown) - verdicts
    assert missing == {"expansions_n", "expansions_kept", "expansions_no_survivor", "expansions_gap"}  # the depth-3 cell's
