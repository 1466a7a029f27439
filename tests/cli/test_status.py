"""The execution-status table (proofbook.cli.status): read from executed notebooks and results files."""
import json
import shutil

import pytest

from proofbook.cli import runner, status
from proofbook.core import provenance


def _notebook(tmp_path, name, metadata, cells=()):
    source = tmp_path / f"{name}.py"
    source.write_text("# %%\nx = 1\n")
    (tmp_path / f"{name}.ipynb").write_text(json.dumps({"metadata": metadata, "cells": list(cells)}))
    return source


@pytest.mark.unit
def test_a_run_is_read_from_papermill_and_its_failures_are_seen(tmp_path, monkeypatch):
    record = {"papermill": {"duration": 90.0, "end_time": "2026-12-02T01:05:00+00:00", "exception": None,
                            "parameters": {"smoke": True}}}
    title = {"cell_type": "markdown", "source": ["# A chapter\n", "text"], "metadata": {}}
    failed = {"cell_type": "code", "source": "1/0", "metadata": {"papermill": {"exception": True}}}
    good = _notebook(tmp_path, "good", record, [title])
    bad = _notebook(tmp_path, "bad", record, [title, failed])
    never = tmp_path / "never.py"
    never.write_text("x = 1\n")
    monkeypatch.setattr(runner, "STAMPS", tmp_path / "stamps")
    runs = status.chapter_runs(tmp_path / "no-results", notebooks=[good, bad, never])
    assert [(r.notebook, r.title, r.status, r.smoke, r.seconds, r.current) for r in runs] == [
        ("good", "A chapter", "ok", True, 90.0, "no results"), ("bad", "A chapter", "failed", True, 90.0, "no results"),
        ("never", "", "not run", None, None, "no results")]
    rows = status.status_rows(runs)
    assert rows[0]["finished"] == "2026-12-02 01:05" and rows[0]["minutes"] == 1.5 and "changes" not in rows[0]
    assert status.chapter_runs(tmp_path, notebooks=[good], skip=("good",)) == []


@pytest.mark.unit
def test_a_run_known_only_by_its_stamp_is_read_from_it_and_the_host_comes_from_a_newer_stamp(tmp_path, monkeypatch):
    import os

    monkeypatch.setattr(runner, "STAMPS", tmp_path / "stamps")
    (tmp_path / "stamps").mkdir()
    record = {"papermill": {"duration": 90.0, "end_time": "2026-12-02T01:05:00+00:00", "parameters": {}}}
    here = _notebook(tmp_path, "here", record)
    remote = tmp_path / "remote.py"          # ran on another node of a Ray cluster: a stamp, no executed copy
    remote.write_text("x = 1\n")
    for name, host in (("here", "node-a"), ("remote", "node-b")):
        (tmp_path / "stamps" / f"{name}.json").write_text(json.dumps(
            {"parameters": {"smoke": False}, "seconds": 30.0, "finished": "2026-12-03T02:00:00+00:00", "host": host}))
    runs = status.chapter_runs(tmp_path / "no-results", notebooks=[here, remote])
    assert [(r.notebook, r.status, r.seconds, r.finished[:10], r.smoke, r.host) for r in runs] == [
        ("here", "ok", 90.0, "2026-12-02", None, "node-a"), ("remote", "ok", 30.0, "2026-12-03", False, "node-b")]
    assert status.status_rows(runs)[1]["host"] == "node-b" and status.recorded_runs(runs) == runs
    executed = runner.executed_path(here)
    os.utime(executed, (executed.stat().st_mtime + 60,) * 2)   # a run after the stamp's: its host is not known
    assert status.chapter_runs(tmp_path / "no-results", notebooks=[here])[0].host is None
    (tmp_path / "stamps" / "remote.json").write_text("[1, 2")
    with pytest.raises(ValueError, match=r"remote\.json: not a run stamp"):
        status.chapter_runs(tmp_path / "no-results", notebooks=[remote])


@pytest.mark.unit
def test_the_slowest_cells_come_from_papermills_durations(tmp_path):
    def code(source, seconds):
        return {"cell_type": "code", "source": source, "metadata": {"papermill": {"duration": seconds}}}

    cells = [{"cell_type": "markdown", "source": "# T", "metadata": {}}, code("x = 1", 0.5),
             code(["# train\n", "\n", "model = train()\n", "y = 2"], 120.0), code("plot()", 3.0),
             {"cell_type": "code", "source": "never()", "metadata": {}}, code("z = 3", 3.0)]
    source = _notebook(tmp_path, "chapter", {"papermill": {}}, cells)
    assert status.slowest_cells(source, 3) == [status.CellTime(2, 120.0, "model = train()"),
                                               status.CellTime(3, 3.0, "plot()"), status.CellTime(5, 3.0, "z = 3")]
    assert [c.index for c in status.slowest_cells(source, 10)] == [2, 3, 5, 1]   # the untimed cell is left out
    never = tmp_path / "never.py"
    never.write_text("x = 1\n")
    assert status.slowest_cells(never, 3) == []
    with pytest.raises(ValueError, match="at least 1"):
        status.slowest_cells(source, 0)
    (tmp_path / "chapter.ipynb").write_text("{broken")
    with pytest.raises(ValueError, match=r"chapter\.ipynb"):
        status.slowest_cells(source, 1)


@pytest.mark.unit
def test_a_notebook_not_executed_by_papermill_is_an_error_naming_it(tmp_path):
    source = _notebook(tmp_path, "plain", {"kernelspec": {}})
    with pytest.raises(ValueError, match=r"plain\.ipynb: not a notebook executed by papermill"):
        status.chapter_runs(tmp_path, notebooks=[source])
    (tmp_path / "plain.ipynb").write_text("{not json")
    with pytest.raises(ValueError, match=r"plain\.ipynb"):
        status.chapter_runs(tmp_path, notebooks=[source])


@pytest.mark.data
def test_committed_results_are_current_or_say_what_changed(tmp_path, real_data_dir):
    source = runner.NOTEBOOKS / "99_reproduction_report.py"
    results = tmp_path / "results"
    shutil.copytree(runner.PROJECT_ROOT / "results" / "report", results / "report")
    [run] = status.chapter_runs(results, real_data_dir, notebooks=[source])
    data = json.loads(next((results / "report").glob("*.json")).read_text())
    stale = provenance.stale_parts(source, data["input_digest"], real_data_dir)
    assert run.changes == tuple(stale)
    assert run.current == status._summary([data], stale) and run.commit == data["git_commit"][:7]
    data["input_digest"]["source"] = "0" * 64             # the notebook "changed" since its run
    next((results / "report").glob("*.json")).write_text(json.dumps(data))
    [run] = status.chapter_runs(results, real_data_dir, notebooks=[source])
    others = [change for change in stale if not change.startswith("source:")]
    assert run.changes == ("source: 99_reproduction_report.py changed", *others)
    assert run.current == status._summary([data], run.changes) and run.current.startswith("no: source")


@pytest.mark.unit
def test_the_summary_counts_each_kind_of_change():
    changes = ("source: x.py changed", "library: a.py changed", "library: b.py now imported", "data: d.jsonl differs")
    assert status._summary([object()], changes) == "no: source, 2 library modules, 1 data file"
    assert status._summary([object()], changes[2:]) == "no: 1 library module, 1 data file"
    assert status._summary([object()], ()) == "yes" and status._summary([], changes) == "no results"


@pytest.mark.unit
def test_the_run_times_sentence_totals_the_recorded_runs_or_says_none_are_recorded():
    def run(notebook, seconds):
        return status.ChapterRun(notebook, "t", None, seconds, "ok", False, None, "yes")

    assert status.run_times([run("a", 600.0), run("b", 1800.0), run("c", None)]) == \
        "Their recorded runs took 40 minutes in all, the longest b."
    assert status.run_times([run("a", None)]).startswith("No run times are recorded")


@pytest.mark.unit
def test_the_page_reads_the_results_files_but_not_its_own_nor_the_executed_copies(tmp_path):
    from proofbook.core.paths import files_read

    results = tmp_path / "results" / "reference"
    results.mkdir(parents=True)
    own = results / "99_status.json"
    own.write_text(json.dumps({"notebook": "reference/99_status", "git_commit": "abc", "params": {}, "rows": [],
                               "input_digest": {}}))
    other = results / "datasets.json"
    other.write_text(json.dumps({"notebook": "reference/datasets", "git_commit": "abcdef0", "params": {}, "rows": [],
                                 "input_digest": {}}))
    sources = [runner.NOTEBOOKS / "99_status.py", runner.NOTEBOOKS / "datasets.py"]
    runs = status.chapter_runs(tmp_path / "results", notebooks=sources, skip=("99_status",))
    assert [run.notebook for run in runs] == ["datasets"] and runs[0].commit == "abcdef0"
    read = files_read()
    assert other.resolve() in read and own.resolve() not in read
    assert runner.executed_path(sources[1]).resolve() not in read


@pytest.mark.unit
def test_a_malformed_results_file_is_an_error_naming_it(tmp_path):
    (tmp_path / "broken.json").write_text('{"notebook": "reference/datasets",\n')
    with pytest.raises(ValueError, match=r"broken\.json: line 2"):
        status.chapter_runs(tmp_path, notebooks=[runner.NOTEBOOKS / "datasets.py"])
