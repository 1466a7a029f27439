# %% [markdown]
# # AdMIRaL: retrieval experiments
#
# **Papers and data:** {cite:p}`aly2022admiral,jiang2020hover,aly2021feverous,xiong2021mdr,efron1993bootstrap`.
#
# **Overview.** This chapter runs every retrieval system of AdMIRaL's Table 2 and Table 3 that this machine can
# run, on the same evaluation claims.  It tests the paper's claim C1: autoregressive multi-hop retrieval finds
# documents that the initial retrieval misses.
#
# | system | what it is |
# |---|---|
# | `bm25` | BM25 over whole pages (AdMIRaL's reference config k1=0.9, b=0.1), top 100 |
# | `initial` | iteration 1: BM25 + titles generated from the claim alone (the GENRE step), reranked by the sentence reranker |
# | `admiral` | the paper's method: iteration 1, then one autoregressive hop conditioned on the claim and the selected sentences, decoding over the prefix tree of *all* corpus titles (the title models have a copy head, below) |
# | `admiral-top1` | only the best beam of the hop (paper Table 3, "Top-1") |
# | `admiral-notjoint` | a hop model trained and decoded without sentence pointers (paper Table 3, "Not-joint") |
# | `admiral-nocopy` | `admiral` with a hop model that has no copy head (the same iteration 1) |
# | `admiral-mentions` | the stand-in: `admiral` with each hop's tree narrowed to the titles its input sentences mention (see below); also `admiral-mentions-top1`, `admiral-mentions-notjoint` |
# | `mentions-only` | `admiral-mentions` without the title model: the same narrowed candidate titles of the hop, ranked by the sentence reranker's best sentence of each page |
# | `dense-mdr` | an MDR-style dense two-hop baseline with pretrained MiniLM sentence embeddings (no training) |
#
# **Prerequisites and time.** The models are trained on first use and cached (`.cache/proofbook`).  A clean
# run takes the training time reported below plus a few minutes of evaluation.

# %% [markdown]
# ## What differs from the paper
#
# They are stated again next to each number.
#
# - **Closed corpora.** The paper retrieves from all of Wikipedia.  Here HoVer retrieves from the pages pooled
#   from the gold pages of all HoVer dev claims in the data directory.  FEVEROUS-S retrieves from its pooled gold
#   sentences, alone (`feverous_s`, nearly trivial for BM25) and with every HoVer and Fool Me Twice page added as
#   distractors (`feverous_s+distractors`).  Recall numbers are therefore **not comparable** with the paper's;
#   the *gains* over the initial retrieval are what we compare.
# - **Small models trained here.** The paper's reranker is monoT5 and its generator GENRE/BART-large.  Here the
#   reranker is a MiniLM cross-encoder and the title generator a small seq2seq model with a copy head, trained on
#   this machine.  They
#   learn from the 60% training part of the HoVer and FEVEROUS-S dev claims (the official training sets are not
#   available).
# - **Evaluation claims** are the 40% of the dev claims chosen by `int(sha1(id), 16) % 5 >= 3`, restricted to
#   those whose gold pages are all in the corpus; `limit` of them per dataset (documented below).

# %% [markdown]
# ### Title models that can copy
#
# The paper's hop model decodes over the prefix tree of all corpus titles.  GENRE writes a title it reads in its
# input (an entity named in the claim or in a retrieved sentence) because BART-large learned to copy in
# pre-training on Wikipedia.  A small seq2seq model trained from scratch on about a thousand claims does not learn
# that: it learns a prior over titles and, over the full tree, ranks the gold title of HoVer's second hop first
# for none of the held-apart claims.  So the book's title models have a **copy head** (a pointer-generator, See et
# al. 2017; `proofbook.models.pointer.CopyBart`): at every step the next-token distribution is a learned mix of
# generating a token and copying one of the input's tokens, and the prefix tree then allows only tokens that
# continue a title, as before.  The search space stays the paper's: every corpus title, at every hop.
# `admiral-nocopy` runs the same hop with a model trained without the copy head, and the section *The copy head,
# measured* compares the two on training claims that model selection holds apart.
#
# ### Linked titles at each hop
#
# The chapter also runs a stand-in, `admiral-mentions`, that narrows each hop's tree to the titles *mentioned*
# in its input sentences (our closed-corpus stand-in for hyperlinks).  The model still picks, orders and points,
# and the new pages' sentences are reranked with the pointed sentence as context.
#
# `admiral`, the paper's setting, runs on the datasets of the paper's claims, HoVer and FEVEROUS-S with
# distractors (`retrieval_experiments.FULLTRIE_DATASETS`), to fit the time budget; the stand-in runs on all three.

# %% tags=["parameters"]
from typing import Literal

data_dir: str | None = None
split: Literal["dev"] | None = None   # the evaluation splits this chapter can take
limit: int | None = None
seed = 0
seeds = 1     # training seeds: every component is trained with seed, seed + 1, ... (the book's results: 3)
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from myst_nb import glue

from proofbook.core import paper_claims
from proofbook.core import intervals
from proofbook.render.chapter import start
from proofbook.admiral.retrieval import retrieval_experiments
from proofbook.admiral.retrieval.tasks import load_task, smoke_task
from proofbook.render.figures import bars_with_intervals, save_figure

n_claims = limit or (retrieval_experiments.SMOKE_LIMIT if smoke else retrieval_experiments.FULL_LIMIT)
splits = [split] if split else ["dev"]
if splits != ["dev"]:
    raise ValueError(f"the retrieval datasets have one labelled split here, 'dev' (got {split!r})")
config = retrieval_experiments.book_config(smoke)
training_seeds = retrieval_experiments.training_seeds(seed, seeds)
chapter = start("admiral/02_experiments", data_dir=data_dir, split=split, limit=n_claims, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=retrieval_experiments.TrainingSettings, record_settings="training",
                seeds=seeds)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings
print(f"data: {data_path}; {n_claims} evaluation claims per dataset; training seeds {training_seeds}; "
      f"training settings: {settings}")

# %% [markdown]
# ## The tasks
#
# Each task is a corpus and the claims split by the fixed rule.  "Not evaluable" claims have a gold page that
# is missing from the pooled corpus (for HoVer: pages come only from the SUPPORTED claims' gold-paragraph
# file); they are left out of training and evaluation and counted here.

# %%
tasks = {name: load_task(name, data_path) for name in ("hover", "feverous_s", "feverous_s+distractors")}
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    tasks = {name: smoke_task(task, seed=seed) for name, task in tasks.items()}
pd.DataFrame([t.summary() for t in tasks.values()]).set_index("dataset")

# %% [markdown]
# ## Training the components
#
# One sentence reranker and one title model per hop (hop 0 = the GENRE step; hop 1 = the first
# autoregressive hop; plus hop 1 without pointers for the ablation, and hop 1 without the copy head for
# comparison), trained on the training claims of HoVer and FEVEROUS-S together; model selection uses 10% of
# those training claims, never evaluation claims.

# %%
train_tasks = [tasks["hover"], tasks["feverous_s"]]
components = retrieval_experiments.train_components(train_tasks, settings)
train_seconds = pd.Series(components.train_seconds, name="seconds (0 if loaded from the cache)").round(1)
train_seconds.to_frame()

# %% [markdown]
# ### The copy head, measured
#
# Before the copy head was adopted it was measured where model selection looks, never on evaluation claims: on
# the 10% of the training claims held apart, the hop-1 model reads the claim and the gold sentences of one gold
# page and writes the next title over the full prefix tree of its corpus (beam {glue:text}`hop_beam`).  A hit
# is a gold page not yet in its input, as the best beam (`hop1_top1`) or among the first five (`hop1_top5`);
# `hop1_copyable` is the share of inputs in which a gold title is written.

# %%
copy_rows = [row for name in ("hover", "feverous_s")
             for row in retrieval_experiments.title_accuracy_rows(
                 tasks[name], retrieval_experiments.title_models(components, hop=1), 1, settings, beam=config.beam)]
for row in copy_rows:
    results.add(**row)
glue("hop_beam", config.beam, display=False)


def held_apart(dataset, system, metric):
    return results.value(dataset, "train-held-apart", system, metric)


for metric in ("hop1_top1", "hop1_top5"):
    glue(f"copy_{metric}", f"{held_apart('hover', 'copy', metric):.3f}", display=False)
    glue(f"nocopy_{metric}", f"{held_apart('hover', 'no-copy', metric):.3f}", display=False)
    glue(f"copy_gain_{metric}", "{:+.3f} (95% interval {:+.3f} to {:+.3f})".format(
        *(held_apart("hover", "copy-vs-no-copy", metric + bound) for bound in ("", intervals.LOW, intervals.HIGH))),
        display=False)
glue("copyable_hover", f"{held_apart('hover', 'gold', 'hop1_copyable'):.0%}", display=False)
glue("n_held_apart_hover", next(r["n"] for r in copy_rows if (r["dataset"], r["system"], r["metric"])
                                == ("hover", "copy", "hop1_top1")), display=False)
intervals.interval_table(copy_rows, ["hop1_top1", "hop1_top5", "hop1_copyable"])

# %% [markdown]
# *Table: hop-1 title accuracy on the held-apart training claims (95% bootstrap intervals), the model with the
# copy head (`copy`, the book's) and without it (`no-copy`), and the share of inputs that hold a gold title
# (`gold`).*
#
# On HoVer's {glue:text}`n_held_apart_hover` held-apart claims, a gold title is written in
# {glue:text}`copyable_hover` of the hop's inputs.  The model with the copy head puts a gold title first for
# {glue:text}`copy_hop1_top1` of them and among its first five for {glue:text}`copy_hop1_top5`; without it,
# {glue:text}`nocopy_hop1_top1` and {glue:text}`nocopy_hop1_top5` (difference at top-1:
# {glue:text}`copy_gain_hop1_top1`, paired over the same claims).

# %% [markdown]
# ## Running every system
#
# Every system runs on the same evaluation claims once per training seed: the components trained above (seed
# {glue:text}`first_seed`) and, when the chapter runs with more than one seed (`seeds`), the same components
# trained again with each further seed.  A value below is then the mean over the seeds, and its interval the
# two-level bootstrap over seeds and claims (`intervals.seeded_paired_difference`), so it covers the spread
# between trainings as well as the choice of claims; with one seed it is the bootstrap over claims alone.  The
# further seeds run on the datasets of the paper's claims (HoVer and FEVEROUS-S with distractors,
# `retrieval_experiments.FULLTRIE_DATASETS`); FEVEROUS-S alone, which no claim reads and BM25 nearly solves,
# runs with the first seed only, so its values and intervals are those of one training.  The section
# *Training seeds* shows each seed's numbers.

# %%
seeded_tasks = {name: tasks[name] for name in retrieval_experiments.FULLTRIE_DATASETS}
more_seeds = retrieval_experiments.seed_runs(train_tasks, seeded_tasks, settings, training_seeds[1:], n_claims,
                                             config, progress=not smoke)
runs = {}
for name, task in tasks.items():
    claims = task.evaluation[:n_claims]
    runs[name] = run = retrieval_experiments.cached_run(task, components, claims, settings, config, progress=not smoke)
    further = {other: more_seeds[other][name] for other in training_seeds[1:]} if name in seeded_tasks else {}
    by_seed = {seed: run} | further
    for row in retrieval_experiments.seeded_metric_rows(by_seed, seed=seed):
        results.add(**row)
    for system, seconds in run.seconds.items():
        results.add(name, "dev", system, "seconds_per_claim", seconds, len(claims))
glue("first_seed", seed, display=False)

rows = [vars(row) for row in results.rows if row.split == "dev"]
system_rows = [row for row in rows if "-vs-" not in row["system"]]
table = results.table().reset_index()
table = table[~table.system.str.contains("-vs-") & (table.split == "dev")]
metrics = ["recall@2", "recall@5", "recall@10", "f1@5", "em"]
intervals.interval_table(system_rows, metrics)

# %% [markdown]
# *Table: document retrieval on the evaluation claims (fractions, with 95% bootstrap intervals over the
# claims in brackets; `n` claims per dataset in the results file), closed pooled corpora, models trained
# here.*
#
# ### HoVer by number of hops
#
# BM25 already finds most 2-hop claims' pages in this pooled corpus; 3- and 4-hop claims are where a second
# iteration can help.

# %%
hop_cols = [c for c in table.columns if str(c).startswith("recall@5/") and not intervals.is_interval(str(c))]
by_hops = table[table.dataset == "hover"].set_index("system")[hop_cols]
intervals.interval_table([r for r in system_rows if r["dataset"] == "hover"], hop_cols, index=("system",))

# %%
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1.4, 1]})
bars_with_intervals(left, table, group="dataset", hue="system", value="recall@5")
left.set_xlim(0, 1)
left.set_xlabel("recall@5")
left.set_title("Recall@5 by dataset")
left.set_ylabel("")
left.legend(loc="upper center", bbox_to_anchor=(0.8, -0.18), ncol=4, fontsize=8)
hop_long = by_hops.reset_index().melt(id_vars="system", var_name="hops", value_name="recall@5")
hop_long["hops"] = hop_long["hops"].str.replace("recall@5/", "")
sns.barplot(data=hop_long, x="hops", y="recall@5", hue="system", ax=right, legend=False)
right.set_ylim(0, 1)
right.set_title("HoVer recall@5 by hop count")
save_figure(fig, figures_dir, "admiral", "recall_by_system")
plt.show()

# %% [markdown]
# *Figure: recall@5 per system on each dataset, with 95% bootstrap intervals (left), and on HoVer by number
# of hops (right); same claims, pooled corpora, models trained here.*
#
# ## Paper vs this run
#
# The paper reports the gain in 2-hop recall of AdMIRaL over its own initial retrieval on full Wikipedia.  We
# report the same difference on our pooled corpora, at recall@5 and recall@10.

# %%
def recall(dataset, system, k=5, bound=""):
    return results.value(dataset, "dev", system, f"recall@{k}{bound}")


def with_interval(dataset, system, k=5):
    return "{:+.3f} (95% interval {:+.3f} to {:+.3f})".format(
        *(recall(dataset, system, k, bound) for bound in ("", intervals.LOW, intervals.HIGH)))


for d in tasks:
    glue(f"gain5_{d}", with_interval(d, "admiral-mentions-vs-initial"), display=False)
    for system, name in (("initial", "initial5"), ("admiral-mentions", "mentions_admiral5"), ("bm25", "bm25_5"),
                         ("mentions-only", "mentions5")):
        glue(f"{name}_{d}", f"{recall(d, system):.3f}", display=False)
for d in retrieval_experiments.FULLTRIE_DATASETS:
    glue(f"admiral5_{d}", f"{recall(d, 'admiral'):.3f}", display=False)
    glue(f"nocopy5_{d}", f"{recall(d, 'admiral-nocopy'):.3f}", display=False)
    glue(f"paper_gain5_{d}", with_interval(d, "admiral-vs-initial"), display=False)
    glue(f"paper_gain10_{d}", with_interval(d, "admiral-vs-initial", 10), display=False)
    for k in (5, 10):
        glue(f"copy_vs_nocopy{k}_{d}", with_interval(d, "admiral-vs-admiral-nocopy", k), display=False)
        glue(f"admiral_vs_mentions{k}_{d}", with_interval(d, "admiral-vs-mentions-only", k), display=False)
glue("model_vs_mentions_hover", with_interval("hover", "admiral-mentions-vs-mentions-only"), display=False)
glue("n_claims", n_claims, display=False)
chapter_claims = paper_claims.chapter_verdicts(results)
for found in chapter_claims:
    glue(found.claim.id.replace("-", "_"), paper_claims.verdict_text(found), display=False)

# %%
paper = {"hover": 0.091, "feverous_s": 0.169, "feverous_s+distractors": 0.169}
ran = [(system, d) for system in ("admiral", "admiral-nocopy", "admiral-mentions") for d in tasks
       if system == "admiral-mentions" or d in retrieval_experiments.FULLTRIE_DATASETS]
comparison = pd.DataFrame([{
    "system": system, "dataset": d, "paper: gain (full Wikipedia)": paper[d],
    "this run: gain at recall@5": recall(d, f"{system}-vs-initial"),
    "95% interval: low": recall(d, f"{system}-vs-initial", 5, intervals.LOW),
    "95% interval: high": recall(d, f"{system}-vs-initial", 5, intervals.HIGH),
    "this run: gain at recall@10": recall(d, f"{system}-vs-initial", 10),
    "this run: initial recall@5": recall(d, "initial")} for system, d in ran]).set_index(["system", "dataset"])
comparison.style.format("{:+.3f}")

# %% [markdown]
# *Table: the gain of the hop over the initial retrieval, the paper's on full Wikipedia against this run's on
# the pooled corpora, for the paper's method (`admiral`), the same without the copy head (`admiral-nocopy`) and
# the stand-in (`admiral-mentions`) (recall@5 and recall@10; the interval is the paired 95% bootstrap over the
# same claims).*
#
# The paper's claims that this chapter tests, each decided by the rule of the reproduction report twice: for
# the paper's method (`systems`: decoding each hop over the prefix tree of all titles, `admiral`) and
# for the mention-narrowed stand-in (`admiral-mentions`):

# %%
paper_claims.claims_table(chapter_claims)[["claim", "statement", "paper's number", "systems", "this run", "verdict",
                                           "stand-in", "stand-in run", "stand-in verdict"]]

# %% [markdown]
# On HoVer, the paper's method `admiral`, decoding each hop over the prefix tree of *all* titles with the copy
# head, reaches recall@5 {glue:text}`admiral5_hover` against {glue:text}`initial5_hover` for the initial retrieval
# ({glue:text}`paper_gain5_hover`) and {glue:text}`bm25_5_hover` for BM25 alone; at recall@10 the change is
# {glue:text}`paper_gain10_hover`.  On FEVEROUS-S with distractors the change at recall@5 is
# {glue:text}`paper_gain5_feverous_s+distractors` ({glue:text}`initial5_feverous_s+distractors` to
# {glue:text}`admiral5_feverous_s+distractors`), at recall@10 {glue:text}`paper_gain10_feverous_s+distractors`.
# The paper's FEVEROUS-S number has no separate "with distractors" variant: the same +0.169 is shown against both
# of our FEVEROUS-S corpora.
#
# **What the copy head adds.** Without it (`admiral-nocopy`, the same iteration 1) the hop reaches recall@5
# {glue:text}`nocopy5_hover` on HoVer; the copy head against it: {glue:text}`copy_vs_nocopy5_hover` at recall@5
# and {glue:text}`copy_vs_nocopy10_hover` at recall@10 (on FEVEROUS-S with distractors
# {glue:text}`copy_vs_nocopy5_feverous_s+distractors` and {glue:text}`copy_vs_nocopy10_feverous_s+distractors`).
# Why recall@5 and recall@10 can disagree: the ranked list puts the hop's new pages -- the first 5 titles it
# writes that were not retrieved before, as in the paper -- before the rest of the initial list, so five new
# pages that hold no gold page push gold pages of the initial retrieval out of the top 5, while the top 10 keeps
# room for both.
#
# The stand-in `admiral-mentions` reaches {glue:text}`mentions_admiral5_hover` on HoVer
# ({glue:text}`gain5_hover`) and {glue:text}`mentions_admiral5_feverous_s+distractors` on FEVEROUS-S with
# distractors ({glue:text}`gain5_feverous_s+distractors`).  It keeps only the titles its input sentences mention,
# and usually fewer than five new pages; the paper's full tree with the copy head takes its titles from the same
# input without that restriction.  Against the string matching alone (`mentions-only`), `admiral` differs by
# {glue:text}`admiral_vs_mentions5_hover` at recall@5 and {glue:text}`admiral_vs_mentions10_hover` at recall@10
# on HoVer.

# %% [markdown]
# **What the model adds.** Narrowing the tree is a string-matching step that the paper does not have, so
# `mentions-only` ranks the same narrowed titles with no title model at all (by the reranker's best sentence
# of each page).  It reaches recall@5 {glue:text}`mentions5_hover` on HoVer and
# {glue:text}`mentions5_feverous_s+distractors` on FEVEROUS-S with distractors; the title model against it:
# {glue:text}`model_vs_mentions_hover` on HoVer (recall@5, `admiral-mentions-vs-mentions-only`).  Where this does not hold, the hop's gain over the initial
# retrieval belongs to the narrowed titles, not to the generator.
#
# The paper's claims as the reproduction report decides them (paired 95% bootstrap intervals over the same
# claims where the chapter writes a paired row), first for the paper's method, then for the stand-in: the
# 2-hop gain on HoVer, {glue:text}`C1a_hover_2hop_gain`; on FEVEROUS-S with distractors,
# {glue:text}`C1b_feverous_2hop_gain`; joint decoding with sentence pointers against the Not-joint ablation (the
# paper's metric, exact match), {glue:text}`C1c_joint_vs_notjoint`; the top beams against Top-1,
# {glue:text}`C1d_top5_vs_top1`; AdMIRaL against the dense multi-hop retriever, {glue:text}`C1g_vs_dense_mdr` on
# HoVer and {glue:text}`C1h_feverous_vs_dense_mdr` on FEVEROUS-S with distractors.
# An interval of zero width at zero means the two systems reached the same recall on every single claim (under
# every training seed): the ablation changed nothing this metric can see.
#
# Why the numbers differ from the paper's:
#
# - The pooled corpora are thousands of pages, not millions, and every page is the gold page of some claim:
#   BM25 is much stronger here than on Wikipedia, so the initial retrieval leaves less to gain.
# - A title model trained on about a thousand claims on a CPU knows far fewer titles than GENRE/BART trained on
#   all of Wikipedia's hyperlinks and the full training sets; without a copy head it does not learn to copy a
#   title from its input at all (`admiral-nocopy`), and with one it copies through an attention learned from
#   those thousand claims only.
# - The paper's "2-hop recall" keeps all retrieved documents of two iterations; our ranked list interleaves
#   them by the rule in `proofbook.admiral.retrieval.multihop` so that recall@k compares equal list lengths.
#
# Every number above comes from `results/admiral/02_experiments.json` ({glue:text}`n_claims` evaluation claims per
# dataset).

# %% [markdown]
# ### Training seeds
#
# A model trained on a thousand claims on a CPU changes with its training seed, and so do the differences the
# claims rest on.  This run trained every component with {glue:text}`n_seeds` seed(s) ({glue:text}`seed_list`);
# the table shows HoVer recall@5 under each seed for every system and paired difference, the mean over the
# seeds (the value of the tables above) and the spread (largest minus smallest).  Systems with no trained part
# (`bm25`, `dense-mdr`) have spread 0.  A run with one seed leaves the table empty.

# %%
glue("n_seeds", len(training_seeds), display=False)
glue("seed_list", ", ".join(map(str, training_seeds)), display=False)
seed_table = retrieval_experiments.seeds_frame([vars(row) for row in results.rows], "hover")
for system in ("admiral-vs-initial", "admiral-vs-admiral-nocopy", "admiral-mentions-vs-initial"):
    glue(f"spread_{system}", f"{seed_table.loc[system, 'spread']:.3f}" if system in seed_table.index
         else "not measured (one seed)", display=False)
seed_table.style.format("{:+.3f}")

# %% [markdown]
# *Table: HoVer recall@5 of each system and each paired difference under each training seed, with the mean
# and the spread over seeds (same claims, same corpus, models trained with each seed).*
#
# The spread of the paper's 2-hop gain (`admiral-vs-initial`) over the training seeds is
# {glue:text}`spread_admiral-vs-initial`; of the copy head's gain (`admiral-vs-admiral-nocopy`),
# {glue:text}`spread_admiral-vs-admiral-nocopy`; of the stand-in's gain (`admiral-mentions-vs-initial`),
# {glue:text}`spread_admiral-mentions-vs-initial`.  A spread that is a large part of an interval's width says
# that one training run alone would have put the verdict's interval in the wrong place.
#
# FEVEROUS-S with distractors, the other dataset of the paper's claims, under the same seeds:

# %%
retrieval_experiments.seeds_frame([vars(row) for row in results.rows], "feverous_s+distractors").style.format(
    "{:+.3f}")

# %% [markdown]
# *Table: FEVEROUS-S with distractors, recall@5 under each training seed, the mean and the spread over seeds.*

# %% [markdown]
# ## Summary
#
# The chapter trained AdMIRaL's components on this machine and ran every system above on three closed corpora.  The
# error analysis chapter looks at the claims where the hop fails.

# %% [markdown]
# ## Exercises
#
# Rerun the chapter with the project's runner, and send its outputs elsewhere, so that the book's results,
# figures and executed copy stay as they are:
# `python -m proofbook run notebooks/admiral/02_experiments.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/02_experiments.ipynb`,
# with the exercise's `-p NAME VALUE` pairs added.  Where an exercise edits a line, edit a copy of the
# notebook and run the copy the same way.
#
# A new `limit` or decoding config reruns every system with the cached models (minutes), once per training seed.
# A new `seed`, or more `seeds`, also retrains the components for each new seed (the training table shows for
# how long one seed's training took).  The book's numbers are means over {glue:text}`n_seeds` training seed(s)
# (the `seeds` it ran with); the command above trains one, so compare a run of yours with the `seed 0` column of
# the *Training seeds* table, or add `-p seeds` with the book's number (each seed costs the same again).

# %% [markdown]
# ### 1. Predict the table: beam 5 instead of 25
#
# Change `config = retrieval_experiments.book_config(smoke)` to
# `config = retrieval_experiments.book_config(smoke, beam=5)` (`AdmiralConfig.beam`).  Before running, sort the
# systems into those whose rows cannot change at all and those that can.  For the second group, predict the
# direction of recall@5.  Look at the interval table, at the row C1d (top beams against Top-1) of the claims
# table and at the glued difference of the title model against `mentions-only`.
#
# :::{dropdown} Hint
# Follow `beam` through `retrieval_experiments.run_systems` and `Admiral._hops`.  Which systems decode
# iteration 2 with `AdmiralConfig.beam`, and which use only the GENRE step's `genre_beams` or no model at all?
# What does `MentionsOnly.generate_batch` do with its `beam` argument?  After titles already retrieved are
# removed, at most `AdmiralConfig.new_documents` titles are kept.
# :::

# %% [markdown]
# ### 2. One new title per hop
#
# Change the config to `retrieval_experiments.book_config(smoke, new_documents=1)`.  Predict how this run's
# `admiral` row will compare with the `admiral-top1` row of the book's run.  Predict also what this run's
# `admiral-vs-admiral-top1` difference and its interval (claim C1d) will be, and the same for
# `admiral-mentions`.  The chapter's text explains what
# an interval of zero width at zero means.
#
# :::{dropdown} Hint
# Compare `RetrievalTrace.ranking(top1=True)` with what `Admiral._hops` keeps when `new_documents` is 1.
# :::

# %% [markdown]
# ### 3. Linked titles plus BM25 pages
#
# Change the config to `retrieval_experiments.book_config(smoke, linked_bm25_k=10)`
# (`AdmiralConfig.linked_bm25_k`, 0 by default).  Each hop's tree then also holds BM25's top 10 pages for the
# claim plus its input sentences.  Predict:
#
# - the direction of recall@5 for `admiral-mentions` and for `mentions-only`;
# - whether `admiral` can change;
# - whether the difference `admiral-mentions-vs-mentions-only` will change sign.
#
# :::{dropdown} Hint
# Read `Admiral.linked_titles` and find which systems call it; `admiral` is built with
# `hop_titles="corpus"`.  Candidates that BM25 found for the claim may already sit in iteration 1's list, and
# the hop drops titles already retrieved.
# :::


# %% [markdown]
# ### 4. The ranked list by hand (no computer needed)
#
# A 2-hop claim with gold pages `A` and `B`.  Iteration 1 reranks `A B C D E F` (in that order) and keeps five
# sentences, all from `A` and `C`.  The hop then writes five titles not retrieved before, `N1` to `N5`, none of
# them gold.  The ranked list is: the documents holding the kept sentences, in reranked order, then the hop's new
# documents, then the rest of the initial list (`initial` is the same list without the new documents).
#
# - Write down the first 10 documents of `initial` and of `admiral`.
# - Decide recall@5 and recall@10 of each: 1 when *every* gold page is among the first k.
# - Now let the hop write `B` first and `N1` to `N4` after it.  Which of the four numbers change?
#
# Then read the interval table again: which of your two cases does `admiral` against `initial` at recall@5 and at
# recall@10 look like, and what does the sentence on why recall@5 and recall@10 can disagree count?
#
# :::{dropdown} Hint
# Check both lists in a cell:
# ```python
# from proofbook.admiral.retrieval.metrics import recall_at_k
# from proofbook.admiral.retrieval.multihop import HopTrace, RetrievalTrace
# from proofbook.core.corpus import Sentence
# kept = [(Sentence(title, i, ""), 1.0) for i, title in enumerate("A A C A C".split())]
# trace = RetrievalTrace("claim", bm25=[], genre=[], candidates=list("ABCDEF"), reranked_documents=list("ABCDEF"),
#                        selected=kept, initial_selected=kept,
#                        hops=[HopTrace(2, [], [], ["N1", "N2", "N3", "N4", "N5"], [])])
# [(ranking[:10], recall_at_k(ranking, ["A", "B"], 5), recall_at_k(ranking, ["A", "B"], 10))
#  for ranking in (trace.initial_ranking(), trace.ranking())]
# ```
# For the second case, replace the hop's titles by `["B", "N1", "N2", "N3", "N4"]`.
# :::
