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
# # Running at scale
#
# Every chapter of this book runs on one machine with 2 CPU cores, on 120 evaluation claims per dataset and on
# knowledge bases of a few thousand pages.  A reader who wants a whole split, a sweep of parameters or a
# Wikipedia-size knowledge base outgrows that.  This page says what the book offers for each, and measures the
# one that is about size: BM25 over a million pages.
#
# **Several notebooks at a time.**  `python -m proofbook run-all --workers 2 --threads 1` runs the book's
# notebooks as [Ray](https://docs.ray.io) tasks, two at a time with one torch thread each, on a Ray node it starts
# on this machine; `--ray ADDRESS` (or the environment variable `PROOFBOOK_RAY_ADDRESS`) sends them to a running
# cluster instead, whose nodes hold this repository and the data directory at the same paths.  The longest
# notebooks start first; the reproduction report, the datasets page and the status page wait for the notebooks
# whose results they read; each run's stamp (`_build/stamps/`) records the host it ran on.  The models a notebook trains are cached by
# their settings and data (`proofbook.core.cache`); with the cache folder on a file system every node shares,
# two notebooks that need the same model train it once.  The loops inside one notebook still run in one process.
#
# **A knowledge base of Wikipedia's size.**  AdMIRaL retrieves pages with BM25 over all of Wikipedia (5.4
# million pages for FEVER and HoVer; Aly & Vlachos 2022, §3.1).  The book's own BM25
# (`proofbook.index.bm25.DocumentIndex`) holds its postings in memory and builds them from the corpus each
# time; Lucene, through Pyserini (`proofbook.index.lucene.LuceneDocumentIndex`), keeps an inverted index on
# disk, and answers `search(text, k)` the same way, so either can serve AdMIRaL's first step
# (`retrieval_experiments.build_admiral(task, components, index=...)`).  The efficiency chapter compares them on
# the HoVer corpus; below they are built and queried side by side as the knowledge base grows to
# {glue:text}`largest_pages_text` pages.
#
# The knowledge bases are the efficiency chapter's: the HoVer corpus, then the real pages of FEVEROUS, FM2
# and Climate-FEVER, then filler pages whose sentences are drawn from HoVer's word frequencies and sentence
# lengths (`proofbook.admiral.retrieval.efficiency.grown_corpora`).  Filler pages change how long a search
# takes and how large an index is, not what a claim means; the HoVer claims' gold pages are in every size.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None           # this page takes no split: the queries are HoVer dev claims
limit: int | None = None     # queries per knowledge base (default 200)
seed = 0
smoke = False
largest_pages: int | None = None   # the largest knowledge base (default 1,000,000 pages)
results_dir = "results"
figures_dir = "figures"

# %%
import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns
from myst_nb import glue

from proofbook.admiral.retrieval import scaling
from proofbook.admiral.retrieval.efficiency import climate_fever_corpus, grown_corpora
from proofbook.admiral.retrieval.tasks import load_task, smoke_task
from proofbook.data.feverous import build_feverous_corpus, read_feverous_claims
from proofbook.data.fm2 import build_fm2_corpus, read_fm2_claims
from proofbook.index import lucene
from proofbook.index.bm25 import DocumentIndex
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure

n_queries = limit or (8 if smoke else 200)
chapter = start("reference/running_at_scale", data_dir=data_dir, split=split, limit=n_queries, seed=seed,
                smoke=smoke, results_dir=results_dir, largest_pages=largest_pages)
data_path, results = chapter.data_path, chapter.results

# %% [markdown]
# ## The knowledge bases

# %%
hover = load_task("hover", data_path)
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    hover = smoke_task(hover, seed=seed)
largest = largest_pages or (8 * len(hover.corpus) if smoke else 1_000_000)
middle = max(len(hover.corpus), largest // 4)
sizes = {"hover": len(hover.corpus)}
sizes.update({f"hover-{pages // 1000}k" if pages % 1000 == 0 else f"hover-{pages}": pages
              for pages in (middle, largest)})
others = [build_feverous_corpus(read_feverous_claims(data_path)), build_fm2_corpus(read_fm2_claims(data_path)),
          climate_fever_corpus(data_path)]
corpora, growth = grown_corpora(hover.corpus, sizes, others, seed=seed)
for row in growth:
    for metric in ("pages", "from_other_corpora", "filler_pages"):
        results.add(row["dataset"], "dev", "corpus", metric, row[metric], row["pages"])
glue("largest_pages_text", f"{largest:,}", display=False)
pd.DataFrame(growth).set_index("dataset")

# %% [markdown]
# ## Build, size and query time
#
# At every size both indexes are built from the same pages and answer the same {glue:text}`n_queries` HoVer
# claims one at a time, after a warm-up query (`scaling.compare_document_indexes`): `index_build_s` (for
# Lucene, writing the index to disk with one indexing thread), `index_bytes` (the book's index as its stored
# file; Lucene's index folder on disk), `seconds_per_query`, `recall@10` (all of a claim's gold pages in the
# top 10) and, for Lucene, `top10_overlap_with_first` (the share of its top 10 that the book's BM25 also
# returns).

# %% tags=["remove-stderr"]
claims = hover.evaluation[:n_queries]
for name, corpus in corpora.items():
    indexes = {"bm25-fast": DocumentIndex(corpus), "bm25-lucene": lucene.LuceneDocumentIndex(corpus)}
    for (system, metric), (value, n) in scaling.compare_document_indexes(indexes, claims).items():
        results.add(name, "dev", system, metric, value, n)
    del indexes
results.save()
glue("n_queries", len(claims), display=False)
table = results.table(index=("dataset", "system")).drop("corpus", level="system")
table = table.loc[list(corpora)].dropna(axis=1, how="all")
table

# %%
long = table[["seconds_per_query", "index_bytes", "index_build_s"]].reset_index().melt(id_vars=["dataset", "system"],
                                                                                       var_name="metric")
long["pages in the knowledge base"] = long["dataset"].map(sizes)
grid = sns.relplot(data=long, kind="line", x="pages in the knowledge base", y="value", hue="system", style="system",
                   markers=True, dashes=False, col="metric", height=3.4, facet_kws={"sharey": False})
grid.set(xscale="log", yscale="log", ylabel="")
grid.set_titles("{col_name}")
for ax in grid.axes.flat:
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
save_figure(grid.figure, figures_dir, "reference", "running_at_scale")
plt.show()

# %% [markdown]
# *Figure: query time (s), index size (bytes) and build time (s) of the book's in-memory BM25 (`bm25-fast`) and
# of Lucene (`bm25-lucene`) against the number of pages, both axes logarithmic, on this machine's 2 CPU cores.*

# %%
at = list(sizes)[-1]
fast, disk = table.loc[(at, "bm25-fast")], table.loc[(at, "bm25-lucene")]
shown = {"lucene_build_min": f"{disk['index_build_s'] / 60:.1f}", "fast_build_min": f"{fast['index_build_s'] / 60:.1f}",
         "lucene_mb": f"{disk['index_bytes'] / 1e6:.0f}", "fast_mb": f"{fast['index_bytes'] / 1e6:.0f}",
         "lucene_ms": f"{disk['seconds_per_query'] * 1e3:.1f}", "fast_ms": f"{fast['seconds_per_query'] * 1e3:.1f}",
         "query_ratio": f"{disk['seconds_per_query'] / fast['seconds_per_query']:.1f}",
         "query_faster": "Lucene" if disk["seconds_per_query"] < fast["seconds_per_query"] else "the in-memory index",
         "lucene_overlap_at_largest": f"{disk['top10_overlap_with_first']:.2f}",
         "lucene_recall": f"{disk['recall@10']:.3f}", "fast_recall": f"{fast['recall@10']:.3f}",
         "lucene_recall_hover": f"{table.loc[('hover', 'bm25-lucene'), 'recall@10']:.3f}",
         "fast_recall_hover": f"{table.loc[('hover', 'bm25-fast'), 'recall@10']:.3f}"}
drops = {system: table.loc[("hover", system), "recall@10"] - table.loc[(at, system), "recall@10"]
         for system in ("bm25-fast", "bm25-lucene")}
shown["less_hurt"] = "Lucene" if drops["bm25-lucene"] < drops["bm25-fast"] else "the in-memory index"
for name, text in shown.items():
    glue(name, text, display=False)

# %% [markdown]
# At {glue:text}`largest_pages_text` pages Lucene builds its index in {glue:text}`lucene_build_min` min
# ({glue:text}`lucene_mb` MB on disk) and answers a claim in {glue:text}`lucene_ms` ms; the book's in-memory
# BM25 builds in {glue:text}`fast_build_min` min ({glue:text}`fast_mb` MB as its stored file, which a process
# reads back whole into memory) and answers in {glue:text}`fast_ms` ms.  Per query {glue:text}`query_faster` is
# faster (Lucene takes {glue:text}`query_ratio` times the in-memory index's time).  They agree on
# {glue:text}`lucene_overlap_at_largest` of their top-10 pages.  Recall@10 of the HoVer claims' gold pages is
# {glue:text}`lucene_recall` with Lucene and {glue:text}`fast_recall` in memory, against
# {glue:text}`lucene_recall_hover` and {glue:text}`fast_recall_hover` on the HoVer corpus alone: filler pages
# drawn from HoVer's own word frequencies crowd gold pages out of the top 10, and {glue:text}`less_hurt` loses
# less recall to them (Lucene's analyzer stems words and drops stopwords, which the book's BM25 does not).
#
# What these numbers do not show: the pages here are Wikipedia introductions (HoVer's corpus) or filler in their
# image, shorter than whole articles, so a knowledge base of whole articles makes both indexes larger and both
# searches slower; and a Lucene index is opened from disk and read as queries need it, so many processes (or the
# workers of a cluster) can share one copy, where each process holds its own copy of the in-memory index.

# %% [markdown]
# ## Exercises
#
# Send the page's outputs elsewhere, so that the book's results, figures and executed copy stay as they are:
# `python -m proofbook run notebooks/running_at_scale.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/running_at_scale.ipynb`,
# with the exercise's `-p NAME VALUE` pairs added.
#
# ### 1. Two million pages
#
# Before running with `-p largest_pages 2000000`, read the figure and predict each index's build time, size
# and query time at two million pages.  Which of the six do you expect to double, and which to grow less?
#
# :::{dropdown} Hint
# A BM25 query reads the postings of its own words only; how much longer does a word's postings list get when
# the pages double?  And what does the in-memory index hold that Lucene leaves on disk?
# :::
