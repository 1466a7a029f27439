# %% [markdown]
# # Claims in the wild: where the veracity classifiers go wrong
#
# **Papers and data:** {cite:p}`chen2023wild,chen2022claimdecomp`.
#
# **Overview.** The experiments chapter compares the claim-only classifier with classifiers that read
# evidence.  Here we look inside those numbers on the ClaimDecomp test claims: which labels each condition
# confuses (confusion matrices), how far off it is for each gold label (MAE by gold label), and the claims
# whose prediction the retrieved evidence *changed*, with the evidence that changed it.
#
# **Prerequisites and time.** The models and predictions of the experiments chapter (loaded from the cache,
# or rebuilt with the same settings).

# %% tags=["parameters"]
from typing import Literal

data_dir: str | None = None
split: Literal["dev", "test", "valid"] | None = None   # the evaluation splits this chapter can take
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"
example_id: str | None = None
sample_seed = 0
n_examples = 10

# %%
import matplotlib.pyplot as plt
from IPython.display import display
import pandas as pd
import seaborn as sns
from myst_nb import glue

from proofbook.wild.veracity_metrics import confusion_matrix
from proofbook.data.politifact_text import LABELS
from proofbook.core.examples import shuffled
from proofbook.render.tables import FilterableTable
from proofbook.core.cache import ArtifactCache
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure
from proofbook.wild import wild_experiments
from proofbook.wild.datasets import load_data
from proofbook.wild.tables import mae_by_label_frame

# %%
n_limit = limit or (6 if smoke else None)
data = load_data(data_dir, split=split, limit=n_limit)
chapter = start("wild/03_error_analysis", data_dir=data_dir, split=split, limit=n_limit, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=wild_experiments.WildSettings, example_id=example_id,
                sample_seed=sample_seed, n_examples=n_examples)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings
cache = ArtifactCache()
models = wild_experiments.train_models(data, settings, cache, progress=not smoke)
run = wild_experiments.run_experiments(data, models, settings, cache, progress=not smoke)
systems = [s for s in ("claim-only", "justification", "web-snippets", "web-summaries")
           if ("claimdecomp", "test", s) in run.predictions]
print("conditions on ClaimDecomp test:", systems)

# %% [markdown]
# ## Confusion matrices
#
# Rows: PolitiFact's label; columns: the prediction; labels in the paper's order, from pants-fire to true.

# %%
fig, axes = plt.subplots(1, max(1, len(systems)), figsize=(4.2 * max(1, len(systems)), 3.9), squeeze=False)
for ax, system in zip(axes[0], systems):
    p = run.predictions[("claimdecomp", "test", system)]
    sns.heatmap(confusion_matrix(p["gold"], p["predicted"]), annot=True, fmt="d", cbar=False, ax=ax,
                xticklabels=LABELS, yticklabels=LABELS if ax is axes[0][0] else False, cmap="Blues")
    ax.set_title(system)
    ax.set_xlabel("predicted")
    ax.tick_params(axis="x", labelrotation=60)
axes[0][0].set_ylabel("gold")
save_figure(fig, figures_dir, "wild", "confusion_matrices")
plt.show()

# %% [markdown]
# *Figure: confusion matrices on the ClaimDecomp test claims of this copy, one per condition.*
#
# ## MAE by gold label

# %%
mae_table, mae_rows = mae_by_label_frame(run, systems, seed=seed)
results.extend(mae_rows)
mae_table.style.format("{:.2f}")

# %% [markdown]
# *Table: mean absolute error (label steps) of each condition, by PolitiFact's label.*  A classifier that
# leans to the middle of the scale has low MAE on `half-true` and high MAE at both ends.
#
# ## Claims whose prediction the evidence changed

# %%
flips = wild_experiments.flipped_claims(run, data, "web-summaries")
closer = sum(f["closer"] for f in flips)
results.add("claimdecomp", "test", "web-summaries", "flipped_vs_claim_only",
            len(flips), len(data.evaluation.get(("claimdecomp", "test"), [])))
results.add("claimdecomp", "test", "web-summaries", "flipped_closer_to_gold", closer, len(flips))
glue("n_flips", len(flips), display=False)
glue("n_closer", closer, display=False)
pd.set_option("display.max_colwidth", 300)
FilterableTable(flips) if flips else "no prediction changed"

# %% [markdown]
# The summaries changed the prediction of {glue:text}`n_flips` test claims; {glue:text}`n_closer` of those
# changes moved it closer to PolitiFact's label.  Reading the evidence column shows why most of the others
# did not help: the snippets are about the claim's topic, rarely about its truth.  (Filter the table by typing
# words a row must contain; sort it by clicking a column.)
#
# Claims in every condition: the claim named by `example_id` (a ClaimDecomp `example_id`), by default the
# first changed claims (at most three, and at most `n_examples`) in the order `sample_seed` shuffles them to.

# %%
shown_ids = [example_id] if example_id else [f["claim id"] for f in shuffled(flips, sample_seed)[:min(3, n_examples)]]
glue("shown_ids", ", ".join(shown_ids) or "none", display=False)
for shown_id in shown_ids:
    display(pd.DataFrame(wild_experiments.claim_predictions(run, data, shown_id)).assign(claim=shown_id))

# %% [markdown]
# *Tables: claims {glue:text}`shown_ids` as each condition saw them: the prediction and the evidence text it read.*
#
# ## Summary
#
# The confusion matrices and MAE by label say which verdicts each condition can tell apart; the flipped claims
# show what the retrieved evidence does to a prediction, one claim at a time.

# %% [markdown]
# ## Exercises
#
# ### 1. Predict the confusion matrices
#
# Before running, sketch the `claim-only` matrix: which one or two predicted-label columns hold most of the
# counts, and whether some label is never predicted.  Do the same for `justification`.  Then run
# `python -m proofbook run notebooks/wild/03_error_analysis.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/wild_03.ipynb`.
# Compare with the confusion-matrix figure, and check that your sketch agrees with the MAE-by-gold-label table.
#
# :::{dropdown} Hint
# Each classifier keeps the checkpoint with the lowest MAE on its selection part, and MAE rewards hedging
# towards the middle of the scale.  The claim-only classifier learnt LIAR's label distribution.  The data table of
# the experiments chapter shows how it differs from ClaimDecomp test's.
# :::

# %% [markdown]
# ### 2. A column you can compute by hand (no computer needed)
#
# Write down, without looking at any result, the constant baseline `always-half-true`'s whole column of the
# MAE-by-gold-label table (one number per gold label, `pants-fire` to `true`) and its confusion matrix.  Which
# gold labels can no classifier that always answers one label serve well, whichever label it picks?  Then read
# off the table, for each gold label, which trained conditions beat your column.
#
# To see the baseline beside them, copy the notebook (`cp notebooks/wild/03_error_analysis.py /tmp/mine/wild_03.py`),
# add `"always-half-true"` to the tuple that defines `systems` near the top, and run the copy with
# `python -m proofbook run /tmp/mine/wild_03.py -p results_dir /tmp/mine -p figures_dir /tmp/mine`.
#
# :::{dropdown} Hint
# Labels are indices 0-5 from `pants-fire` to `true` (`proofbook.data.politifact_text.LABELS`), and MAE is the mean
# absolute difference of indices.  Check the column and the matrix in a cell:
# ```python
# from proofbook.wild.veracity_metrics import confusion_matrix, mae_by_label
# gold = [0, 1, 2, 3, 4, 5]
# mae_by_label(gold, [3] * 6), confusion_matrix(gold, [3] * 6)
# ```
# A condition that beats the baseline only near the middle has learnt little about the ends of the scale.
# :::

# %% [markdown]
# ### 3. Would the prediction have changed without evidence?
#
# The flipped-claims table compares `web-summaries` with `claim-only`.  But those two classifiers differ in two
# ways: the evidence, and the extra fine-tuning on LIAR-PLUS `val2` and ClaimDecomp dev.  `claim-only-matched` has
# the extra fine-tuning without the evidence.  Add the cell below right after the cell that starts
# `flips = wild_experiments.flipped_claims(` (the flipped-claims table):
#
# ```python
# for system in ("claim-only-matched", "justification", "web-snippets", "web-summaries"):
#     rows = wild_experiments.flipped_claims(run, data, system)
#     print(system, len(rows), "flipped,", sum(r["closer"] for r in rows), "closer to gold")
# ```
#
# Predict before running: will `claim-only-matched` flip fewer claims than `web-summaries`, about as many, or
# more?  Will the share of flips that moved closer to the gold label be higher for the evidence conditions than
# for `claim-only-matched`?
#
# :::{dropdown} Hint
# By default the evidence classifier and `claim-only-matched` both start from the claim-only weights
# (`WildSettings.evidence_from_claim_only`), and are fine-tuned on the same claims.  If most flips also happen
# without evidence, what caused them?
# :::

# %% [markdown]
# ### 4. One flip, stage by stage
#
# Pick a row of the flipped-claims table whose `closer` is False (rerun with a filter box of the table helps).
# Its id is in the `claim id` column.  Rerun the chapter with `-p example_id ID` to see that claim in every
# condition.  Or run `python -m proofbook explain wild --claim-id ID`, which uses the models the chapters cached.
#
# Before running, read the row's `evidence`.  Predict how many of the kept documents were summarised as
# irrelevant, and how close the two most probable labels of `claim-only` are.  Check the "claim-focused
# summaries" and "veracity" sections of the output.
#
# :::{dropdown} Hint
# A prediction flips as soon as another label's probability overtakes the top one.  When `claim-only` is nearly
# undecided, any text in the evidence slot can do that.  Ask whether the summaries say anything about whether the
# claim is true, or only about its topic.
# :::

# %% [markdown]
# ### 5. Are the flips repeatable?
#
# Add a cell that saves the flipped claims, `pd.DataFrame(flips).to_csv(f"/tmp/flips_seed{seed}.csv")`.  Run
# your copy twice: as it is, and with `-p seed 1 -p results_dir /tmp/seed1 -p figures_dir /tmp/seed1`.  The
# second run retrains the classifiers, as long as the first training.
#
# Before the second run, predict what share of the claims flipped at seed 0 will flip again at seed 1.  Predict
# also whether the results rows `flipped_vs_claim_only` and `flipped_closer_to_gold` change by more than a few
# claims.  Compare the `claim` columns of the two files.
#
# :::{dropdown} Hint
# Treat the second seed as another, equally valid training run.  A story told about one claim's flip is only as
# firm as the flip is repeatable.  Compare the change in the counts with the differences between conditions that
# the experiments chapter's intervals can resolve.
# :::
