# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (proofbook)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Execution status
#
# Every page of this book is a notebook that ran, and every number on it comes from that run.  This page
# says, for each notebook in book order, when its recorded run ended, how long it took, whether a cell
# failed, whether it was a smoke run, the commit its results files were computed at, and whether those
# results are still **current**: the notebook's source, every library module it imports and every data file
# it read, hashed when this page was built, match what its results file recorded (`python -m proofbook check`
# makes the same comparison), and the machine it ran on (`host`).  It is read from the executed notebooks
# (papermill's record of each run), the runs' stamps (`_build/stamps/`, written by `python -m proofbook run`
# and `run-all` when a run succeeds; the only record on the driver of a notebook that ran on another node of a
# Ray cluster) and the results files, when the page is built, by `proofbook.cli.status`;
# `python -m proofbook status` prints the same table in a terminal.
#
# The times are those of the recorded runs.  The book's runs reuse the artifact cache (`.cache/proofbook`):
# a chapter whose models were trained by an earlier run loads them in seconds, so a build from a clean cache,
# which trains every model once, takes longer than the sum below.  To refresh the book, run
# `python -m proofbook run-all` (it skips notebooks whose results are current) and build it with `make book`.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import pandas as pd
from myst_nb import glue

from proofbook.cli import exercises, status
from proofbook.render.chapter import start

chapter = start("reference/99_status", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir)
results = chapter.results
runs = status.chapter_runs(results_dir, chapter.data_path, skip=("99_status",))
for run in runs:
    if run.seconds is not None:
        results.add(run.notebook, "last-run", "papermill", "run_seconds", round(run.seconds, 1), 1)
    results.add(run.notebook, "last-run", "papermill", "current", int(run.current == "yes"), 1)
recorded = status.recorded_runs(runs)
results.add("book", "last-run", "papermill", "run_seconds", round(sum(run.seconds for run in recorded), 1),
            len(recorded))
results.save()
glue("n_notebooks", len(runs), display=False)
glue("n_current", sum(run.current == "yes" for run in runs), display=False)
glue("n_ok", sum(run.status == "ok" for run in runs), display=False)
glue("run_times", status.run_times(runs), display=False)
pd.set_option("display.max_colwidth", 200)
table = pd.DataFrame(status.status_rows(runs)).set_index("notebook")
table[["title", "status", "smoke", "finished", "minutes", "commit", "host", "current"]]

# %% [markdown]
# *Table: the {glue:text}`n_notebooks` notebooks of the book (this page left out); {glue:text}`n_ok` of them
# ran without an error and {glue:text}`n_current` have current results.  {glue:text}`run_times`  `finished` is the end of the
# run in UTC; `commit` is the commit the results were computed at (a results file is committed after the run,
# so this is the commit before it).*
#
# When a notebook is not current, the cell below lists what changed since its run.

# %%
changes = [{"notebook": run.notebook, "change": change} for run in runs for change in run.changes]
pd.DataFrame(changes, columns=["notebook", "change"]) if changes else print("Every notebook's results are current.")

# %% [markdown]
# ## What the exercises cost here
#
# Every chapter ends with exercises.  Before setting them for a class, a teacher needs to know what each costs
# on the machine that built the book.  The table reads each exercise's kind from its text
# (`python -m proofbook exercises` prints the same list) and its cost from the runs above:

# %%
every = exercises.book_exercises()
costs = pd.DataFrame(exercises.exercise_rows(every, exercises.recorded_minutes(runs), exercises.measured_minutes(every)))
glue("n_exercises", len(costs), display=False)
glue("n_by_hand", int((costs.kind == "no computer").sum()), display=False)
glue("n_runnable", int(costs.kind.isin(exercises.RUNNABLE).sum()), display=False)
glue("n_measured", int(costs["cost here"].str.endswith("(measured)").sum()), display=False)
glue("cost_note", exercises.COST_NOTE[0].upper() + exercises.COST_NOTE[1:] + ".", display=False)
pd.set_option("display.max_rows", len(costs))
costs.set_index(["chapter", "exercise"])[["kind", "cost here", "title"]]

# %% [markdown]
# *Table: the book's {glue:text}`n_exercises` exercises; {glue:text}`n_by_hand` are done by hand and
# {glue:text}`n_runnable` rerun a chapter or an edited copy of it, {glue:text}`n_measured` of which were timed
# here.  {glue:text}`cost_note`*
#
# An exercise is timed by running it on a copy, with its outputs in a folder of its own:
# `python -m proofbook exercises CHAPTER --run N --output DIR`, or every runnable exercise of a chapter in turn with
# `--measure` instead of `--run N`.  The times are kept under `_build/exercise-times/` (not committed) while the
# chapter's source is unchanged.
