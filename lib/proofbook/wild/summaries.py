"""Claim-focused summaries of claims in the wild, behind one interface.

Chen et al. (2023), §3.4: each retrieved document (its
fine-grained evidence) is summarised *with respect to the claim* in one or two sentences, without
judging the claim; a document with nothing relevant becomes "The document is irrelevant to the claim".
The summaries, joined, are the evidence the veracity classifier reads.

Two backends, ``summariser.summarise(claim, questions, document) -> str``:

* :class:`ExtractiveSummariser` (offline) -- splits the document into sentences
  (:func:`proofbook.core.corpus.split_sentences`), scores each by its highest MiniLM cosine similarity to the
  claim or any of its questions, and keeps the best ``max_sentences = 2`` in document order; if no
  sentence reaches ``threshold`` the summary is :data:`IRRELEVANT`.  This replaces the paper's LLM
  summary where no endpoint exists (a departure: it copies sentences rather than writing new ones).
* :class:`LLMSummariser` -- the paper's zero-shot prompt (:func:`summary_prompt`; the paper's exact
  wording is reconstructed from its description) through :class:`proofbook.models.llm.ChatClient`.
  The few-shot variant needs the paper's four written examples, which are not available here.
"""
from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from proofbook.core.corpus import split_sentences
from proofbook.index.dense import SentenceEmbedder
from proofbook.models.llm import ChatClient

IRRELEVANT = "The document is irrelevant to the claim."
THRESHOLD, MAX_SENTENCES = 0.4, 2


class Summariser(Protocol):
    """The interface of a summary backend: ``summarise(claim, questions, document)`` -> a summary."""
    name: str

    def summarise(self, claim: str, questions: Sequence[str], document: str) -> str: ...


class ExtractiveSummariser:
    """Sentences ranked by MiniLM similarity to the claim and its questions (see the module docstring)."""

    name = "extractive"

    def __init__(self, embedder=None, threshold: float = THRESHOLD, max_sentences: int = MAX_SENTENCES):
        if embedder is None:

            embedder = SentenceEmbedder("minilm", max_length=128)
        self.embedder, self.threshold, self.max_sentences = embedder, threshold, max_sentences

    def scored_sentences(self, claim: str, questions: Sequence[str], document: str) -> list[tuple[str, float]]:
        """Every sentence of ``document`` with its best cosine to the claim or a question."""
        sentences = split_sentences(document)
        if not sentences:
            return []
        queries = [claim, *questions]
        vectors = self.embedder.encode(queries + sentences, progress=False)
        similarity = vectors[len(queries):] @ vectors[:len(queries)].T
        return list(zip(sentences, similarity.max(axis=1).astype(float).tolist()))

    def summarise(self, claim: str, questions: Sequence[str], document: str) -> str:
        """The extractive summary of one document (see :meth:`summarise_many`)."""
        return self.summarise_many(claim, questions, [document])[0]

    def summarise_many(self, claim: str, questions: Sequence[str], documents: Sequence[str]) -> list[str]:
        """Summaries of several documents of one claim, with one call to the encoder."""
        split = [split_sentences(d) for d in documents]
        queries = [claim, *questions]
        flat = [s for sentences in split for s in sentences]
        if not flat:
            return [IRRELEVANT] * len(documents)
        vectors = self.embedder.encode(queries + flat, progress=False)
        scores = (vectors[len(queries):] @ vectors[:len(queries)].T).max(axis=1)
        summaries, start = [], 0
        for sentences in split:
            part = scores[start:start + len(sentences)]
            start += len(sentences)
            if not len(part) or part.max() < self.threshold:
                summaries.append(IRRELEVANT)
                continue
            best = sorted(np.argsort(-part, kind="stable")[:self.max_sentences].tolist())
            summaries.append(" ".join(sentences[i] for i in best if part[i] >= self.threshold))
        return summaries


def summary_prompt(claim: str, document: str) -> str:
    """The zero-shot claim-focused summary prompt (reconstructed from the paper's description)."""
    return (f"Claim: {claim}\n\nDocument: {document}\n\n"
            "Summarize the document in 1-2 sentences, keeping only the information that is relevant to "
            "checking the claim. Do not make any judgment about whether the claim is true. If the document "
            f"has no information relevant to the claim, answer exactly: {IRRELEVANT}\n\nSummary:")


class LLMSummariser:
    """The paper's zero-shot summary prompt through an OpenAI-compatible endpoint (temperature 0)."""

    name = "llm"

    def __init__(self, client=None, max_tokens: int = 120):

        self.client = client or ChatClient()
        self.max_tokens = max_tokens

    def summarise(self, claim: str, questions: Sequence[str], document: str) -> str:
        """The endpoint's summary of ``document`` for ``claim`` (white space normalised), or
        :data:`IRRELEVANT` when the reply says so; ``questions`` is unused (the prompt has none)."""
        reply = " ".join(self.client.complete(summary_prompt(claim, document), temperature=0.0,
                                              max_tokens=self.max_tokens).split())
        return IRRELEVANT if "irrelevant to the claim" in reply.lower() else reply

    def summarise_many(self, claim: str, questions: Sequence[str], documents: Sequence[str]) -> list[str]:
        """One :meth:`summarise` call per document."""
        return [self.summarise(claim, questions, d) for d in documents]
