"""Each name of :mod:`proofbook.data` is taken from the module that defines it: no module re-exports another's.

A name imported from ``proofbook.data.X`` (``from proofbook.data.X import name``, ``X.name`` through
``from proofbook.data import X``, or a dotted ``proofbook.data.X.name`` in a string such as a docstring
reference or a monkeypatch target) must be defined in ``X`` itself -- a function, a class or an
assignment at the top of ``X`` -- not merely imported into it.  The library, the tests, the notebooks'
sources and the scripts are checked; so is the rule that a data module imports only the
``proofbook`` names it uses (an unused import would be a re-export again).
"""
import ast
import re
from pathlib import Path

import pytest

from proofbook.core.paths import PROJECT_ROOT

pytestmark = pytest.mark.unit

DATA = PROJECT_ROOT / "lib" / "proofbook" / "data"
CHECKED = ("lib", "tests", "notebooks", "scripts")
DOTTED = re.compile(r"\bproofbook\.data\.(\w+)\.(\w+)")


def defined_names(tree: ast.Module) -> set[str]:
    """The names a module binds itself at its top level: functions, classes and assignment targets."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def data_modules() -> dict[str, set[str]]:
    return {path.stem: defined_names(ast.parse(path.read_text(encoding="utf-8"))) for path in DATA.glob("*.py")
            if path.stem != "__init__"}


def checked_files() -> list[Path]:
    return sorted(p for folder in CHECKED for p in (PROJECT_ROOT / folder).rglob("*.py")
                  if ".ipynb_checkpoints" not in p.parts)


def borrowed_names(path: Path, modules: dict[str, set[str]]) -> list[str]:
    """Every ``proofbook.data.X.name`` that ``path`` uses although ``X`` does not define ``name``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(PROJECT_ROOT).as_posix() if path.is_relative_to(PROJECT_ROOT) else path.name
    aliases, found = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "proofbook.data":
            aliases.update({a.asname or a.name: a.name for a in node.names if a.name in modules})
        elif isinstance(node, ast.Import):
            aliases.update({a.asname: a.name.split(".")[2] for a in node.names
                            if a.asname and a.name.startswith("proofbook.data.") and a.name.count(".") == 2})
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("proofbook.data."):
            module = node.module.split(".")[2]
            found += [f"{where}:{node.lineno}: from {node.module} import {a.name}" for a in node.names
                      if module in modules and a.name not in modules[module]]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            module = aliases[node.value.id]
            if node.attr not in modules[module]:
                found.append(f"{where}:{node.lineno}: {node.value.id}.{node.attr} (proofbook.data.{module})")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [f"{where}:{node.lineno}: {m.group(0)}" for m in DOTTED.finditer(node.value)
                      if m.group(1) in modules and m.group(2) not in modules[m.group(1)]]
    return found


def test_every_data_name_is_taken_from_the_module_that_defines_it():
    modules = data_modules()
    assert {"base", "textfile", "jsonparse", "politifact", "liar", "proofver"} <= set(modules)
    files = checked_files()
    assert len(files) > 50
    assert [line for path in files for line in borrowed_names(path, modules)] == []


def test_a_data_module_imports_only_the_proofbook_names_it_uses():
    unused = []
    for path in sorted(DATA.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        exported = set()
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                exported = set(ast.literal_eval(node.value))
                assert exported <= defined_names(tree), f"{path.name}: __all__ lists names it does not define"
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("proofbook."):
                unused += [f"{path.name}: {a.asname or a.name} from {node.module}" for a in node.names
                           if (a.asname or a.name) not in used]
    assert unused == []


def test_the_check_sees_a_borrowed_name(tmp_path):
    base_error = "proofbook.data." + "base.DataError"        # split, so that this file passes the check
    sample = tmp_path / "sample.py"
    sample.write_text("from proofbook.data.politifact import LABELS\nfrom proofbook.data import politifact as pf\n"
                      f"x = pf.parse_liar\ny = '{base_error}'\nfrom proofbook.data.textfile import DataError\n",
                      encoding="utf-8")
    found = borrowed_names(sample, data_modules())
    assert [line.split(": ", 1)[1] for line in found] == [
        "from proofbook.data.politifact import LABELS", "pf.parse_liar (proofbook.data.politifact)", base_error]
