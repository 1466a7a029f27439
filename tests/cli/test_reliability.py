"""Runs that are refused, interrupted, crowded or short of disk: what the runner, the results file and the cache do.

- a split is checked like any parameter: one the chapter does not name, or one the data directory lacks, is
  refused before a kernel starts;
- every refused input of the command line is one line on stderr and exit status 2 (no traceback);
- a results file says whether its run finished; a chapter killed (SIGKILL) or interrupted (SIGINT) and run
  again gives the rows of an uninterrupted run; the cache keeps no half entry;
- a second run on the same results folder is refused while the first holds it, and taken over once the first
  is gone; two runs of different notebooks sharing one cache both finish;
- a write that fails (a full disk, a read-only folder) names the path and leaves the previous file intact.
"""
from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from proofbook.__main__ import main
from proofbook.cli import locks, runner
from proofbook.cli.check import run_check
from proofbook.cli.parameters import ParameterError
from proofbook.core import results as results_module
from proofbook.core.cache import ArtifactCache
from proofbook.core.results import Results, load_results, write_json_atomic


ROOT = Path(__file__).resolve().parents[2]
INTRO = runner.NOTEBOOKS / "00_introduction.py"

TINY = '''# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"
pause = 0.0

# %%
import time
from proofbook.core.cache import ArtifactCache
from proofbook.core.results import Results
res = Results("testpaper/NAME", dict(seed=seed, smoke=smoke, limit=limit, split=split, data_dir=data_dir), results_dir)
for i in range(3):
    value = ArtifactCache().cache_json("tiny", {"i": i, "name": "NAME"}, lambda: i / 4)
    res.add("toy", "dev", "constant", f"step{i}", value, 1)
    time.sleep(pause)
'''


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """The tiny notebooks' cache entries go to the test's folder (their kernels inherit the variable)."""
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "cache"))


def tiny(tmp_path: Path, name: str = "tiny") -> Path:
    source = tmp_path / f"{name}.py"
    source.write_text(TINY.replace("NAME", name), encoding="utf-8")
    return source


def run_command(*args: str, env: dict | None = None, **popen) -> subprocess.Popen:
    """``python -m proofbook ARGS`` in a child process of its own session (so its kernel can be signalled too)."""
    return subprocess.Popen([sys.executable, "-m", "proofbook", *args], cwd=ROOT, env={**os.environ, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_default_sigint, **popen)


def _default_sigint() -> None:
    """Ctrl-C's default action in the child: a suite started in the background (``make test &``) passes SIGINT on
    ignored, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def one_line_refusal(capsys, argv: list[str], expected: str) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert expected in err, err
    return err


# ---- splits --------------------------------------------------------------------------------------------
@pytest.mark.data
def test_every_chapter_names_its_splits_and_the_files_that_hold_them(real_data_dir):
    for source in runner.book_notebooks():
        choices = runner.read_notebook(source)[1]["split"].choices
        files = runner.SPLIT_FILES.get(runner.notebook_id(source), {})
        assert choices is not None, f"{source}: annotate split with Literal[...] or None"
        assert tuple(files) == choices or (not files and choices == ()), source
        if "dev" in files:      # every dev split of the book is in the shared data: its files are named right
            assert all((real_data_dir / path).is_file() for path in files["dev"]), source


@pytest.mark.parametrize("notebook, split, expected", [
    ("admiral/02_experiments.py", "bogus", "parameter split='bogus' refused: expected Literal['dev'] | None"),
    ("admiral/01_method.py", "dev", "parameter split='dev' refused: expected None (the notebook takes no value"),
    ("wild/02_experiments.py", "train", "one of dev, test, valid, or None"),
])
@pytest.mark.unit
def test_a_split_the_chapter_does_not_name_is_refused_before_any_cell(capsys, tmp_path, notebook, split, expected):
    output = tmp_path / "out.ipynb"
    one_line_refusal(capsys, ["run", str(runner.NOTEBOOKS / notebook), "-p", "split", split,
                              "--output", str(output)], expected)
    assert not output.exists()


@pytest.mark.unit
def test_a_split_the_data_directory_lacks_is_refused_naming_those_present(capsys, tmp_path):
    (tmp_path / "openbookqa").mkdir()
    (tmp_path / "openbookqa" / "dev.tsv").write_text("x")
    err = one_line_refusal(capsys, ["run", str(runner.NOTEBOOKS / "entailer/01_method.py"), "-p", "split", "test",
                                    "-p", "data_dir", str(tmp_path), "--output", str(tmp_path / "o.ipynb")],
                           "holds no test files for this chapter (looked for openbookqa/test.tsv)")
    assert err.rstrip().endswith("splits present: dev")


@pytest.mark.unit
def test_run_all_gives_a_split_to_the_chapters_that_take_it():
    sources = runner.book_notebooks()
    specs = {source: runner.read_notebook(source)[1] for source in sources}
    given = runner._parameters_for_each(specs, {"split": "test", "smoke": "true"})
    takers = {runner.notebook_id(s) for s in sources if "split" in given[s]}
    assert takers == {"wild/02_experiments", "wild/03_error_analysis", "entailer/01_method",
                      "entailer/02_experiments", "entailer/03_error_analysis"}
    assert all(given[s]["smoke"] == "true" for s in sources)
    with pytest.raises(ParameterError, match="split='bogus' refused: no chapter takes it"):
        runner._parameters_for_each(specs, {"split": "bogus"})


@pytest.mark.unit
def test_run_all_gives_a_chapters_own_parameter_to_the_chapters_that_define_it():
    sources = runner.book_notebooks()
    specs = {source: runner.read_notebook(source)[1] for source in sources}
    given = runner._parameters_for_each(specs, {"seeds": "3", "limit": "5"})
    seeded = {runner.notebook_id(s) for s in sources if "seeds" in given[s]}
    assert seeded == {"admiral/02_experiments", "wild/02_experiments"}
    assert all(given[s]["limit"] == "5" for s in sources)
    unknown = runner._parameters_for_each(specs, {"no_such": "1"})
    assert all(given == {"no_such": "1"} for given in unknown.values())      # kept, so that it is refused
    with pytest.raises(ParameterError, match=r"unknown parameter\(s\) \['no_such'\]"):
        runner.run_all({"no_such": "1"}, run_each=lambda *args: pytest.fail("nothing may run"))


# ---- one-line errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("extra, expected", [
    (["-p", "limit", "-3"], "parameter limit='-3' refused"),
    (["-p", "limit", "abc"], "parameter limit='abc' refused"),
    (["-p", "smoke", "maybe"], "parameter smoke='maybe' refused"),
    (["-p", "no_such", "1"], "unknown parameter(s) ['no_such']"),
    (["-p", "data_dir", "/no/such/folder"], "/no/such/folder is not a folder"),
])
@pytest.mark.unit
def test_a_refused_parameter_is_one_line_and_exit_2(capsys, tmp_path, extra, expected):
    one_line_refusal(capsys, ["run", str(INTRO), *extra, "--output", str(tmp_path / "o.ipynb")], expected)


@pytest.mark.unit
def test_a_missing_notebook_is_one_line(capsys, tmp_path):
    one_line_refusal(capsys, ["run", str(tmp_path / "none.py")], "none.py: no such notebook")
    one_line_refusal(capsys, ["run-all", "-p", "seed", "x"], "parameter seed='x' refused")


@pytest.mark.parametrize("argv, expected", [
    (["data", "--mirror", "/no/such/mirror", "--dest", "{tmp}/data"], "/no/such/mirror: mirror folder does not exist"),
    (["data", "--only", "no_such_dataset", "--mirror", "{tmp}", "--dest", "{tmp}/data"], "unknown dataset folder(s)"),
    (["status", "--data-dir", "/no/such/data"], "--data-dir /no/such/data: not a folder"),
    (["check", "--data-dir", "/no/such/data"], "--data-dir /no/such/data: not a folder"),
    (["check-book", "--html", "{tmp}"], "no HTML pages (build the book first: make book)"),
    (["explain", "wild", "--claim-id", "x", "--data-dir", "/no/such/data"], "--data-dir /no/such/data: not a folder"),
])
@pytest.mark.unit
def test_every_command_refuses_in_one_line(capsys, tmp_path, argv, expected):
    one_line_refusal(capsys, [a.replace("{tmp}", str(tmp_path)) for a in argv], expected)


@pytest.mark.unit
@pytest.mark.parametrize("argv", [["run", "--no-such-flag"], ["explain"], ["frobnicate"], ["run"],
                                  ["status", "--cells", "-1"]])
def test_a_command_line_error_is_one_line(capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error:" in err and "--help" in err


@pytest.mark.unit
@pytest.mark.parametrize("command", ["run", "run-all", "data", "check", "status", "check-book", "explain",
                                     "explain admiral", "explain entailer", "explain wild"])
def test_every_command_has_help(capsys, command):
    with pytest.raises(SystemExit) as stopped:
        main([*command.split(), "--help"])
    assert stopped.value.code == 0 and "usage:" in capsys.readouterr().out


@pytest.mark.unit
def test_a_failed_cell_is_one_line_naming_the_cell(capsys, tmp_path):
    source = tmp_path / "nb.py"
    source.write_text(TINY.replace("NAME", "fails") + "\n# %%\nraise RuntimeError('boom')\n", encoding="utf-8")
    assert main(["run", str(source), "-p", "results_dir", str(tmp_path / "r"), "--output", str(tmp_path / "o.ipynb")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "proofbook run: cell [4] failed: RuntimeError: boom"   # [4]: after the injected parameters
    assert load_results(tmp_path / "r" / "testpaper" / "fails.json")["complete"] is False


# ---- interrupted runs ----------------------------------------------------------------------------------
@pytest.mark.unit
def test_only_a_finished_run_is_complete(tmp_path):
    folder = tmp_path / "r"
    runner.run_notebook(tiny(tmp_path), {"results_dir": str(folder)}, output=tmp_path / "o.ipynb", progress=False)
    path = folder / "testpaper" / "tiny.json"
    def unfinished():
        return [p for p in run_check(folder, structure_only=True, notebooks=[]) if "unfinished" in p]

    assert load_results(path)["complete"] is True and unfinished() == []
    Results("testpaper/tiny", {}, folder).add("toy", "dev", "s", "m", 1.0, 1)      # a run that stops after a row
    assert load_results(path)["complete"] is False and unfinished() == [f"{path}: {unfinished()[0].split(': ', 1)[1]}"]


def _wait_for(path: Path, process: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not path.is_file():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def _intro(tmp_path: Path, name: str) -> tuple[list[str], Path]:
    args = ["run", str(INTRO), "-p", "smoke", "true", "-p", "results_dir", str(tmp_path / name / "results"),
            "-p", "figures_dir", str(tmp_path / name / "figures"), "--output", str(tmp_path / name / "intro.ipynb")]
    return args, tmp_path / name / "results" / "introduction" / "00_introduction.json"


def _rows(path: Path) -> list[dict]:
    return sorted(load_results(path)["rows"], key=lambda r: (r["dataset"], r["split"], r["system"], r["metric"]))


def _stop(args: list[str], path: Path, env: dict, how: signal.Signals) -> dict:
    """Start the run, stop it with ``how`` once its results file has rows, return what the file holds then."""
    path.unlink(missing_ok=True)
    process = run_command(*args, env=env)
    _wait_for(path, process)
    if how == signal.SIGKILL:
        os.killpg(process.pid, signal.SIGKILL)          # the runner and its kernel, with no chance to clean up
    else:
        os.killpg(process.pid, signal.SIGINT)           # Ctrl-C in a terminal: the runner and its kernel
    _, err = process.communicate(timeout=60)
    if how == signal.SIGINT:      # "interrupted" (130), or the running cell's KeyboardInterrupt or a dead kernel (1)
        assert process.returncode in (1, 130), err
        assert any(line.startswith("proofbook run: ") for line in err.splitlines()), err
    if _group_alive(process.pid):
        os.killpg(process.pid, signal.SIGKILL)
    return load_results(path)     # whole: a kill while writing leaves at most a temporary file beside it


@pytest.mark.notebook
def test_a_chapter_stopped_mid_way_and_run_again_gives_the_same_rows(tmp_path, real_data_dir):
    """The introduction's smoke run in a real process, killed (SIGKILL), then interrupted (SIGINT) once its first
    rows are written, then run to the end: its rows are those of a run never stopped, and the temporary file a
    kill in the middle of a write leaves beside the results file is named by the check and removed by that run."""
    env = {"PROOFBOOK_DATA": str(real_data_dir), "PROOFBOOK_CACHE": str(tmp_path / "cache")}
    args, path = _intro(tmp_path, "stopped")
    for how in (signal.SIGKILL, signal.SIGINT):
        stopped = _stop(args, path, env, how)
        assert stopped["complete"] is False and stopped["rows"], how
        problems = run_check(path.parents[1], structure_only=True, notebooks=[])
        assert any(p.startswith(f"{path}: unfinished") for p in problems), problems
    (path.parent / f".{path.name}.killedmid.tmp").write_text('{"notebook": ')     # as a kill mid-write leaves it
    problems = run_check(path.parents[1], structure_only=True, notebooks=[])
    assert any(p.startswith(f"{path.parent}/.{path.name}.killedmid.tmp: a temporary file") for p in problems)
    rerun = run_command(*args, env=env)
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    args, whole = _intro(tmp_path, "uninterrupted")
    clean = run_command(*args, env=env)
    _, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, err
    assert load_results(path)["complete"] is True and _rows(path) == _rows(whole)
    assert not list(path.parent.glob(".*.tmp"))         # the run to the end removed what the stopped ones left


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


SLOW_SAVE = '''
import sys, time
from pathlib import Path
from proofbook.core.cache import ArtifactCache
def save(value, folder):
    (Path(folder) / "part.txt").write_text("half")
    print("saving", flush=True)
    time.sleep(60)
    (Path(folder) / "rest.txt").write_text("rest")
ArtifactCache(sys.argv[1]).get_or_build("slow", {"k": 1}, lambda: 1, save, lambda folder: 2)
'''


@pytest.mark.unit
def test_a_build_killed_mid_save_leaves_no_entry_and_is_cleaned_up(tmp_path):
    cache_root = tmp_path / "cache"
    child = subprocess.Popen([sys.executable, "-c", SLOW_SAVE, str(cache_root)], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "saving"
    child.kill()
    child.wait()
    cache = ArtifactCache(cache_root)
    assert [p.name.startswith(f".building-slow-{child.pid}-") for p in cache_root.glob(".building-*")] == [True]
    assert not (cache_root / "slow").exists() or not any((cache_root / "slow").iterdir())   # no entry published
    assert cache.get_or_build("slow", {"k": 1}, lambda: 3, lambda v, f: (f / "v").write_text(str(v)),
                              lambda f: int((f / "v").read_text())) == 3
    assert not list(cache_root.glob(".building-*"))      # the dead builder's folder was swept
    assert cache.stats["misses"] == 1


# ---- company -------------------------------------------------------------------------------------------
HOLDER = '''
import sys, time
from proofbook.cli import locks
with locks.hold(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None):
    print("held", flush=True)
    time.sleep(120)
'''


def _holder(*args: str) -> subprocess.Popen:
    child = subprocess.Popen([sys.executable, "-c", HOLDER, *args], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "held"
    return child


@pytest.mark.unit
def test_a_notebook_being_run_is_refused_to_a_second_run_but_not_other_notebooks(tmp_path):
    child = _holder(str(tmp_path), "admiral/02_experiments")
    try:
        with pytest.raises(locks.Busy, match=rf"admiral/02_experiments is being run into .* by pid {child.pid}"):
            with locks.hold(tmp_path, "admiral/02_experiments"):
                pass
        with locks.hold(tmp_path, "admiral/01_method"):      # another notebook: fine
            pass
        with pytest.raises(locks.Busy, match=rf"is in use by pid {child.pid}"):   # a run-all: refused
            with locks.hold(tmp_path):
                pass
    finally:
        child.kill()
        child.wait()
    with locks.hold(tmp_path, "admiral/02_experiments"):     # the killed holder's lock is taken over
        with pytest.raises(locks.Busy, match=rf"is in use by pid {os.getpid()} \(proofbook"):  # naming the new one
            with locks.hold(tmp_path):
                pass
    with locks.hold(tmp_path):
        pass


@pytest.mark.unit
def test_a_second_run_all_is_refused_in_one_line(capsys, tmp_path, monkeypatch):
    child = _holder(str(tmp_path / "r"))
    try:
        monkeypatch.setattr(runner, "book_notebooks", lambda: [tiny(tmp_path)])
        monkeypatch.setattr(runner, "STAMPS", tmp_path / "stamps")
        one_line_refusal(capsys, ["run-all", "-p", "results_dir", str(tmp_path / "r")],
                         f"is in use by pid {child.pid}")
        one_line_refusal(capsys, ["run", str(tiny(tmp_path)), "-p", "results_dir", str(tmp_path / "r"),
                                  "--output", str(tmp_path / "o.ipynb")], f"is in use by pid {child.pid}")
    finally:
        child.kill()
        child.wait()
    assert [status for _, status, _ in runner.run_all({"results_dir": str(tmp_path / "r")})] == ["ran"]
    assert [status for _, status, _ in runner.run_all({"results_dir": str(tmp_path / "r")})] == ["skipped"]
    path = tmp_path / "r" / "testpaper" / "tiny.json"
    write_json_atomic(path, {**load_results(path), "complete": False})      # as if the run had been cut short
    assert [status for _, status, _ in runner.run_all({"results_dir": str(tmp_path / "r")})] == ["ran"]
    assert load_results(path)["complete"] is True


@pytest.mark.unit
def test_two_runs_of_different_notebooks_share_one_cache_and_both_finish(tmp_path):
    env = {"PROOFBOOK_CACHE": str(tmp_path / "cache")}
    processes = [run_command("run", str(tiny(tmp_path, name)), "-p", "results_dir", str(tmp_path / "r"),
                             "-p", "pause", "0.3", "--output", str(tmp_path / f"{name}.ipynb"), env=env)
                 for name in ("first", "second")]
    for process in processes:
        _, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
    for name in ("first", "second"):
        data = load_results(tmp_path / "r" / "testpaper" / f"{name}.json")
        assert data["complete"] is True and [r["value"] for r in data["rows"]] == [0, 0.25, 0.5]


# ---- a full disk, a read-only folder -------------------------------------------------------------------
def _failing(code: int):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))
    return fail


@pytest.mark.unit
@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
@pytest.mark.parametrize("where", ["mkstemp", "dump", "replace"])
def test_a_failed_results_write_names_the_file_and_keeps_the_previous_one(tmp_path, monkeypatch, code, where):
    results = Results("paper/nb", {}, tmp_path)
    results.add("d", "dev", "s", "m", 0.5, 1)
    before = results.path.read_bytes()
    target = {"mkstemp": (results_module.tempfile, "mkstemp"), "dump": (results_module.json, "dump"),
              "replace": (results_module.os, "replace")}[where]
    monkeypatch.setattr(*target, _failing(code))
    with pytest.raises(OSError) as failed:
        results.add("d", "dev", "s", "m2", 0.7, 1)
    assert failed.value.errno == code and f"cannot write {results.path}" in str(failed.value)
    monkeypatch.undo()
    assert results.path.read_bytes() == before and sorted(p.name for p in results.path.parent.iterdir()) == ["nb.json"]


@pytest.mark.unit
def test_a_failed_cache_write_names_the_entry_and_stores_nothing(tmp_path):
    cache = ArtifactCache(tmp_path)
    with pytest.raises(OSError, match=r"cannot store cache entry .*/tiny/") as failed:
        cache.get_or_build("tiny", {"a": 1}, lambda: 1, _failing(errno.ENOSPC), lambda f: 1)
    assert failed.value.errno == errno.ENOSPC
    assert not list(tmp_path.glob(".building-*")) and not any((tmp_path / "tiny").glob("*"))


@pytest.fixture
def small_tmpfs(tmp_path):
    """A real 256 KiB filesystem (tmpfs), where mounting is permitted (as root); else the test is skipped."""
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({made.stderr.decode().strip()}); the injected errors above cover it")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.unit
def test_a_full_disk_keeps_the_previous_results_file(small_tmpfs):
    path = small_tmpfs / "paper" / "nb.json"
    write_json_atomic(path, {"rows": [1, 2, 3]})
    before = path.read_bytes()
    (small_tmpfs / "filler").write_bytes(b"x" * (256 * 1024 - 64 * 1024))      # leave less than a big write needs
    with pytest.raises(OSError) as failed:
        write_json_atomic(path, {"rows": ["y" * 1000] * 200})                 # ~200 KB: does not fit
    assert failed.value.errno == errno.ENOSPC and str(path) in str(failed.value)
    assert path.read_bytes() == before and sorted(p.name for p in path.parent.iterdir()) == ["nb.json"]


@pytest.mark.unit
def test_a_read_only_results_folder_is_refused_before_the_run(capsys, small_tmpfs, tmp_path):
    subprocess.run(["mount", "-o", "remount,ro", str(small_tmpfs)], check=True)
    err = one_line_refusal(capsys, ["run", str(tiny(tmp_path)), "-p", "results_dir", str(small_tmpfs),
                                    "--output", str(tmp_path / "o.ipynb")],
                           f"parameter results_dir: cannot write to {small_tmpfs} (Read-only file system)")
    assert not (tmp_path / "o.ipynb").exists() and err


@pytest.mark.unit
def test_a_full_disk_during_a_run_is_one_line_naming_the_file(capsys, small_tmpfs, tmp_path):
    source = tmp_path / "big.py"
    source.write_text(TINY.replace("NAME", "big") + '\n# %%\nres.add("toy", "dev", "x" * 300_000, "m", 1.0, 1)\n',
                      encoding="utf-8")
    assert main(["run", str(source), "-p", "results_dir", str(small_tmpfs), "--output", str(tmp_path / "o.ipynb")]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    path = small_tmpfs / "testpaper" / "big.json"
    assert "No space left on device" in err or "cannot write" in err, err
    assert str(path) in err
    assert [r["metric"] for r in load_results(path)["rows"]] == ["step0", "step1", "step2"]   # the last good file
    assert json.loads(path.read_text())["complete"] is False
