"""Every notebook of the book runs end to end with ``smoke=True`` on the real data.

Each is executed through the runner (papermill) with figures and results written to a temporary folder
-- never over the committed ones -- then checked with nbval-lax (which executes it once more and fails on
any error) and through its results JSON.
"""
import subprocess
import sys

import pytest

from proofbook import runner
from proofbook.results import load_results

pytestmark = pytest.mark.notebook

NOTEBOOKS = runner.book_notebooks()


@pytest.mark.parametrize("source", NOTEBOOKS, ids=[runner.notebook_id(p) for p in NOTEBOOKS])
def test_notebook_smoke(source, real_data_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_DATA", str(real_data_dir))
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
