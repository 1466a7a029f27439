"""Where a result came from: the digest of a notebook run's inputs, and the machine it ran on.

Every results file (:mod:`proofbook.core.results`) records, next to the commit it was computed at, an
``input_digest`` that says exactly what its numbers depend on:

* ``source`` -- the sha256 of the notebook's source file;
* ``library`` -- the sha256 of each module of :mod:`proofbook` that the notebook imports, directly or
  through other modules (found by reading the ``import`` statements, also those inside functions, so
  a change to a module the notebook never imports does not make its results stale);
* ``params`` -- the parameters the notebook recorded;
* ``data`` -- the sha256 of the *contents* of every dataset file the run read, by its path relative to
  the data directory (the same data read from another folder gives the same digest).

and an ``environment`` (Python, torch and transformers versions, torch threads, CPU model) for the
timing rows.  :func:`stale_parts` recomputes the digest that the current code would give on the same
data and names what differs; ``python -m proofbook check`` and ``run-all`` use it.  A file read from
outside the data directory is named ``<project>/...`` (inside the project) or ``<elsewhere>/<name>``
(known by its content hash only, e.g. a local checkpoint folder), so a results file never holds an absolute path.
"""
from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import os
import platform
import sys
from pathlib import Path
from typing import Any, Iterable

from proofbook.core.paths import PROJECT_ROOT, files_read

LIBRARY = PROJECT_ROOT / "lib" / "proofbook"
NOTEBOOKS = PROJECT_ROOT / "notebooks"
DIGEST_KEYS = ("source", "library", "params", "data")


def sha256_file(path: os.PathLike | str) -> str:
    """The SHA-256 hex digest of the file's bytes (read in 1 MiB chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def notebook_source(notebook: str) -> Path:
    """The source of a results file's notebook: ``admiral/02_experiments`` -> ``notebooks/admiral/02_experiments.py``.

    The introduction's results live under ``introduction/`` while its source is ``notebooks/00_introduction.py``.
    """
    for candidate in (NOTEBOOKS / f"{notebook}.py", NOTEBOOKS / f"{Path(notebook).name}.py"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no notebook source for {notebook!r} under {NOTEBOOKS}")


# --- the modules a notebook imports --------------------------------------------------------------

def _module_file(name: str) -> Path | None:
    """The file of module ``proofbook.a.b`` (``a/b.py`` or ``a/b/__init__.py``), or None."""
    parts = name.split(".")[1:]
    base = LIBRARY.joinpath(*parts) if parts else LIBRARY
    for candidate in (base.with_suffix(".py") if parts else None, base / "__init__.py"):
        if candidate is not None and candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str:
    """The dotted name of a module file of the library: ``.../proofbook/index/bm25.py`` -> ``proofbook.index.bm25``."""
    rel = path.relative_to(LIBRARY).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["proofbook", *parts])


def _imported_names(tree: ast.AST, module: str | None, is_package: bool) -> set[str]:
    """Every ``proofbook...`` module named by an import anywhere in ``tree`` (relative ones resolved)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names if alias.name.split(".")[0] == "proofbook")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if module is None:
                    continue
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "proofbook":
                continue
            names.add(target)
            names.update(f"{target}.{alias.name}" for alias in node.names)   # a submodule, if it is one
    return names


def imported_modules(source: os.PathLike | str) -> list[Path]:
    """The library files that ``source`` (a notebook or module) imports, directly or transitively.

    Importing ``proofbook.a.b`` also runs ``proofbook/__init__.py`` and ``proofbook/a/__init__.py``, so
    those count too.
    """
    source = Path(source)
    found: set[Path] = set()
    pending = [(source, None, False)]
    while pending:
        path, module, is_package = pending.pop()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in _imported_names(tree, module, is_package):
            parts = name.split(".")
            for end in range(1, len(parts) + 1):
                file = _module_file(".".join(parts[:end]))
                if file is not None and file not in found:
                    found.add(file)
                    pending.append((file, module_name(file), file.name == "__init__.py"))
    return sorted(found)


def library_digest(source: os.PathLike | str) -> dict[str, str]:
    """``{path under lib/proofbook: sha256}`` of the modules ``source`` imports."""
    return {path.relative_to(LIBRARY).as_posix(): sha256_file(path) for path in imported_modules(source)}


# --- data, parameters, environment -------------------------------------------------------------

#: how a file outside the data directory is named: inside the project, and anywhere else (by its name only)
PROJECT_PREFIX, ELSEWHERE_PREFIX = "<project>/", "<elsewhere>/"


def relative_to_data(path: os.PathLike | str, data_dir: os.PathLike | str) -> str:
    """``path`` relative to the data directory, else ``<project>/`` + its path in the project, else
    ``<elsewhere>/<hash of its folder>/<name>`` (a user's checkpoint folder, say): never an absolute path."""
    path, data_dir = Path(path).resolve(), Path(data_dir).resolve()
    for root, prefix in ((data_dir, ""), (PROJECT_ROOT, PROJECT_PREFIX)):
        try:
            return prefix + path.relative_to(root).as_posix()
        except ValueError:
            continue
    folder = hashlib.sha256(str(path.parent).encode("utf-8")).hexdigest()[:8]      # tells same-named files apart
    return f"{ELSEWHERE_PREFIX}{folder}/{path.name}"


def data_digest(paths: Iterable[os.PathLike | str], data_dir: os.PathLike | str,
                memo: dict | None = None) -> dict[str, str]:
    """``{path relative to the data directory: sha256 of the contents}`` of the files read.

    ``memo`` (path -> (size, mtime, sha256)) spares rehashing within one run, where the results file
    is rewritten after every row.
    """
    memo = {} if memo is None else memo
    out = {}
    for path in sorted(map(Path, paths)):
        if not path.is_file():
            continue
        stat = path.stat()
        if memo.get(path, (None, None, None))[:2] != (stat.st_size, stat.st_mtime_ns):
            memo[path] = (stat.st_size, stat.st_mtime_ns, sha256_file(path))
        out[relative_to_data(path, data_dir)] = memo[path][2]
    return out


def relative_params(params: dict, data_dir: os.PathLike | str) -> dict:
    """The parameters with every absolute path made relative (to the data directory, else the project)."""
    out = {}
    for key, value in params.items():
        if isinstance(value, os.PathLike) or (isinstance(value, str) and os.path.isabs(value)):
            value = relative_to_data(value, data_dir)
        out[key] = value
    return out


def running_source(notebook: str) -> Path | None:
    """The source of the notebook running now: the one the runner names in ``PROOFBOOK_NOTEBOOK``, else
    the book's notebook of that name, else None."""
    named = os.environ.get("PROOFBOOK_NOTEBOOK")
    if named and Path(named).is_file():
        return Path(named)
    try:
        return notebook_source(notebook)
    except FileNotFoundError:
        return None


def code_digest_of(source: os.PathLike | str) -> dict[str, Any]:
    """``{source, library}``: the sha256 of a notebook's source and of the library modules it imports."""
    return {"source": sha256_file(source), "library": library_digest(source)}


def code_digest(notebook: str) -> dict[str, Any]:
    """:func:`code_digest_of` the running notebook (``source`` None when it cannot be found)."""
    source = running_source(notebook)
    return {"source": None, "library": {}} if source is None else code_digest_of(source)


def input_digest(notebook: str, params: dict, data_dir: os.PathLike | str,
                 files: Iterable[os.PathLike | str] | None = None, memo: dict | None = None) -> dict[str, Any]:
    """The digest of one run: ``{source, library, params, data}`` (see the module docstring)."""
    read = files_read() if files is None else files
    return {**code_digest(notebook), "params": relative_params(params, data_dir),
            "data": data_digest(read, data_dir, memo)}


def environment() -> dict[str, Any]:
    """Python, torch and transformers versions, torch's threads (if torch is loaded) and the CPU model."""
    def version(name: str) -> str | None:
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None

    cpu = platform.processor() or None
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            cpu = next((line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), cpu)
    except OSError:
        pass
    torch = sys.modules.get("torch")
    return {"python": platform.python_version(), "torch": version("torch"), "transformers": version("transformers"),
            "torch_threads": torch.get_num_threads() if torch is not None else None, "cpu": cpu,
            "cpu_count": os.cpu_count()}


def stale_parts(source: os.PathLike | str, recorded: dict, data_dir: os.PathLike | str | None) -> list[str]:
    """What differs between a recorded ``input_digest`` and what notebook ``source``, the current library
    and the data would give.

    ``data_dir=None`` (no data found) compares the source and library only.  Returns readable
    differences (``"library: retrieval/admiral.py changed"``); empty when the results are current.
    """
    problems = []
    source = Path(source)
    if recorded.get("source") != sha256_file(source):
        problems.append(f"source: {source.name} changed")
    now, then = library_digest(source), recorded.get("library", {})
    for name in sorted(set(now) | set(then)):
        if now.get(name) != then.get(name):
            what = "changed" if name in now and name in then else ("now imported" if name in now else "no longer imported")
            problems.append(f"library: {name} {what}")
    if data_dir is not None:
        for name, digest in sorted(recorded.get("data", {}).items()):
            if name.startswith(ELSEWHERE_PREFIX):
                continue            # a file outside data and project (a user's checkpoint): known by hash only
            path = PROJECT_ROOT / name.removeprefix(PROJECT_PREFIX) if name.startswith(PROJECT_PREFIX) \
                else Path(data_dir) / name
            if not path.is_file():
                problems.append(f"data: {name} is missing from {data_dir}")
            elif sha256_file(path) != digest:
                problems.append(f"data: {name} differs")
    return problems
