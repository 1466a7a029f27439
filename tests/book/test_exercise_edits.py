"""Exercises that edit a copy of a chapter work as written: their edits are read from the exercise text, found in
the chapter's code, applied to a copy, and the copy is smoke-run.

An exercise states an edit in one of two forms, which :func:`edits` reads from the ``## Exercises`` text:

- "change `OLD` to `NEW`" (optionally "in the `NAME` call"): ``OLD`` must occur exactly once in the chapter's
  code cells, and is replaced by ``NEW``;
- "`LINE` ... right after the line that starts `START`": exactly one code line starts with ``START``, and
  ``LINE`` is added after it (its indentation).

The imports the text asks for ("add `import dataclasses`", "import `Name` from `proofbook.module`") are added
with the edit.  A one-letter capital in ``NEW`` (``threshold=T``) is the reader's value to choose; the test puts
in :data:`PLACEHOLDER`.  The unit tests check that every edit finds its place and that the edited copy parses;
the notebook test applies all of a chapter's edits to one copy and smoke-runs it (``smoke=True``, the smoke
runs' model cache, its own results folder), as a reader following the exercises would, all at once.
"""
import ast
import re
from dataclasses import dataclass

import jupytext
import pytest

from proofbook.cli import runner

NOTEBOOKS = runner.book_notebooks()
CHANGE = re.compile(r"[Cc]hange\s+`([^`]+)`(?:\s+in the `[^`]+` call)?\s+to\s+`([^`]+)`")
INSERT = re.compile(r"`([^`]+)`[^`]{0,80}?right after the line that starts\s+`([^`]+)`")
IMPORT_LINE = re.compile(r"`((?:import|from) [\w. ,]+)`")
IMPORT_NAME = re.compile(r"`(\w+)`\s+from\s+`(proofbook(?:\.\w+)+)`")
#: the value the test puts in for a one-letter capital the reader chooses (``threshold=T``)
PLACEHOLDER = "0.3"


@dataclass(frozen=True)
class Edit:
    kind: str            # "change" or "insert"
    anchor: str          # the text changed, or the start of the line the new one follows
    text: str            # the new text, or the line added


def exercises_text(source) -> str:
    cells = jupytext.read(source, fmt="py:percent").cells
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    return re.sub(r"\s+", " ", markdown.split("## Exercises", 1)[1]) if "## Exercises" in markdown else ""


def edits(source) -> list[Edit]:
    """The edits a chapter's exercises ask for, in the order they are stated."""
    text = exercises_text(source)
    found = [(m.start(), Edit("change", m.group(1), m.group(2))) for m in CHANGE.finditer(text)]
    found += [(m.start(), Edit("insert", m.group(2), m.group(1))) for m in INSERT.finditer(text)]
    return [edit for _, edit in sorted(found, key=lambda pair: pair[0])]


def imports_asked_for(source) -> list[str]:
    """The import statements the exercises tell the reader to add."""
    text = exercises_text(source)
    lines = [m.group(1) for m in IMPORT_LINE.finditer(text)]
    lines += [f"from {module} import {name}" for name, module in IMPORT_NAME.findall(text)]
    return list(dict.fromkeys(lines))


def _bound(statement: str) -> set[str]:
    """The names an import statement binds."""
    return {(alias.asname or alias.name).split(".")[0] for node in ast.parse(statement).body for alias in node.names}


def _needed_imports(new: str, imports: list[str]) -> list[str]:
    """Those of ``imports`` that bind a name the new text uses."""
    used = set(re.findall(r"\b[A-Za-z_]\w*", new))         # the new text may be a fragment, not a statement
    return [statement for statement in imports if _bound(statement) & used]


def apply_edits(source, chosen: list[Edit] | None = None):
    """A copy of the chapter (jupytext notebook) with the edits applied; AssertionError naming an edit that does
    not find exactly one place."""
    notebook = jupytext.read(source, fmt="py:percent")
    imports = imports_asked_for(source)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    for edit in edits(source) if chosen is None else chosen:
        new = re.sub(r"\b[A-Z]\b", PLACEHOLDER, edit.text)
        if edit.kind == "change":
            places = [cell for cell in code if edit.anchor in cell.source]
            count = sum(cell.source.count(edit.anchor) for cell in places)
            assert count == 1, f"{source.name}: the exercise changes `{edit.anchor}`, found {count} times in the code"
            cell = places[0]
            line = next(line for line in cell.source.splitlines() if edit.anchor in line)
            indent = line[:len(line) - len(line.lstrip())]
            added = "".join(f"{indent}{statement}\n" for statement in _needed_imports(new, imports))
            cell.source = cell.source.replace(line, added + line.replace(edit.anchor, new), 1)
        else:
            places = [(cell, line) for cell in code for line in cell.source.splitlines()
                      if line.lstrip().startswith(edit.anchor)]
            assert len(places) == 1, f"{source.name}: the exercise adds a line after the one that starts " \
                                     f"`{edit.anchor}`, found {len(places)} such lines in the code"
            cell, line = places[0]
            indent = line[:len(line) - len(line.lstrip())]
            added = "".join(f"{indent}{s}\n" for s in [*_needed_imports(new, imports), new])
            cell.source = cell.source.replace(line + "\n", line + "\n" + added, 1) if line + "\n" in cell.source \
                else cell.source.replace(line, line + "\n" + added.rstrip("\n"), 1)
    return notebook


EDITED = [source for source in NOTEBOOKS if edits(source)]
IDS = [runner.notebook_id(source) for source in EDITED]


@pytest.mark.unit
def test_the_exercises_state_edits_the_test_can_read():
    """The forms above are what the chapters use: a change to this prose that the reader could follow but the
    test could not read would leave an edit untested."""
    assert len(EDITED) >= 6 and sum(len(edits(source)) for source in EDITED) >= 10


@pytest.mark.unit
@pytest.mark.parametrize("source", EDITED, ids=IDS)
def test_every_edit_finds_its_one_place_and_the_copy_parses(source):
    notebook = apply_edits(source)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            ast.parse("\n".join(line for line in cell.source.splitlines() if not line.startswith(("%", "!"))))


@pytest.mark.unit
def test_an_edit_whose_line_is_gone_is_named(tmp_path):
    chapter = tmp_path / "chapter.py"
    chapter.write_text('# %% tags=["parameters"]\nsmoke = False\n\n# %%\nconfig = make(smoke)\n\n'
                       '# %% [markdown]\n# ## Exercises\n# In a copy change `config = build(smoke)` to '
                       '`config = build(smoke, beam=5)`.\n', encoding="utf-8")
    with pytest.raises(AssertionError, match=r"changes `config = build\(smoke\)`, found 0 times"):
        apply_edits(chapter)


@pytest.mark.notebook
@pytest.mark.parametrize("source", EDITED, ids=IDS)
def test_the_chapter_with_all_its_exercise_edits_runs(source, smoke_run):
    notebook = apply_edits(source)
    outcome = smoke_run.run_edited(runner.notebook_id(source), jupytext.writes(notebook, fmt="py:percent"))
    assert outcome["rows"], f"the edited copy of {source.name} wrote no result rows"
