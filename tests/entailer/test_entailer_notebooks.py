"""The Entailer chapters run end to end with ``smoke=True`` on the real data, and write the rows results.md names.

Modelled on ``tests/test_notebooks.py``: each chapter runs through the runner (papermill) with results and
figures in a temporary folder and a temporary model cache, then its results JSON is checked.
"""

import pytest

from proofbook import runner
from proofbook.results import load_results

pytestmark = pytest.mark.notebook

CHAPTERS = sorted((runner.NOTEBOOKS / "entailer").glob("*.py"))
SYSTEMS = {"direct", "entailer-greedy-d1", "entailer-greedy-d3", "entailer-sampled-d1", "entailer-sampled-d3",
           "entailer+direct-d1", "entailer+direct-d3", "direct-all"}


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory):
    """One smoke model cache for the three chapters (they share models and runs, as in the book)."""
    return tmp_path_factory.mktemp("entailer-cache")


@pytest.mark.parametrize("source", CHAPTERS, ids=[runner.notebook_id(p) for p in CHAPTERS])
def test_entailer_notebook_smoke(source, real_data_dir, tmp_path, monkeypatch, shared_cache):
    monkeypatch.setenv("PROOFBOOK_DATA", str(real_data_dir))
    monkeypatch.setenv("PROOFBOOK_CACHE", str(shared_cache))
    params = {"smoke": True, "results_dir": str(tmp_path / "results"), "figures_dir": str(tmp_path / "figures")}
    runner.run_notebook(source, params, output=tmp_path / f"{source.stem}.ipynb", progress=False)
    [path] = sorted((tmp_path / "results").rglob("*.json"))
    data = load_results(path)
    assert data["params"]["smoke"] is True and data["rows"]
    assert list((tmp_path / "figures" / "entailer").glob("*.svg"))
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
