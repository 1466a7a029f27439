"""``python -m proofbook check``: are the committed results exactly what the code computes?

Two levels:

* ``check --structure`` (quick, no data needed; ``make test`` runs it on the results of the smoke
  runs) fails, naming the file, on a results file that is not JSON, lacks a field (``notebook``,
  ``git_commit``, ``params``, ``input_digest``, ``environment``, ``complete``, ``rows``, or a row's field),
  comes from a run that did not finish (``complete`` not true), was computed in a dirty work tree or at an
  unknown commit, or holds an absolute path; and on a name that a
  chapter's text shows with ``{glue:text}`` (or ``{glue:}``, ``{glue:figure}``, ...) but that no code cell of
  that chapter glues; and on a claim of :data:`proofbook.core.paper_claims.REGISTRY` that names a row its
  notebook's results file does not hold.
* ``check`` (``make check``) adds staleness: a results file whose ``input_digest`` differs from what the
  current notebook source, library modules and data would give (see
  :func:`proofbook.core.provenance.stale_parts`) fails with what changed.  The data directory is the usual
  one (``PROOFBOOK_DATA``, else ``data/``), falling back to a ``shared/data`` folder beside the project (a
  local mirror of the datasets); with no data at all the data part is skipped and the report says so.
"""
from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

from proofbook.core import paper_claims, provenance
from proofbook.core.paths import PROJECT_ROOT
from proofbook.core.paths import resolve_data_dir
from proofbook.core.results import ROW_FIELDS, Row, stray_temporaries

FILE_FIELDS = ("notebook", "git_commit", "params", "input_digest", "environment", "complete", "rows")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
#: a glue reference in a chapter's text: {glue:text}`name`, {glue:}`name:format`, {glue:figure}`name`
_GLUE_USE = re.compile(r"\{glue(?::[a-z]*)?\}`([^`:]+)(?::[^`]*)?`")


def results_files(results_dir: os.PathLike | str) -> list[Path]:
    """Every results file (``*.json``) under ``results_dir``, its subfolders included, sorted by path."""
    return sorted(Path(results_dir).rglob("*.json"))


def _strings(value: Any, where: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(str(key), f"{where}.{key} (key)")
            yield from _strings(item, f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}[{index}]")


def structure_problems(path: Path) -> list[str]:
    """What is wrong with one results file's structure (empty when nothing is)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as err:
        return [f"not a JSON file ({err})"]
    if not isinstance(data, dict):
        return [f"expected a JSON object, found {type(data).__name__}"]
    problems = [f"missing field '{name}'" for name in FILE_FIELDS if name not in data]
    for index, row in enumerate(data.get("rows") or []):
        missing = [name for name in ROW_FIELDS if not isinstance(row, dict) or name not in row]
        if missing:
            problems.append(f"row {index}: missing field(s) {missing}")
            continue
        try:
            Row(**{name: row[name] for name in ROW_FIELDS})
        except (TypeError, ValueError) as err:
            problems.append(f"row {index}: {err}")
    if "complete" in data and data["complete"] is not True:
        problems.append("unfinished: the run that wrote it stopped before its last cell (killed, interrupted or "
                        "failed), or ran outside `python -m proofbook run`; rerun it")
    commit = data.get("git_commit")
    if "git_commit" in data and not (isinstance(commit, str) and _COMMIT.match(commit)):
        reason = "a dirty work tree" if isinstance(commit, str) and commit.endswith("-dirty") else "an unknown commit"
        problems.append(f"git_commit {commit!r}: computed in {reason}; rerun from a clean checkout")
    digest = data.get("input_digest")
    if isinstance(digest, dict):
        problems += [f"input_digest: missing '{key}'" for key in provenance.DIGEST_KEYS if key not in digest]
    elif "input_digest" in data:
        problems.append("input_digest: expected an object")
    for where, text in _strings({k: v for k, v in data.items() if k != "rows"}):
        if os.path.isabs(text) or re.match(r"^[A-Za-z]:[\\/]", text):
            problems.append(f"absolute path {text!r} at {where.lstrip('.')}")
    return problems


def glue_problems(source: Path) -> list[str]:
    """``{glue:...}`name``` references in ``source`` (a percent-format notebook) that nothing glues."""
    import jupytext

    notebook = jupytext.read(source, fmt="py:percent")
    used: dict[str, None] = {}
    exact: set[str] = set()
    patterns: list[re.Pattern] = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            used.update(dict.fromkeys(_GLUE_USE.findall(cell.source)))
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue                 # a cell with magics: the executed notebook shows its own error
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "glue" \
                    and node.args:
                name = node.args[0]
                if isinstance(name, ast.Constant) and isinstance(name.value, str):
                    exact.add(name.value)
                elif isinstance(name, ast.JoinedStr):      # f"gain5_{d}" -> gain5_.+
                    parts = [re.escape(v.value) if isinstance(v, ast.Constant) else ".+" for v in name.values]
                    patterns.append(re.compile("".join(parts)))
                else:
                    patterns.append(re.compile(".+"))      # a name computed at run time: cannot be checked
    return [f"{{glue}}`{name}` is shown but never glued" for name in used
            if name not in exact and not any(p.fullmatch(name) for p in patterns)]


def find_data_dir() -> Path | None:
    """The usual data directory, else a ``shared/data`` folder beside the project (a local mirror of the datasets).

    None when neither exists.
    """
    for candidate in (resolve_data_dir(None), PROJECT_ROOT.parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return None


def run_check(results_dir: os.PathLike | str = PROJECT_ROOT / "results", structure_only: bool = False,
              data_dir: os.PathLike | str | None = None, notebooks: list[Path] | None = None) -> list[str]:
    """Every problem as ``"<file>: <problem>"``; prints nothing (see :func:`main`)."""
    results_dir = Path(results_dir)
    problems: list[str] = []
    files = results_files(results_dir)
    if not files:
        problems.append(f"{results_dir}: no results files")
    for path in files:
        problems += [f"{path}: {p}" for p in structure_problems(path)]
    problems += [f"{stray}: a temporary file left by a run killed while it wrote a results file; run that chapter "
                 f"again (its run removes it) or delete it" for stray in stray_temporaries(results_dir)]
    if not any(problems):
        problems += [f"{results_dir}: {p}" for p in paper_claims.unknown_rows(paper_claims.load_rows(results_dir))]
    sources = notebooks if notebooks is not None else sorted(provenance.NOTEBOOKS.rglob("*.py"))
    for source in sources:
        problems += [f"{source}: {p}" for p in glue_problems(source)]
    if structure_only:
        return problems
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            recorded = data["input_digest"]
            stale = provenance.stale_parts(provenance.notebook_source(data["notebook"]), recorded, data_dir)
        except (ValueError, KeyError, TypeError, FileNotFoundError) as err:
            problems.append(f"{path}: cannot check staleness ({type(err).__name__}: {err})")
            continue
        problems += [f"{path}: stale: {p}" for p in stale]
    return problems


def main(structure_only: bool = False, results_dir: os.PathLike | str | None = None,
         data_dir: os.PathLike | str | None = None) -> int:
    """The command line: print the problems and return the exit status (0: none)."""
    results_dir = Path(results_dir) if results_dir else PROJECT_ROOT / "results"
    data = Path(data_dir) if data_dir else find_data_dir()
    if not structure_only and data is None:
        print("[check] no data directory found: the data part of the digests is not checked")
    problems = run_check(results_dir, structure_only, data)
    for problem in problems:
        print(problem)
    what = "structure" if structure_only else f"structure and staleness (data: {data})"
    print(f"[check] {len(results_files(results_dir))} results files, {what}: "
          + (f"{len(problems)} problem(s)" if problems else "all good"))
    return 1 if problems else 0
