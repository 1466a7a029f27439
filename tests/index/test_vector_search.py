"""Approximate dense search (FAISS HNSW and IVF) against the exact search, and the dense index using it."""
import numpy as np
import pytest

from proofbook.index.vector_search import HNSWSearch, IVFSearch, exact_search, recall_vs_exact


def unit_vectors(n, d=16, seed=0):
    x = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


@pytest.mark.unit
@pytest.mark.parametrize("searcher", [lambda x: HNSWSearch(x, ef_search=128), lambda x: IVFSearch(x, nlist=40, nprobe=10)])
def test_approximate_search_finds_the_exact_neighbours(searcher):
    vectors = unit_vectors(2_000)
    queries = vectors[:40] + 0.01 * unit_vectors(40, seed=1)
    index = searcher(vectors)
    found = index.search(queries, 10)
    exact = exact_search(vectors, queries, 10)
    assert len(index) == 2_000 and index.nbytes > vectors.nbytes and index.build_seconds > 0
    assert all(hits[0][0] == row for row, hits in enumerate(found))      # each query's own vector first
    assert recall_vs_exact(exact, found) > 0.8
    assert all(a[1] >= b[1] for hits in found for a, b in zip(hits, hits[1:]))
    with pytest.raises(ValueError, match="dimension"):
        index.search(unit_vectors(2, d=8), 3)
    with pytest.raises(ValueError, match="k must be"):
        index.search(queries, 0)


@pytest.mark.unit
def test_bad_vectors_and_bad_settings_are_errors():
    with pytest.raises(ValueError, match="NaN"):
        HNSWSearch(np.full((4, 3), np.nan, dtype=np.float32))
    with pytest.raises(ValueError, match="2-d"):
        IVFSearch(np.zeros(5, dtype=np.float32))
    with pytest.raises(ValueError, match="nlist"):
        IVFSearch(unit_vectors(10), nlist=20)
    with pytest.raises(ValueError, match="result lists"):
        recall_vs_exact([], [])


@pytest.mark.unit
def test_exact_search_breaks_ties_by_row():
    vectors = np.array([[1, 0], [1, 0], [0, 1]], dtype=np.float32)
    assert [r for r, _ in exact_search(vectors, np.array([[1, 0]], dtype=np.float32), 2)[0]] == [0, 1]
