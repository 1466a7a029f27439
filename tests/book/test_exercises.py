"""Exercises that work as written: every command, edit and hint of a chapter's ``## Exercises`` is checked
against the chapter and the library it names, without running anything.

- a ``python -m proofbook run`` command names a chapter that exists, passes only parameters of that chapter
  (with values of the right type), and sends the executed copy of a book chapter elsewhere (``--output``);
- an edit ``dataclasses.replace(settings, NAME=...)`` names fields of the chapter's settings class, and a
  settings class it builds (``OperatorSettings(max_per_operator=...)``) has the fields it passes;
- a hint's code block parses, imports only what the library has, and uses only names the block or the
  chapter's code defines;
- a hint's "`Name` in `proofbook.module`" names something that module holds.

The exercises' *outcomes* are the reader's to find; what is checked here is that following them cannot fail
on a name, a parameter or a line that no longer exists.
"""
import ast
import builtins
import dataclasses
import importlib
import re
import shlex

import jupytext
import pytest

from proofbook.cli import runner
from proofbook.cli.parameters import parameter_specs
from proofbook.core.paths import PROJECT_ROOT

pytestmark = pytest.mark.unit

NOTEBOOKS = runner.book_notebooks()
IDS = [runner.notebook_id(p) for p in NOTEBOOKS]
COMMAND = re.compile(r"`(python -m proofbook run [^`]+)`")
REPLACE = re.compile(r"`[^`]*dataclasses\.replace\(settings,[^`]*`")
FENCE = re.compile(r"```python\n(.*?)```", re.S)
NAMED_IN = re.compile(r"`([A-Za-z_][\w.]*)` (?:in|from) `(proofbook(?:\.\w+)+)`")


def chapter(source):
    """(markdown of the exercises, the code cells' text, the parameters cell's text) of a chapter."""
    cells = jupytext.read(source, fmt="py:percent").cells
    code = [c.source for c in cells if c.cell_type == "code"]
    params = next(c.source for c in cells if "parameters" in c.metadata.get("tags", []))
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    exercises = markdown.split("## Exercises", 1)[1] if "## Exercises" in markdown else ""
    return exercises, "\n".join(code), params


def defined_names(code: str) -> set[str]:
    """Every name the code binds anywhere: assignments, imports, loops, functions, comprehensions."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def settings_class(code: str):
    """The class the chapter passes as ``settings=`` to ``start``, imported as the chapter imports it."""
    match = re.search(r"\bsettings=([A-Za-z_][\w.]*)", code)
    if match is None:
        return None
    head, *rest = match.group(1).split(".")
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == head:
                    module = importlib.import_module(node.module)
                    obj = getattr(module, alias.name, None) or importlib.import_module(f"{node.module}.{alias.name}")
                    for attr in rest:
                        obj = getattr(obj, attr)
                    return obj
    raise AssertionError(f"settings class {match.group(1)} is not imported by the chapter")


def field_names(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_run_command_names_a_chapter_its_parameters_and_an_output_elsewhere(source):
    exercises, _, params = chapter(source)
    own = parameter_specs(params, str(source))
    for command in COMMAND.findall(exercises):
        words = shlex.split(command.replace("...", ""))[4:]
        target, rest = words[0], words[1:]
        path, specs = source, own          # a copy of this chapter (/tmp/mine/...) takes its parameters
        if target.startswith("notebooks/"):
            path = PROJECT_ROOT / target
            assert path.is_file(), f"{source.name}: `{command}` runs {target}, which does not exist"
            specs = parameter_specs(chapter(path)[2], target)
            assert "--output" in rest, f"{source.name}: `{command}` would overwrite the book's executed copy"
            output = rest[rest.index("--output") + 1]
            assert not output.startswith("notebooks/"), f"{source.name}: `{command}` writes into notebooks/"
        pairs = {}
        for i, word in enumerate(rest):
            if word == "-p":
                pairs[rest[i + 1]] = rest[i + 2]
        unknown = set(pairs) - set(specs)
        assert not unknown, f"{source.name}: `{command}` passes {sorted(unknown)}, not parameters of {target}"
        # placeholders (`ID`, `N`) are the reader's to fill in; a split needs its files, checked elsewhere
        typed = {k: v for k, v in pairs.items() if k != "split" and not v.isupper()}
        runner.check_parameters(path, typed, specs)


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_settings_edit_names_fields_the_settings_have(source):
    exercises, code, _ = chapter(source)
    edits = REPLACE.findall(exercises.replace("\n", " "))
    if not edits:
        return
    cls = settings_class(code)
    assert cls is not None, f"{source.name}: an exercise edits `settings` but the chapter has no settings class"
    named = {name: mod for name, mod in NAMED_IN.findall(exercises)}
    for edit in edits:
        call = ast.parse(edit.strip("`")).body[0].value     # `settings = replace(...)` or `replace(...)`
        fields = {k.arg for k in call.keywords}
        assert fields <= field_names(cls), f"{source.name}: {edit} names {sorted(fields - field_names(cls))}, " \
                                           f"not fields of {cls.__name__}"
        for keyword in call.keywords:
            if isinstance(keyword.value, ast.Call) and isinstance(keyword.value.func, ast.Name):
                inner = keyword.value.func.id
                assert inner in named, f"{source.name}: {edit} builds {inner} but does not say where to import it"
                inner_cls = getattr(importlib.import_module(named[inner]), inner)
                given = {k.arg for k in keyword.value.keywords}
                assert given <= field_names(inner_cls), f"{source.name}: {inner} has no {sorted(given - field_names(inner_cls))}"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_hint_block_imports_what_exists_and_uses_names_the_chapter_defines(source):
    exercises, code, _ = chapter(source)
    known = defined_names(code) | set(dir(builtins))
    for block in FENCE.findall(exercises):
        tree = ast.parse(block)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = importlib.import_module(node.module)
                for alias in node.names:
                    assert hasattr(module, alias.name), f"{source.name}: {node.module} has no {alias.name}"
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        missing = used - known - defined_names(block)
        assert not missing, f"{source.name}: a hint's code uses {sorted(missing)}, which the chapter never defines"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_name_a_hint_places_in_a_module_is_there(source):
    exercises, _, _ = chapter(source)
    for name, module in NAMED_IN.findall(exercises.replace("\n", " ")):
        obj = importlib.import_module(module)
        for part in name.split("."):
            assert hasattr(obj, part), f"{source.name}: `{name}` is not in `{module}`"
            obj = getattr(obj, part)


def test_the_bm25_hint_computes_the_score_the_formula_gives():
    """admiral/01's by-hand exercise: its hint's call agrees with the formula the exercise states."""
    import math

    exercises, _, _ = chapter(PROJECT_ROOT / "notebooks" / "admiral" / "01_method.py")
    [block] = [b for b in FENCE.findall(exercises) if "BM25" in b]
    namespace = {}
    exec(block.replace("BM25(pages", "result = BM25(pages"), namespace)
    idf = math.log(3 - 1 + 0.5) - math.log(1 + 0.5)
    avgdl = (6 + 4 + 6) / 3
    by_hand = idf * 1 * (0.9 + 1) / (1 + 0.9 * (1 - 0.1 + 0.1 * 6 / avgdl))
    assert namespace["result"][0] == pytest.approx(by_hand) and list(namespace["result"][1:]) == [0, 0]
