"""The claims-in-the-wild chapters run end to end with ``smoke=True`` on the real data.

Each notebook is executed once per session by the ``smoke_run`` fixture (``tests/smoke_runs.py``: the
runner, results and figures in a temporary folder, a temporary model cache, no LLM endpoint); here its
results JSON is checked: ``02_experiments`` must write every row named in ``results.md``.
"""
import pytest

from proofbook.cli import runner

pytestmark = pytest.mark.notebook

CHAPTERS = sorted((runner.NOTEBOOKS / "wild").glob("0*.py"))
CLAIMDECOMP_TEST = ("claim-only", "claim-only-matched", "justification", "web-snippets", "web-summaries",
                    "always-half-true")
METRICS = ("accuracy", "macro_f1", "mae", "soft_accuracy")


@pytest.mark.parametrize("source", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_wild_notebook_smoke(source, smoke_run):
    run = smoke_run(f"wild/{source.stem}")
    [data] = run["results"].values()
    assert data["rows"] and data["params"]["smoke"] is True
    keys = {(r["dataset"], r["split"], r["system"], r["metric"]) for r in data["rows"]}
    if source.stem == "02_experiments":
        expected = {("claimdecomp", "test", s, m) for s in CLAIMDECOMP_TEST for m in METRICS}
        expected |= {("claimdecomp", "dev", s, m) for s in ("claim-only", "always-half-true") for m in METRICS}
        expected |= {("liar", "valid", s, m) for s in ("claim-only", "always-half-true") for m in METRICS}
        expected |= {("claimdecomp", "test", s, "question_recall") for s in ("questions-trained", "questions-cached")}
        assert expected <= keys, sorted(expected - keys)
        assert not any(k[1] == "dev" and k[2] == "justification" for k in keys)  # trained on dev: not reported
        assert {("claimdecomp", "test", "web-summaries-vs-claim-only", m) for m in ("mae", "mae:ci95_low")} <= keys
        for r in data["rows"]:
            if r["metric"].startswith("mae"):          # label steps, and their intervals
                continue
            low = -1 if "-vs-" in r["system"] else 0  # a difference A - B may be negative
            assert low <= r["value"] <= 1, r
        assert run["figures"]
    if source.stem == "01_method":
        assert ("claimdecomp", "test", "pipeline-cached-extractive", "seconds_per_claim") in keys
