"""The Entailer chapters run end to end with ``smoke=True`` on the real data, and write the rows results.md names.

Each chapter is executed once per session by the ``smoke_run`` fixture (``tests/smoke_runs.py``: the runner,
results and figures in a temporary folder, one shared temporary model cache); here its results JSON is checked.
"""

import pytest

from proofbook.cli import runner

pytestmark = pytest.mark.notebook

CHAPTERS = sorted((runner.NOTEBOOKS / "entailer").glob("*.py"))
PAPER_SYSTEMS = {"direct", "entailer-greedy-d1", "entailer-greedy-d3", "entailer-sampled-d1", "entailer-sampled-d3",
                 "entailer+direct-d1", "entailer+direct-d3"}
#: the paper's systems, the stand-ins on the mixed premise pool, direct on every question, retrieved premises only
SYSTEMS = PAPER_SYSTEMS | {s.replace("entailer", "entailer-mixed", 1) for s in PAPER_SYSTEMS - {"direct"}} | {
    "direct-all", "entailer-retrieved-sampled-d1"}
COMBINED = {s for s in SYSTEMS if "+direct" in s}


@pytest.mark.parametrize("source", CHAPTERS, ids=[runner.notebook_id(p) for p in CHAPTERS])
def test_entailer_notebook_smoke(source, smoke_run):
    run = smoke_run(runner.notebook_id(source))
    [data] = run["results"].values()
    assert data["params"]["smoke"] is True and data["rows"]
    assert run["figures"]
    rows = {(r["dataset"], r["split"], r["system"], r["metric"]) for r in data["rows"]}
    if source.stem == "02_experiments":
        for system in SYSTEMS:
            assert ("obqa", "dev", system, "accuracy") in rows and ("qasc", "dev", system, "accuracy") in rows
            assert ("obqa", "dev", system, "seconds_per_question") in rows
        for system in COMBINED:
            assert ("obqa", "dev", system, "faithfulness_break") in rows
        for premise_source in ("generated", "retrieved", "mixed"):
            assert ("entailmentbank", "dev", f"premise-{premise_source}", "premise_recall") in rows
        for system in SYSTEMS - {"direct", "direct-all"} - COMBINED:
            assert ("obqa", "dev", system, "leaf_fallback_share") in rows
        for row in data["rows"]:
            if row["metric"] in ("accuracy", "premise_recall", "faithfulness_break", "leaf_fallback_share") \
                    and "-vs-" not in row["system"]:       # a paired difference lies in [-1, 1]
                assert 0 <= row["value"] <= 1
    if source.stem == "03_error_analysis":
        assert ("obqa", "dev", "entailer-sampled-d1+memory", "answers_changed") in rows
