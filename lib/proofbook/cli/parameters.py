"""The typed parameters of a notebook's ``parameters`` cell: read from the cell, values checked and converted.

This is the parameter handling of the book's notebook runner (:mod:`proofbook.cli.runner`, ``python -m
proofbook run``; the README, "Running one notebook"), shared by every paper's chapters.

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
- str: a string, taken as it is; an annotation ``Literal["dev", "test"]`` (optionally ``| None``) lists the
  only strings allowed, and the annotation ``None`` allows nothing but None (a chapter's ``split`` says so:
  ``split: Literal["dev", "test"] | None = None`` names the evaluation splits the chapter can take, ``split:
  None = None`` says it takes none);
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
import math
import numbers
import os
import re
from pathlib import Path
from typing import Any

from proofbook.core.paths import PROJECT_ROOT

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
    #: the only values allowed (a ``Literal[...]`` annotation); ``()`` with ``optional``: None only
    choices: tuple[str, ...] | None = None

    @property
    def non_negative(self) -> bool:
        """Int parameters are counts, seeds or indexes: non-negative unless the default is negative."""
        return self.type is int and not (isinstance(self.default, int) and self.default < 0)

    def describe(self) -> str:
        """The expected type in words, e.g. ``int | None (a non-negative integer, or None)``."""
        kind = {bool: "True or False", int: "a non-negative integer" if self.non_negative else "an integer",
                float: "a finite number", str: "a string"}[self.type]
        if self.choices == ():
            return "None (the notebook takes no value for it)"
        if self.choices is not None:
            annotation = f"Literal{list(self.choices)}" + (" | None" if self.optional else "")
            return f"{annotation} (one of {', '.join(self.choices)}{', or None' if self.optional else ''})"
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
    if parameter.choices is not None and value not in parameter.choices:
        raise refuse()
    if name in INPUT_FOLDERS | OUTPUT_FOLDERS:
        if not value.strip():
            raise refuse(f"{parameter.describe()}, not an empty path")
        value = os.path.expanduser(value)   # the notebook gets the folder the check looked at
        if name in INPUT_FOLDERS and not _project_path(value).is_dir():
            raise refuse(f"{parameter.describe()}; {_project_path(value)} is not a folder "
                         f"(relative paths are taken from the project root {PROJECT_ROOT})")
    return value


def _literal(node: ast.expr) -> tuple[str, ...] | None:
    """The strings of ``Literal["a", "b"]`` (or ``typing.Literal[...]``), else None."""
    if not (isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Literal", "typing.Literal")):
        return None
    items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if not items or not all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return None
    return tuple(i.value for i in items)


def _annotation(node: ast.expr, where: str, name: str) -> tuple[type, bool, tuple[str, ...] | None]:
    """``(type, optional, choices)`` of an annotation: ``int``, ``str | None``, ``Optional[float]``, ``"int | None"``,
    ``Literal["dev", "test"] | None`` (choices ``("dev", "test")``), ``None`` (a str allowing None only: choices ``()``)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _annotation(ast.parse(node.value, mode="eval").body, where, name)
        except SyntaxError:
            pass
    if isinstance(node, ast.Constant) and node.value is None:
        return str, True, ()
    if isinstance(node, ast.Name) and node.id in _TYPES:
        return _TYPES[node.id], False, None
    if _literal(node) is not None:
        return str, False, _literal(node)
    members = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        members = [node.left, node.right]
    elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Optional", "typing.Optional"):
        members = [node.slice, ast.Constant(None)]
    if members is not None:
        concrete = [m for m in members if not (isinstance(m, ast.Constant) and m.value is None)]
        if len(concrete) == 1 and len(members) == 2 and isinstance(concrete[0], ast.Name) \
                and concrete[0].id in _TYPES:
            return _TYPES[concrete[0].id], True, None
        if len(concrete) == 1 and len(members) == 2 and _literal(concrete[0]) is not None:
            return str, True, _literal(concrete[0])
    raise ParameterError(f"{where}: parameter {name}: unsupported annotation {ast.unparse(node)!r}; "
                         "use bool, int, float, str or Literal[\"a\", \"b\"], optionally with | None")


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
        kind, optional, choices = _annotation(annotation, where, name)
        spec = Parameter(name, kind, optional, None if default is _NO_DEFAULT else default, choices)
        if default is not _NO_DEFAULT and not (_conforms(default, kind, optional)
                                               and (choices is None or default is None or default in choices)):
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


def make_output_folders(source: Path, typed: dict) -> None:
    """Create the output folders (:data:`OUTPUT_FOLDERS`) in ``typed`` and check that every output folder the run
    writes (given or default) can be written; :class:`ParameterError` naming the folder if one cannot be."""
    import tempfile

    for name in sorted(OUTPUT_FOLDERS):
        value = typed.get(name) or STANDARD_PARAMETERS[name]
        folder = _project_path(value)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise _refuse(str(source), name, value, f"a folder that can be created ({err})") from None
        try:
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as err:
            raise ParameterError(f"{source}: parameter {name}: cannot write to {folder} "
                                 f"({err.strerror or err})") from None
