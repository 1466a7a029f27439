"""Approximate nearest-neighbour search for the dense baseline: what a dense retriever needs at scale.

AdMIRaL's efficiency claim (Aly & Vlachos 2022, §5.3) compares its BM25 index and title prefix tree with
dense retrievers (MDR, Xiong et al. 2021) that search millions of passage vectors.  An exact dense search
reads every vector for every query, so its time grows linearly with the knowledge base; at Wikipedia size
MDR searches with an approximate index (FAISS, Johnson et al. 2019) instead.  This module wraps the two
FAISS indexes a reader would try, for unit vectors and inner-product (cosine) scores:

* :class:`HNSWSearch` -- a hierarchical navigable small-world graph (``faiss.IndexHNSWFlat``, ``M``
  neighbours per node, ``ef_construction`` while building, ``ef_search`` while searching);
* :class:`IVFSearch` -- an inverted file of ``nlist`` k-means cells (``faiss.IndexIVFFlat``), of which
  ``nprobe`` are searched per query.

Both store the full float32 vectors, so their memory is the dense matrix plus the graph or the cell
lists; ``nbytes`` is the size FAISS writes for the index.  ``search(vectors, k)`` returns, per query, its
``k`` best ``(row, score)`` pairs, best first (FAISS breaks ties among equal scores in its own order).
:func:`recall_vs_exact` measures the share of the exact top-k that the approximate search finds.  FAISS
runs with the threads torch uses (``faiss.omp_set_num_threads``) unless told otherwise.
"""
from __future__ import annotations

import math
import time

import numpy as np

from proofbook.index.ranking import top_k


def _faiss():
    import faiss   # an optional, heavy import: only the efficiency chapter builds approximate indexes

    return faiss


def _checked(vectors: np.ndarray, what: str) -> np.ndarray:
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or not len(vectors):
        raise ValueError(f"{what}: expected a non-empty 2-d array of vectors, got shape {vectors.shape}")
    if not np.isfinite(vectors).all():
        raise ValueError(f"{what}: vectors hold NaN or infinite values")
    return vectors


class _FaissSearch:
    index = None
    build_seconds = 0.0

    @property
    def nbytes(self) -> int:
        """Bytes of the index as FAISS writes it (vectors plus the graph or cell lists)."""
        return int(_faiss().serialize_index(self.index).nbytes)

    def __len__(self) -> int:
        return int(self.index.ntotal)

    def search(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """Per query row, its ``k`` best ``(row, inner product)``, best first (fewer if the index has fewer)."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        queries = _checked(queries, "queries")
        if queries.shape[1] != self.index.d:
            raise ValueError(f"queries have dimension {queries.shape[1]}, the index {self.index.d}")
        scores, rows = self.index.search(queries, min(k, len(self)))
        return [[(int(r), float(s)) for r, s in zip(row_ids, row_scores) if r >= 0]
                for row_ids, row_scores in zip(rows, scores)]


class HNSWSearch(_FaissSearch):
    """``faiss.IndexHNSWFlat`` over unit vectors, inner product (see the module docstring)."""

    def __init__(self, vectors: np.ndarray, m: int = 16, ef_construction: int = 40, ef_search: int = 64):
        faiss = _faiss()
        vectors = _checked(vectors, "HNSW index")
        start = time.perf_counter()
        self.index = faiss.IndexHNSWFlat(vectors.shape[1], m, faiss.METRIC_INNER_PRODUCT)
        self.index.hnsw.efConstruction = ef_construction
        self.index.add(vectors)
        self.index.hnsw.efSearch = ef_search
        self.build_seconds = time.perf_counter() - start
        self.settings = {"kind": "hnsw", "m": m, "ef_construction": ef_construction, "ef_search": ef_search}


class IVFSearch(_FaissSearch):
    """``faiss.IndexIVFFlat`` over unit vectors, inner product; ``nlist`` defaults to ``4 sqrt(n)`` cells.

    The k-means cells are trained on ``train_size`` vectors drawn with ``seed`` (by default 40 per cell, the
    number FAISS asks for, and at least 50,000; all of them when there are fewer).
    """

    def __init__(self, vectors: np.ndarray, nlist: int | None = None, nprobe: int = 16, train_size: int | None = None,
                 seed: int = 0):
        faiss = _faiss()
        vectors = _checked(vectors, "IVF index")
        nlist = nlist or max(1, int(round(4 * math.sqrt(len(vectors)))))
        if not 1 <= nlist <= len(vectors):
            raise ValueError(f"nlist must be between 1 and the {len(vectors)} vectors, got {nlist}")
        train_size = train_size or max(50_000, 40 * nlist)
        start = time.perf_counter()
        quantizer = faiss.IndexFlatIP(vectors.shape[1])
        self.index = faiss.IndexIVFFlat(quantizer, vectors.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
        rng = np.random.default_rng(seed)
        sample = vectors if len(vectors) <= train_size else vectors[np.sort(rng.choice(len(vectors), train_size,
                                                                                       replace=False))]
        self.index.cp.seed = seed
        self.index.train(sample)
        self.index.add(vectors)
        self.index.nprobe = min(nprobe, nlist)
        self._quantizer = quantizer      # FAISS does not own it: keep it alive with the index
        self.build_seconds = time.perf_counter() - start
        self.settings = {"kind": "ivf", "nlist": nlist, "nprobe": self.index.nprobe, "train_size": len(sample)}


def exact_search(matrix: np.ndarray, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
    """The exact ``k`` best rows of ``matrix`` for each query by inner product (ties: lower row first)."""
    scores = _checked(queries, "queries") @ _checked(matrix, "matrix").T
    return [top_k(row, k) for row in scores]


def recall_vs_exact(exact: list[list[tuple[int, float]]], approximate: list[list[tuple[int, float]]]) -> float:
    """The mean share of each query's exact top-k rows that the approximate search also returned."""
    if len(exact) != len(approximate) or not exact:
        raise ValueError(f"recall_vs_exact: {len(exact)} exact and {len(approximate)} approximate result lists")
    shares = [len({r for r, _ in a} & {r for r, _ in e}) / len(e) for e, a in zip(exact, approximate) if e]
    return float(np.mean(shares))
