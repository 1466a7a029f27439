"""``python -m proofbook exercises`` (proofbook.cli.exercises): the chapters' exercises read as data, one run and
timed on a copy, and a bad name refused in one line."""
import dataclasses
import json

import pytest

from proofbook.__main__ import main
from proofbook.cli import exercises, runner
from tests.cli.test_runner import NOTEBOOK

#: the runner tests' tiny notebook (its one row: 0.25 in a smoke run, else 0.5, over ``limit or 4``) with exercises
CHAPTER = NOTEBOOK + '''
# %% [markdown]
# ## Exercises
#
# ### 1. By hand (no computer needed)
#
# Add 0.25 and 0.5.
#
# ### 2. Fewer examples
#
# Rerun with `-p limit 2`.
#
# ### 3. Another value
#
# In a copy change `0.25 if smoke else 0.5` to `0.75`, then rerun it with `-p limit 3`.
#
# ### 4. Look closer
#
# Add the cell below right after the cell that starts
# `from pathlib import Path`:
#
# ```python
# print("value:", 0.25 if smoke else 0.5)
# ```
#
# ### 5. Your own
#
# Write your own rule, for instance:
#
# ```python
# print(value)
# ```
'''


@pytest.fixture
def chapter(tmp_path):
    source = tmp_path / "tiny.py"
    source.write_text(CHAPTER, encoding="utf-8")
    return source


@pytest.mark.unit
def test_each_exercise_is_read_with_its_kind_and_its_changes(chapter):
    found = exercises.read_exercises(chapter)
    assert [(e.number, e.kind) for e in found] == [(1, "no computer"), (2, "rerun"), (3, "edit"), (4, "cell"),
                                                    (5, "reading")]
    assert found[1].parameters == (("limit", "2"),) and found[1].chosen == ()
    assert found[2].edits == (exercises.Edit("change", "0.25 if smoke else 0.5", "0.75"),)
    assert found[2].parameters == (("limit", "3"),) and found[0].title == "By hand (no computer needed)"
    assert found[3].edits == (exercises.Edit("cell", "from pathlib import Path",
                                             'print("value:", 0.25 if smoke else 0.5)\n'),)
    lines = exercises.listing(exercises.exercise_rows(found, {}))
    assert len(lines) == 5 and "[-p limit 3; change `0.25 if smoke else 0.5`]" in lines[2]
    assert "[cell after `from pathlib import Path`]" in lines[3]


@pytest.mark.unit
def test_a_value_the_reader_chooses_makes_a_rerun_that_is_costed_and_not_run_here(chapter, tmp_path):
    chapter.write_text(CHAPTER.replace("Rerun with `-p limit 2`.", "Rerun with `-p limit 2` and `-p seed S`."),
                       encoding="utf-8")
    found = exercises.read_exercises(chapter)
    assert found[1].kind == "rerun" and found[1].parameters == (("limit", "2"),) and found[1].chosen == ("seed",)
    assert exercises.minutes_here(found[1], {found[1].chapter: 3.0}) == "~3.0 min"
    with pytest.raises(exercises.ExerciseError, match=r"asks for a value you choose \(-p seed \.\.\.\)"):
        exercises.run_exercise(chapter, found[1], tmp_path / "never")


@pytest.mark.unit
def test_a_cell_goes_after_the_one_cell_its_exercise_names_and_lines_after_their_line_as_written(tmp_path):
    source = tmp_path / "cells.py"
    source.write_text('# %% tags=["parameters"]\nsmoke = False\n\n# %%\nfor x in range(2):\n    y = x\n\n'
                      '# %%\nprint(y)\n\n# %% [markdown]\n# ## Exercises\n#\n# ### 1. C\n#\n'
                      '# Add the cell below right after the cell that starts `for x in`:\n#\n# ```python\n'
                      '# z = [A for A in range(y)]\n# ```\n#\n# ### 2. L\n#\n# Add the lines below right after '
                      'the line that starts `y = x`:\n#\n# ```python\n# z = y\n#\n# y = -z\n# ```\n',
                      encoding="utf-8")
    found = exercises.read_exercises(source)
    assert [e.kind for e in found] == ["cell", "cell"] and found[1].edits[0].kind == "lines"
    edited = exercises.edited_notebook(source, [edit for e in found for edit in e.edits])
    code = [cell.source for cell in edited.cells if cell.cell_type == "code"]
    assert code[1:] == ["for x in range(2):\n    y = x\n    z = y\n\n    y = -z",
                        "z = [A for A in range(y)]", "print(y)"]           # as written: no placeholder for A
    gone = exercises.Edit("cell", "while", "print(1)")
    with pytest.raises(exercises.ExerciseError, match="adds a cell after the one that starts `while`, found 0"):
        exercises.edited_notebook(source, [gone])


@pytest.mark.unit
def test_a_call_an_exercise_restates_gets_its_arguments_and_several_such_edits_add_up(tmp_path):
    source = tmp_path / "calls.py"
    source.write_text('# %% tags=["parameters"]\nsmoke = False\n\n# %%\nconfig = make(smoke, a=1)\n'
                      'table = bench(n=2_000 if smoke else 100_000, seed=0)\nprint(make(smoke))\n\n'
                      '# %% [markdown]\n# ## Exercises\n#\n# ### 1. B\n#\n# Change the config to `make(smoke, b=2)`.\n'
                      '#\n# ### 2. A\n#\n# Change the config to `make(smoke, a=3)`.\n#\n# ### 3. N\n#\n'
                      '# Change the call to `bench(n=10, seed=0)`.\n#\n# ### 4. Other\n#\n'
                      '# Change the config to `build(smoke)`.\n', encoding="utf-8")
    found = exercises.read_exercises(source)
    assert [e.kind for e in found] == ["edit"] * 4
    assert found[2].edits == (exercises.Edit("call", "bench", "bench(n=10, seed=0)"),)
    one = exercises.edited_source(source, found[0].edits)
    assert "config = make(smoke, a=1, b=2)\n" in one and "print(make(smoke))" in one   # only the config's call
    every = exercises.edited_source(source, [edit for e in found[:3] for edit in e.edits])
    assert "config = make(smoke, a=3, b=2)\n" in every and "table = bench(n=10, seed=0)\n" in every
    assert "config = build(smoke)\n" in exercises.edited_source(source, found[3].edits)   # another function
    assert "[arguments of `config`]" in exercises.listing(exercises.exercise_rows(found, {}))[0]
    twice = exercises.Edit("call", "make", "make(smoke, b=2)")
    with pytest.raises(exercises.ExerciseError, match="the call `make` names, found 2 such calls"):
        exercises.edited_source(source, [twice])


@pytest.mark.unit
def test_each_exercise_costs_nothing_by_hand_and_about_its_chapters_recorded_run_when_it_reruns(chapter):
    found = exercises.read_exercises(chapter)
    costs = [exercises.minutes_here(e, {found[0].chapter: 2.04}) for e in found]
    assert costs == ["0 min", "~2.0 min", "~2.0 min", "~2.0 min", "-"]
    assert [exercises.minutes_here(e, {}) for e in found[:3]] == ["0 min", "-", "-"]    # no recorded run here
    retraining = dataclasses.replace(found[1], retrains=True)
    assert exercises.minutes_here(retraining, {found[0].chapter: 0.01}) == "~0.1 min + training"


@pytest.mark.unit
def test_a_measured_time_is_kept_and_shown_until_the_chapter_changes(tmp_path, monkeypatch):
    source = tmp_path / "tiny.py"
    source.write_text(CHAPTER, encoding="utf-8")
    monkeypatch.setattr(exercises, "chapter_source", lambda chapter: source)
    found = exercises.read_exercises(source)
    times = tmp_path / "times"
    exercises.record_time(found[1], 93.0, times)
    measured = exercises.measured_minutes(found, times)
    assert measured == {(found[1].chapter, 2): pytest.approx(1.55)}
    assert exercises.minutes_here(found[1], {found[1].chapter: 9.0}, measured) == "1.6 min (measured)"
    assert exercises.minutes_here(found[2], {found[2].chapter: 9.0}, measured) == "~9.0 min"
    source.write_text(CHAPTER + "\n# %%\nprint('changed')\n", encoding="utf-8")
    assert exercises.measured_minutes(found, times) == {}          # measured on another source
    (times / found[1].chapter / "2.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match=r"2\.json: not an exercise time"):
        exercises.measured_minutes(found, times)


@pytest.mark.unit
def test_an_exercise_that_says_it_retrains_is_marked(tmp_path):
    source = tmp_path / "tiny.py"
    source.write_text(CHAPTER.replace("Rerun with `-p limit 2`", "This retrains the model.  Rerun with `-p limit 2`"),
                      encoding="utf-8")
    assert [e.retrains for e in exercises.read_exercises(source)] == [False, True, False, False, False]


@pytest.mark.unit
def test_the_books_exercises_are_read_and_a_command_may_rerun_another_chapter():
    report = exercises.read_exercises(runner.NOTEBOOKS / "99_reproduction_report.py")
    assert report[0].kind == "no computer"
    assert {e.target for e in report if e.kind == "rerun"} == {"entailer/02_experiments", "admiral/02_experiments"}
    every = [e for source in runner.book_notebooks() for e in exercises.read_exercises(source)]
    assert len(every) >= 40 and {e.kind for e in every} >= {"no computer", "edit", "rerun", "cell"}


@pytest.mark.notebook
def test_an_exercise_runs_on_a_copy_with_its_outputs_in_its_own_folder(chapter, tmp_path):
    found = exercises.read_exercises(chapter)
    seconds = exercises.run_exercise(chapter, found[2], tmp_path / "run")
    rows = json.loads((tmp_path / "run" / "results" / "testpaper" / "tiny.json").read_text())["rows"]
    assert seconds > 0 and [(r["value"], r["n"]) for r in rows] == [(0.75, 3)]
    assert (tmp_path / "run" / "tiny.ipynb").is_file() and chapter.read_text(encoding="utf-8") == CHAPTER
    with pytest.raises(exercises.ExerciseError, match="runs no chapter: it is done by hand"):
        exercises.run_exercise(chapter, found[0], tmp_path / "never")
    with pytest.raises(exercises.ExerciseError, match="the reader's to write"):
        exercises.run_exercise(chapter, found[4], tmp_path / "never")


@pytest.mark.unit
def test_the_command_lists_a_chapter_and_refuses_a_bad_name_or_number_in_one_line(capsys):
    assert main(["exercises", "99_reproduction_report"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) >= 5 and out[0].startswith("99_reproduction_report") and "no computer" in out[0]
    assert "0 min" in out[0] and out[-1].startswith("[exercises] cost here:")
    assert main(["exercises", "no/such_chapter"]) == 2
    assert "no chapter 'no/such_chapter'" in capsys.readouterr().err
    assert main(["exercises", "99_reproduction_report", "--run", "99", "--output", "/tmp/unused"]) == 2
    assert "has no exercise 99" in capsys.readouterr().err
    assert main(["exercises", "99_reproduction_report", "--run", "1"]) == 2
    assert "--run and --measure need a chapter and --output" in capsys.readouterr().err
    assert main(["exercises", "admiral/05_natural_logic", "--run", "1", "--output", "/tmp/unused"]) == 2
    assert "runs no chapter: it is done by hand" in capsys.readouterr().err


@pytest.mark.notebook
def test_measure_runs_every_exercise_that_reruns_the_chapter_and_keeps_their_times(chapter, tmp_path, monkeypatch,
                                                                                   capsys):
    monkeypatch.setattr(exercises, "TIMES", tmp_path / "times")
    monkeypatch.setattr(exercises, "chapter_source", lambda name: chapter)
    assert exercises.main(str(chapter), output=str(tmp_path / "runs"), measure=True) == 0
    printed = capsys.readouterr().out.splitlines()
    assert [line.split(" (")[0] for line in printed] == ["tiny exercise 2", "tiny exercise 3", "tiny exercise 4"]
    assert sorted(p.name for p in (tmp_path / "times" / "tiny").iterdir()) == ["2.json", "3.json", "4.json"]
    assert (tmp_path / "runs" / "3" / "tiny.ipynb").is_file()
    assert "value: 0.5" in (tmp_path / "runs" / "4" / "tiny.ipynb").read_text(encoding="utf-8")   # the added cell ran
    found = exercises.read_exercises(chapter)
    assert set(exercises.measured_minutes(found)) == {("tiny", 2), ("tiny", 3), ("tiny", 4)}
