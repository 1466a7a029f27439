# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # The reproduction report
#
# **Papers and data:** {cite:p}`aly2022admiral,chen2023wild,tafjord2022entailer,efron1993bootstrap`.
#
# **Overview.** This page lists every claim of the three papers that the book tests, with the paper's number,
# this run's number and its 95% bootstrap interval where the chapter computes one, and a verdict.  The
# verdicts are not written by hand: each claim is one rule in the library (`proofbook.core.paper_claims.REGISTRY`: which
# result rows, which comparison, which threshold, and where the threshold comes from), and one function
# decides every claim from the rows that the chapters wrote to their results files:
#
# - a claim "A beats B" has threshold 0, unless the paper states a number (memory at least 5x smaller,
#   latency growing at most 1.3x when the knowledge base doubles, a faithfulness break of 10-25%);
# - **holds**: the whole interval lies on the claim's side of the threshold; **contradicted**: it lies on
#   the other side (two systems that are equal everywhere do not make "A beats B" hold); **inconclusive**:
#   the interval crosses the threshold; **untested**: this run did not write the rows the rule reads;
# - without an interval (a ratio of two timings, or a chapter that does not yet write paired differences)
#   the value itself decides between holds and contradicted.
#
# The rows read are those of the `test` split where the data directory holds it, else `dev`.  Sanity
# checks that hold by construction (stopping earlier than running to the limit, an oracle that is right by
# definition) are not claims and are not counted here.
#
# **Prerequisites.** The other chapters have run and written their results files into `results_dir`; the
# page reads only those files (no model, no data), so it runs in seconds.  Pass `compare_results_dir` to put a
# second run (say, on a data directory that holds the held-back test splits) beside this one.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"
compare_results_dir: str | None = None

# %%
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from proofbook.core import paper_claims
from proofbook.core.paths import PROJECT_ROOT
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure
from proofbook.render.report import claims_figure

chapter = start("report/99_reproduction_report", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir, compare_results_dir=compare_results_dir)
results = chapter.results
folder = Path(results_dir) if Path(results_dir).is_absolute() else PROJECT_ROOT / results_dir
rows = paper_claims.load_rows(folder)
found = paper_claims.verdicts(rows)
results.extend(paper_claims.verdict_rows(found))
print(f"{len(rows)} results files read from {results_dir}; {len(found)} claims")

# %% [markdown]
# ## Summary

# %%
table = paper_claims.claims_table(found)
summary = table.groupby(["paper", "verdict"]).size().unstack(fill_value=0)
summary = summary.reindex(columns=[name for name in paper_claims.VERDICT_NAMES.values() if name in summary.columns])
summary.loc["all"] = summary.sum()
counts = table["verdict"].value_counts()
for name in paper_claims.VERDICT_NAMES.values():
    glue(f"n_{name}", int(counts.get(name, 0)), display=False)
glue("n_claims", len(table), display=False)
summary

# %% [markdown]
# *Table: verdicts per paper.*  Of the {glue:text}`n_claims` claims, {glue:text}`n_holds` hold,
# {glue:text}`n_inconclusive` are inconclusive, {glue:text}`n_contradicted` are contradicted and
# {glue:text}`n_untested` are untested in this run.
#
# ## Every claim

# %%
table.style.hide(axis="index")

# %% [markdown]
# *Table: each claim with the paper's number, this run's number (the value, or A - B, or A / B, with its
# 95% bootstrap interval where the chapter writes one), the split it was read on, the rule, the verdict and
# the chapter that explains the experiment.*

# %%
fig = claims_figure(found)
save_figure(fig, figures_dir, "report", "claims")
plt.show()

# %% [markdown]
# *Figure: this run (dots, coloured by verdict, with the 95% interval as a line where there is one) against the
# paper (crosses) and the rule's threshold (grey bars); differences and fractions above, ratios below.*
#
# ## Two runs side by side
#
# With `compare_results_dir` set, the second run's verdicts stand next to this run's (for instance the same
# book run on a data directory that holds the held-back test splits).

# %%
if compare_results_dir:
    other = Path(compare_results_dir) if Path(compare_results_dir).is_absolute() else PROJECT_ROOT / compare_results_dir
    second = paper_claims.claims_table(paper_claims.verdicts(paper_claims.load_rows(other)))
    side_by_side = table[["claim", "this run", "split", "verdict"]].merge(
        second[["claim", "this run", "split", "verdict"]], on="claim", suffixes=(" (this run)", " (compared)"))
else:
    side_by_side = pd.DataFrame({"note": ["no second results directory given (compare_results_dir=None)"]})
side_by_side

# %% [markdown]
# ## Where the book departs from the papers
#
# Each change that this machine forces, and the chapter that says exactly what differs and why.

# %%
pd.DataFrame([vars(d) for d in paper_claims.DEPARTURES]).style.hide(axis="index")

# %% [markdown]
# ## Exercises
#
# The first needs nothing but this page.  The others rerun the report on a copy of the results, so that the
# book's own results stay as they are: `cp -r results /tmp/mine-results` once, then run
# `python -m proofbook run notebooks/99_reproduction_report.py -p results_dir /tmp/mine-results -p figures_dir /tmp/mine --output /tmp/mine/report.ipynb`.
# The report reads results files only, so each run takes seconds.
#
# ### 1. Decide three claims by hand (no computer needed)
#
# In the claims table, cover the `verdict` column.  Take one claim whose number has an interval, one without,
# and one that the rule tests against a band (`between`).  For each, read the rule and the threshold, and
# decide the verdict with the rules of the overview: holds, contradicted or inconclusive.  Uncover and compare.
# Which of your three would change verdict if its interval were twice as wide?
#
# :::{dropdown} Hint
# `decide` in `proofbook.core.paper_claims` is the whole rule, a dozen lines: it reads only the side, the
# threshold, the value and the interval.  Without an interval the value stands for both ends.
# :::

# %% [markdown]
# ### 2. A margin for "A beats B"
#
# A claim "A beats B" has threshold 0: any gain whose whole interval is above 0 holds.  A reviewer might ask
# for a margin instead, a gain of at least 0.02.  Before running anything, go through the claims table and
# list the claims whose verdict a margin of 0.02 would move, and to what.  Then check: copy this notebook
# (`cp notebooks/99_reproduction_report.py /tmp/mine/report.py`), add the cell below after the line
# `found = paper_claims.verdicts(rows)`, and run the copy with the command above (with `/tmp/mine/report.py`).
#
# ```python
# import dataclasses
# margin = [dataclasses.replace(c, threshold=0.02) if c.kind == "difference" and c.side == ">" and c.threshold == 0
#           else c for c in paper_claims.REGISTRY]
# found = paper_claims.verdicts(rows, margin)
# ```
#
# :::{dropdown} Hint
# A margin can only move a verdict from holds towards inconclusive, or from inconclusive towards contradicted:
# look at the claims whose interval's lower end lies between 0 and 0.02, and those whose upper end does.
# :::

# %% [markdown]
# ### 3. Fewer examples, wider intervals
#
# Rerun one experiment chapter with fewer examples, for instance
# `python -m proofbook run notebooks/entailer/02_experiments.py -p limit 40 -p results_dir /tmp/mine-results -p figures_dir /tmp/mine --output /tmp/mine/entailer_02.ipynb`
# (its models come from the cache; the searches run again, some minutes), then the report on
# `/tmp/mine-results` as above.  Before running, predict how much wider the Entailer claims' intervals become
# (an interval over n examples narrows roughly as one over the square root of n), and which of E1-E4 can
# change verdict.  Compare the two claims tables.
#
# :::{dropdown} Hint
# Only a claim whose interval is near its threshold can move.  With 40 questions instead of 100, the
# intervals grow by about the square root of 100/40.
# :::
