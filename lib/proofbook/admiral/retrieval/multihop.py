"""AdMIRaL's multi-hop loop: initial retrieval, then autoregressive hops, until the evidence suffices.

Aly & Vlachos 2022, §3:

1. **Initial retrieval** (iteration 1): BM25 over whole pages (top 100) and titles generated from the
   claim alone by the hop-0 model (the GENRE step: 5 beams, keep 3 titles); GENRE documents first, then
   BM25 documents not already present.
2. **Sentence reranking** of the top 10 documents; documents are reordered by their best sentence and
   the top 5 sentences are kept.
3. **Sufficiency**: a callable ``sufficiency(claim, sentences) -> bool`` may stop the loop here (the
   natural-logic rule of :mod:`proofbook.admiral.prover.sufficiency` plugs in; ``None`` = never stop early).
4. **Autoregressive hop** (iterations 2, 3, ...): the hop model reads
   ``claim </s> < E0 > [ Title0 ] sent0 ...`` (top 4 sentences) and writes ``< E{i} > [ Title ]`` by
   constrained beam search (beam 25); new titles are de-duplicated, titles already retrieved are
   dropped, the first 5 are kept.
5. The sentences of the new documents are reranked with the claim plus the sentence the beam pointed to;
   the best of them join the selected sentences for the next hop.

**Title sets of the hops** (``AdmiralConfig.hop_titles``).  ``"corpus"`` is the paper: every hop decodes
over the prefix tree of all corpus titles.  ``"linked"`` is a stated departure for models trained on
a CPU budget: each query's tree is narrowed to the titles *mentioned* in its input sentences (corpus
string matches, :func:`proofbook.admiral.retrieval.pretraining.title_mentions` -- the closed-corpus stand-in
for the Wikipedia hyperlinks GENRE is pre-trained on) followed by BM25's top ``linked_bm25_k`` pages
for the claim plus those sentences; the hop model still chooses and orders the titles (and points at
its sentence).  Measured: small seq2seq models trained here from scratch, with or without copy
pre-training, learn only a prior over titles and do not copy a title from their input (top-1 0.000
on HoVer hop 1), so over the full tree they add nothing; GENRE brings that skill from BART-large.  The
book's hop models therefore have a copy head (``retrieval_experiments.TrainingSettings.hop_copy``), which
lets them write a title found in their input over the full tree; the retrieval chapter measures both.

**The ranked list** (the book's rule for every system): the documents holding the selected sentences, in
reranked order, then every hop's new documents in generation (beam-score) order, then the rest of the initial
reranked list -- so that recall@10 compares like with like and iteration 1 alone (``initial``) is the same list
without the new documents.  Ablations (paper Table 3): ``Top-1`` keeps only the best beam of each hop;
``Not-joint`` uses a hop model trained and decoded without sentence pointers (``use_pointers=False``).

**What the title model adds** (:class:`MentionsOnly`).  With ``hop_titles="linked"`` the hop's candidates
are already narrowed by string matching, so a gain of ``admiral`` over ``initial`` could come from the
narrowed titles alone.  :class:`MentionsOnly` stands in for the hop model without any generation: the
same candidate titles, ranked by the reranker's best sentence of each page for the claim, each pointing at
the first input sentence that mentions it.  The rest of the loop is unchanged, so ``admiral`` against
``mentions-only`` measures the title model itself.
"""
from __future__ import annotations

import copy
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Sequence

from tqdm.auto import tqdm

from proofbook.admiral.retrieval.pretraining import title_mentions
from proofbook.core.corpus import Corpus, Sentence

#: the hop models' title sets (``AdmiralConfig.hop_titles``)
HOP_TITLES = ("corpus", "linked")
#: the stages :attr:`Admiral.stage_seconds` times (``mentions_build``: the corpus's mention table, once)
STAGES = ("bm25", "rerank", "mentions", "generation", "sufficiency", "mentions_build")
#: ``sufficiency(claim, sentences) -> True`` stops the loop after that iteration
Sufficiency = Callable[[str, Sequence[Sentence]], bool]


@dataclass(frozen=True)
class AdmiralConfig:
    """The sizes and switches of the loop; the defaults are the paper's (reference config, two iterations,
    every hop over all corpus titles)."""
    iterations: int = 2          # 1 = initial retrieval only; 2 = the paper's 2-hop setting
    bm25_k: int = 100            # BM25 pages (reference config)
    genre_beams: int = 5         # hop-0 title generation beams ...
    genre_keep: int = 3          # ... of which this many titles are kept
    rerank_documents: int = 10   # documents whose sentences are reranked
    top_sentences: int = 5       # sentences kept after reranking
    input_sentences: int = 4     # sentences in the hop model's input
    beam: int = 25               # beam of the autoregressive hops
    new_documents: int = 5       # new titles kept per hop
    top1: bool = False           # ablation: only the best beam of each hop
    hop_titles: str = "corpus"   # "corpus": prefix tree of all titles (paper); "linked": see below
    linked_bm25_k: int = 0       # "linked": BM25 pages for claim + input sentences added to the mentions


@dataclass
class HopTrace:
    """What one autoregressive hop saw and produced."""

    iteration: int
    input_sentences: list[Sentence]
    beams: list                      # the decoder's Beam objects, best first (titles de-duplicated)
    new_documents: list[str]
    new_sentences: list[tuple[Sentence, float]]


@dataclass
class RetrievalTrace:
    """Everything the loop did for one claim (the book's method chapter renders it)."""

    claim: str
    bm25: list[tuple[str, float]]
    genre: list                      # hop-0 beams
    candidates: list[str]            # GENRE titles first, then BM25 titles
    reranked_documents: list[str]    # the top documents, reordered by their best sentence
    selected: list[tuple[Sentence, float]]   # the kept sentences with their reranker scores (updated per hop)
    initial_selected: list[tuple[Sentence, float]] = field(default_factory=list)   # ... after iteration 1
    hops: list[HopTrace] = field(default_factory=list)
    stopped_by_sufficiency: bool = False
    seconds: float = 0.0

    @property
    def iterations(self) -> int:
        return 1 + len(self.hops)

    def initial_ranking(self) -> list[str]:
        """Iteration 1 alone: the reranked documents, then the remaining candidates."""
        return list(dict.fromkeys(self.reranked_documents + self.candidates))

    def ranking(self, top1: bool = False) -> list[str]:
        """Selected documents, then each hop's new documents, then the rest of the initial list.

        ``top1`` keeps only the best beam's document of each hop (the paper's Top-1 ablation; with two
        iterations it is exactly what ``AdmiralConfig(top1=True)`` would retrieve).
        """
        holding = {s.title for s, _ in self.initial_selected}
        head = [t for t in self.reranked_documents if t in holding]
        new = [t for hop in self.hops for t in (hop.new_documents[:1] if top1 else hop.new_documents)]
        return list(dict.fromkeys(head + new + self.initial_ranking()))

    def restarted(self) -> "RetrievalTrace":
        """A copy holding only iteration 1 (to run other hop models from the same initial retrieval)."""
        return RetrievalTrace(self.claim, self.bm25, self.genre, self.candidates, self.reranked_documents,
                              list(self.initial_selected), list(self.initial_selected))


@dataclass(frozen=True)
class RankedTitle:
    """One candidate page of :class:`MentionsOnly` (the fields a hop's beam has)."""

    pointers: tuple[int, ...]
    title: str
    score: float


class MentionsOnly:
    """A hop "model" that generates nothing: it ranks the hop's candidate titles by the reranker.

    ``generate_batch`` takes the queries and per-query candidates that :class:`Admiral` passes its hop
    models (``hop_titles="linked"``), scores every sentence of each candidate page against the claim with
    the sentence reranker, and returns the pages best first (score = best sentence's P(yes)), each pointing at
    the first input sentence that mentions it.  At most ``beam`` candidates, in mention order, are scored.
    """

    hop = 1

    def __init__(self, reranker, corpus: Corpus):
        self.reranker, self.corpus = reranker, corpus
        self._mentions: dict | None = None

    def generate_batch(self, queries: Sequence[tuple[str, Sequence[Sentence]]], beam: int = 25,
                       candidates: Sequence[Sequence[str]] | None = None) -> list[list[RankedTitle]]:
        """Per query, its candidate pages ranked by the reranker, best first (see the class docstring)."""

        if candidates is None:
            raise ValueError("MentionsOnly ranks the linked titles of each hop: use AdmiralConfig(hop_titles='linked')")
        if len(candidates) != len(queries):
            raise ValueError(f"MentionsOnly: {len(queries)} queries but {len(candidates)} candidate lists")
        if self._mentions is None:
            self._mentions = title_mentions(self.corpus)
        lists = [[t for t in dict.fromkeys(titles) if t in self.corpus][:beam] for titles in candidates]
        live = [i for i, titles in enumerate(lists) if titles]
        results = self.reranker.rerank_many([queries[i][0] for i in live], [lists[i] for i in live], self.corpus,
                                            top_sentences=1, max_documents=beam) if live else []
        ranked: list[list[RankedTitle]] = [[] for _ in queries]
        for i, result in zip(live, results):
            sentences = list(queries[i][1])
            for title in result.documents:
                pointed = next((k for k, s in enumerate(sentences) if title in self._mentions.get(s.id, ())), None)
                ranked[i].append(RankedTitle(() if pointed is None else (pointed,), title,
                                             result.document_scores.get(title, float("-inf"))))
        return ranked


class Admiral:
    """The multi-hop retriever: a BM25 page index, a sentence reranker and one title model per hop.

    ``hop_models[0]`` is the GENRE step (``None``: BM25 alone starts the loop); ``hop_models[h]`` for
    ``h >= 1`` writes the documents of iteration ``h + 1`` (a missing hop reuses the highest one).
    ``stage_seconds`` adds up the wall-clock seconds spent in each of :data:`STAGES` since the retriever was
    built (the efficiency chapter reads it; :meth:`reset_stage_seconds` starts again).  ``mentions``: the
    corpus's table of :func:`~proofbook.admiral.retrieval.pretraining.title_mentions`, when it was built with the
    index (else it is built on first use).
    """

    def __init__(self, corpus: Corpus, document_index, reranker, hop_models: dict, config: AdmiralConfig = AdmiralConfig(),
                 sufficiency: Sufficiency | None = None, mentions: dict | None = None):
        if config.iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {config.iterations}")
        if config.iterations > 1 and not any(h >= 1 for h in hop_models):
            raise ValueError("more than one iteration needs a hop model for hop >= 1")
        if config.hop_titles not in HOP_TITLES:
            raise ValueError(f"hop_titles must be one of {HOP_TITLES}, got {config.hop_titles!r}")
        self.corpus, self.index, self.reranker = corpus, document_index, reranker
        self.hop_models, self.config, self.sufficiency = dict(hop_models), config, sufficiency
        self._mentions: dict | None = mentions
        self.stage_seconds: Counter = Counter()

    def reset_stage_seconds(self) -> None:
        """Set every stage's seconds back to zero."""
        self.stage_seconds = Counter()

    @contextmanager
    def _stage(self, name: str):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.stage_seconds[name] += time.perf_counter() - start

    def mentions(self) -> dict:
        """Sentence id -> titles it mentions, for the whole corpus (built on first use, then kept)."""
        if self._mentions is None:
            with self._stage("mentions_build"):
                self._mentions = title_mentions(self.corpus)
        return self._mentions

    def linked_titles(self, claim: str, sentences: Sequence[Sentence]) -> list[str]:
        """The per-query title set of ``hop_titles="linked"``: titles mentioned in the input sentences
        (in sentence order; :func:`proofbook.admiral.retrieval.pretraining.title_mentions`, our stand-in for
        Wikipedia's hyperlinks), then BM25's top ``linked_bm25_k`` pages for the claim plus the sentences."""

        table = self.mentions()
        with self._stage("mentions"):
            mentioned = [t for s in sentences for t in table.get(s.id, ())]
        query = " ".join([claim] + [s.text for s in sentences])
        k = self.config.linked_bm25_k
        with self._stage("bm25"):
            searched = [title for title, _ in self.index.search(query, k=k)] if k > 0 else []
        return list(dict.fromkeys(mentioned + searched))

    def _hop_model(self, hop: int):
        return self.hop_models.get(hop) or self.hop_models[max(h for h in self.hop_models if h >= 1)]

    def retrieve(self, claim: str) -> RetrievalTrace:
        """The loop for one claim: :meth:`retrieve_many` without a progress bar."""
        return self.retrieve_many([claim], progress=False)[0]

    def retrieve_many(self, claims: Sequence[str], progress: bool = True,
                      initial: Sequence[RetrievalTrace] | None = None) -> list[RetrievalTrace]:
        """Run the loop for many claims, one stage at a time (generation is batched across claims).

        ``initial``: traces of an earlier run on the same claims; their iteration 1 is reused and only
        the hops are run again (e.g. for an ablation of the hop model).
        """
        cfg = self.config
        for position, claim in enumerate(claims):
            if not isinstance(claim, str) or not claim.strip():
                raise ValueError(f"claim {position}: empty claim")
        start = time.perf_counter()
        if initial is not None:
            if [t.claim for t in initial] != list(claims):
                raise ValueError("initial traces are for other claims")
            traces = [t.restarted() for t in initial]
            for trace in traces:
                trace.stopped_by_sufficiency = self._sufficient(trace)
            return self._hops(traces, start, progress)
        genre = self.hop_models.get(0)
        with self._stage("generation"):
            genre_beams = (genre.generate_batch([(c, []) for c in claims], beam=cfg.genre_beams)
                           if genre is not None else [[] for _ in claims])
        searched, candidate_lists = [], []
        for claim, beams in tqdm(list(zip(claims, genre_beams)), desc="initial retrieval", disable=not progress):
            with self._stage("bm25"):
                bm25 = self.index.search(claim, k=cfg.bm25_k)
            genre_titles = [b.title for b in beams if b.title in self.corpus][:cfg.genre_keep]
            searched.append(bm25)
            candidate_lists.append(list(dict.fromkeys(genre_titles + [title for title, _ in bm25])))
        with self._stage("rerank"):
            reranked = self.reranker.rerank_many(claims, [c[:cfg.rerank_documents] for c in candidate_lists],
                                                 self.corpus, top_sentences=cfg.top_sentences,
                                                 max_documents=cfg.rerank_documents)
        traces = []
        for claim, bm25, beams, candidates, result in zip(claims, searched, genre_beams, candidate_lists, reranked):
            selected = [(self.corpus.sentence(sid), score) for sid, score in result.sentences]
            trace = RetrievalTrace(claim, bm25, beams, candidates, list(result.documents), selected, list(selected))
            trace.stopped_by_sufficiency = self._sufficient(trace)
            traces.append(trace)
        return self._hops(traces, start, progress)

    def extend(self, traces: Sequence[RetrievalTrace], progress: bool = True) -> list[RetrievalTrace]:
        """Continue traces of an earlier run of this loop (fewer iterations) up to ``config.iterations``.

        The traces are copied, not changed.  The loop is deterministic given its state, so this gives the
        traces a run to ``config.iterations`` would have given, up to the floating-point effects of batching
        other claims together (e.g. the sufficiency chapter extends the experiments chapter's 2-iteration run
        to 3 iterations instead of running the first two again).  ``seconds`` adds the new iterations' time.
        """

        traces = [copy.deepcopy(t) for t in traces]
        before = [t.seconds for t in traces]
        for trace in traces:
            trace.stopped_by_sufficiency = self._sufficient(trace)
        traces = self._hops(traces, time.perf_counter(), progress)
        for trace, seconds in zip(traces, before):
            trace.seconds += seconds
        return traces

    def _hops(self, traces: list[RetrievalTrace], start: float, progress: bool) -> list[RetrievalTrace]:
        """Run the iterations 2..``config.iterations`` that each trace has not run yet."""
        cfg = self.config
        for iteration in range(2, cfg.iterations + 1):
            active = [t for t in traces if t.iterations == iteration - 1 and not t.stopped_by_sufficiency and t.selected]
            if not active:
                continue
            model = self._hop_model(iteration - 1)
            inputs = [[s for s, _ in t.selected[:cfg.input_sentences]] for t in active]
            retrieved = [set(t.initial_ranking()[:cfg.rerank_documents]) | {d for h in t.hops for d in h.new_documents}
                         for t in active]
            candidates = None
            if cfg.hop_titles == "linked":
                candidates = [self.linked_titles(t.claim, sents) for t, sents in zip(active, inputs)]
            with self._stage("generation"):
                all_beams = model.generate_batch([(t.claim, sents) for t, sents in zip(active, inputs)],
                                                 beam=cfg.beam, candidates=candidates)
            kept_beams = []
            for trace, beams, seen in zip(active, all_beams, retrieved):
                beams = [b for b in beams if b.title not in seen and b.title in self.corpus]
                kept_beams.append((beams, beams[:1] if cfg.top1 else beams[:cfg.new_documents]))
            new_sentences = self._rerank_new([t.claim for t in active], [kept for _, kept in kept_beams], inputs)
            for trace, sentences, (beams, kept), found in zip(active, inputs, kept_beams, new_sentences):
                trace.hops.append(HopTrace(iteration, sentences, beams, [b.title for b in kept], found))
                trace.selected = sorted(trace.selected + found, key=lambda pair: -pair[1])[:cfg.top_sentences]
                trace.stopped_by_sufficiency = self._sufficient(trace)
        elapsed = time.perf_counter() - start
        for trace in traces:
            trace.seconds = elapsed / max(1, len(traces))
        return traces

    def _rerank_new(self, claims: Sequence[str], kept: Sequence[list], inputs: Sequence[list[Sentence]]
                    ) -> list[list[tuple[Sentence, float]]]:
        """Rerank each new document's sentences with the claim plus the sentence its beam pointed to.

        One batched reranker pass for every claim's new documents; a sentence reached by two beams keeps its
        best score.  Returns, per claim, its new sentences best first.
        """
        requests = []   # (claim position, claim, title, context sentence)
        for position, (claim, beams, sentences) in enumerate(zip(claims, kept, inputs)):
            for beam in beams:
                pointed = [sentences[i] for i in getattr(beam, "pointers", ()) if i < len(sentences)]
                requests.append((position, claim, beam.title, pointed[0].text if pointed else None))
        with self._stage("rerank"):
            results = self.reranker.rerank_many([r[1] for r in requests], [[r[2]] for r in requests], self.corpus,
                                                top_sentences=self.config.top_sentences, max_documents=1,
                                                contexts=[r[3] for r in requests]) if requests else []
        scored: list[dict] = [{} for _ in claims]
        for (position, *_), result in zip(requests, results):
            for sid, score in result.sentences:
                if sid not in scored[position] or scored[position][sid][1] < score:
                    scored[position][sid] = (self.corpus.sentence(sid), score)
        return [sorted(found.values(), key=lambda pair: -pair[1]) for found in scored]

    def _sufficient(self, trace: RetrievalTrace) -> bool:
        if self.sufficiency is None:
            return False
        with self._stage("sufficiency"):
            return bool(self.sufficiency(trace.claim, [s for s, _ in trace.selected]))
