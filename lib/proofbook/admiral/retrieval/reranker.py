"""The sentence reranker of AdMIRaL (Aly & Vlachos 2022, §3.1, pipeline steps 2 and 5).

After the initial retrieval the paper reranks the sentences of the top 10 documents (the reference
code uses monoT5 on ``Title . sentence``), reorders the documents by their best sentence and keeps the
top 5 sentences (step 2).  After each autoregressive hop the sentences of the new documents are
reranked with the claim *plus the previously selected sentence* (step 5).  Here the reranker is a
MiniLM cross-encoder (:class:`proofbook.models.cross_encoder.CrossEncoder`, labels ``["no", "yes"]``) scoring the
pair ``(query, "Title . sentence")`` with ``query = claim`` or ``claim </s> context`` at later hops;
the score of a sentence is P(yes).

Training data (:func:`reranker_examples`), per claim with at least one gold sentence:

* positives: every gold sentence (label ``yes``);
* ``negatives_per_claim`` (default 4) hard negatives (label ``no``): a quarter (rounded down: 1 of 4)
  are non-gold sentences of the gold pages ("same page"); the rest are sentences of other retrieved
  pages (``candidates(claim)``, e.g. BM25's top pages, minus the gold pages; "other page") taken at
  the *positions* of the claim's gold sentences.  Gold sentences are mostly a page's opening sentence
  (HoVer 55%, FEVEROUS-S 50%); with same-page negatives (never the opening sentence when it is gold)
  and random other-page sentences a first model learned "opening sentence = yes" and ranked documents
  worse than BM25, so position-matched negatives take that cue away.  When one pool runs short the
  other fills in; when both do, position-matched sentences of random non-gold pages do.  FEVEROUS-S
  pages hold only gold sentences, so there the negatives come from other pages automatically;
* for a claim whose gold sentences span two or more pages, one *context* pair: a random gold sentence
  as context, with a gold sentence of another page (``yes``) and one of the claim's negatives not on
  the context's page (``no``) -- the hop-2 situation of step 5.

So a claim contributes ``len(gold) + 1`` positives and ``negatives_per_claim + 1`` negatives: on the
training claims that is 1 : 1.12 on HoVer (3.5 gold sentences per claim) and 1 : 1.86 on FEVEROUS-S
(2.1 per claim).  Sampling is seeded per claim (same seed and claim, same examples, whatever else is
in the list).
"""
from __future__ import annotations

import json
import math
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from proofbook.core.corpus import Corpus, Sentence
from proofbook.models.cross_encoder import CrossEncoder
from proofbook.core.training import TrainConfig, TrainResult
from proofbook.admiral.retrieval.tasks import RetrievalClaim

LABELS = ("no", "yes")
#: between the claim and the previously selected sentence in the query (paper step 5)
CONTEXT_SEPARATOR = " </s> "
#: claim (~30 tokens) + context sentence (~35) + "Title . sentence" (~40) mostly fit in 128;
#: training time grows with the padded length, so shorter inputs are cut rather than padded
DEFAULT_MAX_LENGTH = 128
#: pairs scored per forward pass: measured on 2 CPU cores (49 claim-sentence pairs, sorted by length) at 16:
#: 0.66 s, 32: 0.79 s, 64: 1.0 s -- larger batches pad more; scores agree to 1e-6 whatever the batch
SCORING_BATCH_SIZE = 16
#: training pairs kept by :func:`train_reranker` (one epoch: about 2-3 minutes on 2 CPU cores)
DEFAULT_TRAIN_EXAMPLES = 2400
DEFAULT_NEGATIVES_PER_CLAIM = 4

SentenceId = tuple[str, int]
Context = str | SentenceId | None


def default_train_config(**overrides) -> TrainConfig:
    """One epoch at batch 16, lr 1e-4, 10% warm-up; evaluation on the dev pairs at the end.

    Measured on HoVer (2,400 pairs): lr 1e-4 reached dev accuracy 0.75; 2e-4 did not learn (0.59).
    """
    settings = {"epochs": 1, "batch_size": 16, "lr": 1e-4, "warmup_ratio": 0.1, "seed": 13}
    return TrainConfig(**{**settings, **overrides})


def sentence_passage(sentence: Sentence) -> str:
    """The text a sentence is scored as: ``"Title . sentence"`` (the reference code's format)."""
    return f"{sentence.title} . {sentence.text}"


def _check_claim(claim: str) -> str:
    if not isinstance(claim, str) or not claim.strip():
        raise ValueError(f"reranker: empty claim {claim!r}")
    return claim


def _check_sentence_id(sentence_id, corpus: Corpus) -> SentenceId:
    try:
        title, index = sentence_id
    except (TypeError, ValueError):
        raise ValueError(f"reranker: a sentence id is (title, index), got {sentence_id!r}") from None
    if title not in corpus:
        raise ValueError(f"reranker: title {title!r} is not in corpus {corpus.name!r}")
    if not isinstance(index, (int, np.integer)) or not 0 <= index < len(corpus[title].sentences):
        raise ValueError(f"reranker: page {title!r} has {len(corpus[title].sentences)} sentences, "
                         f"no sentence {index!r}")
    return title, int(index)


def reranker_query(claim: str, context: Context = None, corpus: Corpus | None = None) -> str:
    """``claim`` or ``claim </s> context``; a context given as a sentence id is ``"Title . sentence"``."""
    _check_claim(claim)
    if context is None:
        return claim
    if not isinstance(context, str):
        if corpus is None:
            raise ValueError("reranker: a context sentence id needs the corpus")
        context = sentence_passage(corpus.sentence(_check_sentence_id(context, corpus)))
    if not context.strip():
        return claim
    return claim + CONTEXT_SEPARATOR + context


# ---------------------------------------------------------------- training examples


@dataclass(frozen=True)
class RerankerExample:
    """One training pair; ``kind`` is gold, same-page, other-page, random, context-gold or context-negative."""

    query: str
    passage: str
    label: str
    claim_id: str
    sentence_id: SentenceId
    kind: str


def _sentence_ids(corpus: Corpus, titles: Iterable[str]) -> list[SentenceId]:
    return [(title, index) for title in titles for index in range(len(corpus[title].sentences))]


def _sample(rng: random.Random, pool: list[SentenceId], n: int, taken: set[SentenceId]) -> list[SentenceId]:
    """Up to ``n`` ids from ``pool`` not yet ``taken`` (marks them taken)."""
    free = [sid for sid in pool if sid not in taken]
    chosen = rng.sample(free, min(n, len(free)))
    taken.update(chosen)
    return chosen


def _position_matched(corpus: Corpus, pages: list[str], positions: list[int], n: int, rng: random.Random,
                      taken: set[SentenceId]) -> list[SentenceId]:
    """Up to ``n`` sentences of ``pages``, the j-th at the position of the j-th gold sentence (or the last).

    Gold sentences are mostly a page's first sentence (HoVer 55%, FEVEROUS-S 50%); negatives at the
    same positions keep "is it an opening sentence?" from predicting the label.
    """
    pages = [title for title in pages if corpus[title].sentences]
    chosen: list[SentenceId] = []
    for _ in range(4 * n):
        if len(chosen) == n or not pages:
            break
        title = rng.choice(pages)
        sid = (title, min(positions[len(chosen) % len(positions)], len(corpus[title].sentences) - 1))
        if sid not in taken:
            taken.add(sid)
            chosen.append(sid)
    return chosen


def _negatives(claim: RetrievalClaim, corpus: Corpus, n: int, rng: random.Random,
               candidates: Callable[[RetrievalClaim], Sequence[str]] | None) -> list[tuple[SentenceId, str]]:
    """``n`` negative sentence ids with their kind: same page, other retrieved page, random page."""
    gold_titles, gold = set(claim.gold_titles), set(claim.gold_sentences)
    same_page = [sid for sid in _sentence_ids(corpus, dict.fromkeys(claim.gold_titles)) if sid not in gold]
    others = [t for t in dict.fromkeys(candidates(claim)) if t in corpus and t not in gold_titles] if candidates else []
    positions = [index for _, index in claim.gold_sentences]
    rng.shuffle(positions)
    taken: set[SentenceId] = set()
    chosen = [(sid, "same-page") for sid in _sample(rng, same_page, n // 4, taken)]
    chosen += [(sid, "other-page") for sid in _position_matched(corpus, others, positions, n - len(chosen), rng, taken)]
    chosen += [(sid, "same-page") for sid in _sample(rng, same_page, n - len(chosen), taken)]
    for _ in range(3):  # random pages: the last resort
        if len(chosen) == n:
            break
        pages = [t for t in rng.sample(corpus.titles, min(20, len(corpus))) if t not in gold_titles]
        chosen += [(sid, "random") for sid in _position_matched(corpus, pages, positions, n - len(chosen), rng, taken)]
    return chosen


def _context_pair(claim: RetrievalClaim, corpus: Corpus, negatives: list[tuple[SentenceId, str]],
                  rng: random.Random) -> list[RerankerExample]:
    """A gold sentence as context, with a gold sentence of another page and a negative off its page."""
    if len({title for title, _ in claim.gold_sentences}) < 2:
        return []
    context = rng.choice(claim.gold_sentences)
    query = reranker_query(claim.claim, context, corpus)
    positive = rng.choice([sid for sid in claim.gold_sentences if sid[0] != context[0]])
    pairs = [RerankerExample(query, sentence_passage(corpus.sentence(positive)), "yes", claim.id, positive,
                             "context-gold")]
    off_page = [sid for sid, _ in negatives if sid[0] != context[0]]
    if off_page:
        negative = rng.choice(off_page)
        pairs.append(RerankerExample(query, sentence_passage(corpus.sentence(negative)), "no", claim.id, negative,
                                     "context-negative"))
    return pairs


def reranker_examples(claims: Sequence[RetrievalClaim], corpus: Corpus,
                      negatives_per_claim: int = DEFAULT_NEGATIVES_PER_CLAIM, seed: int = 13,
                      hard_negative_fn: Callable[[RetrievalClaim], Sequence[str]] | None = None,
                      context_examples: bool = True) -> list[RerankerExample]:
    """Training pairs for the reranker (sampling rule and ratio in the module docstring).

    ``hard_negative_fn(claim)`` returns retrieved page titles for a claim (e.g. BM25's top 10);
    titles not in the corpus are ignored.  Claims without gold sentences contribute nothing.
    """
    if negatives_per_claim < 0:
        raise ValueError(f"negatives_per_claim must be >= 0, got {negatives_per_claim}")
    examples = []
    for claim in claims:
        if not claim.gold_sentences:
            continue
        for sid in claim.gold_sentences:
            _check_sentence_id(sid, corpus)
        rng = random.Random(f"{seed}:{claim.id}")
        negatives = _negatives(claim, corpus, negatives_per_claim, rng, hard_negative_fn)
        pairs = [(sid, "yes", "gold") for sid in claim.gold_sentences] + [(sid, "no", kind) for sid, kind in negatives]
        examples += [RerankerExample(claim.claim, sentence_passage(corpus.sentence(sid)), label, claim.id, sid, kind)
                     for sid, label, kind in pairs]
        if context_examples:
            examples += _context_pair(claim, corpus, negatives, rng)
    return examples


# ---------------------------------------------------------------- the reranker


@dataclass
class RerankResult:
    """Documents reordered by their best sentence, and the top sentences ``(sentence_id, P(yes))``."""

    documents: list[str]
    sentences: list[tuple[SentenceId, float]]
    document_scores: dict[str, float] = field(default_factory=dict)


class SentenceReranker:
    """Scores ``(query, "Title . sentence")`` pairs with a cross-encoder; P(yes) is the score.

    Build it with :func:`train_reranker`, :meth:`load`, or from an untrained checkpoint
    (``SentenceReranker(CrossEncoder("minilm", labels=LABELS))``, useful only in tests).
    """

    CONFIG_FILE = "sentence_reranker.json"

    def __init__(self, cross_encoder: CrossEncoder | None = None, batch_size: int = SCORING_BATCH_SIZE):
        cross_encoder = cross_encoder or CrossEncoder("minilm", labels=LABELS, max_length=DEFAULT_MAX_LENGTH)
        if "yes" not in cross_encoder.labels:
            raise ValueError(f"reranker: the cross-encoder's labels {cross_encoder.labels} lack 'yes'")
        self.cross_encoder = cross_encoder
        self.batch_size = batch_size
        self.train_result: TrainResult | None = None

    def __repr__(self) -> str:
        return f"SentenceReranker({self.cross_encoder!r})"

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        """P(yes) of ``(query, passage)`` pairs, in batches of similar length (less padding)."""
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        yes = self.cross_encoder.labels.index("yes")
        probabilities = self.cross_encoder.predict_proba([pairs[i] for i in order], self.batch_size)[:, yes]
        scores = np.empty(len(pairs), dtype=np.float32)
        scores[order] = probabilities
        return scores

    def score(self, claim: str, sentence_ids: Sequence[SentenceId], corpus: Corpus,
              context: Context = None) -> np.ndarray:
        """P(yes) for each sentence of ``sentence_ids`` given the claim (and context sentence)."""
        query = reranker_query(claim, context, corpus)
        ids = [_check_sentence_id(sid, corpus) for sid in sentence_ids]
        return self.score_pairs([(query, sentence_passage(corpus.sentence(sid))) for sid in ids])

    def rerank(self, claim: str, titles: Sequence[str], corpus: Corpus, top_sentences: int = 5,
               max_documents: int = 10, context: Context = None) -> RerankResult:
        """Rerank the sentences of the first ``max_documents`` titles (paper step 2 / step 5).

        ``documents``: those titles ordered by their best sentence (ties and pages without sentences
        keep their given order, sentence-less pages last), followed by the remaining titles in their
        given order; duplicates are dropped.  ``sentences``: the ``top_sentences`` best sentences.
        """
        return self.rerank_many([claim], [titles], corpus, top_sentences, max_documents, [context])[0]

    def rerank_many(self, claims: Sequence[str], titles: Sequence[Sequence[str]], corpus: Corpus,
                    top_sentences: int = 5, max_documents: int = 10,
                    contexts: Sequence[Context] | None = None) -> list[RerankResult]:
        """:meth:`rerank` for many claims, every sentence of every claim scored in one batched pass."""
        if len(claims) != len(titles):
            raise ValueError(f"rerank_many: {len(claims)} claims but {len(titles)} title lists")
        if top_sentences < 1 or max_documents < 1:
            raise ValueError("rerank: top_sentences and max_documents must be positive")
        contexts = list(contexts) if contexts is not None else [None] * len(claims)
        if len(contexts) != len(claims):
            raise ValueError(f"rerank_many: {len(claims)} claims but {len(contexts)} contexts")
        heads, pairs, owners = [], [], []
        for position, (claim, candidates, context) in enumerate(zip(claims, titles, contexts)):
            query = reranker_query(claim, context, corpus)
            unique = list(dict.fromkeys(candidates))
            for title in unique:
                if title not in corpus:
                    raise ValueError(f"reranker: title {title!r} is not in corpus {corpus.name!r}")
            heads.append(unique)
            for sid in _sentence_ids(corpus, unique[:max_documents]):
                pairs.append((query, sentence_passage(corpus.sentence(sid))))
                owners.append((position, sid))
        scores = self.score_pairs(pairs) if pairs else np.zeros(0, dtype=np.float32)
        per_claim: list[list[tuple[SentenceId, float]]] = [[] for _ in claims]
        for (position, sid), value in zip(owners, scores):
            per_claim[position].append((sid, float(value)))
        return [_result(unique, scored, top_sentences, max_documents) for unique, scored in zip(heads, per_claim)]

    def save(self, folder: os.PathLike | str) -> Path:
        """Write the cross-encoder and ``sentence_reranker.json`` into ``folder``."""
        folder = self.cross_encoder.save(folder)
        (folder / self.CONFIG_FILE).write_text(json.dumps({"batch_size": self.batch_size}), encoding="utf-8")
        return folder

    @classmethod
    def load(cls, folder: os.PathLike | str, device: str | None = None,
             batch_size: int = SCORING_BATCH_SIZE) -> "SentenceReranker":
        """A reranker written by :meth:`save`, scoring ``batch_size`` pairs at a time (an inference setting:
        the batch size stored with it is not used)."""
        settings_file = Path(folder) / cls.CONFIG_FILE
        if not settings_file.is_file():
            raise FileNotFoundError(f"{settings_file}: missing; not a folder written by SentenceReranker.save")
        return cls(CrossEncoder.load(folder, device=device), batch_size=batch_size)


def _result(titles: list[str], scored: list[tuple[SentenceId, float]], top_sentences: int,
            max_documents: int) -> RerankResult:
    """Order the head documents by their best sentence; keep the top sentences (stable on ties)."""
    best: dict[str, float] = {}
    for (title, _), value in scored:
        best[title] = max(best.get(title, -math.inf), value)
    head = titles[:max_documents]
    ranked = sorted(range(len(head)), key=lambda i: -best.get(head[i], -math.inf))
    documents = [head[i] for i in ranked] + titles[max_documents:]
    sentences = sorted(scored, key=lambda item: -item[1])[:top_sentences]
    return RerankResult(documents, sentences, best)


# ---------------------------------------------------------------- training


def _subsample(examples: Sequence[RerankerExample], limit: int | None, seed: int) -> list[RerankerExample]:
    """At most ``limit`` examples: whole claims drawn at random (seeded), so no claim is cut in half."""
    examples = list(examples)
    if limit is None or len(examples) <= limit:
        return examples
    by_claim: dict[str, list[RerankerExample]] = {}
    for example in examples:
        by_claim.setdefault(example.claim_id, []).append(example)
    order = sorted(by_claim)
    random.Random(seed).shuffle(order)
    kept: list[RerankerExample] = []
    for claim_id in order:
        if len(kept) + len(by_claim[claim_id]) > limit:
            continue
        kept += by_claim[claim_id]
    return kept


def train_reranker(examples: Sequence[RerankerExample], dev_examples: Sequence[RerankerExample] | None = None,
                   config: TrainConfig | None = None, checkpoint: os.PathLike | str = "minilm",
                   max_length: int = DEFAULT_MAX_LENGTH, max_examples: int | None = DEFAULT_TRAIN_EXAMPLES,
                   device: str | None = None) -> SentenceReranker:
    """Fine-tune a cross-encoder on reranker pairs; with dev pairs keep the weights best on accuracy.

    At most ``max_examples`` pairs are used (whole claims, drawn with ``config.seed``; ``None`` keeps
    all).  The defaults (2,400 pairs, one epoch, ``max_length`` 128, batch 16) train in about 2-3
    minutes on 2 CPU cores.  The result's ``train_result`` holds the training history.
    """
    config = config or default_train_config()
    examples = _subsample(examples, max_examples, config.seed)
    if not examples:
        raise ValueError("train_reranker: no training examples")
    cross_encoder = CrossEncoder(checkpoint, labels=LABELS, max_length=max_length, device=device,
                                 seed=config.seed)
    dev_pairs = dev_labels = None
    if dev_examples:
        dev_pairs = [(e.query, e.passage) for e in dev_examples]
        dev_labels = [e.label for e in dev_examples]
    result = cross_encoder.fit([(e.query, e.passage) for e in examples], [e.label for e in examples],
                               dev_pairs, dev_labels, config)
    reranker = SentenceReranker(cross_encoder)
    reranker.train_result = result
    return reranker
