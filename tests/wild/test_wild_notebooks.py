"""The claims-in-the-wild chapters run end to end with ``smoke=True`` on the real data.

Modelled on ``tests/test_notebooks.py``: each notebook is executed through the runner (papermill) with
results and figures in a temporary folder and a temporary artifact cache, then its results JSON is
checked; ``02_experiments`` must write every row named in ``results.md``.
"""
import pytest

from proofbook import runner
from proofbook.results import load_results

pytestmark = pytest.mark.notebook

CHAPTERS = sorted((runner.NOTEBOOKS / "wild").glob("0*.py"))
CLAIMDECOMP_TEST = ("claim-only", "justification", "web-snippets", "web-summaries", "always-half-true")
METRICS = ("accuracy", "macro_f1", "mae", "soft_accuracy")


def run(source, real_data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_DATA", str(real_data_dir))
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "cache"))
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    params = {"smoke": True, "results_dir": str(tmp_path / "results"), "figures_dir": str(tmp_path / "figures")}
    runner.run_notebook(source, params, output=tmp_path / f"{source.stem}.ipynb", progress=False)
    return load_results(tmp_path / "results" / "wild" / f"{source.stem}.json")


@pytest.mark.parametrize("source", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_wild_notebook_smoke(source, real_data_dir, tmp_path, monkeypatch):
    data = run(source, real_data_dir, tmp_path, monkeypatch)
    assert data["rows"] and data["params"]["smoke"] is True
    keys = {(r["dataset"], r["split"], r["system"], r["metric"]) for r in data["rows"]}
    if source.stem == "02_experiments":
        expected = {("claimdecomp", "test", s, m) for s in CLAIMDECOMP_TEST for m in METRICS}
        expected |= {("claimdecomp", "dev", s, m) for s in ("claim-only", "always-half-true") for m in METRICS}
        expected |= {("liar", "valid", s, m) for s in ("claim-only", "always-half-true") for m in METRICS}
        expected |= {("claimdecomp", "test", s, "question_recall") for s in ("questions-trained", "questions-cached")}
        assert expected <= keys, sorted(expected - keys)
        assert not any(k[1] == "dev" and k[2] == "justification" for k in keys)  # trained on dev: not reported
        for r in data["rows"]:
            if r["metric"] != "mae":
                assert 0 <= r["value"] <= 1, r
        assert list((tmp_path / "figures" / "wild").glob("*.svg"))
    if source.stem == "01_method":
        assert ("claimdecomp", "test", "pipeline-cached-extractive", "seconds_per_claim") in keys
