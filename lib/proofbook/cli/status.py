"""The book's execution status: when each chapter last ran, for how long, and whether its results are current.

A reader who opens a chapter should be able to tell when its numbers were computed and whether the code and
data they came from are still the ones in the repository.  Like the execution-status page of the QuantEcon
lectures, :func:`chapter_runs` reads each notebook of the book (``_toc.yml``, in book order) from its executed
copy (``notebooks/**/<name>.ipynb``, written by ``python -m proofbook run``): papermill's record of the run
(start, end, duration, and whether a cell raised) and the parameters it ran with.  It adds what the
notebook's results files say: the commit they were computed at and whether they are still current
(:func:`proofbook.core.provenance.stale_parts`: the notebook's source, the library modules it imports and the
data files it read, hashed now and compared with the digest the results file recorded), and the host it ran
on, from the run's stamp (``_build/stamps/<id>.json``, written by the runner when a run succeeds).  Under
``run-all --ray`` each executed copy is written on the node that ran it while the stamps are written by the
driver, so on the driver a notebook with a stamp but no executed copy is read from its stamp alone (status,
end, seconds, parameters and host; no title).

``python -m proofbook status`` prints the table (``--cells N`` adds each notebook's ``N`` slowest cells, from
papermill's per-cell durations: where a clean build spends its time, :func:`slowest_cells`); the book's status
page (``notebooks/99_status.py``) shows it.
The page depends on the results files it reads (committed, rewritten by every run of their chapter), not on
the executed copies (not committed), so it is stale exactly when a chapter ran again since.
The times are those of the recorded runs: a chapter whose trained models were already in the artifact cache
runs in a fraction of the time it takes from a clean cache.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from proofbook.cli.runner import book_notebooks, executed_path, notebook_id, stamp_path
from proofbook.core import provenance
from proofbook.core.paths import PROJECT_ROOT, record_read
from proofbook.core.results import load_results


@dataclass(frozen=True)
class ChapterRun:
    """One notebook of the book: its last recorded run and the state of its results."""

    notebook: str               # the notebook's id, e.g. "admiral/02_experiments"
    title: str                  # its first heading
    finished: str | None        # when the recorded run ended (ISO 8601, UTC); None: never run
    seconds: float | None       # how long it ran
    status: str                 # "ok", "failed" (a cell raised) or "not run" (no executed copy)
    smoke: bool | None          # whether the run was a smoke run (tiny sizes: numbers mean nothing)
    commit: str | None          # the commit its results files were computed at (short); None: no results file
    current: str                # "yes", "no results", or a summary of what changed since ("no: source, 3 library modules")
    changes: tuple[str, ...] = ()   # every change (``"library: index/bm25.py changed"``)
    host: str | None = None     # the machine it ran on (from the run's stamp); None: no stamp


def _title(notebook: dict) -> str:
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") == "markdown":
            for line in "".join(cell.get("source", "")).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return ""


def _results_by_notebook(results_dir: Path, skip: tuple[str, ...]) -> dict[str, list[tuple[Path, dict]]]:
    """The results files of each notebook, each noted as read (a chapter's rerun rewrites its results file, so
    a page built from this table is stale once any chapter reran); those of the ``skip`` notebooks are not read."""
    found: dict[str, list[tuple[Path, dict]]] = {}
    for path in sorted(results_dir.rglob("*.json")):
        data = load_results(path)           # a malformed results file: a ValueError naming it
        try:
            name = notebook_id(provenance.notebook_source(data["notebook"]))
        except (KeyError, FileNotFoundError):
            continue
        if name not in skip:
            record_read(path)
            found.setdefault(name, []).append((path, data))
    return found


def _changes(files: list[tuple[Path, dict]], data_dir: os.PathLike | str | None) -> tuple[str, ...]:
    stale: list[str] = []
    for _, data in files:
        source = provenance.notebook_source(data["notebook"])
        if data.get("complete") is not True:
            stale.append("unfinished: its run stopped before the last cell")
        stale += provenance.stale_parts(source, data.get("input_digest", {}), data_dir)
    return tuple(dict.fromkeys(stale))


def _summary(files: list, changes: tuple[str, ...]) -> str:
    """``yes``, ``no results`` or ``no: unfinished, source, 3 library modules, 1 data file``."""
    if not files:
        return "no results"
    if not changes:
        return "yes"
    kinds = [change.split(":", 1)[0] for change in changes]
    parts = [kind for kind in ("unfinished", "source") if kind in kinds]
    for kind, unit in (("library", "library module"), ("data", "data file")):
        count = kinds.count(kind)
        if count:
            parts.append(f"{count} {unit}{'s' if count > 1 else ''}")
    return "no: " + ", ".join(parts)


def _read_executed(executed: Path) -> dict:
    """An executed notebook (papermill's output) as JSON, with its papermill record and its cells; a malformed
    one raises a ValueError naming the file."""
    try:
        notebook = json.loads(executed.read_text(encoding="utf-8"))
        notebook["metadata"]["papermill"], notebook["cells"]
    except (ValueError, KeyError, TypeError) as err:
        raise ValueError(f"{executed}: not a notebook executed by papermill ({type(err).__name__}: {err})") from None
    return notebook


def _read_stamp(source: Path) -> dict | None:
    """The stamp of ``source``'s last successful run, or None when there is none; a malformed one raises a
    ValueError naming the file."""
    stamp = stamp_path(source)
    if not stamp.is_file():
        return None
    try:
        data = json.loads(stamp.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise TypeError(f"a {type(data).__name__}, not an object")
    except (ValueError, TypeError) as err:
        raise ValueError(f"{stamp}: not a run stamp ({type(err).__name__}: {err})") from None
    return data


def _newer(stamp: Path, executed: Path) -> bool:
    """Whether ``stamp`` was written no earlier than ``executed`` (the stamp of the run that wrote it comes after
    it; an older stamp belongs to an earlier run)."""
    return stamp.stat().st_mtime >= executed.stat().st_mtime


def chapter_runs(results_dir: os.PathLike | str = PROJECT_ROOT / "results", data_dir: os.PathLike | str | None = None,
                 notebooks: list[Path] | None = None, skip: tuple[str, ...] = ()) -> list[ChapterRun]:
    """Every notebook of the book (``_toc.yml`` order) with its last recorded run; ``skip`` leaves notebooks out
    by id (the status page leaves itself out).  ``data_dir`` None compares source and library only.

    A notebook with no executed copy but a stamp (a run on another node of a Ray cluster) is read from its
    stamp; the host comes from the stamp when it is no older than the executed copy.  A malformed executed
    notebook or stamp raises a ValueError naming it."""
    by_notebook = _results_by_notebook(Path(results_dir), skip)
    runs = []
    for source in notebooks if notebooks is not None else book_notebooks():
        name = notebook_id(source)
        if name in skip:
            continue
        executed = executed_path(source)
        files = by_notebook.get(name, [])
        commit = files[0][1].get("git_commit", "")[:7] if files else None
        changes = _changes(files, data_dir)
        current = _summary(files, changes)
        stamp = _read_stamp(source)
        if not executed.is_file():
            if stamp is None:
                runs.append(ChapterRun(name, "", None, None, "not run", None, commit, current, changes))
            else:
                runs.append(ChapterRun(name, "", stamp.get("finished"), stamp.get("seconds"), "ok",
                                       (stamp.get("parameters") or {}).get("smoke"), commit, current, changes,
                                       stamp.get("host")))
            continue
        host = stamp.get("host") if stamp is not None and _newer(stamp_path(source), executed) else None
        # the executed copy is not noted as read: executed copies are not committed, the results files are
        notebook = _read_executed(executed)
        record = notebook["metadata"]["papermill"]
        failed = record.get("exception") or any(cell.get("metadata", {}).get("papermill", {}).get("exception")
                                                for cell in notebook.get("cells", []))
        runs.append(ChapterRun(name, _title(notebook), record.get("end_time"), record.get("duration"),
                               "failed" if failed else "ok", (record.get("parameters") or {}).get("smoke"),
                               commit, current, changes, host))
    return runs


@dataclass(frozen=True)
class CellTime:
    """One code cell of an executed notebook: its position, how long it ran, and its first line of code."""

    index: int                  # the cell's position in the notebook (0-based, markdown cells counted)
    seconds: float
    code: str                   # the first line that is neither blank nor a comment


def _first_code_line(source) -> str:
    lines = ("".join(source) if isinstance(source, list) else source).splitlines()
    return next((line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")), "")


def slowest_cells(source: os.PathLike | str, n: int) -> list[CellTime]:
    """The ``n`` code cells of ``source``'s executed copy that ran longest, longest first (ties: notebook order);
    ``[]`` when it was never executed.  A malformed executed copy raises a ValueError naming it."""
    if n < 1:
        raise ValueError(f"slowest_cells: n must be at least 1, got {n}")
    executed = executed_path(Path(source))
    if not executed.is_file():
        return []
    cells = _read_executed(executed)["cells"]
    timed = [CellTime(i, float(seconds), _first_code_line(cell.get("source", "")))
             for i, cell in enumerate(cells) if cell.get("cell_type") == "code"
             for seconds in [cell.get("metadata", {}).get("papermill", {}).get("duration")] if seconds is not None]
    return sorted(timed, key=lambda cell: -cell.seconds)[:n]


def status_rows(runs: list[ChapterRun]) -> list[dict]:
    """The runs as table rows: minutes instead of seconds, the end of the run as ``YYYY-MM-DD HH:MM`` (UTC)."""
    rows = []
    for run in runs:
        row = asdict(run)
        row["finished"] = run.finished[:16].replace("T", " ") if run.finished else None
        row["minutes"] = round(run.seconds / 60, 1) if run.seconds is not None else None
        del row["seconds"], row["changes"]
        rows.append(row)
    return rows


def recorded_runs(runs: list[ChapterRun]) -> list[ChapterRun]:
    """The runs whose time is recorded (an executed copy or a stamp)."""
    return [run for run in runs if run.seconds is not None]


def run_times(runs: list[ChapterRun]) -> str:
    """One sentence on the recorded run times: their total and the longest run, or that none are recorded (the
    machine that builds the page holds no executed copies: the results were computed elsewhere)."""
    recorded = recorded_runs(runs)
    if not recorded:
        return ("No run times are recorded: the machine that built this page holds no executed copies of the "
                "notebooks and no run stamps, so the results were computed elsewhere (each row's `commit` says at which commit).")
    longest = max(recorded, key=lambda run: run.seconds)
    return (f"Their recorded runs took {sum(run.seconds for run in recorded) / 60:.0f} minutes in all, "
            f"the longest {longest.notebook}.")


def main(data_dir: os.PathLike | str | None = None, cells: int = 0) -> int:
    """The command line: print the table (and, with ``cells`` > 0, each notebook's slowest cells); exit status 1
    when a chapter failed, never ran or is not current."""
    runs = chapter_runs(data_dir=data_dir)
    width = max(len(run.notebook) for run in runs)
    for row in status_rows(runs):
        minutes = f"{row['minutes']:6.1f} min" if row["minutes"] is not None else "       -  "
        print(f"{row['notebook']:<{width}}  {row['status']:<7}  {row['finished'] or '-':<16}  {minutes}  "
              f"{row['commit'] or '-':<7}  {row['host'] or '-':<12}  current: {row['current']}")
    total = sum(run.seconds or 0 for run in runs)
    print(f"[status] {len(runs)} notebooks, {total / 60:.1f} minutes in their recorded runs")
    if cells > 0:
        print(f"[status] the {cells} slowest cells of each executed notebook:")
        for source in book_notebooks():
            for cell in slowest_cells(source, cells):
                print(f"  {notebook_id(source):<{width}}  {cell.seconds:7.1f} s  cell {cell.index:>2}  {cell.code[:70]}")
    for run in runs:
        for change in run.changes:
            print(f"  {run.notebook}: {change}")
    return 0 if all(run.status == "ok" and run.current == "yes" for run in runs) else 1
