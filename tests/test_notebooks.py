"""Every notebook of the book runs end to end with ``smoke=True`` on the real data.

Each is executed through the runner (papermill) with figures and results written to a temporary folder
-- never over the committed ones -- then checked with nbval-lax (which executes it once more and fails on
any error) and through its results JSON.
"""
import os
import subprocess
import sys

import pytest

from proofbook import runner
from proofbook.results import load_results

pytestmark = pytest.mark.notebook

BOOK = runner.book_notebooks()
# Chapters written but not yet in the book (their full-size runs are still being tuned): their smoke runs
# take minutes, so they run only when PROOFBOOK_DRAFT_TESTS=1.
DRAFTS = [p for p in sorted(runner.NOTEBOOKS.glob("*/*.py")) if p not in BOOK]
NOTEBOOKS = BOOK + [pytest.param(p, marks=pytest.mark.skipif(os.environ.get("PROOFBOOK_DRAFT_TESTS") != "1",
                                                             reason="draft chapter: set PROOFBOOK_DRAFT_TESTS=1"))
                    for p in DRAFTS]
IDS = [runner.notebook_id(p) for p in BOOK + DRAFTS]


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_notebook_smoke(source, real_data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_DATA", str(real_data_dir))
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "cache"))  # smoke models never touch the real cache
    params = {"smoke": True, "results_dir": str(tmp_path / "results"), "figures_dir": str(tmp_path / "figures")}
    executed = runner.run_notebook(source, params, output=tmp_path / f"{source.stem}.ipynb", progress=False)

    result_files = sorted((tmp_path / "results").rglob("*.json"))
    assert result_files, "the notebook wrote no results file"
    for path in result_files:
        data = load_results(path)
        assert data["rows"], f"{path} has no rows"
        assert data["params"]["smoke"] is True
    assert list((tmp_path / "figures").rglob("*.svg")) or "no figure" in source.read_text()

    check = subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "-q", "-p", "no:cacheprovider",
                            str(executed)], cwd=tmp_path, capture_output=True, text=True, timeout=900)
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-2000:]
