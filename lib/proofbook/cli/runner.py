"""Run the book's notebooks: papermill is the one executor (see the README, "Running one notebook").

``python -m proofbook run notebooks/<paper>/<NN_name>.py [-p NAME VALUE ...]`` converts the
percent-format source with jupytext, injects the parameters into the cell tagged ``parameters``,
executes it with papermill and keeps the executed copy next to the source
(``notebooks/<paper>/<NN_name>.ipynb``, git-ignored), where Jupyter Book renders it.

``python -m proofbook run-all`` runs every notebook in the table of contents, skipping one whose last
successful run (a stamp in ``_build/stamps/``) had the same parameters and data files and wrote results
whose input digest still matches the notebook's source, the library modules it imports and the data
it read (:mod:`proofbook.core.provenance`).  A failed cell stops the run with a non-zero exit status.

**Parameters are typed by the notebook's parameters cell**, and checked before any cell runs.  Each
parameter's type is that of its default (``seed = 0`` is an int, ``smoke = False`` a bool), or its
annotation where the default is ``None`` (``limit: int | None = None``); only bool, int, float and
str, each optionally ``| None``, are supported.  A value, whether command-line text (``-p smoke
false``) or a Python value (``run_notebook(source, {"smoke": True})``), is converted to that type or
refused with a :class:`ParameterError` naming the notebook, the parameter, the value and the
expected type:

- bool: ``True``/``False``, or the text ``True``, ``False``, ``true``, ``false``, ``1``, ``0``;
- int: an integer, not a bool (text: digits with an optional sign).  Every int parameter is a count,
  a seed or an index, so it must be non-negative, unless its default is negative;
- float: an int or a float, finite (text: a number);
- str: a string, taken as it is;
- ``None``, or the text ``None``: only where the parameter allows it (``X | None``);
- folders, given relative to the project root (where the notebooks run) or absolute: an input
  folder (:data:`INPUT_FOLDERS`, ``data_dir``) must exist; an output folder (:data:`OUTPUT_FOLDERS`,
  ``results_dir``, ``figures_dir``) is created.

The checks apply to the values given; the defaults are the cell's own (checked only against their
annotation).  The notebook receives the typed value (``smoke = False``, never the string
``'false'``), so what its results record has the right type.  A parameter name the cell does not
define is refused too (a typo would otherwise be silently ignored).  ``run-all`` checks the values
against every notebook before the first one runs.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import math
import numbers
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

from proofbook.core import provenance
from proofbook.core.paths import PROJECT_ROOT
from proofbook.core.paths import resolve_data_dir

NOTEBOOKS = PROJECT_ROOT / "notebooks"
STAMPS = PROJECT_ROOT / "_build" / "stamps"
LIBRARY = PROJECT_ROOT / "lib" / "proofbook"
#: the parameters every notebook's ``parameters`` cell defines, with their defaults
STANDARD_PARAMETERS = {"data_dir": None, "split": None, "limit": None, "seed": 0, "smoke": False,
                       "results_dir": "results", "figures_dir": "figures"}
#: parameters naming a folder the notebook reads: a value given must be an existing folder
INPUT_FOLDERS = frozenset({"data_dir"})
#: parameters naming a folder the notebook writes: a value given is created before the run
OUTPUT_FOLDERS = frozenset({"results_dir", "figures_dir"})

_TYPES = {"bool": bool, "int": int, "float": float, "str": str}
_BOOL_TEXT = {"True": True, "true": True, "1": True, "False": False, "false": False, "0": False}
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_NO_DEFAULT = object()


class ParameterError(ValueError):
    """A notebook parameter refused before any cell runs: unknown, untyped, or a value of the wrong type."""


@dataclasses.dataclass(frozen=True)
class Parameter:
    """One parameter of a notebook's parameters cell: its type, whether None is allowed, its default."""

    name: str
    type: type
    optional: bool = False
    default: Any = None

    @property
    def non_negative(self) -> bool:
        """Int parameters are counts, seeds or indexes: non-negative unless the default is negative."""
        return self.type is int and not (isinstance(self.default, int) and self.default < 0)

    def describe(self) -> str:
        """The expected type in words, e.g. ``int | None (a non-negative integer, or None)``."""
        kind = {bool: "True or False", int: "a non-negative integer" if self.non_negative else "an integer",
                float: "a finite number", str: "a string"}[self.type]
        if self.name in INPUT_FOLDERS:
            kind = "an existing folder"
        elif self.name in OUTPUT_FOLDERS:
            kind = "a folder to write to"
        annotation = self.type.__name__ + (" | None" if self.optional else "")
        return f"{annotation} ({kind}{', or None' if self.optional else ''})"


def _refuse(notebook: str, name: str, value: Any, expected: str) -> ParameterError:
    return ParameterError(f"{notebook}: parameter {name}={value!r} refused: expected {expected}")


def _project_path(value: str) -> Path:
    """A folder parameter's path: absolute as given, else under the project root (the notebooks' working folder)."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else PROJECT_ROOT / path


def parse_value(parameter: Parameter, value: Any, notebook: str = "notebook") -> Any:
    """``value`` (command-line text or a Python value) as ``parameter``'s type; :class:`ParameterError` if it is not one.

    Text is read as described in the module docstring (``"false"`` -> False, ``"3"`` -> 3, ``"None"`` -> None
    where None is allowed).  An input folder must exist; an output folder is not created here.
    """
    name, kind = parameter.name, parameter.type

    def refuse(expected: str = parameter.describe()) -> ParameterError:
        return _refuse(notebook, name, value, expected)

    if value is None or (isinstance(value, str) and value.strip() == "None"):
        if parameter.optional:
            return None
        raise refuse()
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip() in _BOOL_TEXT:
            return _BOOL_TEXT[value.strip()]
        raise refuse(f"{parameter.describe()}; as text: True, False, true, false, 1 or 0")
    if kind is int:
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            number = int(value)
        elif isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
            number = int(value.strip())
        else:
            raise refuse()
        if parameter.non_negative and number < 0:
            raise refuse()
        return number
    if kind is float:
        if isinstance(value, numbers.Real) and not isinstance(value, bool):
            number = float(value)
        elif isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                raise refuse() from None
        else:
            raise refuse()
        if not math.isfinite(number):
            raise refuse()
        return number
    # str
    if isinstance(value, os.PathLike) and name in INPUT_FOLDERS | OUTPUT_FOLDERS:
        value = os.fspath(value)
    if not isinstance(value, str):
        raise refuse()
    if name in INPUT_FOLDERS | OUTPUT_FOLDERS:
        if not value.strip():
            raise refuse(f"{parameter.describe()}, not an empty path")
        value = os.path.expanduser(value)   # the notebook gets the folder the check looked at
        if name in INPUT_FOLDERS and not _project_path(value).is_dir():
            raise refuse(f"{parameter.describe()}; {_project_path(value)} is not a folder "
                         f"(relative paths are taken from the project root {PROJECT_ROOT})")
    return value


def _annotation(node: ast.expr, where: str, name: str) -> tuple[type, bool]:
    """``(type, optional)`` of an annotation: ``int``, ``str | None``, ``Optional[float]``, ``"int | None"``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _annotation(ast.parse(node.value, mode="eval").body, where, name)
        except SyntaxError:
            pass
    if isinstance(node, ast.Name) and node.id in _TYPES:
        return _TYPES[node.id], False
    members = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = [node.left, node.right]
    elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Optional", "typing.Optional"):
        members = [node.slice, ast.Constant(None)]
    if members is not None:
        concrete = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
        if len(concrete) == 1 and len(members) == 2 and isinstance(concrete[0], ast.Name) \
                and concrete[0].id in _TYPES:
            return _TYPES[concrete[0].id], True
    raise ParameterError(f"{where}: parameter {name}: unsupported annotation {ast.unparse(node)!r}; "
                         "use bool, int, float or str, optionally with | None")


def _conforms(default: Any, kind: type, optional: bool) -> bool:
    """Whether a literal default fits an annotation (a bool is not an int; an int is a float)."""
    if default is None:
        return optional
    if isinstance(default, bool):
        return kind is bool
    return isinstance(default, kind) or (kind is float and isinstance(default, int))


def parameter_specs(code: str, where: str = "notebook") -> dict[str, Parameter]:
    """The parameters a ``parameters`` cell defines, each typed from its default or its annotation.

    ``where`` names the notebook in errors.  A parameter whose type cannot be told (a ``None`` or
    non-literal default without an annotation, or an unsupported type) is a :class:`ParameterError`.
    """
    specs: dict[str, Parameter] = {}
    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign):
            targets, annotation = [t for t in node.targets if isinstance(t, ast.Name)], None
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets, annotation = [node.target], node.annotation
        else:
            continue
        for target in targets:
            specs[target.id] = _parameter(target.id, annotation, node.value, where)
    return specs


def _parameter(name: str, annotation: ast.expr | None, value: ast.expr | None, where: str) -> Parameter:
    if value is None:
        raise ParameterError(f"{where}: parameter {name} has no default value")
    try:
        default = ast.literal_eval(value)
    except (ValueError, SyntaxError, TypeError):
        default = _NO_DEFAULT
    if annotation is not None:
        kind, optional = _annotation(annotation, where, name)
        spec = Parameter(name, kind, optional, None if default is _NO_DEFAULT else default)
        if default is not _NO_DEFAULT and not _conforms(default, kind, optional):
            raise ParameterError(f"{where}: parameter {name}: default {default!r} is not {spec.describe()}")
        return spec
    if default is None or default is _NO_DEFAULT:
        written = ast.unparse(value)
        raise ParameterError(f"{where}: parameter {name} = {written}: cannot tell its type; annotate it, "
                             f"e.g. `{name}: int | None = {written}` (bool, int, float or str, optionally | None)")
    if type(default) not in _TYPES.values():
        raise ParameterError(f"{where}: parameter {name} = {default!r}: a {type(default).__name__}; "
                             "parameters are bool, int, float or str (optionally | None)")
    return Parameter(name, type(default), False, default)


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
    type the runner can tell (see the module docstring).
    """
    import jupytext

    source = Path(source)
    if not source.is_file():
        raise FileNotFoundError(f"{source}: no such notebook")
    notebook = jupytext.read(source, fmt="py:percent")
    tagged = [c for c in notebook.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(tagged) != 1:
        raise ValueError(f"{source}: expected exactly one cell tagged 'parameters', found {len(tagged)}")
    specs = parameter_specs(tagged[0].source, str(source))
    missing = [name for name in STANDARD_PARAMETERS if name not in specs]
    if missing:
        raise ValueError(f"{source}: the parameters cell does not define {missing}")
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
    return {name: parse_value(specs[name], value, str(source)) for name, value in parameters.items()}


def _make_output_folders(source: Path, typed: dict) -> None:
    for name in sorted(OUTPUT_FOLDERS & set(typed)):
        if typed[name] is None:
            continue
        try:
            _project_path(typed[name]).mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise _refuse(str(source), name, typed[name], f"a folder that can be created ({err})") from None


def executed_path(source: Path) -> Path:
    return Path(source).with_suffix(".ipynb")


def run_notebook(source: str | os.PathLike, parameters: dict | None = None, output: str | os.PathLike | None = None,
                 log_output: bool = False, progress: bool = True, timeout: int | None = None) -> Path:
    """Execute one notebook with papermill; returns the path of the executed copy.

    ``parameters`` (command-line text or Python values) are typed and checked first
    (:func:`check_parameters`): an unknown name or a wrong value is a :class:`ParameterError`,
    raised before anything is written or a kernel starts.  Output folders given are created.
    """
    import nbformat
    import papermill

    source = Path(source).resolve()
    notebook, specs = read_notebook(source)
    typed = check_parameters(source, parameters, specs)
    _make_output_folders(source, typed)
    output = Path(output).resolve() if output else executed_path(source)
    output.parent.mkdir(parents=True, exist_ok=True)
    converted = output.with_name(f".{output.stem}.input.ipynb")
    nbformat.write(notebook, converted)
    env_before = os.environ.get("PROOFBOOK_NOTEBOOK")
    os.environ["PROOFBOOK_NOTEBOOK"] = str(source)     # the kernel's results digest hashes this source
    try:
        papermill.execute_notebook(str(converted), str(output), parameters=typed, cwd=str(PROJECT_ROOT),
                                   kernel_name="python3", progress_bar=progress, log_output=log_output,
                                   execution_timeout=timeout)
    finally:
        converted.unlink(missing_ok=True)
        if env_before is None:
            os.environ.pop("PROOFBOOK_NOTEBOOK", None)
        else:
            os.environ["PROOFBOOK_NOTEBOOK"] = env_before
    return output


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


def up_to_date(source: Path, parameters: dict) -> bool:
    """Whether the last run of ``source`` (its stamp) used these parameters and the same data files, and
    every results file it wrote still matches what the current code and data give
    (:func:`proofbook.core.provenance.stale_parts`)."""
    stamp = STAMPS / f"{notebook_id(source)}.json"
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
            digest = json.loads(path.read_text(encoding="utf-8"))["input_digest"]
        except (OSError, ValueError, KeyError):
            return False
        if provenance.stale_parts(source, digest, data_dir):
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


def run_all(parameters: dict | None = None, force: bool = False) -> list[tuple[Path, str, float]]:
    """Run every notebook of the book, skipping up-to-date ones; returns (notebook, status, seconds).

    A notebook is skipped when its last run used the same parameters and data files and the results it
    wrote are not stale (:func:`up_to_date`).  The parameters are checked against every notebook
    before the first one runs.
    """
    sources = book_notebooks()
    typed = {source: check_parameters(source, parameters) for source in sources}
    report = []
    for source in sources:
        if not force and up_to_date(source, typed[source]):
            print(f"[proofbook] {notebook_id(source)}: unchanged, skipped", file=sys.stderr)
            report.append((source, "skipped", 0.0))
            continue
        print(f"[proofbook] {notebook_id(source)}: running", file=sys.stderr)
        started, start = time.time(), time.perf_counter()
        run_notebook(source, typed[source])
        seconds = time.perf_counter() - start
        written = _results_written(source, _results_dir(typed[source]), started)
        stamp = STAMPS / f"{notebook_id(source)}.json"
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps({"parameters": typed[source], "data_files": _data_listing(typed[source]),
                                     "results": written, "seconds": round(seconds, 1),
                                     "finished": time.strftime("%Y-%m-%dT%H:%M:%S")}, default=str))
        print(f"[proofbook] {notebook_id(source)}: done in {seconds:.0f} s", file=sys.stderr)
        report.append((source, "ran", seconds))
    return report
