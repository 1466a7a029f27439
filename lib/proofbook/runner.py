"""Run the book's notebooks: papermill is the one executor (``results.md``, "Running").

``python -m proofbook run notebooks/<paper>/<NN_name>.py [-p NAME VALUE ...]`` converts the
percent-format source with jupytext, injects the parameters into the cell tagged ``parameters``,
executes it with papermill and keeps the executed copy next to the source
(``notebooks/<paper>/<NN_name>.ipynb``, git-ignored), where Jupyter Book renders it.

``python -m proofbook run-all`` runs every notebook in the table of contents, skipping one whose
source, library code and parameters are unchanged since its last successful run (a stamp in
``_build/stamps/``).  A failed cell stops the run with a non-zero exit status.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from proofbook.data.base import PROJECT_ROOT

NOTEBOOKS = PROJECT_ROOT / "notebooks"
STAMPS = PROJECT_ROOT / "_build" / "stamps"
LIBRARY = PROJECT_ROOT / "lib" / "proofbook"
#: the parameters every notebook's ``parameters`` cell defines, with their defaults
STANDARD_PARAMETERS = {"data_dir": None, "split": None, "limit": None, "seed": 0, "smoke": False,
                       "results_dir": "results", "figures_dir": "figures"}


def parse_value(text: str):
    """A ``-p NAME VALUE`` value: a Python literal (``None``, ``True``, ``3``, ``'dev'``) or a plain string."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def notebook_id(source: Path) -> str:
    """``admiral/02_experiments`` for ``notebooks/admiral/02_experiments.py``."""
    source = Path(source).resolve()
    try:
        rel = source.relative_to(NOTEBOOKS)
    except ValueError:
        return source.stem
    return rel.with_suffix("").as_posix()


def read_notebook(source: Path):
    """The percent-format source as an nbformat notebook, checked for one ``parameters`` cell."""
    import jupytext

    source = Path(source)
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no such notebook")
    notebook = jupytext.read(source, fmt="py:percent")
    tagged = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ValueError(f"{source}: expected exactly one cell tagged 'parameters', found {len(tagged)}")
    defined = _assigned_names(tagged[0].source)
    missing = [name for name in STANDARD_PARAMETERS if name not in defined]
    if missing:
        raise ValueError(f"{source}: the parameters cell does not define {missing}")
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook, defined


def _assigned_names(code: str) -> set[str]:
    tree = ast.parse(code)
    return {t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)}


def executed_path(source: Path) -> Path:
    return Path(source).with_suffix(".ipynb")


def run_notebook(source: str | os.PathLike, parameters: dict | None = None, output: str | os.PathLike | None = None,
                 log_output: bool = False, progress: bool = True, timeout: int | None = None) -> Path:
    """Execute one notebook with papermill; returns the path of the executed copy.

    Unknown parameter names are refused (a typo would otherwise be silently ignored).
    """
    import nbformat
    import papermill

    source = Path(source).resolve()
    parameters = dict(parameters or {})
    notebook, defined = read_notebook(source)
    unknown = sorted(set(parameters) - defined)
    if unknown:
        raise ValueError(f"{source}: unknown parameter(s) {unknown}; the parameters cell defines {sorted(defined)}")
    output = Path(output).resolve() if output else executed_path(source)
    output.parent.mkdir(parents=True, exist_ok=True)
    converted = output.with_name(f".{output.stem}.input.ipynb")
    nbformat.write(notebook, converted)
    env_before = os.environ.get("PROOFBOOK_NOTEBOOK")
    os.environ["PROOFBOOK_NOTEBOOK"] = notebook_id(source)
    try:
        papermill.execute_notebook(str(converted), str(output), parameters=parameters, cwd=str(PROJECT_ROOT),
                                   kernel_name="python3", progress_bar=progress, log_output=log_output,
                                   execution_timeout=timeout)
    finally:
        converted.unlink(missing_ok=True)
        if env_before is None:
            os.environ.pop("PROOFBOOK_NOTEBOOK", None)
        else:
            os.environ["PROOFBOOK_NOTEBOOK"] = env_before
    return output


def _library_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted(LIBRARY.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(LIBRARY).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def input_digest(source: Path, parameters: dict) -> str:
    """Hash of what a notebook's result depends on: its source, the library code and its parameters."""
    digest = hashlib.sha256()
    digest.update(Path(source).read_bytes())
    digest.update(_library_digest().encode())
    digest.update(json.dumps(parameters, sort_keys=True, default=str).encode())
    digest.update(os.environ.get("PROOFBOOK_DATA", "").encode())
    return digest.hexdigest()


def book_notebooks(toc: Path = PROJECT_ROOT / "_toc.yml") -> list[Path]:
    """The notebooks listed in ``_toc.yml``, in book order."""
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
    return [PROJECT_ROOT / f"{entry}.py" for entry in entries if (PROJECT_ROOT / f"{entry}.py").is_file()]


def run_all(parameters: dict | None = None, force: bool = False) -> list[tuple[Path, str, float]]:
    """Run every notebook of the book, skipping unchanged ones; returns (notebook, status, seconds)."""
    parameters = dict(parameters or {})
    report = []
    for source in book_notebooks():
        stamp = STAMPS / f"{notebook_id(source)}.json"
        digest = input_digest(source, parameters)
        if not force and stamp.is_file() and executed_path(source).is_file() and \
                json.loads(stamp.read_text()).get("digest") == digest:
            print(f"[proofbook] {notebook_id(source)}: unchanged, skipped", file=sys.stderr)
            report.append((source, "skipped", 0.0))
            continue
        print(f"[proofbook] {notebook_id(source)}: running", file=sys.stderr)
        start = time.perf_counter()
        run_notebook(source, parameters)
        seconds = time.perf_counter() - start
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps({"digest": digest, "seconds": round(seconds, 1), "parameters": parameters}))
        print(f"[proofbook] {notebook_id(source)}: done in {seconds:.0f} s", file=sys.stderr)
        report.append((source, "ran", seconds))
    return report
