"""Chunking a claim and aligning its chunks to evidence spans (the first step of a ProoFVer proof).

AdMIRaL trains its prover on ProoFVer-style proofs (Aly & Vlachos 2022, §3.2), whose training targets
come from chunking the claim and aligning the chunks to evidence; the lexical baseline uses the same
alignment.  ProoFVer/QA-NatVer chunk with a constituency parser and align with awesome-align (a
fine-tuned multilingual BERT).  Neither is available offline, so this module states two
departures:

* **Chunking** (:func:`chunk_claim`) is a rule: a new chunk starts at a function word that usually opens
  a phrase (auxiliaries and copulas, prepositions, conjunctions, relative pronouns) or after six words;
  punctuation closes a chunk and is not part of any chunk.  ``Anne Rice was born in New Jersey.`` ->
  ``Anne Rice | was born | in New Jersey``.
* **Alignment** (:class:`Aligner`) uses MiniLM (``proofbook.models.loading``, all-MiniLM-L6-v2) as an
  awesome-align-like aligner: each word gets the mean of its word pieces' contextual vectors from a
  middle layer (layer 3 of 6, as awesome-align reads a middle layer of mBERT; one forward pass per
  sentence); a span's vector is the weighted mean of its words' (function words weigh 0.2); every chunk is aligned to the evidence span
  (1-6 words, from any evidence sentence) with the highest score = cosine similarity + 0.3 x content-word
  overlap (Jaccard, lower-cased) - 0.02 per word of length difference.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch

from proofbook.models.loading import load_encoder, load_tokenizer, resolve_checkpoint

BOUNDARY_WORDS = frozenset("""is are was were be been being has have had do does did will would can could shall
should may might must in on at by for from with to into onto of about after before during since until under over
through between against among without within as and or but that which who whom whose where when while than
because although if became becomes become starred stars played plays""".split())
_WORDS = re.compile(r"\w+(?:['’\-.]\w+)*", re.UNICODE)
MAX_SPAN_WORDS = 6
#: words that carry little content: weighted FUNCTION_WEIGHT in span vectors, ignored in word overlap
FUNCTION_WORDS = BOUNDARY_WORDS | frozenset("a an the its it this that his her their he she they".split())
FUNCTION_WEIGHT = 0.2


def content_words(words: Sequence[re.Match]) -> set[str]:
    """The lower-cased words of ``words`` (matches of :func:`word_matches`) that are not function words."""
    return {w.group().lower() for w in words if w.group().lower() not in FUNCTION_WORDS}


def word_matches(text: str) -> list[re.Match]:
    """Every word of ``text`` as a regular-expression match (its position is kept for the alignment)."""
    return list(_WORDS.finditer(text))


def chunk_claim(claim: str, max_words: int = MAX_SPAN_WORDS) -> list[str]:
    """The claim's chunks, in order, as substrings of the claim (rule above)."""
    words = word_matches(claim)
    if not words:
        raise ValueError(f"cannot chunk a claim without words: {claim!r}")
    chunks: list[list[re.Match]] = [[]]
    for previous, word in zip([None] + words[:-1], words):
        current = chunks[-1]
        gap = claim[previous.end():word.start()] if previous is not None else ""
        punctuated = bool(re.search(r"[,;:()\"]", gap))
        opens = word.group().lower() in BOUNDARY_WORDS and not all(w.group().lower() in BOUNDARY_WORDS for w in current)
        if current and (punctuated or opens or len(current) >= max_words):
            chunks.append([])
        chunks[-1].append(word)
    return [claim[c[0].start():c[-1].end()] for c in chunks if c]


@dataclass(frozen=True)
class Alignment:
    """One chunk aligned to an evidence span of sentence ``sentence`` (words ``start``..``end``)."""

    chunk: str
    evidence_span: str
    sentence: int
    start: int
    end: int
    score: float


class Aligner:
    """MiniLM contextual word vectors -> chunk-to-evidence-span alignment (see the module docstring)."""

    def __init__(self, checkpoint="minilm", max_span_words: int = MAX_SPAN_WORDS, length_penalty: float = 0.02,
                 layer: int = 3, overlap_weight: float = 0.3, device: str | None = None):

        folder = resolve_checkpoint(checkpoint)
        self.tokenizer = load_tokenizer(folder)
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        self.model = load_encoder(folder).to(self.device).eval()
        self.max_span_words, self.length_penalty = max_span_words, length_penalty
        self.layer, self.overlap_weight = layer, overlap_weight

    def word_vectors(self, texts: Sequence[str], batch_size: int = 32) -> list[tuple[list[re.Match], np.ndarray]]:
        """For each text: its words (regex matches) and a unit vector per word, shape ``(words, dim)``."""
        out = []
        for first in range(0, len(texts), batch_size):
            batch = texts[first:first + batch_size]
            words = [word_matches(t) for t in batch]
            encoded = self.tokenizer([[w.group() for w in ws] or ["."] for ws in words], is_split_into_words=True,
                                     truncation=True, max_length=256, padding=True, return_tensors="pt")
            with torch.no_grad():
                states = self.model(**{k: v.to(self.device) for k, v in encoded.items()}, output_hidden_states=True).hidden_states
                hidden = states[self.layer].float().cpu().numpy()
            for row, ws in enumerate(words):
                ids = encoded.word_ids(row)
                vectors = np.zeros((len(ws), hidden.shape[-1]), dtype=np.float32)
                counts = np.zeros(len(ws), dtype=np.float32)
                for position, word in enumerate(ids):
                    if word is not None and word < len(ws):
                        vectors[word] += hidden[row, position]
                        counts[word] += 1
                vectors /= np.maximum(counts, 1)[:, None]
                out.append((ws, vectors))
        return out

    @staticmethod
    def _weights(words: Sequence[re.Match]) -> np.ndarray:
        return np.array([FUNCTION_WEIGHT if w.group().lower() in FUNCTION_WORDS else 1.0 for w in words],
                        dtype=np.float32)

    def _spans(self, vectors: np.ndarray, weights: np.ndarray, max_words: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """Unit weighted-mean vectors of every span of 1..max_words words, and their (start, end)."""
        n = len(vectors)
        cumulative = np.vstack([np.zeros((1, vectors.shape[1]), dtype=np.float32),
                                np.cumsum(vectors * weights[:, None], axis=0)])
        spans = [(s, s + k) for k in range(1, max_words + 1) for s in range(0, n - k + 1)]
        if not spans:
            return np.zeros((0, vectors.shape[1]), dtype=np.float32), []
        starts, ends = np.array([s for s, _ in spans]), np.array([e for _, e in spans])
        means = cumulative[ends] - cumulative[starts]
        means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-9)
        return means, spans

    def align(self, claim: str, evidence: Sequence[str], chunks: Sequence[str] | None = None) -> list[Alignment]:
        """Align each chunk of ``claim`` (default :func:`chunk_claim`) to its best evidence span."""
        return self.align_many([claim], [evidence], None if chunks is None else [chunks])[0]

    def align_many(self, claims: Sequence[str], evidence: Sequence[Sequence[str]],
                   chunks: Sequence[Sequence[str]] | None = None) -> list[list[Alignment]]:
        """:meth:`align` for many claims, encoding every text of the batch together."""
        return [[found[0] for found in row] for row in self.candidates_many(claims, evidence, chunks, k=1)]

    def candidates_many(self, claims: Sequence[str], evidence: Sequence[Sequence[str]],
                        chunks: Sequence[Sequence[str]] | None = None, k: int = 3) -> list[list[list[Alignment]]]:
        """For each claim and each of its chunks, the ``k`` best-scoring evidence spans, best first."""
        if len(claims) != len(evidence):
            raise ValueError(f"align_many: {len(claims)} claims but {len(evidence)} evidence lists")
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        chunks = [chunk_claim(c) for c in claims] if chunks is None else [list(c) for c in chunks]
        texts = list(claims) + [s for sentences in evidence for s in sentences]
        encoded = self.word_vectors(texts)
        position = len(claims)
        results = []
        for i, (claim, sentences) in enumerate(zip(claims, evidence)):
            if not sentences:
                raise ValueError(f"claim {i}: no evidence sentence to align to ({claim[:60]!r})")
            claim_words, claim_vectors = encoded[i]
            candidates, where = [], []
            for j in range(len(sentences)):
                words, vectors = encoded[position + j]
                means, spans = self._spans(vectors, self._weights(words), self.max_span_words)
                candidates.append(means)
                where += [(j, s, e, words) for s, e in spans]
            position += len(sentences)
            if not where:
                raise ValueError(f"claim {i}: the evidence has no words to align to")
            matrix = np.vstack(candidates)
            lengths = np.array([e - s for _, s, e, _ in where])
            span_words = [content_words(words[s:e]) for _, s, e, words in where]
            row = []
            for chunk in chunks[i]:
                start, end = self._locate(claim, claim_words, chunk)
                if end - start > self.max_span_words:
                    raise ValueError(f"claim {i}: chunk {chunk!r} has {end - start} words, more than the span limit "
                                     f"of {self.max_span_words}")
                weights = self._weights(claim_words[start:end])
                vector = (claim_vectors[start:end] * weights[:, None]).sum(axis=0)
                vector /= max(float(np.linalg.norm(vector)), 1e-9)
                chunk_words = content_words(claim_words[start:end])
                overlap = np.array([len(chunk_words & ws) / max(1, len(chunk_words | ws)) for ws in span_words])
                scores = (matrix @ vector + self.overlap_weight * overlap
                          - self.length_penalty * np.abs(lengths - (end - start)))
                best = np.argsort(-scores, kind="stable")[:k]
                found = []
                for index in best:
                    j, s, e, words = where[int(index)]
                    text = sentences[j][words[s].start():words[e - 1].end()]
                    found.append(Alignment(chunk, text, j, s, e, float(scores[index])))
                row.append(found)
            results.append(row)
        return results

    @staticmethod
    def _locate(claim: str, words: list[re.Match], chunk: str) -> tuple[int, int]:
        target = [w.group().lower() for w in word_matches(chunk)]
        lowered = [w.group().lower() for w in words]
        for s in range(len(lowered) - len(target) + 1):
            if lowered[s:s + len(target)] == target:
                return s, s + len(target)
        raise ValueError(f"chunk {chunk!r} does not occur in the claim {claim!r}")
