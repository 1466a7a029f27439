"""The Entailer chapters run end to end with ``smoke=True`` on the real data, and write the rows results.md names.

Each chapter is executed once per session by the ``smoke_run`` fixture (``tests/conftest.py``: the runner,
results and figures in a temporary folder, one shared temporary model cache); here its results JSON is checked.
"""

import pytest

from proofbook import runner

pytestmark = pytest.mark.notebook

CHAPTERS = sorted((runner.NOTEBOOKS / "entailer").glob("*.py"))
SYSTEMS = {"direct", "entailer-greedy-d1", "entailer-greedy-d3", "entailer-sampled-d1", "entailer-sampled-d3",
           "entailer+direct-d1", "entailer+direct-d3", "direct-all"}


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
        for depth in (1, 3):
            assert ("obqa", "dev", f"entailer+direct-d{depth}", "faithfulness_break") in rows
        assert ("entailmentbank", "dev", "premise-generator", "premise_recall") in rows
        for row in data["rows"]:
            if row["metric"] in ("accuracy", "premise_recall", "faithfulness_break"):
                assert 0 <= row["value"] <= 1
    if source.stem == "03_error_analysis":
        assert ("obqa", "dev", "entailer-sampled-d1+memory", "answers_changed") in rows
