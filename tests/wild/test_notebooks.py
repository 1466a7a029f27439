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


def test_the_experiments_chapter_with_two_training_seeds(smoke_run):
    """``seeds 2`` trains the classifiers again with seed 1: the claims' rows are means over both seeds, with each
    seed's value, the count and the spread beside them, and the chapter's seeds table has a column per seed."""
    source = runner.NOTEBOOKS / "wild" / "02_experiments.py"
    text = source.read_text(encoding="utf-8")
    assert text.count("\nseeds = 1 ") == 1
    run = smoke_run.run_edited("wild/02_experiments", text.replace("\nseeds = 1 ", "\nseeds = 2 "), tag="seeds")
    [data] = run["results"].values()
    assert data["params"]["seeds"] == 2
    rows = {(r["system"], r["metric"]): r["value"] for r in data["rows"]
            if (r["dataset"], r["split"]) == ("claimdecomp", "test")}
    system = "justification-vs-claim-only-matched"
    assert rows[system, "mae:seeds"] == 2
    assert rows[system, "mae"] == pytest.approx((rows[system, "mae:seed0"] + rows[system, "mae:seed1"]) / 2)
    assert rows[system, "mae:seed_spread"] == pytest.approx(abs(rows[system, "mae:seed0"] - rows[system, "mae:seed1"]))
    assert rows["always-half-true", "mae:seed_spread"] == 0
    assert "Training seeds" in run["executed"].read_text(encoding="utf-8")
