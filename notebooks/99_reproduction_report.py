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
# **Papers and data:** {cite:p}`aly2022admiral,chen2023wild,tafjord2022entailer,efron1993bootstrap,holm1979simple`.
#
# **Overview.** This page lists every claim of the three papers that the book tests, with the paper's number,
# this run's number and its 95% bootstrap interval where the chapter computes one, and a verdict.  The
# verdicts are not written by hand: each claim is one rule in the library (`proofbook.core.paper_claims.REGISTRY`:
# which result rows, which comparison, which threshold, and where the threshold comes from), and one function
# decides every claim from the rows that the chapters wrote to their results files.
#
# **The paper's method, then the stand-in.**  Each claim is decided first for the paper's own method, as
# faithfully as this machine runs it (AdMIRaL's hop decoding over the prefix tree of all titles, sufficiency
# from generated proofs, Entailer's premises written by its generator).  Where the book also runs a stand-in
# that departs from the paper to get past a limit of this machine, the claim is decided again for it, and the
# table names the departures each verdict rests on.  The headline counts the paper's method.
#
# **The rule.**
#
# - A claim "A beats B" has threshold 0, unless the paper states a number (memory 10x smaller than MDR's,
#   latency growing at most 1.3x when the knowledge base doubles, a faithfulness break of 10-25%).
# - A claim of *no difference* ("no significant change", "no gain") has a margin, stated in the rule with its
#   source: it holds when the whole interval lies inside the margin.
# - A claim against a floor set by the data (the majority label's share) reads the floor from a row.
# - **holds**: the whole interval lies on the claim's side of the threshold; **contradicted**: it lies on
#   the other side (*reversed* when a difference lies wholly on the other side of zero, *no effect* when it
#   reaches zero); **inconclusive**: the interval crosses the threshold; **untested**: this run did not
#   write the rows the rule reads, or the paper's method does not run here (the table says why).
# - Without an interval (a ratio of two sizes, a difference without a paired row) the value itself decides.
#
# The rows read are those of the `test` split where the data directory holds it, else `dev`.  Sanity checks
# that hold by construction are not claims; claims found to test nothing are retired (listed below).
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
from proofbook.render.report import claims_figure, seed_rows, seeds_behind, summary_glue, verdict_summary

chapter = start("report/99_reproduction_report", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir, compare_results_dir=compare_results_dir)
results = chapter.results
folder = Path(results_dir) if Path(results_dir).is_absolute() else PROJECT_ROOT / results_dir
rows = paper_claims.load_rows(folder)
found = paper_claims.verdicts(rows)
results.extend(paper_claims.verdict_rows(found))
results.extend(paper_claims.departure_rows())
results.extend(seed_rows(found, rows))
print(f"{len(rows)} results files read from {results_dir}; {len(found)} claims")

# %% [markdown]
# ## Summary

# %%
table = paper_claims.claims_table(found)
behind = seeds_behind(found, rows)
table.insert(table.columns.get_loc("verdict") + 1, "training seeds",
             [behind[v.claim.id][0] if v.split is not None else "" for v in found])
for name, value in summary_glue(found).items():
    glue(name, value, display=False)
seeded = sorted(claim for claim, (seeds, _) in behind.items() if seeds > 1)
glue("n_seeded", len(seeded), display=False)
glue("seeded_claims", ", ".join(seeded) or "none", display=False)
verdict_summary(found)

# %% [markdown]
# *Table: verdicts per paper, for the paper's method and for the stand-in (claims without a stand-in count
# under "none").*  Of the {glue:text}`n_claims` claims, for the paper's method {glue:text}`n_holds` hold,
# {glue:text}`n_inconclusive` are inconclusive, {glue:text}`n_contradicted` are contradicted and
# {glue:text}`n_untested` are untested in this run.  The {glue:text}`n_stand_in` claims with a stand-in hold
# {glue:text}`n_holds_stand_in` times for it.
#
# **Many tests at once.**  {glue:text}`n_family` verdicts rest on an interval.  At 95% each, about one in twenty
# tests of a claim that is false would still come out "holds" by chance, so a handful of lucky verdicts is
# expected among this many.  Holm's step-down correction {cite:p}`holm1979simple` keeps the family-wise error at
# 5%: of those verdicts, {glue:text}`n_holds_holm` still hold under it (the column "holds under Holm", with
# p-values read from the intervals under a normal approximation).  For an inconclusive verdict, "detectable
# effect" is the distance from the threshold that an interval this wide would detect four times in five: the
# run is too small to see anything smaller.
#
# ## Every claim

# %%
table.style.hide(axis="index")

# %% [markdown]
# *Table: each claim with the paper's number; the paper's method (its systems, this run's number: the value, or
# A - B, or A / B, with its 95% bootstrap interval where the chapter writes one, the split, the rule, the
# verdict, the training seeds it rests on); the stand-in (systems, number, verdict); the departures both rest on (ids of the departures table
# below); the source of the rule and the chapter that explains the experiment.*

# %%
fig = claims_figure(found)
save_figure(fig, figures_dir, "report", "claims")
plt.show()

# %% [markdown]
# *Figure: this run for the paper's method (dots, coloured by verdict, with the 95% interval as a line where
# there is one) and for the stand-in (open circles), against the paper (crosses) and the rule's threshold (grey
# bars); differences and fractions above, ratios below.*
#
# ## Rules that changed
#
# A rule is fixed before its result is seen.  When one had to change (a threshold the paper does not support,
# a metric other than the paper's, the stand-in tested under the paper's name), its earlier form stays in the
# registry, and here is what the earlier rule says about this run's rows next to today's verdict.

# %%
paper_claims.rule_changes_table(rows)

# %% [markdown]
# **Retired claims.**  A claim found to test nothing is taken out, with the reason; its id is never reused.

# %%
pd.DataFrame([vars(r) for r in paper_claims.RETIRED]).style.hide(axis="index")

# %% [markdown]
# ## Two runs side by side
#
# With `compare_results_dir` set, the second run's verdicts stand next to this run's (for instance the same
# book run on a data directory that holds the held-back test splits).

# %%
if compare_results_dir:
    other = Path(compare_results_dir) if Path(compare_results_dir).is_absolute() else PROJECT_ROOT / compare_results_dir
    second = paper_claims.claims_table(paper_claims.verdicts(paper_claims.load_rows(other)))
    side_by_side = table[["claim", "this run", "split", "verdict", "stand-in verdict"]].merge(
        second[["claim", "this run", "split", "verdict", "stand-in verdict"]], on="claim",
        suffixes=(" (this run)", " (compared)"))
else:
    side_by_side = pd.DataFrame({"note": ["no second results directory given (compare_results_dir=None)"]})
side_by_side

# %% [markdown]
# ## Where the book departs from the papers
#
# Each change that this machine forces, the chapter that says exactly what differs and why, and how many
# claims rest on it (the row `claims_affected` of each departure in the results file).

# %%
paper_claims.departures_table()

# %% [markdown]
# ## What reproduces, and what is missing
#
# **AdMIRaL.**  The paper's retrieval gain needs a title model that copies a title from its input sentences:
# GENRE gets that from BART-large's pre-training, which cannot be installed here.  Title models trained from
# scratch on these cores learn only a prior over titles unless they are given a copy head (a pointer-generator),
# and the book's have one.  So the claims about the hop are decided for the full prefix tree with those models
# (the retrieval chapter compares them with a hop model without the head, `admiral-nocopy`), and again for the
# mention-narrowed stand-in, whose gain comes from string matching (compared there with `mentions-only`).  The efficiency claims test the paper's own
# index (the full tree, BM25) on knowledge bases grown with filler pages; their timing claims rest on few
# timed claims.  The sufficiency claims need a proof generator that tells complete from incomplete evidence;
# the one trained here does so barely above chance, and the aligned-proof stand-in is the book's way around it.
#
# **Claims in the wild.**  The paper's evidence (live search, LLM summaries of whole pages) cannot be had
# offline, so the claims that read retrieved evidence are decided for the book's extractive stand-in on cached
# search results, with a classifier trained on justifications and applied to web evidence; the paper's method is
# untested for them.  The oracle claim (the gold justification against the claim alone) needs no search and is
# decided as the paper poses it.  The chapter trains its classifiers with several seeds (column "training
# seeds"), and their seed spread in MAE is as large as half an interval: on one training a stand-in verdict can
# move either way.
#
# **Entailer.**  The paper's premises are written by T5-11B.  The generator trained here writes mostly false
# or garbled premises, so the paper's method is decided with it where it runs (depth-1 sampled search and its
# combination with direct answering), and the mixed pool of generated and retrieved premises is the stand-in.

# %% [markdown]
# **Training seeds.**  A model trained here changes with its training seed.  Where a chapter trains its
# systems with several seeds (its `seeds` parameter), the value a claim reads is the mean over the seeds and its
# interval a two-level bootstrap over seeds and examples, so it covers the spread between trainings too; the
# column "training seeds" and the rows `seeds` and `seed_spread` of each claim say how many seeds a verdict
# rests on.  In this run {glue:text}`n_seeded` claims rest on more than one seed ({glue:text}`seeded_claims`);
# the others rest on one training run, and their intervals resample the evaluated examples only.
#
# **Another machine.**  The same code and seed train different models on another CPU (the README's notes on
# determinism), by more than some intervals here, so a verdict near its threshold may move on another machine.
# This report ran on: {glue:text}`cpu`.

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
# (`cp notebooks/99_reproduction_report.py /tmp/mine/report.py`), add the lines below right after the line that
# starts `found = paper_claims.verdicts(rows)`, and run the copy with the command above (with
# `/tmp/mine/report.py`).
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

# %% [markdown]
# ### 4. Another training seed
#
# Rerun one experiment chapter with another seed, for instance
# `python -m proofbook run notebooks/entailer/02_experiments.py -p seed 1 -p results_dir /tmp/mine-results -p figures_dir /tmp/mine --output /tmp/mine/entailer_02.ipynb`.
# The seed is part of every trained model's cache key, so the models are trained again (the chapter's training
# time, tens of minutes); the evaluation examples stay the same.  Then run the report on `/tmp/mine-results`.
# Before running, predict for each claim of that chapter whether its value moves by more or less than the
# width of its seed-0 interval, and which verdicts can change.  Compare the two claims tables.
#
# :::{dropdown} Hint
# The bootstrap interval measures the spread from resampling the examples with the models held fixed; a new
# seed changes the models.  Which source of variation would you expect to be larger for models trained for a
# few minutes on a CPU?  The report's note on the machine it ran on says how far another machine's numbers moved.
# :::

# %% [markdown]
# ### 5. One training run or several
#
# The retrieval chapter trains with as many seeds as its `seeds` parameter says, and shows each seed's numbers in
# its *Training seeds* table.  Rerun it on one seed:
# `python -m proofbook run notebooks/admiral/02_experiments.py -p seeds 1 -p results_dir /tmp/mine-results -p figures_dir /tmp/mine --output /tmp/mine/admiral_02.ipynb`
# (minutes when the book's models are in the cache), then the report on `/tmp/mine-results`.  Predict first, from
# that table, each C1 claim's value, whether its interval gets wider or narrower, and which verdicts can change.
#
# :::{dropdown} Hint
# With one seed, a C1 claim's value is the `seed 0` column of the *Training seeds* table and its interval
# resamples the claims alone.  With several, every resample also draws the seeds (with replacement), so a claim
# whose seeds disagree gets a wider interval.  A verdict can change only where one of the two intervals reaches
# the claim's threshold.
# :::
