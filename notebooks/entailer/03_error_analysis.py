# %% [markdown]
# # Entailer: error analysis and a teachable memory
#
# **Papers and data:** {cite:p}`tafjord2022entailer,mihaylov2018obqa`.
#
# **Overview.** The Entailer paper read 100 wrong answers and sorted them into *belief* errors (a false premise
# believed true: 33%), *reasoning* errors (the premises do not entail the hypothesis: 47%, of which 20% are
# near-tautologies that restate it) and *dataset* errors (a flawed question or key: 20%).  This chapter sorts
# the wrong answers of `entailer-sampled-d1` on the experiments chapter's OBQA questions with automatic rules
# that approximate those categories, shows their trees, and then tries the paper's future work: a user marks a
# faulty belief false, the correction is stored in a memory, and later proofs use it.
#
# **What differs from the paper.** The paper's categories were assigned by people; ours by rules
# (`proofbook.entailer.analysis.error_category` states them).  Read the trees below to judge them.
# The memory is new (the paper only proposes it); its "user" is simulated: it marks the most believed premise
# of a wrong proof as false, without checking that the premise really is false.
#
# **Prerequisites and time.** Reads the cached models and runs of the experiments chapter (rebuilding them if
# the cache is empty), then re-runs the questions once with the memory.

# %% tags=["parameters"]
from typing import Literal

data_dir: str | None = None
split: Literal["dev", "test"] | None = None   # the evaluation splits this chapter can take
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"
example_id: str | None = None
sample_seed = 0
n_examples = 10

# %%
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from myst_nb import glue

from proofbook.core import intervals
from proofbook.core.examples import by_id, shuffled
from proofbook.entailer.trees import render_html
from proofbook.render.tables import FilterableTable
from proofbook.entailer import entailer_experiments
from proofbook.core import paper_claims
from proofbook.entailer.analysis import ERROR_CATEGORIES, errors, memory_demo, paper_population, share_rows
from proofbook.entailer.components import build_components
from proofbook.entailer.settings import Settings
from proofbook.entailer.datasets import evaluation_splits, read_questions
from proofbook.entailer.memory import BeliefMemory
from proofbook.entailer.trees import TreeView
from proofbook.render.chapter import start
from proofbook.index.dense import SentenceEmbedder
from proofbook.render.figures import save_figure

# %%
FULL_LIMIT = 100        # the experiments chapter's questions (its runs are read from the cache)
n_questions = limit or (4 if smoke else FULL_LIMIT)
SYSTEM = "entailer-sampled-d1"   # the paper's method: premises written by the generator
chapter = start("entailer/03_error_analysis", data_dir=data_dir, split=split, limit=n_questions, seed=seed,
                smoke=smoke, results_dir=results_dir, settings=Settings, record_settings="settings",
                example_id=example_id, sample_seed=sample_seed, n_examples=n_examples)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings
split_name = evaluation_splits(data_path, "obqa", split)[0]
components = build_components(data_path, settings)
questions = read_questions(data_path, "obqa", split_name)[:n_questions]
runs = entailer_experiments.run_systems(questions, components, settings, "obqa", split_name, progress=not smoke)
run = runs[SYSTEM]
wrong = errors(run, questions, components.facts)
print(f"OBQA {split_name}: {len(questions)} questions, {SYSTEM} accuracy {run.accuracy:.3f}, {len(wrong)} wrong")

# %% [markdown]
# ## Error categories

# %%
counts = pd.Series([e["category"] for e in wrong], dtype=object).value_counts().reindex(
    ERROR_CATEGORIES, fill_value=0)
shares = counts / max(1, len(wrong))
base = {"dataset": "obqa", "split": split_name, "system": SYSTEM}
results.extend(share_rows(wrong, base, seed=seed))
results.extend(share_rows(errors(runs["entailer-mixed-sampled-d1"], questions, components.facts),
                          {**base, "system": "entailer-mixed-sampled-d1"}, seed=seed))   # the stand-in's, for the report
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
# and of the paper's sample (human judges; the paper's near-tautologies are 20% of its reasoning errors).*
#
# ## The paper's population
#
# The paper classified only the questions where Entailer was wrong and direct question answering was right:
# the errors that reasoning added.  The report's claims E5 and E6 are decided on that population, for the
# paper's method (premises written by the generator alone, `entailer-sampled-d1`) and for the book's
# stand-in (the mixed premise pool, `entailer-mixed-sampled-d1`); "reasoning (all)" counts both reasoning categories,
# as the paper's share does.

# %%
population = {system: paper_population(runs[system], runs["direct"], questions, components.facts)
              for system in (SYSTEM, "entailer-mixed-sampled-d1")}
for system, cases in population.items():
    results.extend(share_rows(cases, {"dataset": "obqa", "split": split_name, "system": system},
                              "error_share@direct-right", seed))
    glue(f"n_population_{system}", len(cases), display=False)
for found in (paper_claims.chapter_verdict(c, results) for c in ("E5-belief-error-share", "E6-reasoning-error-share")):
    glue(found.claim.id.replace("-", "_"), paper_claims.verdict_text(found), display=False)
pd.DataFrame({system: pd.Series([e["category"] for e in cases], dtype=object).value_counts().reindex(
    ERROR_CATEGORIES, fill_value=0) for system, cases in population.items()})

# %% [markdown]
# *Table: error categories of the wrong answers on questions that direct answering gets right
# ({glue:text}`n_population_entailer-sampled-d1` for the paper's method,
# {glue:text}`n_population_entailer-mixed-sampled-d1` for the stand-in).*  About a third from false beliefs:
# {glue:text}`E5_belief_error_share`.  About half from reasoning: {glue:text}`E6_reasoning_error_share`.
#
# ## Wrong answers with their trees
#
# Every wrong answer with its category and the tree of the option Entailer chose, as a table you can filter
# (type words a row must contain) and sort (click a column); then one example per category (at most
# `n_examples`; the first in the
# order `sample_seed` shuffles them to; or the question named by `example_id`, an OpenBookQA id): the tree of
# the option Entailer chose and the tree of the gold option.

# %%
def chosen_tree(error):
    option = next(o for o in error["answer"].options if o.label == error["predicted"])
    return render_html(option.tree, title=f"({option.label}) {option.option}")


FilterableTable([{"question": e["question"].id, "stem": e["question"].stem, "chosen": e["predicted"],
                  "gold": e["question"].answer_key, "category": e["category"], "tree of the chosen option": chosen_tree(e)}
                 for e in wrong], html_columns=["tree of the chosen option"]) if wrong else "no wrong answer"

# %%
shown = set()
if example_id is not None:
    q = by_id(questions, example_id, what="question", where=f"the first {len(questions)} OBQA {split_name} questions")
    position = questions.index(q)
    picked = [{"question": q, "answer": run.answers[position], "predicted": run.predictions()[position],
               "category": next((e["category"] for e in wrong if e["question"] is q), "right answer")}]
else:
    picked = shuffled(wrong, sample_seed)
for error in picked:
    if error["category"] in shown or len(shown) >= n_examples:
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
# A simulated user reads the trees of the wrong answers in order and marks, in each, the premise the model
# believed most as **false** — never a sentence of the WorldTree fact corpus, which is true by construction (a
# wrong proof made only of such sentences is a reasoning error and has no belief to correct).  The corrections
# go into a SQLite file (a fresh one for this run); every question is then answered again, and every
# statement the search meets is looked up in the memory first — exactly, or by MiniLM similarity (cosine ≥ 0.9) —
# and a taught belief replaces the truth scorer's score.

# %%
memory_file = Path(tempfile.mkdtemp(prefix="entailer-memory-")) / "belief_memory.sqlite"
memory = BeliefMemory(memory_file, embed=SentenceEmbedder("minilm").encode)
demo = memory_demo(run, questions, components, settings, memory, teach=1 if smoke else 5,
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
glue("n_read", demo["read"], display=False)
glue("n_changed", len(changed), display=False)
glue("n_used", int((changes["memory beliefs used"] > 0).sum()), display=False)
glue("acc_before", f"{run.accuracy:.3f}", display=False)
glue("acc_after", f"{after.accuracy:.3f}", display=False)
changed

# %% [markdown]
# The user read {glue:text}`n_read` wrong answers to make {glue:text}`n_taught` corrections.  After them, a taught belief entered the search (a chosen premise or a candidate's)
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

# %% [markdown]
# ## Exercises
#
# ### 1. Predict the error categories
#
# Before running, read the rules of `error_category` in `proofbook.entailer.analysis`.  They are
# tried in the order `dataset`, `reasoning: near-tautology`, `reasoning`, `belief`.  Read also the trees of the
# method chapter.  Then write down which category will hold the largest share of the wrong answers, and whether
# `dataset` will be empty.
#
# Run
# `python -m proofbook run notebooks/entailer/03_error_analysis.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/entailer_03.ipynb`
# and compare with the category table and its figure (results rows `error_share/...`).  `n_examples` and
# `sample_seed` choose which wrong answers' trees the chapter shows, if you want to read more of them.
#
# :::{dropdown} Hint
# The `reasoning` rule fires when the chosen premise set's inference score is below every one of its premise
# scores.  Which scorer do you expect to be more generous to the premises this small generator writes?  The truth
# scorer reads each premise with retrieved facts; the entailment scorer must judge whether they entail the
# hypothesis.
# :::

# %% [markdown]
# ### 2. Proofs the paper would not have kept
#
# When every top-level candidate of an option is rejected, the search still scores the option by the best
# rejected candidate.  The root's note then says "every candidate rejected; scored by the best rejected one".
# Add the cell below right after the cell that starts `counts = pd.Series(` (the category table):
#
# ```python
# chosen = [next(o for o in e["answer"].options if o.label == e["predicted"]) for e in wrong]
# rejected = ["every candidate rejected" in o.tree.note for o in chosen]
# pd.crosstab(pd.Series([e["category"] for e in wrong], name="category"), pd.Series(rejected, name="all rejected"))
# ```
#
# Before running, predict what share of the wrong answers rest on such a proof, and in which categories the
# rules put them.  Then count the same note among the correct answers
# (`[a.entailer.tree.note for a, p, g in zip(run.answers, run.predictions(), run.gold) if p == g]`): is the share
# different?
#
# :::{dropdown} Hint
# A candidate is rejected when any premise score or its inference score is below `SearchConfig.threshold`.
# Compare that rule with the tests `error_category` applies to the chosen tree.
# :::

# %% [markdown]
# ### 3. Greedy instead of sampled
#
# Copy the notebook (`cp notebooks/entailer/03_error_analysis.py /tmp/mine/entailer_03.py`).  Change
# `SYSTEM = "entailer-sampled-d1"` to `SYSTEM = "entailer-greedy-d1"`, and run the copy with
# `python -m proofbook run /tmp/mine/entailer_03.py -p results_dir /tmp/mine -p figures_dir /tmp/mine`.  The
# greedy run is read from the experiments chapter's cache; only the memory part searches again.
#
# Before running, predict the number of wrong answers (from the experiments chapter's accuracy table).  Predict
# also whether the `reasoning` share rises or falls with one greedy candidate per option instead of k sampled
# ones.
#
# :::{dropdown} Hint
# With one candidate, the top-level pool is that candidate, kept even when rejected.  With k candidates the
# search keeps the one with the best (∏ s_d(p_i)) · s_e(P ⊢ H): which of the two factors does that choice tend
# to push up?
# :::

# %% [markdown]
# ### 4. How corrections are matched
#
# `BeliefMemory` matches a statement to a stored correction exactly (normalised text).  Given an `embed`
# function, it also matches by MiniLM cosine of at least `threshold` (`DEFAULT_THRESHOLD` in
# `proofbook.entailer.memory`).  In your copy, change
# `memory = BeliefMemory(memory_file, embed=SentenceEmbedder("minilm").encode)` to
# `memory = BeliefMemory(memory_file)` (exact matches only).  For a second run, make the line
# `memory = BeliefMemory(memory_file, embed=SentenceEmbedder("minilm").encode, threshold=0.75)`.
#
# Before each run, predict the two glued counts: questions whose search a taught belief entered, and answers
# changed.  What is the smallest value the first can take with exact matching, and how does it grow as the
# threshold falls?  Check the `memory beliefs used` column of the changes table as well.
#
# :::{dropdown} Hint
# The second search uses the same seed and the same hypotheses as the first.  So the questions the corrections
# came from generate the same premises again.  The module docstring of `proofbook.entailer.memory` warns what a
# loose threshold can match.
# :::

# %% [markdown]
# ### 5. More corrections
#
# In your copy, change `teach=1 if smoke else 5` in the `memory_demo` call to `teach=20`.  The simulated user
# goes through the wrong answers in order.  In each it marks the premise the model believed most
# (`strongest_premise`, never a fact-corpus sentence) as false, without checking it.  It stops when it has made
# 20 corrections or run out of wrong answers.
#
# Before running, predict how many of the changed answers move to the gold option rather than to another wrong
# one.  Predict also whether a question answered correctly before can become wrong.  Check the `before`, `after`
# and `gold` columns of the changed-answers table.  Check also the results row
# `entailer-sampled-d1+memory-vs-entailer-sampled-d1` (metric `accuracy`, with its paired interval).
#
# :::{dropdown} Hint
# A premise taught false scores 0, so every candidate containing it is rejected and its ranking score is 0.  The
# option falls back on its other candidates, and the answer goes to whichever option now has the best proof.  The
# correction says nothing about which option that is.  Similarity matching can also reach the premises of
# questions that were answered correctly.
# :::

# %% [markdown]
# ### 6. Three wrong answers sorted by hand (no computer needed)
#
# Three questions answered wrongly.  For each, the predicted option's hypothesis and its proof (premises with
# their scores, and the inference score s_e):
#
# 1. "a nail is attracted to a magnet": "a magnet attracts iron" (0.9), "a nail is made of iron" (0.8); s_e 0.6.
# 2. "the moon makes its own light": "the moon is a star" (0.55), "a star makes its own light" (0.9); s_e 0.95.
# 3. "plants need sunlight to grow": "plants need sunlight to grow" (0.9), "sunlight is light" (0.8); s_e 0.9.
#
# The gold options say something else entirely.  Using the rules of `error_category` (tried in the order
# `dataset`, `reasoning: near-tautology`, `reasoning`, `belief`), put each in a category.  Which of the three would
# a reader of the tree call an inference error, and which a false belief?
#
# :::{dropdown} Hint
# Check in a cell:
# ```python
# from proofbook.entailer.analysis import error_category
# from proofbook.entailer.search import OptionProof, QuestionAnswer
# from proofbook.entailer.trees import ProofNode
#
# def wrong_answer(hypothesis, premises, entailment):
#     tree = ProofNode(hypothesis, 0.5, entailment=entailment, premises=[ProofNode(p, s) for p, s in premises])
#     gold = ProofNode("the answer is something else entirely", 0.5)
#     return QuestionAnswer("q", [OptionProof("A", hypothesis, hypothesis, tree),
#                                 OptionProof("B", gold.statement, gold.statement, gold)], seconds=0.0)
#
# cases = [("a nail is attracted to a magnet", [("a magnet attracts iron", 0.9), ("a nail is made of iron", 0.8)], 0.6),
#          ("the moon makes its own light", [("the moon is a star", 0.55), ("a star makes its own light", 0.9)], 0.95),
#          ("plants need sunlight to grow", [("plants need sunlight to grow", 0.9), ("sunlight is light", 0.8)], 0.9)]
# [error_category(wrong_answer(*case), gold_label="B", predicted="A") for case in cases]
# ```
# :::
