"""BM25 retrieval: AdMIRaL's first step, with a reference and a fast backend behind one interface.

AdMIRaL (Aly & Vlachos 2022, §3.1; pipeline step 1) starts every claim
with BM25 over whole Wikipedia pages -- the reference configuration uses ``k1=0.9, b=0.1`` and keeps
the top 100 pages -- and its efficiency claims (§5, "memory", "latency") rest on that index being
small and fast.  This module offers:

* :func:`tokenize` -- the one word rule used by every index here (no stemming, no stopwords);
* :class:`BM25` -- Okapi BM25 exactly as ``rank_bm25.BM25Okapi`` (0.2.2) computes it, with two
  backends (:mod:`proofbook.index.bm25_backends`): ``"reference"`` wraps ``BM25Okapi`` itself; ``"fast"``
  keeps the per-term weights in a ``scipy.sparse`` CSR matrix (one row per term) and scores a query by
  summing its terms' rows;
* :class:`DocumentIndex` (pages, ``"Title text"``) and :class:`SentenceIndex` (sentences,
  ``"Title . sentence"``) over a :class:`proofbook.core.corpus.Corpus`;
* :func:`synthetic_corpus` and :func:`benchmark_backends` for the backend benchmark of notebook
  ``admiral/03_efficiency`` (dataset ``synthetic-100k``, systems ``bm25-reference`` / ``bm25-fast``).

The scoring rule (``BM25Okapi``), for a document ``d`` of length ``|d|`` and a query ``q``::

    score(d, q) = sum over query tokens t (each occurrence counts; unknown tokens add 0) of
                  idf(t) * tf(t, d) * (k1 + 1) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl))
    idf(t)      = log(N - n(t) + 0.5) - log(n(t) + 0.5),   N documents, n(t) documents holding t
                  and, where that is negative (t in more than half the documents), epsilon * mean idf
                  (the mean over the whole vocabulary, taken before the floor is applied).

The fast backend evaluates the same floating-point operations in the same order as ``BM25Okapi``, so
its scores are not only within 1e-6 of the reference but bit-for-bit equal (tested).  One documented
exception: ``BM25Okapi`` divides 0 by 0 for an *empty* document when ``b == 1`` and returns NaN for it;
the fast backend gives such a document 0.
"""
from __future__ import annotations

import re
import sys
import time
import unicodedata
from collections.abc import Collection, Sequence

import numpy as np
from threadpoolctl import threadpool_limits

from proofbook.core.corpus import Corpus
from proofbook.index.bm25_backends import ReferenceBackend, SparseBackend
from proofbook.index.ranking import top_k
from proofbook.index.index_file import read_index, write_index

BACKENDS = ("fast", "reference")

#: AdMIRaL's reference BM25 configuration for pages (Aly & Vlachos 2022, §3.1)
ADMIRAL_K1, ADMIRAL_B = 0.9, 0.1

# a token is a maximal run of Unicode letters and digits (``\w`` without the underscore) and of
# combining diacritical marks left after NFKC (e.g. the dot of "İ".lower()), so no word is split
_WORD = re.compile(r"(?:[^\W_]|[\u0300-\u036f])+")


def tokenize(text: str) -> list[str]:
    """Lower-case Unicode word tokens of ``text``.

    The rule: normalise to NFKC (so composed and decomposed accents, ligatures and full-width forms
    agree), lower-case, and keep every maximal run of Unicode letters, digits and combining
    diacritical marks (U+0300-U+036F; accents are kept, not folded).  Punctuation,
    underscores and whitespace separate tokens and are dropped; there is no stemming and no stopword
    list (BM25's IDF and its epsilon floor down-weight frequent words).
    ``tokenize("Tolkien's 2nd café, J.R.R.") == ["tolkien", "s", "2nd", "café", "j", "r", "r"]``.
    """
    if not isinstance(text, str):
        raise ValueError(f"tokenize expects a string, got {type(text).__name__}")
    return _WORD.findall(unicodedata.normalize("NFKC", text).lower())


def _check_tokens(tokens, what: str) -> None:
    if isinstance(tokens, str):
        raise ValueError(f"{what} must be a list of tokens, not a string (use tokenize(text))")


def _backend_attribute(name: str, doc: str | None = None) -> property:
    """A read-only property of :class:`BM25` that reads the attribute ``name`` of its backend."""
    return property(lambda self: getattr(self._impl, name), doc=doc)


class BM25:
    """Okapi BM25 over tokenised documents (``rank_bm25.BM25Okapi``'s formula; see the module docstring).

    ``backend="reference"`` is ``BM25Okapi`` itself; ``backend="fast"`` (default) gives the same scores
    from a sparse matrix, about two orders of magnitude faster per query on 100k documents.
    ``build_seconds`` is the time the index took to build; ``nbytes`` its memory (an estimate for the
    Python dicts).
    """

    def __init__(self, corpus_tokens: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75,
                 epsilon: float = 0.25, backend: str = "fast"):
        if backend not in BACKENDS:
            raise ValueError(f"unknown BM25 backend {backend!r}; expected one of {list(BACKENDS)}")
        if not k1 > 0:
            raise ValueError(f"k1 must be positive, got {k1}")
        if not 0 <= b <= 1:
            raise ValueError(f"b must be in [0, 1], got {b}")
        corpus_tokens = list(corpus_tokens)
        if not corpus_tokens:
            raise ValueError("cannot index an empty corpus")
        for doc in corpus_tokens:
            _check_tokens(doc, "each document")
        corpus_tokens = [list(doc) for doc in corpus_tokens]
        if not any(corpus_tokens):
            raise ValueError("cannot index a corpus whose documents hold no tokens")
        self.k1, self.b, self.epsilon, self.backend = k1, b, epsilon, backend
        start = time.perf_counter()
        implementation = SparseBackend if backend == "fast" else ReferenceBackend
        self._impl = implementation(corpus_tokens, k1, b, epsilon)
        self.build_seconds = time.perf_counter() - start

    n_docs = _backend_attribute("n_docs")
    avgdl = _backend_attribute("avgdl", "The mean document length in tokens.")
    average_idf = _backend_attribute("average_idf", "The mean IDF over the vocabulary before the epsilon floor "
                                                    "(the floor is ``epsilon`` times it).")
    nbytes = _backend_attribute("nbytes")

    def to_bytes(self, titles: Sequence[str] = ()) -> bytes:
        """The index as a compact file (:mod:`proofbook.index.index_file`); fast backend only."""

        if self.backend != "fast":
            raise ValueError("only the fast backend can be written; build the index with backend='fast'")
        return write_index(self._impl, self.k1, self.b, self.epsilon, list(titles))

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "index") -> "BM25":
        """Read :meth:`to_bytes`'s file back (fast backend); the scores are bit-for-bit the same."""
        bm25, _ = cls._read(data, what)
        return bm25

    @classmethod
    def _read(cls, data: bytes, what: str) -> tuple["BM25", list[str]]:

        start = time.perf_counter()
        stored = read_index(data, what)
        bm25 = cls.__new__(cls)
        bm25.k1, bm25.b, bm25.epsilon, bm25.backend = stored["k1"], stored["b"], stored["epsilon"], "fast"
        bm25._impl = SparseBackend.from_counts(stored["vocabulary"], stored["term_frequency"], stored["doc_len"],
                                                bm25.k1, bm25.b, bm25.epsilon)
        bm25.build_seconds = time.perf_counter() - start
        return bm25, stored["titles"]

    def idf(self, token: str) -> float:
        """The (floored) IDF of ``token``; 0 for a token not in the corpus."""
        return self._impl.idf(token)

    def get_scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        """The score of every document (float64, length ``n_docs``); each query-token occurrence counts."""
        _check_tokens(query_tokens, "query_tokens")
        return self._impl.get_scores(list(query_tokens))

    def get_batch_scores(self, query_tokens: Sequence[str], doc_ids: Sequence[int]) -> np.ndarray:
        """The scores of the documents ``doc_ids`` only, in that order."""
        _check_tokens(query_tokens, "query_tokens")
        doc_ids = np.asarray(doc_ids, dtype=np.int64)
        if doc_ids.size and (doc_ids.min() < 0 or doc_ids.max() >= self.n_docs):
            raise ValueError(f"doc_ids must lie in [0, {self.n_docs})")
        return self._impl.get_batch_scores(list(query_tokens), doc_ids)

    def top_k(self, query_tokens: Sequence[str], k: int) -> list[tuple[int, float]]:
        """The ``min(k, n_docs)`` best ``(doc index, score)``: score descending, ties by lower index."""
        return top_k(self.get_scores(query_tokens), k)


def _query_tokens(text: str) -> list[str]:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"empty query: {text!r}")
    tokens = tokenize(text)
    if not tokens:
        raise ValueError(f"query {text!r} has no word tokens")
    return tokens


def _positive(ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
    return [(i, s) for i, s in ranked if s > 0]


class DocumentIndex:
    """BM25 over whole pages (``"Title text"``), AdMIRaL's initial retrieval (reference ``k1=0.9, b=0.1``).

    ``search`` returns page titles with their scores, best first (ties: corpus order), and only pages
    with a positive score, i.e. sharing a word with the query -- so fewer than ``k`` when few match.
    (In a tiny corpus whose mean IDF is negative, BM25Okapi's epsilon floor is negative too and
    pages matching only very common words score below 0; they are not returned.)
    ``build_seconds`` covers tokenisation and indexing.
    """

    def __init__(self, corpus: Corpus, k1: float = ADMIRAL_K1, b: float = ADMIRAL_B, epsilon: float = 0.25,
                 backend: str = "fast"):
        if len(corpus) == 0:
            raise ValueError(f"corpus {corpus.name!r} has no pages")
        start = time.perf_counter()
        self.titles = corpus.titles
        self.bm25 = BM25([tokenize(f"{doc.title} {doc.text}") for doc in corpus], k1=k1, b=b,
                         epsilon=epsilon, backend=backend)
        self.build_seconds = time.perf_counter() - start

    def __len__(self) -> int:
        return len(self.titles)

    @property
    def nbytes(self) -> int:
        """The BM25 index plus the title list."""
        return self.bm25.nbytes + sys.getsizeof(self.titles) + sum(sys.getsizeof(t) for t in self.titles)

    def to_bytes(self) -> bytes:
        """The page index with its titles as one compact file (:mod:`proofbook.index.index_file`)."""
        return self.bm25.to_bytes(self.titles)

    @classmethod
    def from_bytes(cls, data: bytes, what: str = "index") -> "DocumentIndex":
        """Read :meth:`to_bytes`'s file back: the same pages, the same scores."""
        index = cls.__new__(cls)
        start = time.perf_counter()
        index.bm25, index.titles = BM25._read(data, what)
        if len(index.titles) != index.bm25.n_docs:
            raise ValueError(f"{what}: {len(index.titles)} titles for {index.bm25.n_docs} pages")
        index.build_seconds = time.perf_counter() - start
        return index

    def search(self, text: str, k: int = 100) -> list[tuple[str, float]]:
        """The best ``k`` pages for ``text`` as ``(title, score)``; an empty query raises ValueError."""
        ranked = _positive(self.bm25.top_k(_query_tokens(text), k))
        return [(self.titles[i], score) for i, score in ranked]


class SentenceIndex:
    """BM25 over single sentences, each indexed as ``"Title . sentence"``; returns sentence ids.

    Used for hard negatives of the sentence reranker.  Defaults ``k1=0.9, b=0.4`` are Anserini's
    (AdMIRaL's ``b=0.1`` is tuned for whole pages).  ``search(..., titles=...)`` restricts the search
    to the sentences of the given pages.
    """

    def __init__(self, corpus: Corpus, k1: float = 0.9, b: float = 0.4, epsilon: float = 0.25,
                 backend: str = "fast"):
        start = time.perf_counter()
        self.ids: list[tuple[str, int]] = []
        self._rows: dict[str, range] = {}
        texts = []
        for doc in corpus:
            first = len(self.ids)
            for index, sentence in enumerate(doc.sentences):
                self.ids.append((doc.title, index))
                texts.append(f"{doc.title} . {sentence}")
            self._rows[doc.title] = range(first, len(self.ids))
        if not self.ids:
            raise ValueError(f"corpus {corpus.name!r} has no sentences")
        self.bm25 = BM25([tokenize(t) for t in texts], k1=k1, b=b, epsilon=epsilon, backend=backend)
        self.build_seconds = time.perf_counter() - start

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def nbytes(self) -> int:
        return self.bm25.nbytes + sys.getsizeof(self.ids) + 64 * len(self.ids)

    def search(self, text: str, k: int = 100, titles: Collection[str] | None = None
               ) -> list[tuple[tuple[str, int], float]]:
        """The best ``k`` sentences as ``((title, index), score)``, optionally only from pages ``titles``."""
        query = _query_tokens(text)
        if titles is None:
            return [(self.ids[i], s) for i, s in _positive(self.bm25.top_k(query, k))]
        if isinstance(titles, str):
            raise ValueError("titles must be a collection of page titles, not one string")
        missing = [t for t in titles if t not in self._rows]
        if missing:
            raise ValueError(f"titles not in the corpus: {missing[:5]}")
        # ascending rows, so that ties are broken by corpus order as in the unrestricted search
        rows = np.sort(np.array([r for t in set(titles) for r in self._rows[t]], dtype=np.int64))
        if rows.size == 0:
            return []
        ranked = _positive(top_k(self.bm25.get_batch_scores(query, rows), k))
        return [(self.ids[rows[i]], s) for i, s in ranked]


# --------------------------------------------------------------------------- synthetic benchmark


def _zipf_ids(rng: np.random.Generator, size: int, vocab: int, exponent: float) -> np.ndarray:
    probabilities = 1.0 / np.arange(1, vocab + 1) ** exponent
    return rng.choice(vocab, size=size, p=probabilities / probabilities.sum())


def synthetic_corpus(n_docs: int = 100_000, doc_words: int = 60, vocab: int = 50_000, seed: int = 0,
                     exponent: float = 1.0) -> list[list[str]]:
    """``n_docs`` tokenised documents of ``doc_words`` words for the BM25 backend benchmark.

    Word ids are drawn independently from a Zipf distribution over a ``vocab``-word vocabulary
    (P(rank r) proportional to ``r ** -exponent``, natural language's rank-frequency law) with
    ``numpy.random.default_rng((seed, 0))``; word ``r`` is the token ``"w<r>"``.  Same arguments, same
    corpus.
    """
    if n_docs < 1 or doc_words < 1 or vocab < 1:
        raise ValueError("n_docs, doc_words and vocab must be positive")
    ids = _zipf_ids(np.random.default_rng((seed, 0)), n_docs * doc_words, vocab, exponent)
    names = [f"w{r}" for r in range(vocab)]
    words = [names[i] for i in ids.tolist()]
    return [words[d * doc_words:(d + 1) * doc_words] for d in range(n_docs)]


def synthetic_queries(n_queries: int = 50, query_words: int = 8, vocab: int = 50_000, seed: int = 0,
                      exponent: float = 1.0) -> list[list[str]]:
    """Queries drawn like :func:`synthetic_corpus`'s documents, from ``default_rng((seed, 1))``."""
    ids = _zipf_ids(np.random.default_rng((seed, 1)), n_queries * query_words, vocab, exponent)
    return [[f"w{i}" for i in ids[q * query_words:(q + 1) * query_words]] for q in range(n_queries)]


def _time_queries(index: BM25, queries: list[list[str]], k: int) -> tuple[float, list[list[tuple[int, float]]]]:
    start = time.perf_counter()
    results = [index.top_k(query, k) for query in queries]
    return (time.perf_counter() - start) / len(queries), results


def benchmark_backends(n_docs: int = 100_000, n_queries: int = 50, k: int = 10, seed: int = 0,
                       doc_words: int = 60, query_words: int = 8, vocab: int = 50_000, runs: int = 3) -> dict:
    """Build both backends on one synthetic corpus and time the same queries on each.

    Per-query time covers scoring every document and selecting the top ``k`` (the same selection code
    for both), one query at a time, on one thread (``threadpoolctl`` limits numpy's thread pools to 1 for
    the timing); it is the median over ``runs`` runs of all queries, the backends' runs interleaved in one
    process.  Returns ``{"dataset", "n_docs", "n_queries", "k", "bm25-reference": {...},
    "bm25-fast": {...}, "top{k}_agreement", "max_abs_score_diff", "speedup_per_query"}`` where each
    backend's dict holds ``index_build_s``, ``seconds_per_query`` and ``index_bytes``;
    ``top{k}_agreement`` is the fraction of queries whose top-k *set* equals the reference's and
    ``max_abs_score_diff`` the largest score difference over all documents and queries.
    """
    corpus = synthetic_corpus(n_docs, doc_words, vocab, seed)
    queries = synthetic_queries(n_queries, query_words, vocab, seed)
    out: dict = {"dataset": f"synthetic-{n_docs // 1000}k" if n_docs % 1000 == 0 else f"synthetic-{n_docs}",
                 "n_docs": n_docs, "n_queries": n_queries, "k": k}
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    names = (("bm25-reference", "reference"), ("bm25-fast", "fast"))
    indexes = {name: BM25(corpus, backend=backend) for name, backend in names}
    tops, timed = {}, {name: [] for name, _ in names}
    with threadpool_limits(limits=1):
        for _ in range(runs):
            for name, _backend in names:
                seconds, tops[name] = _time_queries(indexes[name], queries, k)
                timed[name].append(seconds)
    for name, _backend in names:
        out[name] = {"index_build_s": indexes[name].build_seconds, "seconds_per_query": float(np.median(timed[name])),
                     "index_bytes": indexes[name].nbytes, "runs": runs}
    reference, fast = tops["bm25-reference"], tops["bm25-fast"]
    out[f"top{k}_agreement"] = float(np.mean([{i for i, _ in r} == {i for i, _ in f}
                                               for r, f in zip(reference, fast)]))
    out["max_abs_score_diff"] = max(
        float(np.max(np.abs(indexes["bm25-reference"].get_scores(q) - indexes["bm25-fast"].get_scores(q))))
        for q in queries)
    out["speedup_per_query"] = out["bm25-reference"]["seconds_per_query"] / out["bm25-fast"]["seconds_per_query"]
    return out
