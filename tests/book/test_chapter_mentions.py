"""The chapter list is ``_toc.yml``'s alone: every other place that names a chapter names one the book holds.

The code reads the list from ``_toc.yml`` (:func:`proofbook.cli.runner.book_notebooks`; the smoke lane through
``tests/smoke_runs.py``).  What remains typed -- a chapter named in prose, an error message, a claim's rows, a
chapter's split files, the README's map of the book -- is checked here against ``_toc.yml``: a renamed, moved or
removed chapter fails this test until every mention follows.
"""
import re
from pathlib import Path

import pytest

from proofbook.cli import explain, runner
from proofbook.core import paper_claims
from proofbook.core.paths import PROJECT_ROOT

pytestmark = pytest.mark.unit

IDS = [runner.notebook_id(source) for source in runner.book_notebooks()]
#: the folders a chapter id may start with: the book's paper folders, those in notebooks/, the explainers' papers
FOLDERS = sorted({i.split("/")[0] for i in IDS if "/" in i} | set(explain.BUILT_BY)
                 | {p.name for p in runner.NOTEBOOKS.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))})
#: ``admiral/02_experiments``, ``admiral/05`` and the README's ranges ``admiral/01-06``, ```admiral/01`–`04```
MENTION = re.compile(rf"(?<![\w])({'|'.join(FOLDERS)})/(\d\d)(?!\d)(_[a-z0-9_]+)?(?:`?\s*[-–]\s*`?(\d\d)\b)?")
#: a chapter at the top of notebooks/: ``notebooks/00_introduction``
TOP = re.compile(r"(?<![\w])notebooks/(\d\d_[a-z0-9_]+)")
#: a bare chapter stem in the docs: ```99_reproduction_report```
STEM = re.compile(r"(?<![\w/])(\d\d_[a-z][a-z0-9_]*)")
#: the files that may name a chapter (not this one: its examples of wrong mentions are wrong on purpose)
SOURCES = [PROJECT_ROOT / "README.md", PROJECT_ROOT / "tests" / "README.md", PROJECT_ROOT / "Makefile",
           *sorted((PROJECT_ROOT / "lib" / "proofbook").rglob("*.py")), *sorted((PROJECT_ROOT / "tests").rglob("*.py")),
           *sorted(runner.NOTEBOOKS.rglob("*.py"))]
SOURCES.remove(Path(__file__).resolve())
DOCS = SOURCES[:2]


def unknown_mentions(text: str, docs: bool = False) -> list[str]:
    """The chapter mentions in ``text`` that name no chapter of ``_toc.yml``."""
    unknown = []
    for match in MENTION.finditer(text):
        folder, first, name, last = match.groups()
        if name:
            known = f"{folder}/{first}{name}" in IDS
        else:
            numbers = range(int(first), int(last or first) + 1)
            known = all(any(i.startswith(f"{folder}/{n:02d}_") for i in IDS) for n in numbers)
        if not known:
            unknown.append(match.group(0))
    unknown += [m.group(0) for m in TOP.finditer(text) if m.group(1) not in IDS]
    if docs:
        stems = {i.split("/")[-1] for i in IDS}
        unknown += [m.group(0) for m in STEM.finditer(text) if m.group(1) not in stems]
    return unknown


def test_the_mention_finder_finds_ids_short_ids_ranges_and_stems():
    text = ("`admiral/02_experiments`, admiral/05, admiral/01-06, `admiral/01`–`04`, "
            "notebooks/00_introduction.py and `99_status`")
    assert unknown_mentions(text, docs=True) == []
    wrong = "admiral/02_experiment, admiral/09, `wild/01`–`07`, notebooks/00_intro.py and `99_report`"
    assert unknown_mentions(wrong, docs=True) == ["admiral/02_experiment", "admiral/09", "wild/01`–`07",
                                                  "notebooks/00_intro", "99_report"]


def test_every_chapter_a_file_names_is_a_chapter_of_the_toc():
    unknown = {path.relative_to(PROJECT_ROOT).as_posix(): found for path in SOURCES if path.is_file()
               for found in [unknown_mentions(path.read_text(encoding="utf-8"), docs=path in DOCS)] if found}
    assert unknown == {}


def test_the_readme_maps_every_paper_chapter_of_the_toc():
    """The README's map of the book (its layout and the table of running times) leaves no paper chapter out."""
    text = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    named = set()
    for match in MENTION.finditer(text):
        folder, first, name, last = match.groups()
        named |= {i for i in IDS if i == f"{folder}/{first}{name or ''}"
                  or (not name and i.split("/")[0] == folder
                      and int(first) <= int(i.split("/")[1][:2]) <= int(last or first))}
    assert [i for i in IDS if "/" in i and i not in named] == []


def test_the_explainers_name_book_chapters_of_their_paper_in_their_message():
    for paper, message in explain.BUILT_BY.items():
        chapters = re.findall(rf"\b{paper}/\d\d_[a-z0-9_]+", message)
        assert chapters and set(chapters) <= set(IDS), (paper, message)


def test_the_chapters_named_by_claims_and_split_files_are_book_chapters():
    claimed = {ref.notebook for claim in paper_claims.REGISTRY for ref in (claim.a, claim.b) if ref is not None}
    assert claimed and claimed <= set(IDS), sorted(claimed - set(IDS))
    assert set(runner.SPLIT_FILES) <= set(IDS), sorted(set(runner.SPLIT_FILES) - set(IDS))
