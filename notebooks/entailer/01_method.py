# %% [markdown]
# # Entailer: the method on one question
#
# **Papers and data:** {cite:p}`tafjord2022entailer,dalvi2021entailmentbank,mihaylov2018obqa`.
#
# **Overview.** Entailer (Tafjord, Dalvi Mishra & Clark, EMNLP 2022) answers a multiple-choice science
# question by *proving* each answer option.  Every option becomes a declarative hypothesis H; one model with
# three behaviours then searches backwards for premises that entail H:
#
# | behaviour | input (official format) | output |
# |---|---|---|
# | H → P, premise generation | `$proof$ ; $hypothesis$ = H` | `$proof$ = [PREMISE] p1 [PREMISE] p2` |
# | H → s_d, "is H true?" | `$valid$ ; $hypothesis$ = H` | `$valid$ = true` / `false` |
# | PH → s_e, "do the premises entail H?" | `$implied$ ; $hypothesis$ = H ; $proof$ = [PREMISE] ...` | `$implied$ = true` / `false` |
#
# Three scores, then, each between 0 and 1: the *direct* (truth) score s_d of one statement, the *inference*
# (entailment) score s_e of premises P for H, and the *proof* score s_r = (∏ s_d(p_i)) · s_e(P ⊢ H) of a
# premise set.  One search step samples k premise sets, rejects any set with a premise score s_d or an
# inference score s_e below {glue:text}`rejection_threshold`, and ranks the rest by s_r.  The answer is the option whose hypothesis has the
# best proof.  This chapter follows one real OpenBookQA question through every step.
#
# **Which question.** Chosen by a rule, not by hand (`proofbook.entailer.tree_showcase`): the questions
# of the split are shuffled by `sample_seed`, and the chapter follows the first on which
# {glue:text}`showcase_rule`.  Set `example_id` to an OpenBookQA question id (e.g. `7-980`) to follow any
# other question of the split.
#
# **What differs from the paper.** The paper's three behaviours are one T5-11B model fine-tuned on
# EntailmentBank with crowdsourced negatives.  No pretrained seq2seq or NLI model can be installed here, so the
# behaviours are three small models trained on this machine: a scratch BART premise generator (trained on
# EntailmentBank's one-step entailments in the official format, from the hypothesis alone) and two MiniLM
# cross-encoders (truth and entailment) trained on EntailmentBank, OpenBookQA train and SciTail/SICK with
# negatives we build (`proofbook.entailer.training_data` describes them).  The truth scorer reads each
# statement together with the two WorldTree facts BM25 retrieves for it, and learns from *groups*: the
# options of one OpenBookQA training question, or an EntailmentBank statement with its perturbed and negated
# copies, each group with one true member (a multiple-choice loss).  A local `allenai/entailer-large` folder
# can replace all three (`EntailerCheckpoint`).
#
# **Prerequisites and time.** The models are trained on first use and cached (`.cache/proofbook`); the
# training time is shown below (zero when loaded from the cache).

# %% [markdown]
# :::{admonition} Terms used in this chapter
# :class: tip
# hypothesis H
# : a question and one answer option turned into one declarative sentence, which the search tries to prove.
#
# premise
# : a sentence that, with the other premises of its set, should entail H; premises may be proved in turn.
#
# direct score s_d
# : the truth scorer's belief that one sentence is true, read from the sentence alone (with two retrieved facts).
#
# entailment score s_e
# : the entailment scorer's belief that a premise set entails H.
#
# proof score s_r
# : the product of the premises' scores and s_e; a tree's score at its root.
#
# rejection threshold
# : a premise set with any s_d or its s_e below it ({glue:text}`rejection_threshold`) is dropped before ranking.
#
# greedy, sampled, depth
# : one premise set from the generator's most likely output, or the best of k sampled ones; how many levels
#   of premises the search may add below H.
#
# direct QA, faithful
# : answering by s_d of each hypothesis alone; an answer is *faithful* when it follows from the tree shown for
#   it: premises the model believes and an entailment it believes, not a score the tree does not explain.
# :::

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
import matplotlib.pyplot as plt
import pandas as pd
from IPython.display import display
from myst_nb import glue

from proofbook.core import intervals
from proofbook.entailer import entailer_experiments
from proofbook.entailer.components import build_components
from proofbook.entailer.settings import Settings
from proofbook.entailer.datasets import evaluation_splits, read_questions
from proofbook.entailer.search import answer_question
from proofbook.entailer.tree_showcase import showcase_question
from proofbook.entailer.trees import TreeView
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure
from proofbook.render.mechanisms import tree_figure

chapter = start("entailer/01_method", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=Settings, record_settings="settings", example_id=example_id,
                sample_seed=sample_seed, n_examples=n_examples)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings
splits = evaluation_splits(data_path, "obqa", split)
print(f"data: {data_path}; OBQA split {splits[0]}; settings: {settings}")

# %% [markdown]
# ## Training the behaviours
#
# Every training set is cleaned of near-duplicates of the evaluation statements first (counts below).

# %%
components = build_components(data_path, settings)
pd.DataFrame(components.data_report).set_index("training set")

# %%
training = pd.DataFrame({"examples": components.data_sizes,
                         "seconds (0 = from the cache)": components.train_seconds,
                         "held-out accuracy": {k: v["accuracy"] for k, v in components.held_out_accuracy.items()},
                         "held-out group accuracy": {k: v.get("group accuracy") for k, v in
                                                     components.held_out_accuracy.items()}})
training

# %% [markdown]
# ## Hypotheses: rules or a trained writer?
#
# Both writers turn EntailmentBank dev questions and answers into hypotheses, compared with the gold
# hypotheses (token F1; exact match is near zero for any writer because the gold hypotheses are free rewrites).
# The rest of the book uses the writer with the higher F1.

# %%
writer_table = pd.DataFrame([{k: v for k, v in vars(s).items() if k != "per_question_f1"}
                             for s in components.writer_scores]).set_index("writer")
for score in components.writer_scores:
    base = {"dataset": "entailmentbank", "split": "dev", "system": f"hypotheses-{score.writer}"}
    for row in intervals.mean_rows(base, "token_f1", score.per_question_f1, seed):
        results.add(**row)
    results.add("entailmentbank", "dev", f"hypotheses-{score.writer}", "exact_match", score.exact_match, score.n)
writer_table["token_f1 95% interval"] = [
    "[{:.3f}, {:.3f}]".format(*intervals.mean_interval(s.per_question_f1, seed)) for s in components.writer_scores]
glue("writer_used", components.writer.name, display=False)
glue("writer_f1_rules", f"{writer_table.loc['rules', 'token_f1']:.3f}", display=False)
glue("writer_f1_learned", f"{writer_table.loc['learned', 'token_f1']:.3f}", display=False)
writer_table.style.format("{:.3f}", subset=["exact_match", "token_f1"])

# %% [markdown]
# The rules reach a token F1 of {glue:text}`writer_f1_rules`, the trained writer {glue:text}`writer_f1_learned`;
# the chapters use the **{glue:text}`writer_used`** writer.
#
# ## One question, step by step
#
# Question {glue:text}`question_id`: {glue:text}`showcase_text`.

# %%
chosen = showcase_question(read_questions(data_path, "obqa", splits[0]), components, settings,
                           example_id, sample_seed, limit=3 if smoke else 12)
question, deep_answer = chosen.example
glue("showcase_rule", chosen.rule, display=False)
glue("showcase_text", chosen.text, display=False)
glue("question_id", question.id, display=False)
[hypotheses] = entailer_experiments.write_hypotheses([question], components.writer)
print(question.stem)
print("why this question:", chosen.text)
pd.DataFrame({"option": [o.text for o in question.options], "hypothesis": hypotheses,
              "gold": [o.label == question.answer_key for o in question.options]},
             index=[o.label for o in question.options])

# %% [markdown]
# The paper samples premise sets at temperature 2.0 with top-p 0.95.  That works for a large, confident
# model; for our small generator it flattens the distribution so much that the samples stop being premise sets
# at all.  Here is the count of well-formed samples (k per option) at the paper's setting and at the temperature
# this book uses:

# %%
sampling = pd.DataFrame(entailer_experiments.sampling_check(components, hypotheses, settings.k, seed))
glue("wellformed_paper", f"{sampling['well-formed'][0]}/{sampling['samples'][0]}", display=False)
glue("wellformed_ours", f"{sampling['well-formed'][1]}/{sampling['samples'][1]}", display=False)
sampling

# %% [markdown]
# ({glue:text}`wellformed_paper` well-formed at temperature 2.0, {glue:text}`wellformed_ours` at 1.0.)
#
# Entailer with k sampled premise sets at the top level (nucleus sampling, temperature 1.0, top-p 0.95) and a
# depth limit of 1 (`entailer-sampled-d1`).  The candidates are written by the premise generator, as in the
# paper; the generator trained here writes mostly false or garbled ones (above), and the scorers judge them as
# they are.  The experiments chapter also runs a stand-in, `entailer-mixed-sampled-d1`, whose candidates come
# from a **mixed** source (`proofbook.entailer.proposals`): the generator's sampled sets joined by a pool of
# WorldTree facts retrieved for the hypothesis (BM25 and MiniLM, single facts and pairs), all ranked by the
# entailment scorer, and k sets drawn from that pool by nucleus sampling over its scores -- a departure, in
# which retrieval proposes true sentences that the same scorers then judge.  For each option: every candidate
# premise set with its premise scores s_d, its inference score s_e and its ranking score, the rejected ones
# marked with the reason; then the tree that was kept.

# %%
config = settings.search("entailer-sampled-d1")
glue("rejection_threshold", config.threshold, display=False)
answer = answer_question(question.id, [(o.label, o.text) for o in question.options], hypotheses,
                         components.behaviours(settings.premise_source), config)
for option in answer.options:
    display(TreeView(option.tree, candidates=True, title=f"({option.label}) {option.option}"))

# %%
scores = pd.DataFrame({"direct s_d(H)": [o.direct for o in answer.options],
                       "proof score s_r(H)": [o.proof_score for o in answer.options]},
                      index=[o.label for o in answer.options])
fig, ax = plt.subplots(figsize=(6, 3))
scores.plot.bar(ax=ax, rot=0)
ax.set_ylim(0, 1)
ax.set_xlabel("option")
ax.set_title(f"OBQA {question.id}: direct and proof scores per option")
save_figure(fig, figures_dir, "entailer", "method_option_scores")
plt.show()

# %% [markdown]
# *Figure: the direct score s_d and the proof score s_r of each option's hypothesis for the question above
# (sampled search, k as in the settings, depth 1; models trained here).*

# %%
results.add("obqa", splits[0], "entailer-sampled-d1", "seconds_per_question", answer.seconds, 1)
glue("answer_label", answer.entailer.label, display=False)
glue("answer_text", answer.entailer.option, display=False)
glue("gold_label", question.answer_key, display=False)
glue("direct_label", answer.direct.label, display=False)
glue("seconds_one", f"{answer.seconds:.2f}", display=False)
print(f"Entailer answers ({answer.entailer.label}) {answer.entailer.option}; direct answers ({answer.direct.label}); "
      f"gold ({question.answer_key}); {answer.seconds:.2f} s")

# %% [markdown]
# Entailer answers **({glue:text}`answer_label`) {glue:text}`answer_text`** (gold: {glue:text}`gold_label`;
# the direct truth scorer alone picks {glue:text}`direct_label`).  The whole search over all options took
# {glue:text}`seconds_one` s on this machine's CPU (the paper: about 80 s on a 48 GB GPU with T5-11B).
# The tree behind that answer, drawn as a graph:

# %%
picked = next(option for option in answer.options if option.label == answer.entailer.label)
save_figure(tree_figure(picked.tree), figures_dir, "entailer", "method_tree")
plt.show()

# %% [markdown]
# *Figure: the entailment tree of the answer Entailer picked: the hypothesis on top with its direct score s_d
# and, if it kept a proof, its proof score s_r; the premises below with their own s_d; the inference score
# s_e on the edges.  A node without premises is believed directly.*
#
# ## Backward chaining beyond one step
#
# With a depth limit of 3 (`entailer-sampled-d3`), a premise is itself expanded when a proof of it scores
# above the premise's own belief.  The tallest tree of this question under that search:

# %%
tallest = max(deep_answer.options, key=lambda option: option.tree.height)
glue("tallest_height", tallest.tree.height, display=False)
glue("deep_answer", f"({deep_answer.entailer.label}) {deep_answer.entailer.option}", display=False)
TreeView(tallest.tree, title=f"({tallest.label}) {tallest.option}: height {tallest.tree.height}")

# %%
save_figure(tree_figure(tallest.tree), figures_dir, "entailer", "method_deep_tree")
plt.show()

# %% [markdown]
# This tree has {glue:text}`tallest_height` level(s) of proof below the hypothesis: each expanded premise is
# one the search believed less than a proof of it.  With depth 3, Entailer answers {glue:text}`deep_answer`.
#
# ## Summary
#
# Each option's answer comes with a tree whose every node carries its scores, so a reader can see *why* the
# model prefers it, and where a wrong belief or a weak inference entered.  The next chapter runs every system
# of the paper on OpenBookQA and QASC; the last one reads the wrong answers and lets a user correct beliefs.

# %% [markdown]
# ## Exercises
#
# ### 1. A proof score by hand (no computer needed)
#
# From the figure of the tree Entailer picked (or, if its root has no premises, the tallest tree's figure),
# read the premises' scores and the inference score s_e on the root's edges.  Compute the root's proof score
# s_r = (∏ s(p_i)) · s_e by hand, where s(p) is a premise's own s_r if it was expanded, else its s_d, and
# compare it with the s_r in the root's box.  Then decide: would this premise set survive the rejection
# threshold of 0.5?  And does the option's proof score beat the other options' in the figure of direct and
# proof scores?
#
# :::{dropdown} Hint
# The figures round to two decimals.  Check in a cell:
# `[(p.statement, p.score) for p in picked.tree.premises], picked.tree.entailment, picked.tree.proof_score`.
# `ProofNode.proof_score` in `proofbook.entailer.trees` is the formula, and `ProofNode.score` picks s_r or s_d.
# :::

# %% [markdown]
# ### 2. Another question
#
# Rerun the chapter on another OpenBookQA dev question:
# `python -m proofbook run notebooks/entailer/01_method.py -p example_id 7-57 -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/entailer_01.ipynb`
# (any `ID` of `openbookqa/dev.tsv` in the data directory works).  Or try a question of your own with
# `python -m proofbook explain entailer "QUESTION" --options "first option" "second option" ...`, which uses the
# models this chapter cached.
#
# Before running, read the question and its options and write down:
#
# - which option the direct truth scorer will prefer;
# - whether Entailer's proof will pick the same one;
# - whether any candidate premise set of the gold option will survive the rejection rule.
#
# Check the hypothesis table, the trees with their candidates, the figure of direct and proof scores per option,
# and the sentence "Entailer answers ...".
#
# :::{dropdown} Hint
# The direct score reads the hypothesis together with the WorldTree facts BM25 retrieves for it.  So an option
# whose words match a stored fact starts with an advantage.  The proof score multiplies premise scores and an
# inference score, so one weak premise sinks a proof however good the rest is.
# :::

# %% [markdown]
# ### 3. The rejection threshold
#
# A candidate premise set is rejected when one of its premise scores or its inference score is below
# `SearchConfig.threshold` (the paper's 0.5).  Copy the notebook
# (`cp notebooks/entailer/01_method.py /tmp/mine/entailer_01.py`).  In the copy change
# `config = settings.search("entailer-sampled-d1")` to
# `config = dataclasses.replace(settings.search("entailer-sampled-d1"), threshold=T)` (add `import dataclasses`).
# Run it with `python -m proofbook run /tmp/mine/entailer_01.py -p results_dir /tmp/mine -p figures_dir /tmp/mine`
# for T = 0.0, 0.3, 0.7 and 1.0.
#
# Before running, predict for which of these values the tree kept for an option can differ from the one kept at
# T = 0.0.  Check the candidates of each tree (rejected ones carry their reason), the notes on the roots and the
# proof scores in the figure.
#
# :::{dropdown} Hint
# Read how `_expand_level` in `proofbook.entailer.search` chooses at the top level: among the survivors if there
# are any, otherwise among all candidates.  Which pool does it choose from when nothing is rejected, and when
# everything is?
# :::

# %% [markdown]
# ### 4. How hot can the sampler run?
#
# The sampling table compares the paper's temperature 2.0 with this book's `Settings.temperature`.  Add the cell
# below right after the cell that starts `sampling = pd.DataFrame(` (leave the original call alone: the glued
# sentence reads its first two rows):
#
# ```python
# pd.DataFrame(entailer_experiments.sampling_check(components, hypotheses, settings.k, seed,
#              settings=((2.0, 0.95), (1.5, 0.95), (1.2, 0.95), (1.0, 0.95), (0.7, 0.95), (2.0, 0.5))))
# ```
#
# Before running, sketch the `well-formed` column against temperature: where does it start to fall?  Does
# lowering top-p to 0.5 at temperature 2.0 bring the samples back?  Read the `example` column too: a well-formed
# sample can still be nonsense.
#
# :::{dropdown} Hint
# Temperature flattens the whole next-token distribution; top-p then keeps the smallest set of tokens whose
# probabilities add up to p.  A sample counts as well formed only if it is a proof output with at least one
# `[PREMISE]` marker (`parse_premises` in `proofbook.entailer.formats`).
# :::

# %% [markdown]
# ### 5. Deeper trees
#
# Add the cell below right after the cell that starts `scores = pd.DataFrame(` (the scores figure under the
# trees).  It proves the same hypotheses to depth 3:
#
# ```python
# deep = answer_question(question.id, [(o.label, o.text) for o in question.options], hypotheses,
#                        components.behaviours(settings.premise_source), settings.search("entailer-sampled-d3"))
# pd.DataFrame({"proof d1": [o.proof_score for o in answer.options],
#               "proof d3": [o.proof_score for o in deep.options],
#               "height d3": [o.tree.height for o in deep.options]}, index=[o.label for o in answer.options])
# ```
#
# Before running, predict: can an option's proof score be lower at depth 3 than at depth 1?  Will any tree reach
# height 3?  Can the answer change?  Display `TreeView(deep.options[0].tree)` to read the notes on the nodes that
# were not expanded further.
#
# :::{dropdown} Hint
# Read `_settle` in `proofbook.entailer.search` and `ProofNode.score` in `proofbook.entailer.trees`.  When does a
# premise keep its own proof, and what score does it then pass up?  The top-level premise set is chosen before
# any deeper level is searched.
# :::

# %% [markdown]
# ### 6. What the truth scorer reads
#
# The direct score s_d(H) comes from a MiniLM cross-encoder.  It reads the hypothesis together with the
# `Settings.truth_facts` WorldTree facts BM25 retrieves for it (`TruthContext`).  Add a cell:
#
# ```python
# context = components.model.truth_context
# with_facts = components.model.truth_scores(hypotheses)
# without = components.model.truth_scorer.predict_proba([(h, "") for h in hypotheses], progress=False)[:, 1]
# pd.DataFrame({"facts": [context.pair(h)[1] for h in hypotheses], "s_d with facts": with_facts,
#               "s_d without facts": without}, index=[o.label for o in question.options])
# ```
#
# Before running, predict whether the facts retrieved for the gold option state (or nearly state) its
# hypothesis.  Predict also whether the ranking of the options survives without the facts.  This scores a model
# trained with facts on inputs without them.  To train one without facts, set
# `settings = dataclasses.replace(settings, truth_facts=0)` in a copy, right after the line that starts
# `data_path, results, settings =` (add `import dataclasses`; this retrains the truth scorer only).
#
# :::{dropdown} Hint
# The truth-scorer paragraph of the `proofbook.entailer.entailer_experiments` docstring says what a MiniLM scorer
# learnt without facts.  Compare the facts retrieved for the different options: are they about the question, or
# about each option's own words?
# :::
