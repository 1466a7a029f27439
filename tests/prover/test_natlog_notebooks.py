"""The natural-logic chapters (admiral/05, admiral/06) run end to end in smoke mode on the real data.

Modelled on tests/test_notebooks.py: papermill through the runner, results and figures in a temporary folder,
the smoke models in a temporary cache, then the results file checked against results.md's names.
"""
import pytest

from proofbook import runner
from proofbook.results import load_results

pytestmark = pytest.mark.notebook


def run(stem, real_data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_DATA", str(real_data_dir))
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "cache"))  # smoke models never touch the real cache
    source = runner.NOTEBOOKS / "admiral" / f"{stem}.py"
    params = {"smoke": True, "results_dir": str(tmp_path / "results"), "figures_dir": str(tmp_path / "figures")}
    runner.run_notebook(source, params, output=tmp_path / f"{stem}.ipynb", progress=False)
    data = load_results(tmp_path / "results" / "admiral" / f"{stem}.json")
    assert data["params"]["smoke"] is True and data["rows"]
    assert list((tmp_path / "figures").rglob("*.svg"))
    return data["rows"]


def test_natural_logic_chapter_smoke(real_data_dir, tmp_path, monkeypatch):
    rows = run("05_natural_logic", real_data_dir, tmp_path, monkeypatch)
    metrics = {(r["system"], r["metric"]) for r in rows}
    assert ("operator-model", "accuracy") in metrics and ("natlog-automaton", "verdict_acc") in metrics
    assert {f"recall/{op}" for op in "=<>!|#"} <= {m for s, m in metrics if s == "operator-model"}


def test_sufficiency_chapter_smoke(real_data_dir, tmp_path, monkeypatch):
    rows = run("06_sufficiency", real_data_dir, tmp_path, monkeypatch)
    systems = ("suff-natlog", "suff-lexical", "suff-classifier", "suff-always", "suff-never", "fixed-2", "oracle")
    for dataset in ("hover", "feverous_s+distractors"):
        for system in systems:
            got = {r["metric"] for r in rows if r["dataset"] == dataset and r["system"] == system}
            assert {"recall@5", "avg_hops"} <= got, (dataset, system, got)
        never = next(r for r in rows if r["dataset"] == dataset and r["system"] == "suff-never" and r["metric"] == "avg_hops")
        always = next(r for r in rows if r["dataset"] == dataset and r["system"] == "suff-always" and r["metric"] == "avg_hops")
        assert always["value"] == 1.0 and 1.0 <= never["value"] <= 3.0
    for split in ("dev", "test"):
        assert any(r["dataset"] == "fever_symmetric" and r["split"] == split and r["system"] == "natlog-automaton"
                   and r["metric"] == "verdict_acc" and 0 <= r["value"] <= 1 for r in rows)
    for r in rows:
        assert 0 <= r["value"] <= 1 or r["metric"] in ("avg_hops", "seconds_per_decision")
