"""Every notebook runs end to end with ``smoke=True`` on the real data, once per test session.

Each is executed through the runner (papermill) by the ``smoke_run`` fixture (``tests/smoke_runs.py``),
with figures and results written to a temporary folder -- never over the committed ones -- and checked
through its results JSON.  The chapters' own tests (``tests/<paper>/``) check the rows each one must
write, from the same execution.  The introduction is also replayed with nbval-lax, which executes the
executed copy once more and fails on any error (the paper chapters train models, so their replay is
left to the smoke run itself).
"""
import os
import subprocess
import sys

import pytest

from proofbook.cli import check, runner
from proofbook.core import provenance, results

pytestmark = pytest.mark.notebook

NOTEBOOKS = sorted(runner.NOTEBOOKS.glob("*.py")) + sorted(runner.NOTEBOOKS.glob("*/*.py"))
IDS = [runner.notebook_id(p) for p in NOTEBOOKS]


def test_every_book_chapter_is_a_notebook_here():
    assert set(runner.book_notebooks()) <= set(NOTEBOOKS)


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_notebook_smoke(source, smoke_run):
    run = smoke_run(runner.notebook_id(source))
    assert run["results"], "the notebook wrote no results file"
    for path, data in run["results"].items():
        assert data["rows"], f"{path} has no rows"
        assert data["params"]["smoke"] is True
        for row in data["rows"]:
            assert set(row) == {"dataset", "split", "system", "metric", "value", "n"}, row
    assert run["figures"] or "save_figure" not in source.read_text(), "the notebook saves figures but wrote none"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_notebook_results_prove_where_they_came_from(source, smoke_run, real_data_dir):
    """``check --structure`` finds nothing wrong with the smoke run's results, and they are not stale."""
    run = smoke_run(runner.notebook_id(source))
    dirty = results.git_commit().endswith("-dirty")       # a developer's work tree; CI runs on a clean clone
    for path, data in run["results"].items():
        problems = [p for p in check.structure_problems(path) if not (dirty and "dirty work tree" in p)]
        assert problems == [], path
        assert provenance.stale_parts(source, data["input_digest"], real_data_dir) == []
        # the report, the datasets and the status page read other chapters' results and executed copies (none
        # in a smoke run from a fresh clone), not the datasets
        assert data["input_digest"]["data"] or source.name in ("99_reproduction_report.py", "datasets.py",
                                                               "99_status.py"), \
            "the run read no data?"
        assert all(not name.startswith("/") for name in data["input_digest"]["data"])


def test_the_introduction_replays_under_nbval(smoke_run, real_data_dir, tmp_path):
    run = smoke_run("00_introduction")
    env = {**os.environ, "PROOFBOOK_DATA": str(real_data_dir), "PROOFBOOK_CACHE": str(tmp_path / "cache")}
    check = subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "-q", "-p", "no:cacheprovider",
                            str(run["executed"])], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-2000:]
