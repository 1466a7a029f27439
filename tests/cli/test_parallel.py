"""``run-all --workers N`` (proofbook.cli.parallel): which notebooks wait for which, and tiny notebooks run as
Ray tasks on a local Ray node -- two at a time, a reader of their results after them, stamps with the host,
a second run skipping them all, and a failed cell failing the run with papermill's own error."""
import json

import pytest

from proofbook.__main__ import main
from proofbook.cli import parallel, runner
from tests.cli.test_runner import NOTEBOOK

pytestmark = pytest.mark.unit

READER = NOTEBOOK + '''
# %%
import json
for name in ("tiny", "tiny2"):
    written = json.loads((Path(results_dir) / "testpaper" / f"{name}.json").read_text())
    assert written["complete"] is True, name
'''


def test_only_the_report_and_reference_pages_wait():
    sources = runner.book_notebooks()
    waits = parallel.prerequisites(sources)
    by_id = {runner.notebook_id(s): {runner.notebook_id(w) for w in waits[s]} for s in sources}
    chapters = [nid for nid in by_id if nid.startswith(("admiral/", "wild/", "entailer/"))]
    assert chapters and all(by_id[nid] == set() for nid in chapters + ["00_introduction"])
    assert set(chapters) <= by_id["99_reproduction_report"]
    assert by_id["datasets"] == {"99_reproduction_report"}
    assert {"datasets", "99_reproduction_report", *chapters} <= by_id["99_status"]


@pytest.fixture
def tiny_book(tmp_path, monkeypatch):
    first, second, reader = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    first.write_text(NOTEBOOK)
    second.write_text(NOTEBOOK.replace("tiny", "tiny2"))
    reader.write_text(READER.replace('"testpaper/tiny"', '"testpaper/reader"'))
    monkeypatch.setattr(runner, "STAMPS", tmp_path / "stamps")
    monkeypatch.setattr(runner, "book_notebooks", lambda: [first, second, reader])
    monkeypatch.setattr(parallel, "READS_RESULTS_OF", {runner.notebook_id(reader): "*"})
    return first, second, reader


def test_run_all_with_two_workers_runs_the_reader_last_and_stamps_the_host(ray_node, tiny_book, tmp_path):
    given = {"results_dir": str(tmp_path / "res")}
    report = parallel.run_all_parallel(given, False, parallel.Workers(workers=2, threads=1))
    assert [(source, status) for source, status, _ in report] == [(s, "ran") for s in tiny_book]
    stamps = {p.stem: json.loads(p.read_text()) for p in (tmp_path / "stamps").glob("*.json")}
    assert set(stamps) == {"a", "b", "c"} and all(stamp["host"] and stamp["seconds"] > 0 for stamp in stamps.values())
    assert stamps["c"]["results"] == ["testpaper/reader.json"]
    assert all(runner.executed_path(s).is_file() for s in tiny_book)
    again = parallel.run_all_parallel(given, False, parallel.Workers(workers=2, threads=1))
    assert [status for _, status, _ in again] == ["skipped"] * 3


def test_a_failed_cell_fails_the_parallel_run_with_papermills_error(ray_node, tiny_book, tmp_path, capsys):
    first, _, _ = tiny_book
    first.write_text(NOTEBOOK + "\n# %%\nraise RuntimeError('boom')\n")
    code = main(["run-all", "--workers", "2", "--threads", "1", "-p", "results_dir", str(tmp_path / "res")])
    assert code == 1
    assert "boom" in capsys.readouterr().err
    assert not (tmp_path / "stamps" / "a.json").exists() and not (tmp_path / "stamps" / "c.json").exists()


def test_a_wrong_number_of_workers_is_refused(capsys):
    assert main(["run-all", "--workers", "0"]) == 2
    assert "workers must be at least 1" in capsys.readouterr().err
