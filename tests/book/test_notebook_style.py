"""Cells a reader can follow: every chapter of the table of contents keeps its code cells and its markdown cells
short, and its headings never skip a level (the book is built with warnings as errors).

Long bookkeeping (dozens of ``glue()`` calls, result rows) belongs in a library function the cell calls once;
a long discussion or a list of exercises is split into cells under ``###`` / ``####`` headings.
"""
import re

import jupytext
import pytest

from proofbook.cli import runner

pytestmark = pytest.mark.unit

MAX_CODE_LINES = 25       # non-blank lines of one code cell
MAX_MARKDOWN_WORDS = 450  # words of one markdown cell

NOTEBOOKS = runner.book_notebooks()
IDS = [runner.notebook_id(p) for p in NOTEBOOKS]
_HEADING = re.compile(r"^(#{1,6}) ")


def cells(source):
    """``(number counted from 1 as ``# %%`` markers are, cell)`` for each cell of a percent-format notebook."""
    return list(enumerate(jupytext.read(source, fmt="py:percent").cells, 1))


def test_the_table_of_contents_lists_notebooks():
    assert len(NOTEBOOKS) >= 13


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_no_code_cell_is_longer_than_a_screen(source):
    long = [f"cell {n}: {lines} non-blank lines" for n, cell in cells(source) if cell.cell_type == "code"
            for lines in [sum(1 for line in cell.source.splitlines() if line.strip())] if lines > MAX_CODE_LINES]
    assert not long, f"{runner.notebook_id(source)}: code cells over {MAX_CODE_LINES} lines: {long}"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_no_markdown_cell_is_a_wall_of_text(source):
    long = [f"cell {n}: {words} words" for n, cell in cells(source) if cell.cell_type == "markdown"
            for words in [len(cell.source.split())] if words > MAX_MARKDOWN_WORDS]
    assert not long, f"{runner.notebook_id(source)}: markdown cells over {MAX_MARKDOWN_WORDS} words: {long}"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_headings_never_skip_a_level(source):
    skips, level = [], 0
    for n, cell in cells(source):
        if cell.cell_type != "markdown":
            continue
        fenced = False
        for line in cell.source.splitlines():
            if line.startswith("```"):
                fenced = not fenced
            heading = None if fenced else _HEADING.match(line)
            if heading:
                if level and len(heading.group(1)) > level + 1:
                    skips.append(f"cell {n}: {line!r} after a level-{level} heading")
                level = len(heading.group(1))
    assert not skips, f"{runner.notebook_id(source)}: {skips}"


def test_a_long_cell_is_named_with_its_notebook_and_number(tmp_path):
    source = tmp_path / "chapter.py"
    source.write_text("# %% [markdown]\n# # Title\n\n# %%\n" + "x = 1\n" * (MAX_CODE_LINES + 1)
                      + "\n# %% [markdown]\n# #### Skipped\n")
    with pytest.raises(AssertionError, match=r"chapter: code cells over 25 lines: \['cell 2: 26 non-blank lines'\]"):
        test_no_code_cell_is_longer_than_a_screen(source)
    with pytest.raises(AssertionError, match="cell 3: '#### Skipped' after a level-1 heading"):
        test_headings_never_skip_a_level(source)
