"""The ``k`` best of a score vector, in a deterministic order: every index ranks with it.

BM25 (:mod:`proofbook.index.bm25`), the dense indexes (:mod:`proofbook.index.dense`) and Entailer's fact pool
(:mod:`proofbook.entailer.proposals`) all cut a ranking to its ``k`` best entries.  :func:`top_k` does it in
O(n) with ``np.partition`` and breaks ties by the lower index -- exactly the order of a stable descending
sort, so a retrieval run gives the same list on every machine and for every ``k``.
"""
from __future__ import annotations

import numpy as np


#: block size of :func:`top_k`'s pre-filter (scores longer than ``_BLOCK * k * 4`` are pre-filtered)
_BLOCK = 64


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """The ``min(k, len(scores))`` best ``(index, score)`` pairs: score descending, ties broken by the lower index.

    Long score vectors are first cut to the entries at least as high as the ``k``-th highest maximum of
    blocks of :data:`_BLOCK` entries -- a bound the ``k``-th best score cannot be under, since the ``k``
    blocks with the highest maxima hold ``k`` entries that reach it -- so the exact selection runs on a few
    hundred entries instead of all (``np.partition`` over 100,000 scores costs about a millisecond).  The
    result is the same as without the cut.
    """
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    scores = np.asarray(scores)
    n = len(scores)
    if n > _BLOCK * k * 4 and scores.dtype.kind == "f":
        blocks = n // _BLOCK
        maxima = scores[:blocks * _BLOCK].reshape(blocks, _BLOCK).max(axis=1)
        if n > blocks * _BLOCK:
            maxima = np.append(maxima, scores[blocks * _BLOCK:].max())
        if not np.isnan(maxima).any():
            bound = np.partition(maxima, len(maxima) - k)[len(maxima) - k]
            rows = np.flatnonzero(scores >= bound)
            return [(int(rows[i]), value) for i, value in _exact_top_k(scores[rows], k)]
    return _exact_top_k(scores, k)


def _exact_top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
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
