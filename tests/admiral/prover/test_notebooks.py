"""The natural-logic chapters (admiral/05, admiral/06) run end to end in smoke mode on the real data.

Executed once per session by the ``smoke_run`` fixture (tests/smoke_runs.py); here the results file is checked
against results.md's names.
"""
import pytest

pytestmark = pytest.mark.notebook


def rows_of(stem, smoke_run):
    run = smoke_run(f"admiral/{stem}")
    [data] = run["results"].values()
    assert data["params"]["smoke"] is True and data["rows"]
    assert run["figures"]
    return data["rows"]


def test_natural_logic_chapter_smoke(smoke_run):
    rows = rows_of("05_natural_logic", smoke_run)
    metrics = {(r["system"], r["metric"]) for r in rows}
    assert ("operator-model", "accuracy") in metrics and ("natlog-automaton", "verdict_acc") in metrics
    assert {f"recall/{op}" for op in "=<>!|#"} <= {m for s, m in metrics if s == "operator-model"}
    assert {f"recall/{op}" for op in "=<>!|#"} | {"macro_f1", "accuracy"} <= \
        {m for s, m in metrics if s == "operator-model-aligned"}
    independence = {(r["system"], r["metric"]) for r in rows if r["dataset"] == "independence-heldout"}
    assert {(s, m) for s in ("operator-model-aligned", "operator-model", "lexical")
            for m in ("recall/#", "precision/#")} <= independence


def test_sufficiency_chapter_smoke(smoke_run):
    rows = rows_of("06_sufficiency", smoke_run)
    systems = ("suff-natlog", "suff-aligned", "suff-lexical", "suff-classifier", "suff-always", "suff-never",
               "fixed-2", "oracle")
    for dataset in ("hover", "feverous_s+distractors"):
        for system in systems:
            got = {r["metric"] for r in rows if r["dataset"] == dataset and r["system"] == system}
            assert {"recall@5", "avg_hops", "suff_balanced_acc", "suff_f1@iter1"} <= got, (dataset, system, got)
        for system in ("natlog-aligned", "natlog-generated", "natlog-lexical"):
            assert any(r["dataset"] == dataset and r["system"] == system and r["metric"] == "calibration_auc"
                       for r in rows), (dataset, system)
        never = next(r for r in rows if r["dataset"] == dataset and r["system"] == "suff-never" and r["metric"] == "avg_hops")
        always = next(r for r in rows if r["dataset"] == dataset and r["system"] == "suff-always" and r["metric"] == "avg_hops")
        assert always["value"] == 1.0 and 1.0 <= never["value"] <= 3.0
        # by construction (stopping.simulate_stopping on the same traces): suff-never runs every claim to
        # min(limit, hops the trace has), the most any rule can run, so no rule averages more iterations
        hops = {(r["split"], r["system"]): r["value"] for r in rows
                if r["dataset"] == dataset and r["metric"] == "avg_hops"}
        for split in {s for s, _ in hops}:
            for system in ("suff-natlog", "suff-aligned", "fixed-2"):
                assert hops[(split, system)] <= hops[(split, "suff-never")] + 1e-9, (dataset, split, system, hops)
    for split in ("dev", "test"):
        for system in ("natlog-aligned", "natlog-generated"):
            for metric in ("verdict_acc", "nei_share"):
                assert any(r["dataset"] == "fever_symmetric" and r["split"] == split and r["system"] == system
                           and r["metric"] == metric and 0 <= r["value"] <= 1 for r in rows), (split, system, metric)
            # every pair is SUPPORTS or REFUTES: a NOT ENOUGH INFO (or missing) verdict is never right
            value = {r["metric"]: r["value"] for r in rows
                     if r["dataset"] == "fever_symmetric" and r["split"] == split and r["system"] == system}
            assert value["verdict_acc"] + value["nei_share"] <= 1 + 1e-9, (split, system, value)
    assert {("hover", f"{rule}-vs-fixed-2", m) for rule in ("suff-natlog", "suff-aligned")
            for m in ("recall@5", "suff_f1", "suff_f1:ci95_high")} <= \
        {(r["dataset"], r["system"], r["metric"]) for r in rows}
    for r in rows:
        if r["metric"].split(":")[0] in ("avg_hops", "seconds_per_decision"):   # counts and seconds, and intervals
            continue
        low = -1 if "-vs-" in r["system"] else 0       # a difference A - B may be negative
        assert low <= r["value"] <= 1, r
