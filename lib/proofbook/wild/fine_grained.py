"""Second-stage (fine-grained) evidence retrieval of claims in the wild.

Chen et al. (2023), §3.3: the raw documents found for a claim are
long, so the pipeline keeps only the parts that answer its questions:

1. **windows** -- split each document into windows of ``k1 = 30`` tokens, with a stride of 15
   (:func:`make_windows`; consecutive windows overlap by half);
2. **BM25 per question** -- index every window of every document of the claim with BM25 and keep,
   for each question, its top ``per_question = 5`` windows (:func:`score_windows`);
3. **union** -- the union of those windows, each scored by its best score over the questions; keep the
   top ``K1 = 10`` (:func:`select_windows`);
4. **expand** -- widen each kept window by ``k2 = 150`` tokens on each side, clipped to the document
   (:func:`expand`);
5. **merge** -- merge the expanded spans of one document that overlap (:func:`merge_spans`);
6. **rank documents** -- order the documents by their best window score and keep the top ``K2 = 5``
   (:func:`rank_documents`); each document's evidence is its merged spans in document order.

:func:`fine_grained_retrieval` runs all six steps and returns a :class:`FineGrainedResult` holding
every intermediate step (the method notebook shows them).

Choices the paper leaves open, stated here:

* Tokens are whitespace-separated words (so a window is a slice of the text and can be shown as it
  is); BM25 scores a window by :func:`proofbook.index.bm25.tokenize` of its text with the
  ``rank_bm25`` defaults (``k1 = 1.5, b = 0.75``) -- one BM25 over all windows of the claim's documents.
* The last window of a document ends at its last token (a document of 40 tokens has windows 0-30 and
  15-40); a document shorter than ``k1`` is one window.
* A window scoring 0 for a question (no shared word) is not "retrieved" for it; ties are broken by
  document order, then window position.
* Spans that only touch (one ends where the next starts) are merged as well as overlapping ones.

With the cached search results of this copy, each "document" is a title and a snippet of about 27
words: it is a single window, expansion has nothing to add, and the stage reduces to choosing the
``K1`` best snippets and their ``K2`` documents.  The code is exercised on long documents by the tests
and by the local-corpus search backend.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

from proofbook.index.bm25 import BM25, tokenize

K1_TOKENS, STRIDE, PER_QUESTION, TOP_WINDOWS, K2_TOKENS, TOP_DOCUMENTS = 30, 15, 5, 10, 150, 5
#: the sizes above by the names the method chapter gives them
SIZES = {"k1": K1_TOKENS, "stride": STRIDE, "per_question": PER_QUESTION, "top_windows": TOP_WINDOWS,
         "k2": K2_TOKENS, "top_documents": TOP_DOCUMENTS}


@dataclass(frozen=True)
class Window:
    """Tokens ``[start, end)`` of document ``doc``; ``score`` its best BM25 score over the questions."""

    doc: int
    start: int
    end: int
    score: float = 0.0
    question: int | None = None   # the question that gave the best score


@dataclass(frozen=True)
class Span:
    """Tokens ``[start, end)`` of document ``doc`` after expansion (and merging); ``score``: best window."""

    doc: int
    start: int
    end: int
    score: float


@dataclass
class FineGrainedResult:
    """Every step of :func:`fine_grained_retrieval` for one claim."""

    tokens: list[list[str]]                  # the documents as tokens
    windows: list[Window]                    # step 1 (score 0)
    per_question: list[list[Window]]         # step 2: top windows per question, with that question's score
    kept: list[Window]                       # step 3: top K1 of the union
    expanded: list[Span]                     # step 4
    merged: list[Span]                       # step 5
    documents: list[int]                     # step 6: the top K2 documents, best first
    evidence: dict[int, list[Span]] = field(default_factory=dict)   # document -> its merged spans

    def span_text(self, span: Span | Window) -> str:
        """The text of a span or window: its tokens of its document, joined by spaces."""
        return " ".join(self.tokens[span.doc][span.start:span.end])

    def document_evidence(self, doc: int, separator: str = " ... ") -> str:
        """The text of a kept document's merged spans, in document order."""
        return separator.join(self.span_text(s) for s in self.evidence.get(doc, []))


def make_windows(n_tokens: int, k1: int = K1_TOKENS, stride: int = STRIDE, doc: int = 0) -> list[Window]:
    """Windows of ``k1`` tokens every ``stride`` tokens over ``n_tokens``; the last one ends at the end."""
    if k1 < 1 or stride < 1:
        raise ValueError(f"window size and stride must be positive, got k1={k1}, stride={stride}")
    if n_tokens <= 0:
        return []
    if n_tokens <= k1:
        return [Window(doc, 0, n_tokens)]
    windows, start = [], 0
    while start + k1 < n_tokens:
        windows.append(Window(doc, start, start + k1))
        start += stride
    if start < n_tokens:
        windows.append(Window(doc, start, n_tokens))
    return windows


def score_windows(tokens: list[list[str]], windows: Sequence[Window], questions: Sequence[str],
                  per_question: int = PER_QUESTION) -> list[list[Window]]:
    """For each question, its top ``per_question`` windows by BM25 (score > 0), best first."""
    texts = [tokenize(" ".join(tokens[w.doc][w.start:w.end])) for w in windows]
    if not any(texts):
        return [[] for _ in questions]
    index = BM25(texts)
    found = []
    for q, question in enumerate(questions):
        ranked = index.top_k(tokenize(question), min(per_question, len(windows))) if tokenize(question) else []
        found.append([Window(windows[i].doc, windows[i].start, windows[i].end, score, q)
                      for i, score in ranked if score > 0])
    return found


def select_windows(per_question: Sequence[Sequence[Window]], top: int = TOP_WINDOWS) -> list[Window]:
    """The union of the questions' windows, each with its best score; the ``top`` best (ties: position)."""
    best: dict[tuple[int, int, int], Window] = {}
    for windows in per_question:
        for w in windows:
            key = (w.doc, w.start, w.end)
            if key not in best or w.score > best[key].score:
                best[key] = w
    return sorted(best.values(), key=lambda w: (-w.score, w.doc, w.start))[:top]


def expand(windows: Sequence[Window], lengths: Sequence[int], k2: int = K2_TOKENS) -> list[Span]:
    """Each window widened by ``k2`` tokens on both sides, clipped to its document."""
    return [Span(w.doc, max(0, w.start - k2), min(lengths[w.doc], w.end + k2), w.score) for w in windows]


def merge_spans(spans: Sequence[Span]) -> list[Span]:
    """Overlapping (or touching) spans of the same document merged; sorted by document, then start."""
    merged: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.doc, s.start, s.end)):
        last = merged[-1] if merged else None
        if last is not None and last.doc == span.doc and span.start <= last.end:
            merged[-1] = Span(last.doc, last.start, max(last.end, span.end), max(last.score, span.score))
        else:
            merged.append(span)
    return merged


def rank_documents(spans: Sequence[Span], top: int = TOP_DOCUMENTS) -> list[int]:
    """Documents ordered by their best span score (ties: document order); the ``top`` first."""
    best: dict[int, float] = defaultdict(float)
    for span in spans:
        best[span.doc] = max(best[span.doc], span.score)
    return sorted(best, key=lambda d: (-best[d], d))[:top]


def fine_grained_retrieval(documents: Sequence[str], questions: Sequence[str], k1: int = K1_TOKENS,
                           stride: int = STRIDE, per_question: int = PER_QUESTION, top_windows: int = TOP_WINDOWS,
                           k2: int = K2_TOKENS, top_documents: int = TOP_DOCUMENTS) -> FineGrainedResult:
    """The six steps of the module docstring on one claim's documents (texts) and questions."""
    tokens = [str(text).split() for text in documents]
    windows = [w for d, doc in enumerate(tokens) for w in make_windows(len(doc), k1, stride, d)]
    per_q = score_windows(tokens, windows, questions, per_question) if windows else [[] for _ in questions]
    kept = select_windows(per_q, top_windows)
    expanded = expand(kept, [len(t) for t in tokens], k2)
    merged = merge_spans(expanded)
    ranked = rank_documents(merged, top_documents)
    evidence = {d: [s for s in merged if s.doc == d] for d in ranked}
    return FineGrainedResult(tokens, windows, per_q, kept, expanded, merged, ranked, evidence)
