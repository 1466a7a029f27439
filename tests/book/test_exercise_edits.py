"""Exercises that edit a copy of a chapter work as written: their edits are read from the exercise text
(:mod:`proofbook.cli.exercises`, which says the forms), found in the chapter's code, applied to a copy, and the
copy is smoke-run.

The unit tests check that every edit finds its place and that the edited copy parses; the notebook test applies
all of a chapter's edits to one copy and smoke-runs it (``smoke=True``, the smoke runs' model cache, its own
results folder), as a reader following the exercises would, all at once.
"""
import ast

import jupytext
import pytest

from proofbook.cli import runner
from proofbook.cli.exercises import ExerciseError, edited_notebook, exercises_text, read_edits, read_imports

NOTEBOOKS = runner.book_notebooks()


def edits(source):
    """Every edit a chapter's exercises ask for, in the order they are stated."""
    return read_edits(exercises_text(source))


def apply_edits(source):
    """A copy of the chapter with all its exercises' edits applied (and the imports they ask for)."""
    text = exercises_text(source)
    return edited_notebook(source, read_edits(text), read_imports(text))


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
    with pytest.raises(ExerciseError, match=r"changes `config = build\(smoke\)`, found 0 times"):
        apply_edits(chapter)


@pytest.mark.notebook
@pytest.mark.parametrize("source", EDITED, ids=IDS)
def test_the_chapter_with_all_its_exercise_edits_runs(source, smoke_run):
    notebook = apply_edits(source)
    outcome = smoke_run.run_edited(runner.notebook_id(source), jupytext.writes(notebook, fmt="py:percent"))
    assert outcome["rows"], f"the edited copy of {source.name} wrote no result rows"
