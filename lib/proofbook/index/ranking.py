"""The ``k`` best of a score vector, in a deterministic order: every index ranks with it.

BM25 (:mod:`proofbook.index.bm25`), the dense indexes (:mod:`proofbook.index.dense`) and Entailer's fact pool
(:mod:`proofbook.entailer.proposals`) all cut a ranking to its ``k`` best entries.  :func:`top_k` does it in
O(n) with ``np.partition`` and breaks ties by the lower index -- exactly the order of a stable descending
sort, so a retrieval run gives the same list on every machine and for every ``k``.
"""
from __future__ import annotations

import numpy as np


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``min(k, len(scores))`` best ``(index, score)`` pairs: score descending, ties broken by the lower index."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    scores = np.asarray(scores)
    n = len(scores)
    if k >= n:
        chosen = np.arange(n)
    else:
        # the k-th best score, then everything strictly better plus the lowest-index ties
        threshold = np.partition(scores, n - k)[n - k]
        better = np.flatnonzero(scores > threshold)
        ties = np.flatnonzero(scores == threshold)[: k - len(better)]
        chosen = np.concatenate([better, ties])
    order = np.lexsort((chosen, -scores[chosen]))
    return [(int(i), float(scores[i])) for i in chosen[order]]
