# %% [markdown]
# # Entailer: error analysis and a teachable memory
#
# **Overview.** The Entailer paper read 100 wrong answers and sorted them into *belief* errors (a false premise
# believed true: 33%), *reasoning* errors (the premises do not entail the hypothesis: 47%, of which 20% are
# near-tautologies that restate it) and *dataset* errors (a flawed question or key: 20%).  This chapter sorts
# the wrong answers of `entailer-sampled-d1` on the experiments chapter's OBQA questions with automatic rules
# that approximate those categories, shows their trees, and then tries the paper's future work: a user marks a
# faulty belief false, the correction is stored in a memory, and later proofs use it.
#
# **What differs from the paper.** The paper's categories were assigned by people; ours by rules
# (`proofbook.prover.entailer.experiments.error_category` states them).  Read the trees below to judge them.
# The memory is new (the paper only proposes it); its "user" is simulated: it marks the most believed premise
# of a wrong proof as false, without checking that the premise really is false.
#
# **Prerequisites and time.** Reads the cached models and runs of the experiments chapter (rebuilding them if
# the cache is empty), then re-runs the questions once with the memory.

# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from myst_nb import glue

from proofbook import intervals
from proofbook.data.base import resolve_data_dir
from proofbook.models import set_seed
from proofbook.prover.entailer import experiments
from proofbook.prover.entailer.memory import BeliefMemory
from proofbook.prover.entailer.trees import TreeView
from proofbook.results import Results
from proofbook.retrieval.dense import SentenceEmbedder
from proofbook.viz import save_figure, use_style

use_style()
set_seed(seed)
FULL_LIMIT = 100        # the experiments chapter's questions (its runs are read from the cache)
n_questions = limit or (4 if smoke else FULL_LIMIT)
SYSTEM = "entailer-sampled-d1"
data_path = resolve_data_dir(data_dir)
settings = experiments.Settings.smoke(seed) if smoke else experiments.Settings(seed=seed)
split_name = experiments.evaluation_splits(data_path, "obqa", split)[0]
results = Results("entailer/03_error_analysis", dict(data_dir=str(data_path), split=split, limit=n_questions,
                                                     seed=seed, smoke=smoke, settings=settings.__dict__), results_dir)
components = experiments.build_components(data_path, settings)
questions = experiments.read_questions(data_path, "obqa", split_name)[:n_questions]
runs = experiments.run_systems(questions, components, settings, "obqa", split_name, progress=not smoke)
run = runs[SYSTEM]
wrong = experiments.errors(run, questions)
print(f"OBQA {split_name}: {len(questions)} questions, {SYSTEM} accuracy {run.accuracy:.3f}, {len(wrong)} wrong")

# %% [markdown]
# ## Error categories

# %%
counts = pd.Series([e["category"] for e in wrong], dtype=object).value_counts().reindex(
    experiments.ERROR_CATEGORIES, fill_value=0)
shares = counts / max(1, len(wrong))
base = {"dataset": "obqa", "split": split_name, "system": SYSTEM}
for category in shares.index:
    if wrong:
        is_category = [float(e["category"] == category) for e in wrong]
        results.extend(intervals.mean_rows(base, f"error_share/{category}", is_category, seed))
    else:
        results.add("obqa", split_name, SYSTEM, f"error_share/{category}", 0.0, 0)
paper = pd.Series({"belief": 0.33, "reasoning: near-tautology": 0.20 * 0.47, "reasoning": 0.47 * 0.80,
                   "dataset": 0.20})
table = pd.DataFrame({"wrong answers": counts, "share (this run, rules)": shares, "share (paper, people)": paper})
fig, ax = plt.subplots(figsize=(6.5, 3))
table[["share (this run, rules)", "share (paper, people)"]].plot.barh(ax=ax)
ax.set_xlim(0, 1)
ax.set_xlabel("share of wrong answers")
save_figure(fig, figures_dir, "entailer", "error_categories")
plt.show()
for category, share in shares.items():
    glue(f"share_{category}", f"{share:.2f}", display=False)
glue("n_wrong", len(wrong), display=False)
table.style.format({"share (this run, rules)": "{:.2f}", "share (paper, people)": "{:.2f}"})

# %% [markdown]
# *Figure: error categories of the {glue:text}`n_wrong` wrong answers of `entailer-sampled-d1` (automatic rules)
# and of the paper's 100 (human judges; the paper's near-tautologies are 20% of its reasoning errors).*
#
# ## Wrong answers with their trees
#
# One example per category (where there is one): the tree of the option Entailer chose and the tree of the
# gold option.

# %%
shown = set()
for error in wrong:
    if error["category"] in shown:
        continue
    shown.add(error["category"])
    q, answer = error["question"], error["answer"]
    print(f"[{error['category']}] {q.id}: {q.stem}  (chose {error['predicted']}, gold {q.answer_key})")
    for option in answer.options:
        if option.label in (error["predicted"], q.answer_key):
            role = "chosen" if option.label == error["predicted"] else "gold"
            display(TreeView(option.tree, title=f"{role}: ({option.label}) {option.option}"))

# %% [markdown]
# ## Teaching the model: a belief memory
#
# A simulated user reads the trees of the first wrong answers and marks, in each, the premise the model believed
# most as **false**.  The corrections go into a SQLite file (a fresh one for this run); every question is then answered again, and every
# statement the search meets is looked up in the memory first — exactly, or by MiniLM similarity (cosine ≥ 0.9) —
# and a taught belief replaces the truth scorer's score.

# %%
memory_file = Path(tempfile.mkdtemp(prefix="entailer-memory-")) / "belief_memory.sqlite"
memory = BeliefMemory(memory_file, embed=SentenceEmbedder("minilm").encode)
demo = experiments.memory_demo(run, questions, components, settings, memory, teach=1 if smoke else 5,
                               progress=not smoke)
reopened = BeliefMemory(memory_file)
print(f"{len(reopened)} corrections stored in {memory_file} (reopened from disk)")
pd.DataFrame(demo["taught"])

# %%
changes = pd.DataFrame(demo["changes"])
changed = changes[changes.before != changes.after]
after = demo["after"]
after_correct = [float(p == g) for p, g in zip(after.predictions(), after.gold)]
before_correct = [float(p == g) for p, g in zip(run.predictions(), run.gold)]
results.extend(intervals.mean_rows({**base, "system": f"{SYSTEM}+memory"}, "accuracy", after_correct, seed))
results.extend(intervals.difference_rows(base, f"{SYSTEM}+memory", SYSTEM, "accuracy", after_correct, before_correct,
                                         seed))
results.add("obqa", split_name, f"{SYSTEM}+memory", "answers_changed", len(changed) / max(1, len(questions)),
            len(questions))
glue("n_taught", len(demo["taught"]), display=False)
glue("n_changed", len(changed), display=False)
glue("n_used", int((changes["memory beliefs used"] > 0).sum()), display=False)
glue("acc_before", f"{run.accuracy:.3f}", display=False)
glue("acc_after", f"{after.accuracy:.3f}", display=False)
changed

# %% [markdown]
# After {glue:text}`n_taught` corrections, a taught belief entered the search (a chosen premise or a candidate's)
# of {glue:text}`n_used` questions and {glue:text}`n_changed` answers changed; accuracy went from {glue:text}`acc_before` to
# {glue:text}`acc_after`.  Because the simulated user marks premises false without checking them, this measures
# the *mechanism* (corrections reach later proofs and can change answers), not the value of real corrections.
#
# The first corrected question, before and after:

# %%
if demo["taught"]:
    taught_id = demo["taught"][0]["question"]
    index = [q.id for q in questions].index(taught_id)
    before_answer, after_answer = run.answers[index], after.answers[index]
    label = before_answer.entailer.label
    display(TreeView(next(o.tree for o in before_answer.options if o.label == label), title=f"before: ({label})"))
    display(TreeView(next(o.tree for o in after_answer.options if o.label == label), title=f"after: ({label})"))
    print(f"answer before: {before_answer.entailer.label}; after: {after_answer.entailer.label}; "
          f"gold: {questions[index].answer_key}")

# %% [markdown]
# ## Summary
#
# The rules sort the wrong answers into the paper's categories (with their limits); the trees make each error
# inspectable, and the memory lets a correction made once change every later proof that meets the same belief.
