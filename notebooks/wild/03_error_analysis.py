# %% [markdown]
# # Claims in the wild: where the veracity classifiers go wrong
#
# **Overview.** The experiments chapter compares the claim-only classifier with classifiers that read
# evidence.  Here we look inside those numbers on the ClaimDecomp test claims: which labels each condition
# confuses (confusion matrices), how far off it is for each gold label (MAE by gold label), and the claims
# whose prediction the retrieved evidence *changed*, with the evidence that changed it.
#
# **Prerequisites and time.** The models and predictions of the experiments chapter (loaded from the cache,
# or rebuilt with the same settings).

# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from myst_nb import glue

from proofbook.classifier.metrics import confusion_matrix
from proofbook.data.politifact import LABELS
from proofbook.models import ArtifactCache, set_seed
from proofbook.results import Results
from proofbook.viz import save_figure, use_style
from proofbook.wild import experiments

use_style()
set_seed(seed)
settings = experiments.WildSettings.smoke(seed) if smoke else experiments.WildSettings.full(seed)
n_limit = limit or (6 if smoke else None)
data = experiments.load_data(data_dir, split=split, limit=n_limit)
results = Results("wild/03_error_analysis", dict(data_dir=str(data.root), split=split, limit=n_limit, seed=seed,
                                                 smoke=smoke), results_dir)
cache = ArtifactCache()
models = experiments.train_models(data, settings, cache, progress=not smoke)
run = experiments.run_experiments(data, models, settings, cache, progress=not smoke)
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
mae_table, mae_rows = experiments.mae_by_label_frame(run, systems, seed=seed)
results.extend(mae_rows)
mae_table.style.format("{:.2f}")

# %% [markdown]
# *Table: mean absolute error (label steps) of each condition, by PolitiFact's label.*  A classifier that
# leans to the middle of the scale has low MAE on `half-true` and high MAE at both ends.
#
# ## Claims whose prediction the evidence changed

# %%
flips = experiments.flipped_claims(run, data, "web-summaries")
closer = sum(f["closer"] for f in flips)
results.add("claimdecomp", "test", "web-summaries", "flipped_vs_claim_only",
            len(flips), len(data.evaluation.get(("claimdecomp", "test"), [])))
results.add("claimdecomp", "test", "web-summaries", "flipped_closer_to_gold", closer, len(flips))
glue("n_flips", len(flips), display=False)
glue("n_closer", closer, display=False)
pd.set_option("display.max_colwidth", 300)
pd.DataFrame(flips).head(10 if not smoke else 3)

# %% [markdown]
# The summaries changed the prediction of {glue:text}`n_flips` test claims; {glue:text}`n_closer` of those
# changes moved it closer to PolitiFact's label.  Reading the evidence column shows why most of the others
# did not help: the snippets are about the claim's topic, rarely about its truth.
#
# ## Summary
#
# The confusion matrices and MAE by label say which verdicts each condition can tell apart; the flipped claims
# show what the retrieved evidence does to a prediction, one claim at a time.
