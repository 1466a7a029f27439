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
# # Evidence retrieval and faithful reasoning, reproduced on a CPU
#
# **Papers and data:** {cite:p}`aly2022admiral,chen2023wild,tafjord2022entailer`.
#
# This book re-implements three papers, runs every experiment on real public data on an ordinary
# 2-core CPU, and shows where each method works and where it fails:
#
# 1. **AdMIRaL** (Aly & Vlachos 2022) -- multi-hop document retrieval for fact verification: BM25
#    retrieve-and-rerank, autoregressive title generation constrained by a prefix tree and conditioned on
#    the claim and the sentences selected so far, and natural-logic proofs that decide when the evidence
#    suffices.
# 2. **Claims in the wild** (Chen et al. 2023) -- decomposing a political claim into yes/no questions,
#    searching before the claim's date without fact-checking sites, fine-grained BM25 passage retrieval,
#    claim-focused summaries and a 6-way PolitiFact veracity classifier.
# 3. **Entailer** (Tafjord et al. 2022) -- backward-chaining entailment trees from premise generation,
#    direct truth scores and entailment scores, answering multiple-choice science questions.
#
# **Overview.** This first chapter shows one real example of what each paper works on, then loads every
# dataset the book uses through the library's readers (`proofbook.data`) and counts what is there, and looks
# at the claims: how long they are and how many documents a HoVer claim needs.  Every number on this page is
# computed below from the files in the data directory; nothing is typed in.
#
# **Prerequisites and time.** `make book` has fetched the data (`make data`); this page runs in well under a
# minute.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
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

from proofbook.data import catalog
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure

chapter = start("introduction/00_introduction", data_dir=data_dir, split=split, limit=limit, seed=seed, smoke=smoke,
                results_dir=results_dir)
data_path, results = chapter.data_path, chapter.results
print(f"data directory: {data_path}")

# %% [markdown]
# ## One example from each paper
#
# Drawn with `seed` from the dev splits (`proofbook.data.catalog.one_example_each`): a HoVer claim with the
# Wikipedia pages, and the sentence of each, that its annotators needed; a political claim with its
# speaker and PolitiFact's label; an OpenBookQA science question with its options.

# %%
for paper, lines in catalog.one_example_each(data_path, seed).items():
    print(f"--- {paper}\n" + "\n".join(lines) + "\n")

# %% [markdown]
# What each paper must do with its example:
#
# - **AdMIRaL** starts from the claim alone and must retrieve every gold page, including pages the claim does
#   not name but a retrieved sentence does (that is what a *hop* is), then decide with a natural-logic proof
#   when the sentences it holds suffice to verify the claim.
# - **Claims in the wild** must predict PolitiFact's label from evidence it finds on the web itself, using only
#   pages from before the claim was made and none from fact-checking sites.
# - **Entailer** must pick the right option *and* show why: a tree of premises the model believes, each step
#   an entailment it believes, that proves the option.
#
# ## How the book runs
#
# Every chapter is a Python file under `notebooks/` that `python -m proofbook run` executes with parameters
# (`data_dir`, `split`, `limit`, `seed`, `smoke`, where results and figures go, which example to show);
# [Running the chapters](../running.md) lists them and shows how to send your own runs elsewhere.  Each
# chapter ends with exercises: what to change, what to predict before rerunning, and where to look.
# `python -m proofbook explain admiral "CLAIM"` (also `entailer`, `wild`) walks an example of your own through
# a paper's method with the models the book trained.  Every experiment writes its numbers as rows to a results
# file, which the tables, figures and tests read.

# %% [markdown]
# ## The datasets
#
# Each row below is one file (or split) read through its reader in `proofbook.data`.  The readers check
# every line: a malformed line, a missing field, an unknown label, a non-UTF-8 byte or an empty claim
# stops with an error that names the file, the line and the field.  Rows that are unusual but valid (an
# OpenBookQA question with five options, say) are kept and counted in the *detail* column.  Test splits
# that are held back for independent evaluation are simply absent here; the same code reads them when
# they are present.

# %%
table = catalog.describe_all(data_path)
for row in table:
    results.add(row["dataset"], row["split"], "reader", "records", row["records"], row["records"])
frame = pd.DataFrame(table, columns=["dataset", "split", "records", "detail"])
glue("n_files", len(frame), display=False)
glue("n_records", f"{int(frame['records'].sum()):,}", display=False)
frame.style.hide(axis="index").format({"records": "{:,}"})

# %% [markdown]
# The readers checked {glue:text}`n_files` files or splits, {glue:text}`n_records` records in all.
#
# ### HoVer's closed corpus
#
# HoVer's claims need two to four Wikipedia pages each, but the full 2017 Wikipedia is not available here.
# The book's HoVer corpus is *pooled*: the intro paragraphs of the gold pages of all claims, which act as
# distractors for each other.  The gold-paragraph file gives each claim's paragraphs without their titles
# and in another order than `supporting_facts`, so the reader assigns paragraphs to titles by the best
# one-to-one match of title words against each paragraph (its opening words weigh more).

# %%
hover = catalog.hover_corpus_summary(data_path)
for key in ("pages", "sentences", "paragraphs", "match_rate", "opened_with_title", "ties", "evaluable_claims", "claims"):
    glue(f"hover_{key}", f"{hover[key]:,}" if isinstance(hover[key], int) else f"{hover[key]:.1%}", display=False)
results.add("hover", "dev", "corpus", "pages", hover["pages"], hover["claims"])
results.add("hover", "dev", "corpus", "paragraph_match_rate", hover["match_rate"], hover["paragraphs"])
results.add("hover", "dev", "corpus", "evaluable_claims", hover["evaluable_claims"], hover["claims"])
pd.Series(hover, name="HoVer corpus").to_frame()

# %% [markdown]
# From the {glue:text}`hover_claims` HoVer dev claims in this data directory the reader builds
# {glue:text}`hover_pages` pages ({glue:text}`hover_sentences` sentences).  It matched
# {glue:text}`hover_match_rate` of the {glue:text}`hover_paragraphs` paragraphs to a title
# ({glue:text}`hover_opened_with_title` open with their title; in {glue:text}`hover_ties` claims two
# assignments scored the same and the tie was broken deterministically, as `proofbook.data.hover` documents),
# and {glue:text}`hover_evaluable_claims` claims have every gold page in the corpus -- only
# those count in retrieval metrics.  Retrieval numbers on this pooled corpus are **not comparable** with
# the paper's full-Wikipedia numbers; each chapter says so next to its tables.

# %% [markdown]
# ## What the claims look like
#
# Claim length in words, per dataset (the questions of the science sets included), and the number of
# documents a HoVer claim needs.

# %%
lengths = catalog.claim_lengths(data_path, limit=200 if smoke else None, seed=seed)
long = pd.DataFrame([(name, n) for name, values in lengths.items() for n in values], columns=["dataset", "words"])
hops = catalog.hover_hops(data_path)

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8), gridspec_kw={"width_ratios": [2.2, 1]})
sns.boxplot(data=long, y="dataset", x="words", ax=left, showfliers=False, color="C0")
left.set_title("Claim / question length (words)")
left.set_ylabel("")
sns.barplot(x=list(hops), y=list(hops.values()), ax=right, color="C1")
right.set_title("HoVer dev claims by number of hops")
right.set_xlabel("documents needed")
right.set_ylabel("claims")
save_figure(fig, figures_dir, "introduction", "claim_lengths_and_hops")
median = long.groupby("dataset")["words"].median()
glue("median_hover", f"{median.get('hover', float('nan')):.0f}", display=False)
glue("median_liar", f"{median.get('liar', float('nan')):.0f}", display=False)
glue("sample_note", "; a random sample of 200 claims per dataset (smoke run)" if smoke else "", display=False)
plt.show()

# %% [markdown]
# *Figure: claim length by dataset (box: quartiles, whiskers: 1.5 IQR) and HoVer dev claims by hop count,
# from the data directory above{glue:text}`sample_note`.*
#
# HoVer's multi-hop claims are long (median {glue:text}`median_hover` words) because they chain facts
# about several pages; PolitiFact statements in LIAR are shorter (median {glue:text}`median_liar`).

# %% [markdown]
# ## What comes next
#
# The chapters that follow take one paper at a time: the method on one real example, the experiments with
# a "paper vs this run" table, and an error analysis.  Each says what it reproduces faithfully, what this
# machine forces to change (closed corpora, small models trained here, cached search results) and why
# the numbers differ.
