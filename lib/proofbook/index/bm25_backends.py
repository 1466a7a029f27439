"""The two scoring backends behind :class:`proofbook.index.bm25.BM25`: the reference and the fast one.

AdMIRaL (Aly & Vlachos 2022, §3.1; pipeline step 1) retrieves pages with BM25, and its efficiency
claims (§5, "memory", "latency") rest on that index being small and fast.  Both backends compute
Okapi BM25 exactly as ``rank_bm25.BM25Okapi`` (0.2.2) does (the formula is in :mod:`proofbook.index.bm25`):

* :class:`ReferenceBackend` -- ``BM25Okapi`` itself (``backend="reference"``);
* :class:`SparseBackend` -- the per-term weights precomputed in a ``scipy.sparse`` CSR matrix, one row
  per term, a query scored by summing its terms' rows (``backend="fast"``).  It evaluates the same
  floating-point operations in the same order as ``BM25Okapi``, so the scores are bit-for-bit equal;
  :mod:`proofbook.index.index_file` stores and reads its counts.

Both offer ``n_docs``, ``avgdl``, ``average_idf``, ``nbytes``, ``idf(token)``, ``get_scores(tokens)`` and
``get_batch_scores(tokens, doc_ids)``; :class:`~proofbook.index.bm25.BM25` checks the arguments.
"""
from __future__ import annotations

import math
import sys

import numpy as np
import scipy.sparse


class ReferenceBackend:
    """``rank_bm25.BM25Okapi``, unchanged."""

    def __init__(self, corpus_tokens: list[list[str]], k1: float, b: float, epsilon: float):
        from rank_bm25 import BM25Okapi

        self.model = BM25Okapi(corpus_tokens, k1=k1, b=b, epsilon=epsilon)
        self.n_docs = self.model.corpus_size
        self.avgdl = self.model.avgdl
        self.average_idf = self.model.average_idf

    def idf(self, token: str) -> float:
        """BM25Okapi's IDF of ``token`` (0.0 for a token not in the corpus)."""
        return self.model.idf.get(token) or 0.0

    def get_scores(self, query_tokens: list[str]) -> np.ndarray:
        """BM25Okapi's score of every document for the query tokens."""
        return self.model.get_scores(query_tokens)

    def get_batch_scores(self, query_tokens: list[str], doc_ids: np.ndarray) -> np.ndarray:
        """BM25Okapi's scores of the documents ``doc_ids`` only, as floats."""
        return np.asarray(self.model.get_batch_scores(query_tokens, list(doc_ids)), dtype=float)

    @property
    def nbytes(self) -> int:
        """Estimate: the per-document term-frequency dicts, the IDF dict with its keys, the length list."""
        model = self.model
        total = sum(sys.getsizeof(freqs) for freqs in model.doc_freqs) + sys.getsizeof(model.doc_freqs)
        total += sys.getsizeof(model.doc_len) + 28 * len(model.doc_len)
        total += sys.getsizeof(model.idf) + sum(sys.getsizeof(t) + 24 for t in model.idf)
        return total


class SparseBackend:
    """The same scores from a term-by-document CSR matrix of precomputed per-term weights."""

    def __init__(self, corpus_tokens: list[list[str]], k1: float, b: float, epsilon: float):
        vocabulary: dict[str, int] = {}   # token -> row, in order of first occurrence
        term_ids: list[int] = []
        doc_len = []
        for doc in corpus_tokens:
            term_ids.extend(vocabulary.setdefault(token, len(vocabulary)) for token in doc)
            doc_len.append(len(doc))
        term_frequency = self._term_frequency(np.asarray(term_ids, dtype=np.int64), doc_len, len(vocabulary))
        self._build(vocabulary, term_frequency, doc_len, k1, b, epsilon)

    @classmethod
    def from_counts(cls, vocabulary: dict[str, int], term_frequency: scipy.sparse.csr_matrix, doc_len: list[int],
                    k1: float, b: float, epsilon: float) -> "SparseBackend":
        """The backend of a stored index (:mod:`proofbook.index.index_file`): counts in, same scores out."""
        backend = cls.__new__(cls)
        backend._build(vocabulary, term_frequency, doc_len, k1, b, epsilon)
        return backend

    def _build(self, vocabulary: dict[str, int], term_frequency: scipy.sparse.csr_matrix, doc_len: list[int],
               k1: float, b: float, epsilon: float) -> None:
        self.vocabulary = vocabulary
        self.n_docs = len(doc_len)
        self.avgdl = sum(doc_len) / self.n_docs
        self.doc_len = np.asarray(doc_len, dtype=np.int64)
        self.counts = term_frequency.data.astype(np.uint32)   # tf, aligned with matrix.data (kept for to_bytes)
        self.idf_values, self.average_idf = self._idf(term_frequency, epsilon)
        self.matrix = self._weights(term_frequency, self.doc_len, k1, b)

    @staticmethod
    def _term_frequency(term_ids: np.ndarray, doc_len: list[int], n_terms: int) -> scipy.sparse.csr_matrix:
        """tf(t, d) as a (terms x documents) CSR matrix; repeated (t, d) pairs are summed."""
        doc_ids = np.repeat(np.arange(len(doc_len), dtype=np.int64), doc_len)
        shape = (n_terms, len(doc_len))
        counts = scipy.sparse.coo_matrix((np.ones(len(term_ids)), (term_ids, doc_ids)), shape=shape).tocsr()
        counts.sum_duplicates()
        counts.sort_indices()
        return counts

    def _idf(self, term_frequency: scipy.sparse.csr_matrix, epsilon: float) -> tuple[np.ndarray, float]:
        """BM25Okapi's IDF, summed in the same (first-occurrence) order so that the mean is identical."""
        document_frequency = np.diff(term_frequency.indptr).tolist()
        n, idf, idf_sum = self.n_docs, [], 0.0
        for freq in document_frequency:
            value = math.log(n - freq + 0.5) - math.log(freq + 0.5)
            idf.append(value)
            idf_sum += value
        average_idf = idf_sum / len(idf)
        floor = epsilon * average_idf
        return np.array([floor if value < 0 else value for value in idf]), average_idf

    def _weights(self, term_frequency: scipy.sparse.csr_matrix, doc_len: np.ndarray, k1: float,
                 b: float) -> scipy.sparse.csr_matrix:
        """idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)) for every non-zero tf."""
        rows = np.repeat(np.arange(term_frequency.shape[0]), np.diff(term_frequency.indptr))
        docs = term_frequency.indices
        tf = term_frequency.data
        # the operations of BM25Okapi.get_scores, in its order, restricted to the non-zero entries
        length_part = k1 * (1 - b + b * doc_len / self.avgdl)
        weights = self.idf_values[rows] * (tf * (k1 + 1) / (tf + length_part[docs]))
        return scipy.sparse.csr_matrix((weights, docs.astype(np.int32), term_frequency.indptr),
                                       shape=term_frequency.shape)

    def idf(self, token: str) -> float:
        """The IDF of ``token``, floored as BM25Okapi floors it (0.0 for a token not in the corpus)."""
        row = self.vocabulary.get(token)
        return 0.0 if row is None else float(self.idf_values[row])

    def get_scores(self, query_tokens: list[str]) -> np.ndarray:
        """Sum the rows of the query's tokens, one per occurrence, in query order (as BM25Okapi does)."""
        indptr, indices, data = self.matrix.indptr, self.matrix.indices, self.matrix.data
        rows = [self.vocabulary[t] for t in query_tokens if t in self.vocabulary]
        if not rows:
            return np.zeros(self.n_docs)
        docs = np.concatenate([indices[indptr[r]:indptr[r + 1]] for r in rows])
        weights = np.concatenate([data[indptr[r]:indptr[r + 1]] for r in rows])
        return np.bincount(docs, weights=weights, minlength=self.n_docs)

    def get_batch_scores(self, query_tokens: list[str], doc_ids: np.ndarray) -> np.ndarray:
        """The scores of the documents ``doc_ids`` only (:meth:`get_scores`, indexed)."""
        return self.get_scores(query_tokens)[doc_ids]

    @property
    def nbytes(self) -> int:
        """The CSR arrays plus an estimate of the vocabulary dict (table, key strings, int values)."""
        matrix = self.matrix.data.nbytes + self.matrix.indices.nbytes + self.matrix.indptr.nbytes
        vocabulary = sys.getsizeof(self.vocabulary) + sum(sys.getsizeof(t) + 28 for t in self.vocabulary)
        return matrix + vocabulary + self.idf_values.nbytes + self.counts.nbytes + self.doc_len.nbytes
