"""The five-stage pipeline of claims in the wild (Chen et al. 2023, §3, Figure 2) on one claim.

A :class:`Pipeline` runs decomposition (claim -> yes/no questions), search (time- and site-filtered),
fine-grained retrieval (windows, BM25, expansion, merging), claim-focused summaries and, optionally, the
veracity classifier, and returns a :class:`Trace` with every intermediate result and the time of each stage.
:func:`replay_pipeline` is the pipeline the experiments use: cached questions, the replayed search cache and
extractive summaries (:mod:`proofbook.wild.summaries`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from proofbook.wild.datasets import WildData
from proofbook.wild.decomposition import CachedQuestions
from proofbook.wild.fine_grained import FineGrainedResult, fine_grained_retrieval
from proofbook.wild.search import Page, ReplaySearch, SearchOutcome
from proofbook.wild.summaries import IRRELEVANT, ExtractiveSummariser
from proofbook.wild.trained_models import Models
from proofbook.wild.veracity import VeracityClassifier, claimdecomp_examples


@dataclass
class Trace:
    """One claim through the five stages, with every intermediate result and the time of each stage."""

    claim: object
    questions: list[str]
    search: SearchOutcome
    retrieval: FineGrainedResult
    documents: list[Page]                  # the top-K2 pages, best first
    evidence_texts: list[str]              # their fine-grained evidence
    summaries: list[str]
    web_snippets: str                      # evidence for the web-snippets condition
    web_summaries: str                     # evidence for the web-summaries condition
    probabilities: dict[str, np.ndarray] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def join_summaries(summaries: Sequence[str]) -> str:
    """The summaries the classifier reads: relevant ones joined; the irrelevant marker only if none is relevant."""
    relevant = [s for s in summaries if s != IRRELEVANT]
    return " ".join(relevant) if relevant else IRRELEVANT


class Pipeline:
    """Decomposer -> search backend -> fine-grained retrieval -> summariser (-> classifier)."""

    def __init__(self, decomposer, search, summariser, classifier: VeracityClassifier | None = None):
        self.decomposer, self.search, self.summariser, self.classifier = decomposer, search, summariser, classifier

    def run(self, claim, predict: bool = True) -> Trace:
        """One claim through the stages, each timed: questions, search, fine-grained retrieval (BM25 with
        the questions that were searched), summaries and, if ``predict`` and a classifier is set, the
        web-summaries label probabilities."""
        seconds, start = {}, time.perf_counter()
        questions = self.decomposer.questions(claim)
        seconds["decomposition"] = time.perf_counter() - start
        start = time.perf_counter()
        outcome = self.search.search(claim, questions)
        seconds["search"] = time.perf_counter() - start
        start = time.perf_counter()
        # BM25 is run with the questions that were searched (for replayed results: the cached ones)
        searched = list(dict.fromkeys(p.question for p in outcome.pages if p.question)) or questions
        retrieval = fine_grained_retrieval([p.document for p in outcome.pages], searched)
        documents = [outcome.pages[d] for d in retrieval.documents]
        texts = [retrieval.document_evidence(d) for d in retrieval.documents]
        seconds["fine-grained retrieval"] = time.perf_counter() - start
        start = time.perf_counter()
        summaries = self.summariser.summarise_many(claim.claim, searched, texts) if texts else []
        seconds["summaries"] = time.perf_counter() - start
        trace = Trace(claim, questions, outcome, retrieval, documents, texts, summaries, " ".join(texts),
                      join_summaries(summaries) if summaries else IRRELEVANT, seconds=seconds)
        if predict and self.classifier is not None:
            start = time.perf_counter()
            [example] = claimdecomp_examples([claim], {claim.example_id: trace.web_summaries})
            trace.probabilities["web-summaries"] = self.classifier.predict_proba([example], progress=False)[0]
            seconds["veracity"] = time.perf_counter() - start
        return trace


def replay_pipeline(data: WildData, models: Models | None = None, summariser=None) -> Pipeline:
    """The pipeline the experiments use: cached questions, replayed search, extractive summaries."""
    return Pipeline(CachedQuestions(data.cached_questions, "questions-cached"), ReplaySearch(data.search_cache),
                    summariser or ExtractiveSummariser(),
                    models.evidence if models is not None else None)
