"""Run the book's notebooks: papermill is the one executor (see the README, "Running one notebook").

``python -m proofbook run notebooks/<paper>/<NN_name>.py [-p NAME VALUE ...]`` converts the
percent-format source with jupytext, injects the parameters into the cell tagged ``parameters``,
executes it with papermill and keeps the executed copy next to the source
(``notebooks/<paper>/<NN_name>.ipynb``, git-ignored), where Jupyter Book renders it.

``python -m proofbook run-all`` runs every notebook in the table of contents, skipping one whose last
successful run (a stamp in ``_build/stamps/``) had the same parameters and data files and wrote results
whose input digest still matches the notebook's source, the library modules it imports and the data
it read (:mod:`proofbook.core.provenance`).  A failed cell stops the run with a non-zero exit status.

Parameters are typed by the notebook's parameters cell and checked before any cell runs
(:mod:`proofbook.cli.parameters` says how); ``run-all`` checks the values against every notebook before
the first one runs.  A ``split`` must be one the chapter names in its parameters cell
(``split: Literal["dev", "test"] | None``) and one whose files the data directory holds
(:data:`SPLIT_FILES`); ``run-all -p split S`` gives ``S`` to the chapters that take it and runs the others
as they are, and so does ``run-all -p seeds 3`` with a parameter that only some chapters define.  The
output folders must be writable; every refusal happens before a kernel starts.

A results file is marked complete (``"complete": true``) only when its notebook's last cell has run; a
run that was killed or interrupted leaves it unfinished, and ``run-all`` and ``check`` treat an unfinished
file as stale.  A second ``run-all`` on the same results folder, or a second ``run`` of the same notebook,
is refused while the first is running (:mod:`proofbook.cli.locks`).

Kernels talk to the runner over Unix sockets named by a fresh id (:func:`kernel_manager_class`), not over TCP
ports: two runs starting at once could both pick the same free TCP port, and one kernel then died at start.
"""
from __future__ import annotations

import contextlib
import json
import os
import platform
import sys
import time
from pathlib import Path

from proofbook.cli import locks
from proofbook.cli.parameters import (INPUT_FOLDERS, OUTPUT_FOLDERS, STANDARD_PARAMETERS, Parameter, ParameterError,
                                      make_output_folders, parameter_specs, parse_value)
from proofbook.core import provenance
from proofbook.core.paths import PROJECT_ROOT
from proofbook.core.results import mark_complete, stray_temporaries, write_json_atomic
from proofbook.core.paths import resolve_data_dir

NOTEBOOKS = PROJECT_ROOT / "notebooks"
STAMPS = PROJECT_ROOT / "_build" / "stamps"
LIBRARY = PROJECT_ROOT / "lib" / "proofbook"

#: for each chapter that takes a ``split``, the files (relative to the data directory) that hold each split it
#: names; a split is present when at least one of its files is (the chapter evaluates the ones present)
_HOVER = {"dev": ("hover_multihop/hover_dev_release_v1.1.json",)}
_WILD = {"dev": ("claimdecomp/dev.jsonl",), "test": ("claimdecomp/test.jsonl", "liar/test.tsv"),
         "valid": ("liar/valid.tsv",)}
_OBQA = {"dev": ("openbookqa/dev.tsv",), "test": ("openbookqa/test.tsv",)}
SPLIT_FILES: dict[str, dict[str, tuple[str, ...]]] = {
    "admiral/02_experiments": _HOVER, "admiral/06_sufficiency": _HOVER,
    "wild/02_experiments": _WILD, "wild/03_error_analysis": _WILD,
    "entailer/01_method": _OBQA, "entailer/03_error_analysis": _OBQA,
    "entailer/02_experiments": {"dev": ("openbookqa/dev.tsv", "qasc/dev.jsonl", "entailmentbank/dataset__task_1__dev.jsonl"),
                                "test": ("openbookqa/test.tsv", "entailmentbank/dataset__task_1__test.jsonl")},
}

__all__ = ["INPUT_FOLDERS", "LIBRARY", "NOTEBOOKS", "OUTPUT_FOLDERS", "STAMPS", "STANDARD_PARAMETERS", "Parameter",
           "ParameterError", "SPLIT_FILES", "book_notebooks", "check_parameters", "executed_path", "notebook_id",
           "parameter_specs", "parse_value", "read_notebook", "run_all", "run_notebook", "up_to_date"]


def notebook_id(source: Path) -> str:
    """``admiral/02_experiments`` for ``notebooks/admiral/02_experiments.py``."""
    source = Path(source).resolve()
    try:
        rel = source.relative_to(NOTEBOOKS)
    except ValueError:
        return source.stem
    return rel.with_suffix("").as_posix()


def read_notebook(source: Path):
    """The percent-format source as an nbformat notebook, with its typed parameters (name -> :class:`Parameter`).

    The notebook must have one ``parameters`` cell defining every standard parameter, each of a
    type the runner can tell (see :mod:`proofbook.cli.parameters`).
    """
    import jupytext

    source = Path(source)
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no such notebook (the book's are under {NOTEBOOKS})")
    notebook = jupytext.read(source, fmt="py:percent")
    tagged = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ParameterError(f"{source}: expected exactly one cell tagged 'parameters', found {len(tagged)}")
    specs = parameter_specs(tagged[0].source, str(source))
    missing = [name for name in STANDARD_PARAMETERS if name not in specs]
    if missing:
        raise ParameterError(f"{source}: the parameters cell does not define {missing}")
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook, specs


def check_parameters(source: str | os.PathLike, parameters: dict | None,
                     specs: dict[str, Parameter] | None = None) -> dict:
    """``parameters`` typed for the notebook ``source``; :class:`ParameterError` for an unknown name or a bad value.

    Nothing is created or run (output folders are made by :func:`run_notebook`).
    """
    source = Path(source)
    if specs is None:
        specs = read_notebook(source)[1]
    parameters = dict(parameters or {})
    unknown = sorted(set(parameters) - set(specs))
    if unknown:
        raise ParameterError(f"{source}: unknown parameter(s) {unknown}; the parameters cell defines {sorted(specs)}")
    typed = {name: parse_value(specs[name], value, str(source)) for name, value in parameters.items()}
    if typed.get("split") is not None:
        check_split_present(source, typed["split"], typed.get("data_dir"))
    return typed


def check_split_present(source: str | os.PathLike, split: str, data_dir: str | None) -> None:
    """:class:`ParameterError` unless the data directory holds ``split`` for the chapter ``source`` (see
    :data:`SPLIT_FILES`); the message names the splits that are present."""
    files = SPLIT_FILES.get(notebook_id(Path(source)))
    if files is None:
        return                  # a notebook outside the book (a test's or a reader's own): its cell decides
    root = resolve_data_dir(data_dir)
    present = [name for name, paths in files.items() if any((root / p).is_file() for p in paths)]
    if split not in present:
        raise ParameterError(f"{source}: parameter split={split!r} refused: {root} holds no {split} files for this "
                             f"chapter (looked for {', '.join(files.get(split, ()))}); splits present: "
                             f"{', '.join(present) or 'none'}")


def executed_path(source: Path) -> Path:
    """Where the executed copy of the notebook ``source`` goes by default: beside it, as ``.ipynb``."""
    return Path(source).with_suffix(".ipynb")


def run_notebook(source: str | os.PathLike, parameters: dict | None = None, output: str | os.PathLike | None = None,
                 log_output: bool = False, progress: bool = True, timeout: int | None = None) -> Path:
    """Execute one notebook with papermill; returns the path of the executed copy.

    ``parameters`` (command-line text or Python values) are typed and checked first
    (:func:`check_parameters`): an unknown name or a wrong value is a :class:`ParameterError`,
    raised before anything is written or a kernel starts.  Output folders given are created and must be
    writable.  While it runs, the notebook's lock on the results folder is held (:func:`locks.hold`; a
    :class:`locks.Busy` if another process holds it); after its last cell, the results files it wrote are marked
    complete.  A run that writes the book's executed copy (no ``output``, or that very path) leaves its stamp, as
    ``run-all`` does (:func:`write_stamp`).
    """
    source = Path(source).resolve()
    notebook, specs = read_notebook(source)
    typed = check_parameters(source, parameters, specs)
    make_output_folders(source, typed)
    start = time.perf_counter()
    with locks.hold(_results_dir(typed), notebook_id(source)):
        executed, written = _execute(source, notebook, typed, output, log_output, progress, timeout)
    if executed == executed_path(source):
        write_stamp(source, typed, written, time.perf_counter() - start)
    return executed


def _execute(source: Path, notebook, typed: dict, output, log_output: bool, progress: bool,
             timeout: int | None) -> tuple[Path, list[str]]:
    """Papermill's run of the converted ``notebook``, then its results files marked complete; returns the executed
    copy and the results files written (relative to the results folder)."""
    import nbformat
    import papermill

    started = time.time()
    output = Path(output).resolve() if output else executed_path(source)
    output.parent.mkdir(parents=True, exist_ok=True)
    converted = output.with_name(f".{output.stem}.input.ipynb")
    nbformat.write(notebook, converted)
    env_before = os.environ.get("PROOFBOOK_NOTEBOOK")
    os.environ["PROOFBOOK_NOTEBOOK"] = str(source)     # the kernel's results digest hashes this source
    try:
        papermill.execute_notebook(str(converted), str(output), parameters=typed, cwd=str(PROJECT_ROOT),
                                   kernel_name="python3", progress_bar=progress, log_output=log_output,
                                   execution_timeout=timeout, kernel_manager_class=kernel_manager_class())
    finally:
        converted.unlink(missing_ok=True)
        if env_before is None:
            os.environ.pop("PROOFBOOK_NOTEBOOK", None)
        else:
            os.environ["PROOFBOOK_NOTEBOOK"] = env_before
    folder = _results_dir(typed)
    written = _results_written(source, folder, started)
    for name in written:
        mark_complete(folder / name)
        _remove_stray_temporaries(folder / name)
    return output, written


def _remove_stray_temporaries(path: Path) -> None:
    """Remove the temporary files beside the results file ``path`` (``.<name>.*.tmp``) that an earlier run of the
    same notebook left when it was killed in the middle of writing it; the lock this run holds means no other run
    writes them now."""
    for stray in stray_temporaries(path):
        stray.unlink(missing_ok=True)


def kernel_manager_class():
    """Jupyter's kernel manager, with the kernel's channels on Unix sockets (``ipc`` transport) under a path made
    of a fresh id in the temporary folder, which the manager removes when the kernel shuts down.  A TCP port is
    chosen by binding port 0 and letting it go, so a second kernel starting at the same moment can take the same
    port; a socket path with its own id cannot clash."""
    import tempfile
    import uuid

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum, default

    class SocketKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        @default("connection_file")
        def _unique_connection_file(self):
            return os.path.join(tempfile.gettempdir(), f"proofbook-kernel-{uuid.uuid4().hex}.json")

    return SocketKernelManager


def book_notebooks(toc: Path = PROJECT_ROOT / "_toc.yml") -> list[Path]:
    """The notebooks listed in ``_toc.yml``, in book order.  An entry with a ``.md`` file is a page the book
    renders as it is (the references); an entry with neither a ``.py`` source nor a ``.md`` page is an error."""
    import yaml

    entries: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    entries.append(node[key])
            for value in node.values():
                if isinstance(value, (list, dict)):
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(yaml.safe_load(toc.read_text(encoding="utf-8")))
    pages = [entry for entry in entries if (PROJECT_ROOT / f"{entry}.md").is_file()]
    missing = [entry for entry in entries if entry not in pages and not (PROJECT_ROOT / f"{entry}.py").is_file()]
    if missing:
        raise FileNotFoundError(f"{toc}: entries with no notebook source (<entry>.py) or page (<entry>.md): {missing}")
    return [PROJECT_ROOT / f"{entry}.py" for entry in entries if entry not in pages]


def _data_listing(parameters: dict) -> list[str]:
    """The files of the run's data directory (a new file, such as a held-back split, means a rerun)."""
    root = resolve_data_dir(parameters.get("data_dir"))
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) if root.is_dir() else []


def stamp_path(source: Path) -> Path:
    """Where the stamp of ``source``'s last successful run is kept (``_build/stamps/<id>.json``)."""
    return STAMPS / f"{notebook_id(source)}.json"


def up_to_date(source: Path, parameters: dict) -> bool:
    """Whether the last run of ``source`` (its stamp) used these parameters and the same data files, and
    every results file it wrote still matches what the current code and data give
    (:func:`proofbook.core.provenance.stale_parts`)."""
    stamp = stamp_path(source)
    if not (stamp.is_file() and executed_path(source).is_file()):
        return False
    recorded = json.loads(stamp.read_text(encoding="utf-8"))
    if recorded.get("parameters") != parameters or recorded.get("data_files") != _data_listing(parameters) \
            or not recorded.get("results"):
        return False
    data_dir = resolve_data_dir(parameters.get("data_dir"))
    for name in recorded["results"]:
        path = _results_dir(parameters) / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            digest = data["input_digest"]
        except (OSError, ValueError, KeyError):
            return False
        if data.get("complete") is not True or provenance.stale_parts(source, digest, data_dir):
            return False
    return True


def _results_written(source: Path, folder: Path, since: float) -> list[str]:
    """The results files (relative to ``folder``) that the run of ``source`` started at ``since`` wrote:
    rewritten since then, with the digest of this very source."""
    source_hash = provenance.sha256_file(source)
    written = []
    for path in sorted(folder.rglob("*.json")) if folder.is_dir() else []:
        try:
            if path.stat().st_mtime >= since - 1 and \
                    json.loads(path.read_text(encoding="utf-8"))["input_digest"]["source"] == source_hash:
                written.append(path.relative_to(folder).as_posix())
        except (OSError, ValueError, KeyError, TypeError):
            continue      # not a results file of this run
    return written


def _results_dir(parameters: dict) -> Path:
    folder = Path(parameters.get("results_dir") or STANDARD_PARAMETERS["results_dir"])
    return folder if folder.is_absolute() else PROJECT_ROOT / folder


def _parameters_for_each(specs: dict[Path, dict[str, Parameter]], parameters: dict) -> dict[Path, dict]:
    """``parameters`` per notebook (``specs``: each one's typed parameters) for ``run-all``.

    A parameter that only some chapters define (``seeds``: the retrieval chapter's training seeds) goes to those
    chapters; one that no chapter defines stays, so that :func:`check_parameters` refuses it.  A ``split`` goes
    to the chapters whose parameters cell names it, the others run without one; a split that no chapter takes
    is a :class:`ParameterError`."""
    sources = list(specs)
    named = {name for spec in specs.values() for name in spec}
    given = {source: {k: v for k, v in parameters.items() if k in specs[source] or k not in named}
             for source in sources}
    split = parameters.get("split")
    if split is None or str(split).strip() == "None":
        return given
    takes = {source: specs[source]["split"].choices for source in sources}
    takers = [s for s in sources if takes[s] is None or split in takes[s]]
    if not takers:
        named_splits = sorted({c for choices in takes.values() for c in (choices or ())})
        raise ParameterError(f"parameter split={split!r} refused: no chapter takes it "
                             f"(the chapters take {', '.join(named_splits)})")
    return {source: given[source] if source in takers else {k: v for k, v in given[source].items() if k != "split"}
            for source in sources}


def run_all(parameters: dict | None = None, force: bool = False, run_each=None) -> list[tuple[Path, str, float]]:
    """Run every notebook of the book, skipping up-to-date ones; returns (notebook, status, seconds).

    A notebook is skipped when its last run used the same parameters and data files and the results it
    wrote are complete and not stale (:func:`up_to_date`).  The parameters are checked against every notebook
    before the first one runs; the results folder is held for the whole run (:func:`locks.hold`).  The notebooks
    run one after the other in book order, in this process, unless ``run_each`` says otherwise
    (:func:`proofbook.cli.parallel.run_all_parallel` runs them as Ray tasks).
    """
    read = {source: read_notebook(source) for source in book_notebooks()}
    given = _parameters_for_each({source: specs for source, (_, specs) in read.items()}, dict(parameters or {}))
    typed = {source: check_parameters(source, given[source], specs) for source, (_, specs) in read.items()}
    with contextlib.ExitStack() as held:
        for folder in sorted({_results_dir(t) for t in typed.values()}):
            held.enter_context(locks.hold(folder))
        return (run_each or _run_each)(read, typed, force)


def _run_each(read: dict[Path, tuple], typed: dict[Path, dict], force: bool) -> list[tuple[Path, str, float]]:
    """Each notebook of ``read`` (source -> (notebook, specs)) in order, skipping up-to-date ones, with its stamp."""
    report = []
    sources = list(read)
    for source in sources:
        if not force and up_to_date(source, typed[source]):
            print(f"[proofbook] {notebook_id(source)}: unchanged, skipped", file=sys.stderr)
            report.append((source, "skipped", 0.0))
            continue
        print(f"[proofbook] {notebook_id(source)}: running", file=sys.stderr)
        start = time.perf_counter()
        make_output_folders(source, typed[source])
        _, written = _execute(source, read[source][0], typed[source], None, False, True, None)
        seconds = time.perf_counter() - start
        write_stamp(source, typed[source], written, seconds)
        print(f"[proofbook] {notebook_id(source)}: done in {seconds:.0f} s", file=sys.stderr)
        report.append((source, "ran", seconds))
    return report


def write_stamp(source: Path, typed: dict, written: list[str], seconds: float, host: str | None = None) -> None:
    """The stamp of a finished run of ``source``: its parameters, data files, results files, seconds and host."""
    stamp = {"parameters": typed, "data_files": _data_listing(typed), "results": written,
             "seconds": round(seconds, 1), "finished": time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime()),
             "host": host or platform.node()}
    write_json_atomic(stamp_path(source), json.loads(json.dumps(stamp, default=str)))
