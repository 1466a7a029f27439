"""Training and evaluating the retrieval systems of ``admiral/02_experiments``.

One place builds every component from the training part of the tasks (never from evaluation claims),
caches it (:class:`proofbook.core.cache.ArtifactCache`, keyed by the settings and the training data), and
turns a task into the ranked document lists of each system:

- ``bm25``: BM25 over whole pages alone (AdMIRaL reference config k1=0.9, b=0.1);
- ``initial``: iteration 1 -- BM25 + hop-0 titles (the GENRE step), sentence-reranked;
- ``admiral``: the paper's method, 2 iterations, each hop decoding over the prefix tree of *all* corpus titles;
  ``admiral-top1``: only the best beam per hop; ``admiral-notjoint``: the hop model trained and decoded without
  sentence pointers (paper Table 3);
- ``admiral-nocopy``: ``admiral`` with a hop-1 model that cannot copy (below), from the same iteration 1;
- ``admiral-mentions``, ``admiral-mentions-top1``, ``admiral-mentions-notjoint``: the same with each hop narrowed
  to the titles the retrieved sentences link or mention (``AdmiralConfig.hop_titles = "linked"``), the stand-in
  the book runs on every dataset because the full tree runs on some datasets only (its cost on 2 cores);
- ``mentions-only``: ``admiral-mentions`` with the hop model replaced by
  :class:`proofbook.admiral.retrieval.multihop.MentionsOnly` (the same narrowed titles, ranked by the reranker, no
  generation): what the title model adds;
- ``dense-mdr``: the MDR-style dense baseline (:mod:`proofbook.index.dense`).

The reranker and the hop models are trained once on the training claims of HoVer and FEVEROUS-S
together (both train parts; each example uses its own corpus) and used on every dataset, with each
dataset's own title prefix tree at decoding time.

**Title models that can copy** (``TrainingSettings.hop_copy``, on by default).  GENRE writes titles with
BART-large, which learned to copy entity names from its input in pre-training; a small BART trained here from
scratch does not (hop-1 top-1 title accuracy 0.000 on held-apart HoVer claims, with or without copy
pre-training).  So the hop models are built with a copy (pointer-generator) head,
:class:`proofbook.models.pointer.CopyBart` (See et al. 2017): each next-token distribution mixes generation
with copying tokens of the input (claim and sentences), and the prefix tree of the titles constrains the mix
as before, so the search space stays the paper's.  The model without it is trained too (``Components.nocopy``,
hop 1) and runs as ``admiral-nocopy``; :func:`title_accuracy_rows` compares the two on the training claims that
model selection holds apart.
"""
from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Sequence

import pandas as pd

from proofbook.admiral.retrieval.autoregressive import AutoregressiveRetriever
from proofbook.admiral.retrieval.hop_examples import make_examples, written_in
from proofbook.admiral.retrieval.metrics import per_claim_metrics
from proofbook.admiral.retrieval.multihop import Admiral, AdmiralConfig, MentionsOnly
from proofbook.admiral.retrieval.pretraining import copy_examples
from proofbook.admiral.retrieval.reranker import (SentenceReranker, default_train_config, reranker_examples,
                                                  train_reranker)
from proofbook.admiral.retrieval.tasks import RetrievalTask
from proofbook.core import intervals
from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.core.codecs import object_codec, pickle_codec
from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION, TrainConfig
from proofbook.index.bm25 import DocumentIndex
from proofbook.index.dense import DenseIndex
from proofbook.index.constraints import TitleTrie

logger = logging.getLogger(__name__)

#: evaluation claims per dataset at full size (02 and 04 share the run; fits the chapters' time budget)
FULL_LIMIT = 120
#: evaluation claims per dataset in the chapters' smoke runs
SMOKE_LIMIT = 12
#: datasets on which the book runs the paper's full-tree ``admiral`` beside the mention-narrowed stand-in (each
#: costs about a third more of a dataset's run time on 2 cores): the datasets of the paper's Table 2 claims
FULLTRIE_DATASETS = ("hover", "feverous_s+distractors")
#: the ablations run for each decoding (paper Table 3): the full beam, only its best beam, no sentence pointers
ABLATIONS = ("", "-top1", "-notjoint")
SYSTEMS = ("bm25", "initial", *(f"admiral{a}" for a in ABLATIONS), "admiral-nocopy",
           *(f"admiral-mentions{a}" for a in ABLATIONS), "mentions-only", "dense-mdr")


@dataclass(frozen=True)
class TrainingSettings(ComponentSettings):
    """What the reranker and the hop models are trained with (all of it keys each); defaults = the book's full-size run."""

    CODE_VERSION = {"batching": BATCHING_VERSION}
    seed: int = 0
    reranker_examples: int = 2400
    reranker_max_length: int = 128
    reranker_epochs: int = 1
    reranker_negatives: int = 3
    hop_backend: str = "scratch"        # "scratch" (small BART) or "warm-start" (MiniLM encoder-decoder)
    hop_epochs: int = 1                 # more epochs measured no better: the models learn a title prior only
    hop_batch_size: int = 32
    hop_lr: float = 5e-4
    hop_max_orderings: int = 2
    hop_max_examples: int | None = None
    hop_copy_epochs: int = 0            # copy pre-training epochs before the claims (retrieval.pretraining); 0 = off
    hop_copy: bool = True               # hop models with a copy (pointer-generator) head ("scratch" backend only)
    dev_fraction: float = 0.1           # of the training claims, for model selection

    @classmethod
    def smoke(cls, seed: int = 0) -> "TrainingSettings":
        """Tiny sizes for the tests: seconds, not minutes (the models learn next to nothing)."""
        return cls(seed=seed, reranker_examples=48, reranker_max_length=48, hop_epochs=1, hop_max_examples=48,
                   hop_max_orderings=1)


@dataclass
class Components:
    """The trained retrieval models: the sentence reranker, the hop models by hop, the hop-1 model without
    pointers (ablation), the hop-1 model without a copy head (None when the hop models have none either) and
    the training seconds."""
    reranker: SentenceReranker
    hop_models: dict[int, AutoregressiveRetriever]   # 0 = GENRE step, 1 = first autoregressive hop
    notjoint: AutoregressiveRetriever                # hop 1 without pointers (ablation)
    train_seconds: dict[str, float]
    nocopy: AutoregressiveRetriever | None = None    # hop 1 without the copy head (comparison)


def book_config(smoke: bool = False, **overrides) -> AdmiralConfig:
    """The decoding config of the book's chapters: linked hop titles, beam 25 (5 in smoke runs)."""
    return AdmiralConfig(**{"hop_titles": "linked", "beam": 5 if smoke else 25, **overrides})


def _carve(claims: list, fraction: float) -> tuple[list, list]:
    """Split training claims into (train, dev) by a hash of the id: model selection never sees evaluation claims."""
    dev = [c for c in claims if int(hashlib.sha1(f"dev:{c.id}".encode()).hexdigest(), 16) % 1000 < fraction * 1000]
    dev_ids = {c.id for c in dev}
    return [c for c in claims if c.id not in dev_ids], dev


def _hop_config(settings: TrainingSettings) -> TrainConfig:
    return TrainConfig(epochs=settings.hop_epochs, batch_size=settings.hop_batch_size, lr=settings.hop_lr,
                       warmup_ratio=0.1, eval_every="epoch", patience=2, seed=settings.seed)


def _train_hop_model(tasks: Sequence[RetrievalTask], hop: int, settings: TrainingSettings, use_pointers: bool = True):
    titles = list(dict.fromkeys(t for task in tasks for t in task.corpus.titles))
    train, dev = [], []
    for task in tasks:
        part_train, part_dev = _carve(task.train, settings.dev_fraction)
        kwargs = dict(seed=settings.seed, max_orderings=settings.hop_max_orderings)
        train += make_examples(part_train, task.corpus, hop, **kwargs)
        dev += make_examples(part_dev, task.corpus, hop, **kwargs)
    if settings.hop_max_examples is not None:
        train = train[:settings.hop_max_examples]
        dev = dev[:max(8, settings.hop_max_examples // 4)]
    if settings.hop_backend == "warm-start":
        if settings.hop_copy:
            raise ValueError("hop_copy needs the 'scratch' backend (the copy head is a small BART's)")
        model = AutoregressiveRetriever.warm_start(titles, hop=hop, seed=settings.seed, use_pointers=use_pointers)
    else:
        model = AutoregressiveRetriever.from_scratch(titles, hop=hop, seed=settings.seed, use_pointers=use_pointers,
                                                     copy=settings.hop_copy)
    if settings.hop_copy_epochs:
        copy = [e for task in tasks for e in copy_examples(task.corpus, hop, seed=settings.seed)]
        config = dataclasses.replace(_hop_config(settings), epochs=settings.hop_copy_epochs, patience=None)
        model.fit(copy, config)
    model.fit(train, _hop_config(settings), dev_examples=dev)
    return model


def _train_reranker(tasks: Sequence[RetrievalTask], settings: TrainingSettings) -> SentenceReranker:

    train, dev = [], []
    for task in tasks:
        index = DocumentIndex(task.corpus)
        candidates = lambda claim, index=index: [t for t, _ in index.search(claim.claim, k=10)]  # noqa: E731
        part_train, part_dev = _carve(task.train, settings.dev_fraction)
        kwargs = dict(negatives_per_claim=settings.reranker_negatives, seed=settings.seed, hard_negative_fn=candidates)
        train += reranker_examples(part_train, task.corpus, **kwargs)
        dev += reranker_examples(part_dev, task.corpus, **kwargs)
    config = default_train_config(epochs=settings.reranker_epochs, seed=settings.seed)
    return train_reranker(train, dev[:400], config, max_length=settings.reranker_max_length,
                          max_examples=settings.reranker_examples)


def train_components(tasks: Sequence[RetrievalTask], settings: TrainingSettings = TrainingSettings(),
                     cache: ArtifactCache | None = None) -> Components:
    """Train (or load from the cache) the reranker, the hop-0 and hop-1 models, the not-joint ablation and, when
    the hop models copy, the hop-1 model without a copy head."""
    cache = cache or ArtifactCache()
    data = fingerprint([(task.dataset, task.train, task.corpus.titles, task.corpus.n_sentences()) for task in tasks])
    seconds = {}

    def cached(kind, config, build, cls, label=None, keyed_by=settings):
        start = time.perf_counter()
        codec = object_codec(cls)
        value = cache.get_or_build(kind, keyed_by.cache_config(train=data, **config), build, codec.save, codec.load)
        seconds[label or (kind if "hop" not in config else f"{kind}-{config['hop']}")] = time.perf_counter() - start
        return value

    reranker = cached("admiral-reranker", {}, lambda: _train_reranker(tasks, settings), SentenceReranker)
    hops = {hop: cached("admiral-hop-model", {"hop": hop, "pointers": True},
                        lambda hop=hop: _train_hop_model(tasks, hop, settings), AutoregressiveRetriever)
            for hop in (0, 1)}
    notjoint = cached("admiral-hop-model", {"hop": 1, "pointers": False},
                      lambda: _train_hop_model(tasks, 1, settings, use_pointers=False), AutoregressiveRetriever,
                      label="admiral-hop-model-1-notjoint")
    nocopy = None
    if settings.hop_copy:
        plain = dataclasses.replace(settings, hop_copy=False)
        nocopy = cached("admiral-hop-model", {"hop": 1, "pointers": True}, lambda: _train_hop_model(tasks, 1, plain),
                        AutoregressiveRetriever, label="admiral-hop-model-1-nocopy", keyed_by=plain)
    return Components(reranker, hops, notjoint, seconds, nocopy)


def held_apart(task: RetrievalTask, settings: TrainingSettings) -> list:
    """The training claims that model selection holds apart (:func:`_carve`; a smoke task may have none: then
    its first four training claims)."""
    return _carve(task.train, settings.dev_fraction)[1] or task.train[:4]


def title_models(components: Components, hop: int = 1) -> dict[str, AutoregressiveRetriever]:
    """The hop's title models to compare: ``copy`` (the book's, with the copy head) and, at hop 1 when it was
    trained, ``no-copy``."""
    models = {"copy": components.hop_models[hop]}
    if hop == 1 and components.nocopy is not None:
        models["no-copy"] = components.nocopy
    return models


def title_accuracy_rows(task: RetrievalTask, models: dict[str, AutoregressiveRetriever], hop: int,
                        settings: TrainingSettings, beam: int = 25) -> list[dict]:
    """Title accuracy of each of ``models`` (name -> hop-``hop`` model, e.g. :func:`title_models`) on ``task``'s
    held-apart training claims (:func:`held_apart`), decoding over the corpus's full title tree.

    ``hop{h}_top1`` / ``hop{h}_top5``: the best beam / any of the first five is a gold title not yet in the input
    (one example per claim, its first ordering of the gold pages), each with its 95% bootstrap interval, and the
    paired ``copy-vs-no-copy`` difference when both are given.  ``hop{h}_copyable`` (system ``gold``): the share
    of examples whose gold title is written in their input.
    """
    examples = make_examples(held_apart(task, settings), task.corpus, hop, seed=settings.seed, max_orderings=1)
    if not examples:
        return []
    base = {"dataset": task.dataset, "split": "train-held-apart"}
    rows, hits = [], {}
    for name, model in models.items():
        outputs = for_corpus(model, task).generate_batch([(e.claim, e.sentences) for e in examples], beam=beam,
                                                         num_return=beam)
        for k in (1, 5):
            hits[name, k] = [float(any(b.title in e.valid_titles for b in beams[:k]))
                             for beams, e in zip(outputs, examples)]
            rows += intervals.mean_rows({**base, "system": name}, f"hop{hop}_top{k}", hits[name, k], settings.seed)
    if {"copy", "no-copy"} <= set(models):
        for k in (1, 5):
            rows += intervals.difference_rows(base, "copy", "no-copy", f"hop{hop}_top{k}", hits["copy", k],
                                              hits["no-copy", k], settings.seed)
    flags = [float(any(written_in(t, e.claim, e.sentences) for t in e.valid_titles)) for e in examples]
    rows += intervals.mean_rows({**base, "system": "gold"}, f"hop{hop}_copyable", flags, settings.seed)
    return rows


def for_corpus(model: AutoregressiveRetriever, task: RetrievalTask, trie: TitleTrie | None = None
               ) -> AutoregressiveRetriever:
    """The same trained model, decoding with this task's title prefix tree (``trie``, when already built)."""
    titles = task.corpus.titles if trie is None else trie
    return AutoregressiveRetriever(model.model, model.tokenizer, titles, hop=model.hop,
                                   max_input_length=model.max_input_length, max_sentences=model.max_sentences,
                                   pointer_rule=model.pointer_rule, use_pointers=model.use_pointers,
                                   length_penalty=model.length_penalty, backend=model.backend)


def build_admiral(task: RetrievalTask, components: Components, config: AdmiralConfig = AdmiralConfig(),
                  notjoint: bool = False, sufficiency=None, index: DocumentIndex | None = None,
                  trie: TitleTrie | None = None, mentions: dict | None = None, nocopy: bool = False) -> Admiral:
    """An :class:`Admiral` retriever over ``task``'s corpus with the trained components.

    ``notjoint`` / ``nocopy``: hop 1 is the model without pointers / without the copy head.  ``index``,
    ``trie`` (the corpus's title prefix tree) and ``mentions`` (its mention table) are built here when not
    given; the efficiency chapter passes the ones it built and timed.
    """
    if nocopy and components.nocopy is None:
        raise ValueError("nocopy: these components have no hop model without a copy head (hop_copy was off)")
    hop1 = components.notjoint if notjoint else components.nocopy if nocopy else components.hop_models[1]
    models = {0: for_corpus(components.hop_models[0], task, trie), 1: for_corpus(hop1, task, trie)}
    return Admiral(task.corpus, index or DocumentIndex(task.corpus), components.reranker, models, config, sufficiency,
                   mentions=mentions)


@dataclass
class TaskRun:
    """Rankings of every system for one task's evaluation claims, with the AdMIRaL traces."""

    dataset: str
    claims: list
    rankings: dict[str, dict[str, list[str]]]       # system -> claim id -> ranked titles
    traces: list                                     # the book config's traces (2 iterations; admiral-mentions)
    notjoint_traces: list                            # ... of its Not-joint ablation
    fulltrie_traces: list                            # the paper's full-tree admiral (FULLTRIE_DATASETS), else []
    mentions_traces: list                            # mentions-only
    seconds: dict[str, float]                        # system -> seconds per claim
    nocopy_traces: list = dataclasses.field(default_factory=list)   # admiral-nocopy (with fulltrie_traces), else []


def _ablation_rankings(name: str, ids: list, traces: list, notjoint_traces: list) -> dict:
    """``name``, ``name-top1`` and ``name-notjoint`` rankings from one decoding's traces (Top-1 reads the same
    traces; Not-joint is its own decoding)."""
    return {name: {i: t.ranking() for i, t in zip(ids, traces)},
            f"{name}-top1": {i: t.ranking(top1=True) for i, t in zip(ids, traces)},
            f"{name}-notjoint": {i: t.ranking() for i, t in zip(ids, notjoint_traces)}}


def run_systems(task: RetrievalTask, components: Components, claims: Sequence, config: AdmiralConfig = AdmiralConfig(),
                dense_cache: ArtifactCache | None = None, progress: bool = True, fulltrie: bool = True) -> TaskRun:
    """Rank ``claims`` with every system of :data:`SYSTEMS` that applies (same claims for all).

    ``config`` is the book's decoding.  When it narrows the hops to linked titles (``hop_titles == "linked"``) its
    systems are ``admiral-mentions*`` and ``mentions-only``, and the paper's full-tree ``admiral*`` runs beside
    them when ``fulltrie`` (the book: on :data:`FULLTRIE_DATASETS`); when it already decodes over the corpus tree,
    its systems are ``admiral*``.  ``traces`` are the book config's (the initial retrieval is shared by all).
    """

    ids, texts = [c.id for c in claims], [c.claim for c in claims]
    index = DocumentIndex(task.corpus)
    seconds = {}
    start = time.perf_counter()
    bm25 = {i: [t for t, _ in index.search(text, k=100)] for i, text in zip(ids, texts)}
    seconds["bm25"] = (time.perf_counter() - start) / len(claims)

    narrowed = config.hop_titles == "linked"
    name = "admiral-mentions" if narrowed else "admiral"
    admiral = build_admiral(task, components, config, index=index)
    start = time.perf_counter()
    traces = admiral.retrieve_many(texts, progress=progress)
    seconds[name] = (time.perf_counter() - start) / len(claims)
    notjoint = build_admiral(task, components, config, notjoint=True, index=index)
    notjoint_traces = notjoint.retrieve_many(texts, progress=progress, initial=traces)
    rankings = {"bm25": bm25, "initial": {i: t.initial_ranking() for i, t in zip(ids, traces)},
                **_ablation_rankings(name, ids, traces, notjoint_traces)}
    fulltrie_traces, nocopy_traces = [], []
    if narrowed and fulltrie:
        full_config = dataclasses.replace(config, hop_titles="corpus")
        full = build_admiral(task, components, full_config, index=index)
        fulltrie_traces = full.retrieve_many(texts, progress=progress, initial=traces)
        full_notjoint = build_admiral(task, components, full_config, notjoint=True, index=index)
        full_notjoint_traces = full_notjoint.retrieve_many(texts, progress=progress, initial=traces)
        rankings.update(_ablation_rankings("admiral", ids, fulltrie_traces, full_notjoint_traces))
        if components.nocopy is not None:
            full_nocopy = build_admiral(task, components, full_config, nocopy=True, index=index)
            nocopy_traces = full_nocopy.retrieve_many(texts, progress=progress, initial=traces)
            rankings["admiral-nocopy"] = {i: t.ranking() for i, t in zip(ids, nocopy_traces)}
    mentions_traces = []
    if narrowed:
        models = {0: for_corpus(components.hop_models[0], task), 1: MentionsOnly(components.reranker, task.corpus)}
        mentions = Admiral(task.corpus, index, components.reranker, models, config)
        mentions_traces = mentions.retrieve_many(texts, progress=progress, initial=traces)
        rankings["mentions-only"] = {i: t.ranking() for i, t in zip(ids, mentions_traces)}

    start = time.perf_counter()
    dense = DenseIndex(task.corpus, cache=dense_cache or ArtifactCache(), progress=progress)
    rankings["dense-mdr"] = dict(zip(ids, dense.multi_hop_many(texts, k=10)))
    seconds["dense-mdr"] = (time.perf_counter() - start) / len(claims)
    return TaskRun(task.dataset, list(claims), rankings, traces, notjoint_traces, fulltrie_traces, mentions_traces,
                   seconds, nocopy_traces)


#: the paired comparisons ``A-vs-B`` of the book (each where both systems ran): the paper's claim C1
#: (the hop against the initial retrieval and BM25), its ablations (Top-1, Not-joint) and the dense baseline,
#: for the paper's full-tree ``admiral`` and for the mention-narrowed stand-in, what the copy head adds to the
#: full-tree hop, and what the title model adds over its narrowed candidates alone
COMPARISONS = tuple((name, other) for name in ("admiral", "admiral-mentions")
                    for other in ("initial", "bm25", f"{name}-top1", f"{name}-notjoint", "dense-mdr")
                    ) + (("admiral", "admiral-nocopy"), ("admiral-nocopy", "initial"), ("admiral", "mentions-only"),
                         ("admiral-mentions", "mentions-only"), ("mentions-only", "initial"))


def _compared(metric: str) -> bool:
    """The metrics paired differences are written for: recall@5 and @10, recall@5 by hops, and exact match (the
    metric of the paper's Not-joint ablation)."""
    return metric in ("recall@5", "recall@10", "em") or metric.startswith("recall@5/")


def metric_rows(run: TaskRun, split: str = "dev", seed: int = 0) -> list[dict]:
    """Result rows of every system on one task run, each value with its 95% bootstrap interval, and
    the paired differences of :data:`COMPARISONS` at recall@5, recall@10, exact match and (HoVer) recall@5 by hops."""

    per_system = {system: per_claim_metrics(run.rankings[system], run.claims, by_hops=run.dataset == "hover")
                  for system in SYSTEMS if system in run.rankings}
    rows = []
    for system, values in per_system.items():
        base = {"dataset": run.dataset, "split": split, "system": system}
        for metric, per_claim in values.items():
            rows += intervals.mean_rows(base, metric, per_claim, seed)
    for a, b in COMPARISONS:
        if a in per_system and b in per_system:
            base = {"dataset": run.dataset, "split": split}
            for metric in filter(_compared, per_system[a]):
                rows += intervals.difference_rows(base, a, b, metric, per_system[a][metric], per_system[b][metric], seed)
    return rows


#: the metrics whose value under each training seed is written (``recall@5:seed1``): those of the paper's claims
SEEDED_METRICS = ("recall@5", "recall@10", "em")


def training_seeds(seed: int, seeds: int) -> list[int]:
    """The training seeds of a chapter run with ``seeds`` seeds from ``seed``: ``seed, seed + 1, ...``."""
    if seeds < 1:
        raise ValueError(f"seeds must be at least 1 (the chapter's own seed), got {seeds}")
    return list(range(seed, seed + seeds))


def seed_runs(train_tasks: Sequence[RetrievalTask], tasks: dict[str, RetrievalTask], settings: TrainingSettings,
              seeds: Sequence[int], limit: int, config: AdmiralConfig = AdmiralConfig(),
              progress: bool = True) -> dict[int, dict[str, TaskRun]]:
    """``seed -> dataset -> run``: for each training seed, every component trained (or loaded from the cache) with
    ``settings`` but that seed, and every task's :func:`cached_run` on its first ``limit`` evaluation claims.  The
    claims, corpora and decoding are the same for every seed; only the trained models differ."""
    found = {}
    for seed in seeds:
        seeded = dataclasses.replace(settings, seed=seed)
        components = train_components(train_tasks, seeded)
        found[seed] = {name: cached_run(task, components, task.evaluation[:limit], seeded, config, progress=progress)
                       for name, task in tasks.items()}
        logger.info("training seed %d: every task run", seed)
    return found


def seeded_metric_rows(runs: dict[int, TaskRun], split: str = "dev", seed: int = 0) -> list[dict]:
    """:func:`metric_rows` for runs of the same claims whose models were trained with different seeds
    (``training seed -> run``; the first is the chapter's own).

    With one run it is :func:`metric_rows`.  With several, each value is the mean over the training seeds and
    its interval the two-level bootstrap over seeds and claims
    (:func:`proofbook.core.intervals.seeded_paired_difference`; a system's own value is its difference from
    zero), so the interval covers the spread between trainings as well as the choice of claims.  For the
    metrics of the paper's claims (:data:`SEEDED_METRICS`) each system and paired difference also gets its value
    under every seed (``recall@5:seed1``), the number of seeds (``recall@5:seeds``) and their spread, the largest
    minus the smallest (``recall@5:seed_spread``).
    """
    seeds = list(runs)
    if len(seeds) == 1:
        return metric_rows(runs[seeds[0]], split, seed)
    first = runs[seeds[0]]
    for other, run in runs.items():
        if run.dataset != first.dataset or run.claims != first.claims:
            raise ValueError(f"training seed {other}: its run is of other claims than seed {seeds[0]}'s "
                             f"({run.dataset}, {len(run.claims)} claims vs {first.dataset}, {len(first.claims)})")
    per_seed = [{system: per_claim_metrics(run.rankings[system], run.claims, by_hops=run.dataset == "hover")
                 for system in SYSTEMS if system in run.rankings} for run in runs.values()]
    systems = [system for system in per_seed[0] if all(system in values for values in per_seed)]
    rows = []

    def add(base: dict, metric: str, a: list, b: list) -> None:
        value, low, high = intervals.seeded_paired_difference(a, b, seed)
        rows.extend(intervals.interval_rows({**base, "metric": metric, "value": value, "n": len(a[0])}, low, high))
        if metric in SEEDED_METRICS:
            means = [sum(p - q for p, q in zip(x, y)) / len(x) for x, y in zip(a, b)]
            rows.extend({**base, "metric": f"{metric}:seed{s}", "value": m, "n": len(a[0])} for s, m in zip(seeds, means))
            rows.append({**base, "metric": f"{metric}:seeds", "value": len(seeds), "n": len(a[0])})
            rows.append({**base, "metric": f"{metric}:seed_spread", "value": intervals.seed_spread(means),
                         "n": len(a[0])})

    for system in systems:
        for metric in per_seed[0][system]:
            values = [values[system][metric] for values in per_seed]
            add({"dataset": first.dataset, "split": split, "system": system}, metric, values,
                [[0.0] * len(v) for v in values])
    for a, b in COMPARISONS:
        if a in systems and b in systems:
            for metric in filter(_compared, per_seed[0][a]):
                add({"dataset": first.dataset, "split": split, "system": f"{a}-vs-{b}"}, metric,
                    [values[a][metric] for values in per_seed], [values[b][metric] for values in per_seed])
    return rows


def seeds_frame(rows: Sequence[dict], dataset: str, metric: str = "recall@5"):
    """A table of ``metric`` under each training seed for one dataset (a row per system or paired difference
    that has per-seed rows, a column per seed, then the mean over seeds and the spread)."""
    prefix = f"{metric}:seed"
    picked = [r for r in rows if r["dataset"] == dataset and r["metric"].startswith(prefix)
              and r["metric"][len(prefix):].isdigit()]
    if not picked:
        return pd.DataFrame()
    frame = pd.DataFrame(picked).assign(seed=lambda f: "seed " + f.metric.str[len(prefix):])
    table = frame.pivot(index="system", columns="seed", values="value")
    value = {(r["system"], r["metric"]): r["value"] for r in rows if r["dataset"] == dataset}
    return table.assign(mean=[value[system, metric] for system in table.index],
                        spread=[value[system, f"{metric}:seed_spread"] for system in table.index])


def cached_run(task: RetrievalTask, components: Components, claims: Sequence, settings: TrainingSettings,
               config: AdmiralConfig = AdmiralConfig(), cache: ArtifactCache | None = None,
               progress: bool = True, fulltrie: bool | None = None) -> TaskRun:
    """:func:`run_systems`, stored in the artifact cache (the error-analysis chapter reads the same run).

    The key holds the training settings, the decoding config, the corpus and the claims; the stored
    ``seconds`` are those measured when the run was made.  ``fulltrie`` defaults to whether the dataset is
    in :data:`FULLTRIE_DATASETS`.
    """
    fulltrie = task.dataset in FULLTRIE_DATASETS if fulltrie is None else fulltrie
    cache = cache or ArtifactCache()
    return cache.cache_pickle("admiral-run", run_key(task, claims, settings, config, fulltrie),
                              lambda: run_systems(task, components, claims, config, cache, progress, fulltrie))


def task_key(task: RetrievalTask, claims: Sequence, settings: TrainingSettings, config: AdmiralConfig) -> dict:
    """The cache key of a run of AdMIRaL on ``claims`` of ``task`` (models from ``settings``, decoding ``config``)."""
    return settings.cache_config(config=dataclasses.asdict(config), dataset=task.dataset,
                                 corpus=fingerprint([task.corpus.titles, task.corpus.n_sentences()]),
                                 claims=fingerprint(list(claims)))


def run_key(task: RetrievalTask, claims: Sequence, settings: TrainingSettings, config: AdmiralConfig,
            fulltrie: bool) -> dict:
    """The cache key of :func:`cached_run`."""
    return {**task_key(task, claims, settings, config), "fulltrie": fulltrie, "systems": list(SYSTEMS)}


def stored_run(task: RetrievalTask, claims: Sequence, settings: TrainingSettings, config: AdmiralConfig = AdmiralConfig(),
               cache: ArtifactCache | None = None, fulltrie: bool | None = None) -> TaskRun | None:
    """The run :func:`cached_run` stored for these arguments, or None when there is none (nothing is run)."""

    fulltrie = task.dataset in FULLTRIE_DATASETS if fulltrie is None else fulltrie
    return (cache or ArtifactCache()).get("admiral-run", run_key(task, claims, settings, config, fulltrie),
                                          pickle_codec()[1])
