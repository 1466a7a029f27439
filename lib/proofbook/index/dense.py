"""The dense multi-hop baseline ``dense-mdr``: MDR-style retrieval with a MiniLM bi-encoder.

AdMIRaL (Aly & Vlachos 2022, §4-5: baselines, efficiency) compares against MDR (Xiong et al. 2021, "Answering
complex open-domain questions with multi-hop dense retrieval"): a bi-encoder retrieves a first
passage for the claim, then a second passage for the claim concatenated with the first passage, with
a beam over the two hops.  The paper's efficiency claim (C2) is that its BM25 index + title prefix
tree is far smaller than such a dense index; ``03_efficiency`` reads :attr:`DenseIndex.nbytes` and
:attr:`DenseIndex.build_seconds` for that.

What is the same as MDR and what is not:

* **No training.**  MDR trains its question and passage encoders on HotpotQA chains; we cannot at
  this scale, so both hops use the *pretrained* sentence embeddings of all-MiniLM-L6-v2
  (:func:`proofbook.models.loading.minilm_path`).  This is a weaker baseline than MDR; say so with its numbers.
* **Embeddings as sentence-transformers computes them** for this checkpoint: the folder's
  ``modules.json`` lists Transformer -> Pooling -> Normalize, ``1_Pooling/config.json`` sets
  ``pooling_mode_mean_tokens`` (mean over non-padding tokens) and ``sentence_bert_config.json`` sets
  ``max_seq_length`` 256.  So: mean pooling over the attention mask, then L2 normalisation, inputs
  truncated to 256 tokens; cosine similarity is the inner product.
* **Granularity: pages.**  One vector per page, the text ``"Title . sentence1 sentence2 ..."``
  truncated to the model's 256 tokens (HoVer pages average 70 words, so few are cut).  MDR indexes
  Wikipedia paragraphs, which for HotpotQA/HoVer *are* the pages' intro paragraphs, and the systems
  compared in the book return documents, so pages are the natural unit; a sentence index would hold
  3.3x more vectors (HoVer: 7,455 sentences vs 2,254 pages) to return the same documents.

Multi-hop rule (:meth:`DenseIndex.multi_hop`), with ``s(q, d)`` the cosine similarity:

1. hop 1: query ``q1 = claim``; keep the top ``beam`` pages ``d1`` by ``s1 = s(q1, d1)``;
2. hop 2: for each kept ``d1``, query ``q2 = claim + " " + text(d1)``; keep the top ``beam`` pages
   ``d2 != d1`` by ``s2 = s(q2, d2)``;
3. every chain ``(d1, d2)`` scores ``s1 + s2`` (MDR sums the two hops' inner products);
4. the ranked list (``order="hops"``, the default, following the book's rule "hop-0 documents first,
   then new documents in beam-score order"): the ``beam`` first-hop pages in hop-1 order (by ``s1``),
   then the second-hop pages not already listed, ordered by the score of their best chain (ties keep
   hop-1 then hop-2 rank); cut to ``k``.  So the first ``beam`` places are single-hop dense retrieval
   and the multi-hop search fills the places after them.  ``order="chains"`` is MDR's own evaluation
   order instead: walk the chains from the best, appending ``d1`` then ``d2`` when not already listed.
   When the chains hold fewer than ``k`` distinct pages (``beam + beam * beam`` at most, fewer when
   second hops coincide), the list is topped up with the next pages of the hop-1 ranking.

Measured (all evaluation claims, ``k=10``, defaults: beam 3, ``hops``, topped up): recall@2/5/10
HoVer (n=523) 0.170 / 0.503 / 0.623 (recall@5 by hops: 2-hop 0.829, 3-hop 0.496, 4-hop 0.221),
FEVEROUS-S (n=575) 0.939 / 0.976 / 0.977, FEVEROUS-S+distractors (n=575) 0.932 / 0.965 / 0.976.
Alternatives measured on HoVer before topping up: beam 5 gave 0.170 / 0.436 / 0.614, ordering the
first-hop pages by their best chain lost recall@2 (0.13), ``chains`` order lost recall@5 (0.46 at
beam 3, 0.41 at beam 5), so beam 3 with ``hops`` order is the default.  Encoding (2 CPU cores,
batch 64): HoVer 2,254 pages in 37-58 s, FEVEROUS-S+distractors 3,719 pages in 79 s (about 40-60
pages/s); the index is 1.5 kB per page (384 float32).  Two-hop search: about 0.1 s per claim
(batched), almost all of it encoding the hop-2 queries.

A claim longer than the model input is truncated to 256 tokens (and at hop 2 the first-hop page
is cut first, since the claim comes first in the query); an empty claim is a ValueError.

The embedding matrix is cached with :class:`proofbook.core.cache.ArtifactCache` (kind ``"dense-index"``,
key = the corpus fingerprint with the encoder settings), so a second notebook run does not re-encode.
"""
from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from proofbook.core.corpus import Corpus, Document
from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.models.loading import load_encoder, load_tokenizer, resolve_checkpoint
from proofbook.index.ranking import top_k

CACHE_KIND = "dense-index"
#: bump when the page text or the pooling changes, so old cache entries are not reused
INDEX_FORMAT = 1
Order = Literal["hops", "chains"]
DEFAULT_BEAM = 3


def corpus_fingerprint(corpus: Corpus) -> str:
    """A content hash of a corpus: its titles and sentences, in order."""
    return fingerprint([[doc.title, doc.sentences] for doc in corpus])


def page_text(document: Document) -> str:
    """The text a page is encoded from: ``"Title . sentence1 sentence2 ..."``."""
    return f"{document.title} . {document.text}"


def _checked_query(text: str, what: str = "claim") -> str:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"dense retrieval: empty {what} {text!r}")
    return text


def _max_seq_length(folder: Path, tokenizer) -> int:
    """``max_seq_length`` from ``sentence_bert_config.json`` if present, else the tokenizer's limit."""
    config = folder / "sentence_bert_config.json"
    if config.is_file():
        value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        if value:
            return int(value)
    limit = getattr(tokenizer, "model_max_length", 512)
    return int(limit) if limit and limit < 100_000 else 512


class SentenceEmbedder:
    """A bi-encoder: mean pooling over non-padding tokens, then L2 normalisation (sentence-transformers).

    ``checkpoint`` is ``"minilm"`` or a local folder of a BERT-like encoder; ``max_length`` defaults
    to the folder's ``sentence_bert_config.json`` (256 for all-MiniLM-L6-v2).
    """

    def __init__(self, checkpoint: os.PathLike | str = "minilm", max_length: int | None = None,
                 device: str | None = None):
        folder = resolve_checkpoint(checkpoint)
        self.checkpoint = str(checkpoint)
        self.tokenizer = load_tokenizer(folder)
        self.max_length = max_length or _max_seq_length(folder, self.tokenizer)
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = load_encoder(folder).to(self.device)
        self.model.eval()

    @property
    def dimension(self) -> int:
        return int(self.model.config.hidden_size)

    def settings(self) -> dict:
        """What determines the vectors (for cache keys)."""
        return {"checkpoint": self.checkpoint, "max_length": self.max_length, "pooling": "mean+l2"}

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        batch = self.tokenizer(texts, truncation=True, max_length=self.max_length, padding=True,
                               return_tensors="pt").to(self.device)
        with torch.no_grad():
            hidden = self.model(**batch).last_hidden_state.float()
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        mean = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1e-9)
        return torch.nn.functional.normalize(mean, p=2, dim=1).cpu().numpy()

    def encode(self, texts: Sequence[str], batch_size: int = 64, progress: bool | None = None,
               desc: str = "encode") -> np.ndarray:
        """Unit vectors, shape ``(len(texts), dimension)``, float32.

        Texts are batched by length (less padding) and returned in the order given; a progress bar
        appears for more than ten batches unless ``progress`` is False.
        """
        texts = list(texts)
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        starts = range(0, len(order), batch_size)
        show = progress if progress is not None else len(starts) > 10
        for start in tqdm(starts, desc=desc, unit="batch", file=sys.stderr, disable=not show, leave=False):
            rows = order[start:start + batch_size]
            out[rows] = self._embed_batch([texts[i] for i in rows])
        return out


@dataclass(frozen=True)
class Chain:
    """A two-hop chain of pages and its score ``s1 + s2``."""

    first: str
    second: str
    first_score: float
    second_score: float
    first_rank: int = 0   # rank of ``first`` at hop 1 (0 = best)

    @property
    def score(self) -> float:
        return self.first_score + self.second_score


class DenseIndex:
    """One unit vector per page of ``corpus``; cosine search and MDR-style two-hop beam search.

    The corpus is encoded once, in the constructor (a progress bar on long corpora), or loaded from
    ``cache`` (an :class:`ArtifactCache`, kind ``"dense-index"``).  ``build_seconds`` is the time the
    encoding took (read from the cache entry when loaded from it; ``from_cache`` says so).
    """

    def __init__(self, corpus: Corpus, batch_size: int = 64, *, embedder: SentenceEmbedder | None = None,
                 cache: ArtifactCache | None = None, progress: bool | None = None):
        if len(corpus) == 0:
            raise ValueError("DenseIndex: the corpus has no pages")
        self.corpus = corpus
        self.batch_size = batch_size
        self.embedder = embedder or SentenceEmbedder()
        self.progress = progress
        self.titles: list[str] = corpus.titles
        self._row = {title: row for row, title in enumerate(self.titles)}
        self.from_cache = False
        self.approximate = None
        self.embeddings, self.build_seconds = self._load_or_encode(cache)

    @classmethod
    def from_vectors(cls, corpus: Corpus, embeddings: np.ndarray, build_seconds: float, batch_size: int = 64, *,
                     embedder: SentenceEmbedder | None = None) -> "DenseIndex":
        """An index over vectors computed elsewhere, one row per page of ``corpus`` in corpus order.

        The efficiency chapter builds large simulated knowledge bases this way (see its text);
        ``build_seconds`` is what encoding them took or would take.
        """
        embeddings = np.asarray(embeddings, dtype=np.float32)
        index = cls.__new__(cls)
        index.corpus, index.batch_size, index.progress = corpus, batch_size, False
        index.embedder = embedder or SentenceEmbedder()
        if embeddings.shape != (len(corpus), index.embedder.dimension):
            raise ValueError(f"from_vectors: {embeddings.shape} vectors for {len(corpus)} pages of dimension "
                             f"{index.embedder.dimension}")
        index.titles = corpus.titles
        index._row = {title: row for row, title in enumerate(index.titles)}
        index.from_cache, index.approximate = False, None
        index.embeddings, index.build_seconds = embeddings, float(build_seconds)
        return index

    def use_approximate(self, searcher) -> None:
        """Search with an approximate index over the same rows (:mod:`proofbook.index.vector_search`;
        ``None``: exact search again)."""
        if searcher is not None and len(searcher) != len(self.titles):
            raise ValueError(f"the approximate index holds {len(searcher)} vectors for {len(self.titles)} pages")
        self.approximate = searcher

    def __repr__(self) -> str:
        return f"DenseIndex({self.corpus.name!r}, pages={len(self.titles)}, nbytes={self.nbytes})"

    # ------------------------------------------------------------------ building

    def encode(self) -> np.ndarray:
        """Encode every page (``page_text``) into the embedding matrix, shape ``(pages, dimension)``."""
        texts = [page_text(self.corpus[title]) for title in self.titles]
        return self.embedder.encode(texts, self.batch_size, self.progress, desc=f"encode {self.corpus.name}")

    def _timed_encode(self) -> tuple[np.ndarray, float]:
        start = time.perf_counter()
        embeddings = self.encode()
        return embeddings, time.perf_counter() - start

    def _load_or_encode(self, cache: ArtifactCache | None) -> tuple[np.ndarray, float]:
        if cache is None:
            return self._timed_encode()
        config = {"corpus": corpus_fingerprint(self.corpus), "format": INDEX_FORMAT, **self.embedder.settings()}
        built = []

        def build() -> tuple[np.ndarray, float]:
            built.append(True)
            return self._timed_encode()

        def save(value: tuple[np.ndarray, float], folder: Path) -> None:
            np.save(folder / "embeddings.npy", value[0])
            (folder / "index.json").write_text(json.dumps({"build_seconds": value[1], "pages": len(self.titles)}),
                                               encoding="utf-8")

        def load(folder: Path) -> tuple[np.ndarray, float]:
            embeddings = np.load(folder / "embeddings.npy")
            if embeddings.shape != (len(self.titles), self.embedder.dimension):
                raise ValueError(f"cached embeddings have shape {embeddings.shape}")
            return embeddings, float(json.loads((folder / "index.json").read_text(encoding="utf-8"))["build_seconds"])

        value = cache.get_or_build(CACHE_KIND, config, build, save, load)
        self.from_cache = not built
        return value

    @property
    def nbytes(self) -> int:
        """Bytes of the embedding matrix (the dense index proper; titles are not counted)."""
        return int(self.embeddings.nbytes)

    # ------------------------------------------------------------------ search

    def _check_k(self, k: int, name: str = "k") -> None:
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"{name} must be a positive integer, got {k!r}")

    def _top(self, scores: np.ndarray, k: int, exclude: int | None = None) -> list[tuple[str, float]]:
        """The ``k`` best rows of one score vector (ties: lower row first), optionally skipping a row."""
        if exclude is not None:
            scores = scores.copy()
            scores[exclude] = -np.inf
        k = min(k, len(scores) - (exclude is not None))
        if k <= 0:
            return []
        return [(self.titles[row], score) for row, score in top_k(scores, k)]

    def search_many(self, queries: Sequence[str], k: int = 10) -> list[list[tuple[str, float]]]:
        """Top ``k`` pages ``(title, cosine)`` for each query, queries encoded in batches."""
        self._check_k(k)
        queries = [_checked_query(q, "query") for q in queries]
        vectors = self.embedder.encode(queries, self.batch_size, progress=False)
        if self.approximate is not None:
            return [[(self.titles[row], score) for row, score in hits] for hits in self.approximate.search(vectors, k)]
        scores = vectors @ self.embeddings.T
        return [self._top(row, k) for row in scores]

    def search(self, query: str, k: int = 10) -> list[tuple[str, float]]:
        """Top ``k`` pages ``(title, cosine similarity)`` for one query, best first."""
        return self.search_many([query], k)[0]

    def _two_hops(self, claims: Sequence[str], beam: int, depth: int) -> list[tuple[list[str], list[Chain]]]:
        """Per claim: the hop-1 ranking (``depth`` pages) and the chains of its first ``beam`` pages."""
        self._check_k(beam, "beam")
        claims = [_checked_query(claim, "claim") for claim in claims]
        first_hops = self.search_many(claims, max(beam, depth))
        queries = [f"{claim} {page_text(self.corpus[title])}" for claim, hits in zip(claims, first_hops)
                   for title, _ in hits[:beam]]
        vectors = self.embedder.encode(queries, self.batch_size, progress=False) if queries else None
        results, position = [], 0
        for hits in first_hops:
            chains = []
            for rank, (title, first_score) in enumerate(hits[:beam]):
                seconds = self._second_hop(vectors[position], beam, exclude=self._row[title])
                position += 1
                for second, second_score in seconds:
                    chains.append(Chain(title, second, first_score, second_score, rank))
            # stable sort: equal scores keep hop-1 rank, then hop-2 rank
            results.append(([title for title, _ in hits], sorted(chains, key=lambda chain: -chain.score)))
        return results

    def _second_hop(self, vector: np.ndarray, beam: int, exclude: int) -> list[tuple[str, float]]:
        if self.approximate is None:
            return self._top(vector @ self.embeddings.T, beam, exclude=exclude)
        hits = self.approximate.search(vector[None, :], beam + 1)[0]
        return [(self.titles[row], score) for row, score in hits if row != exclude][:beam]

    def chains_many(self, claims: Sequence[str], beam: int = DEFAULT_BEAM) -> list[list[Chain]]:
        """Every claim's ``beam x beam`` two-hop chains, best first (see the module docstring)."""
        return [chains for _, chains in self._two_hops(claims, beam, beam)]

    def chains(self, claim: str, beam: int = DEFAULT_BEAM) -> list[Chain]:
        """One claim's two-hop chains, best first."""
        return self.chains_many([claim], beam)[0]

    @staticmethod
    def rank(chains: Sequence[Chain], k: int, order: Order = "hops", fill: Sequence[str] = ()) -> list[str]:
        """One de-duplicated page list from chains sorted best first (rule in the module docstring).

        ``fill`` (the hop-1 ranking) tops the list up to ``k`` pages when the chains hold fewer.
        """
        if order == "hops":
            by_first_hop = sorted(chains, key=lambda chain: chain.first_rank)
            titles = [chain.first for chain in by_first_hop] + [chain.second for chain in chains]
        elif order == "chains":
            titles = [title for chain in chains for title in (chain.first, chain.second)]
        else:
            raise ValueError(f"order must be 'hops' or 'chains', got {order!r}")
        return list(dict.fromkeys([*titles, *fill]))[:k]

    def multi_hop_many(self, claims: Sequence[str], k: int = 10, beam: int = DEFAULT_BEAM,
                       order: Order = "hops") -> list[list[str]]:
        """:meth:`multi_hop` for many claims, every hop's queries encoded in batches."""
        self._check_k(k)
        return [self.rank(chains, k, order, fill=hop1) for hop1, chains in self._two_hops(claims, beam, k)]

    def multi_hop(self, claim: str, k: int = 10, beam: int = DEFAULT_BEAM, order: Order = "hops") -> list[str]:
        """The top ``k`` pages of a two-hop beam search for ``claim``, de-duplicated, best first."""
        return self.multi_hop_many([claim], k, beam, order)[0]
