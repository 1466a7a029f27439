"""The smoke-run plugin (``tests/smoke_runs.py``): its background lane is derived from ``_toc.yml`` by its stated
rule, and it is registered beside the general set-up of ``tests/conftest.py`` (whose tier check still works)."""
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from proofbook.cli import runner
from proofbook.core.paths import PROJECT_ROOT
from tests import conftest, smoke_runs
from tests.smoke_runs import LANE_PARTS, TEST_PROCESS_CHAPTERS, WHOLE_BOOK_TEST, background_lane

pytestmark = pytest.mark.unit

TESTS = Path(__file__).resolve().parents[1]


def book_ids():
    return [runner.notebook_id(source) for source in runner.book_notebooks()]


def test_the_lane_is_the_lane_parts_chapters_in_book_order_then_the_root_page():
    ids = book_ids()
    lane = background_lane()
    root = yaml.safe_load((PROJECT_ROOT / "_toc.yml").read_text(encoding="utf-8"))["root"]
    assert lane[-1] == ids[0] == runner.notebook_id(PROJECT_ROOT / f"{root}.py")
    expected = [i for i in ids[1:] if i.split("/")[0] in LANE_PARTS and "/" in i and i not in TEST_PROCESS_CHAPTERS]
    assert list(lane[:-1]) == expected
    assert set(lane) <= set(ids) and len(set(lane)) == len(lane)
    for part in LANE_PARTS:                       # each lane part is a part of the book and runs in the lane
        assert any(chapter.startswith(f"{part}/") for chapter in lane), part


def test_the_chapters_left_out_of_the_lane_are_book_chapters_of_the_lane_parts():
    ids = book_ids()
    for chapter in TEST_PROCESS_CHAPTERS:
        assert chapter in ids and chapter.split("/")[0] in LANE_PARTS and chapter not in background_lane()


@pytest.fixture
def toy_book(tmp_path, monkeypatch):
    """``add((folder, stem), ...)``: the book's ``_toc.yml`` copied to ``tmp_path`` with each chapter added to the
    part whose notebooks sit in ``folder`` (an empty source for every entry), the runner pointed there; returns
    that book's notebooks."""
    toc = yaml.safe_load((PROJECT_ROOT / "_toc.yml").read_text(encoding="utf-8"))

    def add(*chapters):
        monkeypatch.setattr(runner, "PROJECT_ROOT", tmp_path)
        monkeypatch.setattr(runner, "NOTEBOOKS", tmp_path / "notebooks")
        for folder, stem in chapters:
            part = next(p for p in toc["parts"]
                        if any(c["file"].startswith(f"notebooks/{folder}/") for c in p["chapters"]))
            part["chapters"].append({"file": f"notebooks/{folder}/{stem}"})
        entries = [toc["root"]] + [c["file"] for p in toc["parts"] for c in p["chapters"]]
        for entry in entries:
            page = (PROJECT_ROOT / f"{entry}.md").is_file()
            path = tmp_path / f"{entry}{'.md' if page else '.py'}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()
        (tmp_path / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")
        return runner.book_notebooks(tmp_path / "_toc.yml")
    return add


def test_a_chapter_added_to_a_lane_part_in_the_toc_joins_the_lane_in_book_order(toy_book):
    # (folder, stem) pairs: chapters that do not exist, so no typed mention of them (test_chapter_mentions.py)
    in_lane, elsewhere = ("admiral", "99_added"), ("entailer", "99_added")
    before = background_lane()
    lane = background_lane(toy_book(in_lane, elsewhere))
    added = "/".join(in_lane)
    assert added in lane and "/".join(elsewhere) not in lane
    assert [c for c in lane if c != added] == list(before)
    assert lane.index(added) == max(i for i, c in enumerate(lane) if c.startswith("admiral/")) \
        < min(i for i, c in enumerate(lane) if c.startswith("wild/"))


def test_a_rule_naming_what_the_toc_does_not_hold_is_refused():
    with pytest.raises(ValueError, match=r"parts without chapters \['no_such_part'\]"):
        background_lane(parts=(*LANE_PARTS, "no_such_part"))
    with pytest.raises(ValueError, match=r"not among the lane parts' chapters \['entailer/01_method'\]"):
        background_lane(test_process=("entailer/01_method",))


def collection_order(path: Path) -> tuple:
    """pytest's order of test files: each folder's entries by name."""
    return path.relative_to(TESTS).parts


def test_the_chapters_kept_in_the_test_process_are_asked_for_before_the_whole_book_test():
    """The rule's reason: the first notebook tests ask for these chapters (so they must not wait behind the lane),
    and the test named WHOLE_BOOK_TEST, which starts the lane, exists."""
    files = sorted(TESTS.rglob("test_*.py"), key=collection_order)
    [whole_book] = [f for f in files if re.search(rf"^def {WHOLE_BOOK_TEST}\(", f.read_text(encoding="utf-8"), re.M)]
    earlier = [f.read_text(encoding="utf-8") for f in files[:files.index(whole_book)]]
    for chapter in TEST_PROCESS_CHAPTERS:
        stem = chapter.split("/")[1]
        assert any("smoke_run" in text and stem in text for text in earlier), chapter


def test_the_plugin_is_registered_and_starts_no_lane_unless_the_whole_book_test_runs(request, _smoke_runs):
    assert request.config.pluginmanager.get_plugin("tests.smoke_runs") is smoke_runs
    assert isinstance(_smoke_runs, smoke_runs.SmokeRuns)
    whole_book = getattr(request.config, "_smoke_whole_book", False) and _smoke_runs.data_dir is not None
    assert bool(_smoke_runs.lane) == bool(whole_book)


def test_the_tier_check_still_refuses_a_test_without_a_tier():
    def item(nodeid, markers):
        return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: name if name in markers else None)

    items = [item("t.py::ok", {"unit"}), item("t.py::bare[1]", set()), item("t.py::bare[2]", set())]
    with pytest.raises(pytest.UsageError, match=r"1 test\(s\) without a tier marker(.|\n)*t\.py::bare \(2 cases\)"):
        conftest.pytest_collection_modifyitems(None, None, items)
    conftest.pytest_collection_modifyitems(None, None, items[:1])
