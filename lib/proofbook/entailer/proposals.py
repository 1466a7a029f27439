"""Where Entailer's candidate premise sets come from: generated, retrieved from a fact corpus, or both.

In Tafjord et al. (2022, §3.1 and §3.3) the H -> P behaviour is generation: the 11B model writes ``k``
candidate premise sets for a hypothesis (greedy for k = 1, else nucleus sampling, temperature 2.0 and
top-p 0.95), and the search scores each premise's truth (H -> Sd) and the inference (PH -> Se), rejects a
candidate below 0.5, and keeps the best by the product.  A generator that can be trained on two CPU cores
writes mostly false or garbled premises (the method chapter measures it), so this module adds two other
*sources* of candidates behind the same behaviour; the rest of the search is unchanged.

* ``generated`` -- the trained premise generator alone (the paper's path; with a local
  ``allenai/entailer-*`` checkpoint it is exactly the paper's behaviour).
* ``retrieved`` -- a **pool** of candidate sets built from a fact corpus (WorldTree): the facts that
  BM25 and a MiniLM bi-encoder retrieve for the hypothesis (:class:`FactPool`), each on its own and
  every pair of the first few, ranked by the entailment scorer PH -> Se.
* ``mixed`` -- both: the generator's sets join the retrieved pool and are ranked with it.

Drawing from a pool mirrors decoding: *greedy* takes the ``k`` best-ranked sets; *sampled* draws ``k``
sets, with replacement, by nucleus sampling over the pool's entailment scores: weights
``s ** (1 / temperature)``, normalised, cut to the smallest most-likely subset whose mass reaches
``top_p`` (:func:`nucleus_draw`).  Duplicates are merged by the search, as for generated sets.

**Departure.**  In the paper the model writes its premises, so a premise can be a fact the model believes
that no corpus holds, and intermediate conclusions arise naturally at depth > 1.  Here retrieved premises
are sentences of the corpus; a fact pool holds no intermediate conclusions, so deeper levels can only
retrieve facts that entail a fact (which rarely beats a true fact's own direct score).  The premise
scores and the inference score are still the model's own, and a candidate is still rejected below 0.5.

**What decides it: the judges.**  With retrieved premises the proof score is, in effect, the entailment
scorer's judgement of the best true set for each option.  That judgement is measured on the model-selection split
of :mod:`proofbook.entailer.selection` (400 OpenBookQA *train* questions; ``python -m proofbook.entailer.selection
--judge entailment``): the book's entailment scorer, trained exactly as the book trains it, answers 0.29 of them
by its best pool set (where the book's truth scorer, trained without them, ranks the true option first for 0.56),
and the one larger encoder installable here, all-mpnet-base-v2 trained the same way, 0.32 (no better within the
split's interval; the module's docstring has the figures).
Measured during development, with prototype scripts that are not part of this repository (so these figures are
not reproduced by the book), on an earlier split (300 OpenBookQA train questions the truth scorer never saw; the
same pools): ``direct`` answered 0.49; the best pool set by the trained entailment scorer 0.30-0.34,
with or without the product of premise scores; an entailment scorer retrained on 16,000 pairs with
retriever-mined negatives (near misses for EntailmentBank conclusions, facts retrieved for wrong OBQA options)
and EntailmentBank whole-tree positives 0.30-0.34 (0.93 on its own held-out pairs), and the same warm-started
from the truth scorer 0.31-0.34.  The truth scorer itself, reading a pool set as its context, answered
0.49-0.51 -- no better than ``direct``, and not an entailment judgement (it states its belief in H whether
or not the set supports it), so it is not used as one.  A MiniLM cross-encoder trained on a few thousand
entailments scores word overlap more than inference ("as air pressure decreases, the chance of rain will
increase" -> "descending air pressure leads to a lower chance of rain": 0.96).

An empty pool (a hypothesis with no word the retrievers know, no generated set) leaves the node with no
candidate: the search then scores the hypothesis by its direct score and marks it
(:attr:`proofbook.entailer.search.OptionProof.fallback`), and the chapters count such options.
"""
from __future__ import annotations

import itertools
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.entailer.behaviours import FactRetriever
from proofbook.index.dense import SentenceEmbedder
from proofbook.index.ranking import top_k

#: where candidate premise sets come from (see the module docstring)
SOURCES = ("generated", "retrieved", "mixed")


@dataclass(frozen=True)
class PoolSettings:
    """How a hypothesis' pool is built: ``bm25`` and ``dense`` facts retrieved (merged, BM25 first, no
    repeats), every fact on its own, and every pair among the first ``pairs_from`` merged facts."""

    bm25: int = 4
    dense: int = 4
    pairs_from: int = 5

    def __post_init__(self):
        if self.bm25 < 0 or self.dense < 0 or self.pairs_from < 0 or self.bm25 + self.dense == 0:
            raise ValueError(f"PoolSettings: bm25 and dense must be >= 0 and not both 0, pairs_from >= 0; got {self}")


class FactPool:
    """Candidate premise sets for hypotheses, from the facts BM25 and a dense encoder retrieve.

    ``vectors`` are the unit vectors of ``retriever.facts`` in order (one row per fact), from the same
    ``embedder`` that encodes the hypotheses; both may be ``None`` for BM25 alone.
    """

    def __init__(self, retriever: FactRetriever, embedder=None, vectors: np.ndarray | None = None,
                 settings: PoolSettings = PoolSettings()):
        if settings.dense and (embedder is None or vectors is None):
            raise ValueError("FactPool: dense retrieval needs an embedder and the facts' vectors")
        if vectors is not None and len(vectors) != len(retriever.facts):
            raise ValueError(f"FactPool: {len(vectors)} vectors for {len(retriever.facts)} facts")
        self.retriever, self.embedder, self.vectors, self.settings = retriever, embedder, vectors, settings

    def facts_for(self, hypotheses: Sequence[str]) -> list[list[str]]:
        """The merged retrieved facts of each hypothesis (BM25's first, then the dense ones not yet in)."""
        hypotheses = list(hypotheses)
        dense: list[list[str]] = [[] for _ in hypotheses]
        if self.settings.dense and hypotheses:
            scores = self.embedder.encode(hypotheses, progress=False) @ self.vectors.T
            dense = [[self.retriever.facts[i] for i, _ in top_k(row, self.settings.dense)] for row in scores]
        return [list(dict.fromkeys(self.retriever.retrieve(h, self.settings.bm25) + d)) if self.settings.bm25
                else d for h, d in zip(hypotheses, dense)]

    def sets(self, hypotheses: Sequence[str]) -> list[list[tuple[str, ...]]]:
        """Every retrieved fact as a one-premise set, then every pair of the first ``pairs_from``."""
        out = []
        for facts in self.facts_for(hypotheses):
            out.append([(f,) for f in facts] + list(itertools.combinations(facts[:self.settings.pairs_from], 2)))
        return out


def nucleus_draw(scores: Sequence[float], k: int, temperature: float, top_p: float,
                 rng: np.random.Generator) -> list[int]:
    """``k`` indices drawn with replacement from the nucleus of ``scores`` (see the module docstring)."""
    if k < 1:
        raise ValueError(f"nucleus_draw: k must be positive, got {k}")
    if temperature <= 0 or not 0 < top_p <= 1:
        raise ValueError(f"nucleus_draw: temperature must be > 0 and top_p in (0, 1], got {temperature}, {top_p}")
    weights = np.power(np.clip(np.asarray(scores, dtype=float), 1e-9, 1.0), 1.0 / temperature)
    p = weights / weights.sum()
    order = np.argsort(-p, kind="stable")
    cut = int(np.searchsorted(np.cumsum(p[order]), top_p - 1e-12)) + 1
    nucleus = order[:cut]
    return [int(i) for i in rng.choice(nucleus, size=k, replace=True, p=p[nucleus] / p[nucleus].sum())]


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


class ProposingEntailer:
    """A behaviour model (:class:`proofbook.entailer.search.BehaviourModel`) whose H -> P draws
    from ``source``; H -> Sd and PH -> Se are ``base``'s, memoised across calls so that a fact or a
    candidate set is scored once per run however many hypotheses retrieve it."""

    def __init__(self, base, pool: FactPool | None, source: str = "mixed"):
        if source not in SOURCES:
            raise ValueError(f"unknown premise source {source!r}; expected one of {SOURCES}")
        if source != "generated" and pool is None:
            raise ValueError(f"premise source {source!r} needs a fact pool")
        self.base, self.pool, self.source = base, pool, source
        self._truth: dict[str, float] = {}
        self._entail: dict[tuple[tuple[str, ...], str], float] = {}

    def generate_premises(self, hypotheses: Sequence[str], k: int, sample: bool, temperature: float = 2.0,
                          top_p: float = 0.95, seed: int = 0) -> list[list[list[str]]]:
        """H -> P: ``base``'s sets for ``generated``; else the pool's sets (plus ``base``'s for ``mixed``)
        ranked by PH -> Se, the ``k`` best, or ``k`` drawn by :func:`nucleus_draw` when ``sample``."""
        hypotheses = list(hypotheses)
        if self.source == "generated":
            return self.base.generate_premises(hypotheses, k, sample, temperature, top_p, seed)
        pools = self.pool.sets(hypotheses)
        if self.source == "mixed":
            generated = self.base.generate_premises(hypotheses, k, sample, temperature, top_p, seed)
            pools = [list(dict.fromkeys(pool + [tuple(s) for s in sets if s])) for pool, sets in zip(pools, generated)]
        flat = [(list(s), h) for h, pool in zip(hypotheses, pools) for s in pool]
        scores = iter(self.entailment_scores(flat))
        out = []
        for hypothesis, pool in zip(hypotheses, pools):
            ranked = np.array([next(scores) for _ in pool])
            if not pool:
                out.append([])
            elif sample:
                rng = np.random.default_rng([seed, zlib.crc32(_norm(hypothesis).encode("utf-8"))])
                out.append([list(pool[i]) for i in nucleus_draw(ranked, k, temperature, top_p, rng)])
            else:
                out.append([list(pool[i]) for i in np.argsort(-ranked, kind="stable")[:k]])
        return out

    def truth_scores(self, statements: Sequence[str]) -> list[float]:
        """``base``'s s_d of each statement, memoised by normalised text."""
        todo = list(dict.fromkeys(_norm(s) for s in statements if _norm(s) not in self._truth))
        if todo:
            originals = {}
            for s in statements:
                originals.setdefault(_norm(s), s)
            self._truth.update(zip(todo, self.base.truth_scores([originals[t] for t in todo])))
        return [self._truth[_norm(s)] for s in statements]

    def entailment_scores(self, proofs: Sequence[tuple[Sequence[str], str]]) -> list[float]:
        """``base``'s s_e of each ``(premises, hypothesis)``, memoised by normalised text."""
        keys = [(tuple(map(_norm, premises)), _norm(h)) for premises, h in proofs]
        todo = {}
        for key, (premises, h) in zip(keys, proofs):
            if key not in self._entail:
                todo.setdefault(key, (list(premises), h))
        if todo:
            self._entail.update(zip(todo, self.base.entailment_scores(list(todo.values()))))
        return [self._entail[key] for key in keys]


def build_pool(retriever: FactRetriever, settings: PoolSettings = PoolSettings(), cache=None) -> FactPool:
    """The pool over ``retriever.facts``, dense retrieval by the MiniLM bi-encoder; the facts' vectors are
    encoded once (about 11,500 WorldTree facts: some seconds on 2 cores) and kept in the artifact cache."""

    if not settings.dense:
        return FactPool(retriever, settings=settings)
    embedder = SentenceEmbedder("minilm")
    cache = cache or ArtifactCache()

    def load(folder):
        vectors = np.load(Path(folder) / "vectors.npy")
        if vectors.shape != (len(retriever.facts), embedder.dimension):
            raise ValueError(f"cached fact vectors have shape {vectors.shape}")
        return vectors

    vectors = cache.get_or_build("entailer-fact-vectors", {"embedder": embedder.settings(),
                                                           "facts": fingerprint(retriever.facts)},
                                 lambda: embedder.encode(retriever.facts, desc="fact vectors"),
                                 lambda value, folder: np.save(Path(folder) / "vectors.npy", value), load)
    return FactPool(retriever, embedder, vectors, settings)
