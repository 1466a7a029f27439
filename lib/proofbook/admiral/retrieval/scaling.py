"""AdMIRaL and dense retrieval as the knowledge base grows: the measurements of the efficiency chapter.

Aly & Vlachos 2022, §5.3 claim that AdMIRaL's latency hardly grows with the knowledge base (2.87 s per
claim on HoVer, 2.88 s with twice the pages) and that its index is 5-10x smaller than a dense one.  This
module builds one knowledge base per size (:func:`build_knowledge_base`; the corpora of
:func:`proofbook.admiral.retrieval.efficiency.grown_corpora`) and times them all on the same claims
(:func:`time_knowledge_bases`).

* **AdMIRaL**: BM25 over pages, the title prefix tree and the mention table, built and timed per size
  (:func:`proofbook.admiral.retrieval.efficiency.admiral_index`), decoding over the prefix tree of *all*
  titles as in the paper.  Latency is split into the loop's stages (:data:`~proofbook.admiral.retrieval.multihop.STAGES`).
* **Dense** (``dense-mdr``, exact search; ``dense-mdr-ivf`` or ``dense-mdr-hnsw``, an approximate index of
  :mod:`proofbook.index.vector_search`: the chapter uses the inverted file, which on the simulated vectors
  built in 8 s at 250,000 pages and found 0.59 of the exact top 10 at 32 of 2,000 cells, where HNSW
  (``M`` 16, ``efSearch`` 64) took 46 s for 0.55).  Encoding a quarter of a million pages with MiniLM would take hours
  on 2 CPU cores, and the cost of a search does not depend on what the vectors hold.  So only the real
  HoVer pages carry their MiniLM vectors; every other page gets a vector drawn from a Gaussian with the
  real vectors' mean and covariance, normalised (:func:`simulated_vectors`), and the encoding time is the
  encoder's measured throughput on a sample of the pages times the number of pages
  (:func:`encoding_seconds_per_page`).  The dense baseline's *recall* is therefore not measured beyond
  ``hover-x1``; its approximate index's ``recall_vs_exact@10`` is (how many of the exact search's top 10 it
  finds, for the timed claims' hop-1 queries).

**Interleaved timing.** Every knowledge base answers one warm-up claim first; then for each claim in turn
every size answers it, so that a slow minute of a shared machine falls on every size alike.

**Growth with an interval.** How much slower a larger knowledge base answers is the ratio of the mean
latencies at two sizes on the same claims (:func:`latency_growth`); with a few dozen timed claims that ratio
depends on which claims were drawn (a claim whose top pages grow longer at the larger size costs more
reranking), so it comes with a 95% paired bootstrap interval over the claims
(:mod:`proofbook.core.intervals`): every resample draws the same claims at both sizes.  The interval
covers the choice of claims, not the machine's own timing noise, which interleaving spreads over both
sizes.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from proofbook.admiral.retrieval import retrieval_experiments
from proofbook.admiral.retrieval.efficiency import admiral_index
from proofbook.admiral.retrieval.metrics import recall_at_k
from proofbook.admiral.retrieval.multihop import Admiral, AdmiralConfig
from proofbook.admiral.retrieval.pretraining import title_mentions
from proofbook.admiral.retrieval.tasks import RetrievalTask
from proofbook.core.corpus import Corpus
from proofbook.core.intervals import interval
from proofbook.index.dense import DenseIndex, page_text
from proofbook.index.vector_search import HNSWSearch, IVFSearch, exact_search, recall_vs_exact

#: the latency parts reported per claim (the stages of :class:`Admiral` that a claim pays for)
LATENCY_PARTS = ("bm25", "rerank", "mentions", "generation")
#: the approximate dense indexes, by the name of their system
APPROXIMATE = {"dense-mdr-hnsw": HNSWSearch, "dense-mdr-ivf": IVFSearch}
#: the systems the efficiency chapter compares, in its tables' and figure's order
SYSTEMS = ("admiral", "dense-mdr", "dense-mdr-ivf")
#: the book's latency goal for AdMIRaL on ``hover-x1``: seconds per claim on 2 CPU cores
LATENCY_GOAL_S = 0.8


def simulated_vectors(real: np.ndarray, n: int, seed: int = 0) -> np.ndarray:
    """``n`` unit vectors from a Gaussian with ``real``'s mean and covariance (float32, seeded)."""
    real = np.asarray(real, dtype=np.float64)
    if real.ndim != 2 or len(real) < 2:
        raise ValueError(f"simulated_vectors needs at least two real vectors, got shape {real.shape}")
    rng = np.random.default_rng(seed)
    mean, covariance = real.mean(axis=0), np.cov(real, rowvar=False)
    # a square root of the covariance (eigenvalues clipped at 0 against rounding)
    values, vectors = np.linalg.eigh(covariance)
    root = vectors * np.sqrt(np.clip(values, 0, None))
    out = np.empty((n, real.shape[1]), dtype=np.float32)
    for first in range(0, n, 50_000):
        size = min(50_000, n - first)
        drawn = mean + rng.standard_normal((size, real.shape[1])) @ root.T
        out[first:first + size] = drawn / np.linalg.norm(drawn, axis=1, keepdims=True)
    return out


def encoding_seconds_per_page(embedder, corpus: Corpus, sample: int = 64, seed: int = 0) -> float:
    """The encoder's seconds per page on ``sample`` pages drawn from ``corpus`` (after one warm-up batch)."""
    rng = np.random.default_rng(seed)
    titles = corpus.titles
    rows = rng.choice(len(titles), size=min(sample, len(titles)), replace=False)
    texts = [page_text(corpus[titles[i]]) for i in rows.tolist()]
    embedder.encode(texts[:8], progress=False)
    start = time.perf_counter()
    embedder.encode(texts, progress=False)
    return (time.perf_counter() - start) / len(texts)


@dataclass
class KnowledgeBase:
    """One size: the corpus, AdMIRaL's retriever and index parts, the dense indexes and their measures."""

    name: str
    corpus: Corpus
    retriever: Admiral
    dense: DenseIndex
    approximate: HNSWSearch | IVFSearch
    approximate_system: str
    measures: dict = field(default_factory=dict)     # (system, metric) -> value, the build-time rows


def build_knowledge_base(name: str, corpus: Corpus, task: RetrievalTask, components, config: AdmiralConfig,
                         real_dense: DenseIndex, seconds_per_page: float, seed: int = 0,
                         approximate: str = "dense-mdr-hnsw", approximate_settings: dict | None = None
                         ) -> KnowledgeBase:
    """Build AdMIRaL's index and retriever and the two dense indexes over ``corpus``, timing each build.

    ``real_dense`` is the exact dense index of the real HoVer pages (their MiniLM vectors); its pages must
    come first in ``corpus``.  ``approximate`` names the approximate index (a key of :data:`APPROXIMATE`),
    built with ``approximate_settings``.
    """
    if approximate not in APPROXIMATE:
        raise ValueError(f"unknown approximate index {approximate!r}; expected one of {sorted(APPROXIMATE)}")
    if corpus.titles[:len(real_dense.titles)] != real_dense.titles:
        raise ValueError(f"{name}: the corpus does not start with the encoded HoVer pages")
    built = admiral_index(corpus, components.hop_models[1].tokenizer)
    start = time.perf_counter()
    mentions = title_mentions(corpus)
    mentions_seconds = time.perf_counter() - start
    grown = RetrievalTask(name, corpus, task.train, task.evaluation)
    retriever = retrieval_experiments.build_admiral(grown, components, config, index=built["bm25"], trie=built["trie"],
                                          mentions=mentions)
    extra = len(corpus) - len(real_dense.titles)
    vectors = real_dense.embeddings if not extra else np.concatenate(
        [real_dense.embeddings, simulated_vectors(real_dense.embeddings, extra, seed)])
    dense = DenseIndex.from_vectors(corpus, vectors, seconds_per_page * len(corpus), embedder=real_dense.embedder)
    searcher = APPROXIMATE[approximate](vectors, **(approximate_settings or {}))
    pages = len(corpus)
    measures = {
        ("admiral", "index_bytes"): built["index_bytes"], ("admiral", "bm25_bytes"): built["bm25_bytes"],
        ("admiral", "bm25_bytes_ram"): built["bm25_bytes_ram"], ("admiral", "prefix_tree_bytes"): built["trie_bytes"],
        ("admiral", "index_bytes_python"): built["index_bytes_python"],
        ("admiral", "index_build_s"): built["index_build_s"], ("admiral", "index_build_s/bm25"): built["bm25_build_s"],
        ("admiral", "index_build_s/prefix_tree"): built["trie_build_s"],
        ("admiral", "mentions_build_s"): mentions_seconds,
        ("dense-mdr", "index_bytes"): dense.nbytes, ("dense-mdr", "index_build_s"): dense.build_seconds,
        (approximate, "index_bytes"): searcher.nbytes,
        (approximate, "index_build_s"): dense.build_seconds + searcher.build_seconds,
        (approximate, "index_build_s/search_structure"): searcher.build_seconds,
    }
    return KnowledgeBase(name, corpus, retriever, dense, searcher, approximate,
                         {k: (v, pages) for k, v in measures.items()})


@dataclass
class Timings:
    """What :func:`time_knowledge_bases` measured: per size, the rows to write and the rankings."""

    rows: dict = field(default_factory=dict)        # (dataset, system, metric) -> (value, n)
    rankings: dict = field(default_factory=dict)    # dataset -> [ranked titles per claim]
    claim_seconds: dict = field(default_factory=dict)   # dataset -> [AdMIRaL's seconds for each claim]


def time_knowledge_bases(bases: Sequence[KnowledgeBase], claims: Sequence, k: int = 10) -> Timings:
    """Time every size on the same ``claims``, interleaved, after one warm-up claim per size.

    Rows per size: AdMIRaL's ``latency_s_per_claim`` and its parts ``latency_s_per_claim/<stage>``
    (:data:`LATENCY_PARTS`), ``recall@5`` of the timed claims (the retriever's ranked list); for
    ``dense-mdr`` (exact) and the approximate system ``latency_s_per_claim`` of the two-hop search, and for the
    approximate one ``recall_vs_exact@10`` of the hop-1 queries.
    """
    if not claims:
        raise ValueError("no claims to time")
    warm = claims[0].claim
    for base in bases:
        base.retriever.retrieve(warm)
        base.dense.use_approximate(None)
        base.dense.multi_hop(warm, k=k)
        base.dense.use_approximate(base.approximate)
        base.dense.multi_hop(warm, k=k)
        base.dense.use_approximate(None)
        base.retriever.reset_stage_seconds()
    seconds = {(base.name, system): 0.0 for base in bases
               for system in ("admiral", "dense-mdr", base.approximate_system)}
    rankings: dict[str, list] = {base.name: [] for base in bases}
    claim_seconds: dict[str, list] = {base.name: [] for base in bases}
    sentences = {base.name: 0 for base in bases}
    for claim in claims:
        for base in bases:
            start = time.perf_counter()
            trace = base.retriever.retrieve(claim.claim)
            claim_seconds[base.name].append(time.perf_counter() - start)
            seconds[base.name, "admiral"] += claim_seconds[base.name][-1]
            rankings[base.name].append(trace.ranking())
            sentences[base.name] += reranked_sentences(trace, base.corpus)
            for system, searcher in (("dense-mdr", None), (base.approximate_system, base.approximate)):
                base.dense.use_approximate(searcher)
                start = time.perf_counter()
                base.dense.multi_hop(claim.claim, k=k)
                seconds[base.name, system] += time.perf_counter() - start
            base.dense.use_approximate(None)
    out = Timings(rankings=rankings, claim_seconds=claim_seconds)
    n = len(claims)
    for base in bases:
        for system in ("admiral", "dense-mdr", base.approximate_system):
            out.rows[base.name, system, "latency_s_per_claim"] = (seconds[base.name, system] / n, n)
        out.rows[base.name, "admiral", "reranked_sentences_per_claim"] = (sentences[base.name] / n, n)
        for part in LATENCY_PARTS:
            out.rows[base.name, "admiral", f"latency_s_per_claim/{part}"] = (base.retriever.stage_seconds[part] / n, n)
        recall = np.mean([recall_at_k(ranked, c.gold_titles, 5) for ranked, c in zip(rankings[base.name], claims)])
        out.rows[base.name, "admiral", "recall@5"] = (float(recall), n)
        queries = base.dense.embedder.encode([c.claim for c in claims], progress=False)
        out.rows[base.name, base.approximate_system, "recall_vs_exact@10"] = (
            recall_vs_exact(exact_search(base.dense.embeddings, queries, k), base.approximate.search(queries, k)), n)
    return out


def latency_growth(timings: Timings, larger: str, smaller: str, seed: int = 0) -> tuple[float, float, float]:
    """``(ratio, low, high)``: AdMIRaL's mean latency on ``larger`` over its mean latency on ``smaller`` (the same
    claims, timed interleaved by :func:`time_knowledge_bases`), with the 95% paired bootstrap interval over
    the claims (every resample draws the same claims at both sizes)."""
    a = np.asarray(timings.claim_seconds[larger], dtype=float)
    b = np.asarray(timings.claim_seconds[smaller], dtype=float)
    if a.shape != b.shape or not len(a):
        raise ValueError(f"latency_growth needs the same claims timed on {larger} and {smaller}")
    low, high = interval(lambda idx: a[idx].sum() / b[idx].sum(), len(a), seed)
    return float(a.sum() / b.sum()), low, high


def bm25_distraction(base: KnowledgeBase, claims: Sequence, filler: set[str], k: int = 10) -> dict:
    """How much the filler pages get in BM25's way, over ``claims``: ``filler_share@k`` (the share of BM25's top
    ``k`` pages that are filler, to compare with ``filler_share_of_corpus``) and ``recall@k/bm25`` (every gold
    page in BM25's top ``k``).  ``filler``: the filler pages' titles."""
    if not claims:
        raise ValueError("no claims to measure BM25 on")
    index = base.retriever.index
    tops = [[title for title, _ in index.search(c.claim, k=k)] for c in claims]
    share = sum(title in filler for top in tops for title in top) / max(1, sum(map(len, tops)))
    recall = float(np.mean([recall_at_k(top, c.gold_titles, k) for top, c in zip(tops, claims)]))
    in_corpus = sum(title in filler for title in base.corpus.titles) / len(base.corpus)
    return {f"filler_share@{k}": share, "filler_share_of_corpus": in_corpus, f"recall@{k}/bm25": recall}


def compare_document_indexes(indexes: dict, claims: Sequence, k: int = 10) -> dict:
    """Page indexes with ``search(text, k)`` side by side on the same claims: ``(system, metric) -> (value, n)``.

    Per index: ``seconds_per_query`` (one query at a time, after a warm-up query), ``index_build_s``,
    ``index_bytes`` (the stored file, or the folder on disk), ``recall@k`` (every gold page in the top
    ``k``); for every index after the first, ``top{k}_overlap_with_first``: the mean share of its top ``k``
    pages that the first index also returned.
    """
    if not claims or not indexes:
        raise ValueError("compare_document_indexes needs indexes and claims")
    tops, out = {}, {}
    for system, index in indexes.items():
        index.search(claims[0].claim, k=k)
        start = time.perf_counter()
        tops[system] = [[title for title, _ in index.search(c.claim, k=k)] for c in claims]
        seconds = (time.perf_counter() - start) / len(claims)
        nbytes = len(index.to_bytes()) if hasattr(index, "to_bytes") else index.nbytes
        recall = float(np.mean([recall_at_k(top, c.gold_titles, k) for top, c in zip(tops[system], claims)]))
        out.update({(system, "seconds_per_query"): (seconds, len(claims)),
                    (system, "index_build_s"): (index.build_seconds, len(index)),
                    (system, "index_bytes"): (nbytes, len(index)), (system, f"recall@{k}"): (recall, len(claims))})
    first = next(iter(tops))
    for system in list(tops)[1:]:
        overlap = np.mean([len(set(a) & set(b)) / max(1, len(b)) for a, b in zip(tops[first], tops[system])])
        out[system, f"top{k}_overlap_with_first"] = (float(overlap), len(claims))
    return out


def reranked_sentences(trace, corpus: Corpus, rerank_documents: int = 10) -> int:
    """Sentences the reranker read for one claim: those of the reranked pages and of every hop's new pages."""
    pages = list(trace.reranked_documents[:rerank_documents]) + [t for hop in trace.hops for t in hop.new_documents]
    return sum(len(corpus[title].sentences) for title in pages)


def log_log_slope(sizes: Sequence[float], values: Sequence[float]) -> float:
    """The least-squares slope of log(value) on log(size): the exponent ``a`` of ``value ~ size ** a``."""
    if len(sizes) != len(values) or len(sizes) < 2:
        raise ValueError("log_log_slope needs at least two (size, value) pairs")
    if min(sizes) <= 0 or min(values) <= 0:
        raise ValueError("log_log_slope needs positive sizes and values")
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(values, float))
    return float(np.polyfit(x, y, 1)[0])


def extrapolate(size: float, value: float, exponent: float, target: float) -> float:
    """``value`` measured at ``size``, carried to ``target`` with ``value ~ size ** exponent``."""
    return float(value * math.exp(exponent * math.log(target / size)))


def growth_pairs(names: Sequence[str]) -> dict[str, tuple[str, str]]:
    """The two latency growths the chapter reports, ``metric -> (larger, smaller)``, for knowledge bases
    ``names`` (smallest first): ``hover-x2`` against the smallest, and the largest against ``hover-x4`` (the
    smallest where there is no ``hover-x4``)."""
    first, last = names[0], names[-1]
    x4 = "hover-x4" if "hover-x4" in names else first
    return {"latency_growth_per_doubling": ("hover-x2", first), "latency_growth_from_x4": (last, x4)}


def efficiency_glue(table, exponents, names: Sequence[str], sizes: Mapping[str, int],
                    growth: Mapping[str, tuple[float, float, float]], goal: float = LATENCY_GOAL_S) -> dict[str, str]:
    """The efficiency chapter's numbers as the strings its text shows: ``{glue name: text}``.

    ``table``: the results by ``(dataset, system)``, one column per metric; ``exponents``: the fitted
    exponents by system; ``names``: the knowledge bases, smallest first; ``sizes``: their pages;
    ``growth``: :func:`growth_pairs`' metrics -> ``(ratio, low, high)`` (:func:`latency_growth`);
    ``goal``: the latency goal on the smallest knowledge base, seconds per claim.
    """
    first, last = names[0], names[-1]
    x4 = growth_pairs(names)["latency_growth_from_x4"][1]
    admiral_first, admiral_last = table.loc[(first, "admiral")], table.loc[(last, "admiral")]
    latency_first, latency_last = admiral_first["latency_s_per_claim"], admiral_last["latency_s_per_claim"]
    x1 = table.loc[first]
    ratio = x1.loc["dense-mdr", "index_bytes"] / x1.loc["admiral", "index_bytes"]
    sentences_x1 = admiral_first["reranked_sentences_per_claim"]
    rerank_s_x1 = admiral_first["latency_s_per_claim/rerank"]
    generation_s_x1 = admiral_first["latency_s_per_claim/generation"]
    values = {"last_name": last, "last_pages": f"{sizes[last]:,}",
              "admiral_latency_x1": f"{latency_first:.2f}", "admiral_latency_last": f"{latency_last:.2f}"}
    for metric, (value, low, high) in growth.items():
        values[f"{metric}_interval"] = f"{value:.2f} (95% interval over the claims {low:.2f} to {high:.2f})"
    values.update({
        "latency_growth_10k": f"{growth['latency_growth_from_x4'][0]:.2f}",
        "latency_growth": f"{latency_last / latency_first:.2f}",
        "x4_pages": f"{sizes[x4]:,}",
        "rerank_share_x1": f"{rerank_s_x1 / latency_first:.0%}",
        "bm25_ms_x1": f"{1000 * admiral_first['latency_s_per_claim/bm25']:.1f}",
        "bm25_ms_last": f"{1000 * admiral_last['latency_s_per_claim/bm25']:.1f}",
        "bm25_exponent": f"{exponents.loc['admiral', 'latency_exponent/bm25']:.2f}",
        "generation_exponent": f"{exponents.loc['admiral', 'latency_exponent/generation']:.2f}",
        "dense_latency_last": f"{table.loc[(last, 'dense-mdr'), 'latency_s_per_claim']:.2f}",
        "ivf_recall_last": f"{table.loc[(last, 'dense-mdr-ivf'), 'recall_vs_exact@10']:.2f}"})
    for system in SYSTEMS:
        key = system.replace("-", "_")
        values[f"latency_exponent_{key}"] = f"{exponents.loc[system, 'latency_exponent']:.2f}"
        values[f"bytes_exponent_{key}"] = f"{exponents.loc[system, 'index_bytes_exponent']:.2f}"
    values.update({
        "memory_ratio": f"{ratio:.2f}",
        "memory_ratio_last": f"{table.loc[(last, 'dense-mdr'), 'index_bytes_ratio_to_admiral']:.2f}",
        "memory_verdict": "smaller than" if ratio > 1 else "larger than",
        "admiral_python_mb_x1": f"{x1.loc['admiral', 'index_bytes_python'] / 1e6:.1f}",
        "admiral_mb_x1": f"{x1.loc['admiral', 'index_bytes'] / 1e6:.2f}",
        "dense_mb_x1": f"{x1.loc['dense-mdr', 'index_bytes'] / 1e6:.1f}",
        "filler_share_last": f"{admiral_last['filler_share@10']:.2f}",
        "bm25_recall_x1": f"{admiral_first['recall@10/bm25']:.2f}",
        "bm25_recall_last": f"{admiral_last['recall@10/bm25']:.2f}",
        "sentences_x1": f"{sentences_x1:.0f}",
        "rerank_s_x1": f"{rerank_s_x1:.2f}",
        "rerank_ms_per_sentence_x1": f"{1000 * rerank_s_x1 / sentences_x1:.1f}",
        "rerank_share_of_goal": f"{rerank_s_x1 / goal:.0%}",
        "generation_s_x1": f"{generation_s_x1:.2f}",
        "generation_share_of_goal": f"{generation_s_x1 / goal:.0%}",
        "latency_goal_text": "within it" if latency_first <= goal else f"{latency_first - goal:.2f} s over it",
        "sentences_last": f"{admiral_last['reranked_sentences_per_claim']:.0f}",
        "filler_corpus_last": f"{admiral_last['filler_share_of_corpus']:.2f}"})
    return values
