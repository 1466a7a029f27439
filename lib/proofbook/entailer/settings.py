"""Entailer's settings (Tafjord et al. 2022, §3): the sizes of every model and training run, and the search settings.

:class:`Settings` is the one flat set of fields the chapters' parameters fill; it hands each trained component
its own dataclass (:class:`GeneratorTraining` for the premise generator and the hypothesis writer,
:class:`TruthScorerTraining`, :class:`EntailmentScorerTraining`), which is all its training reads and what keys
its cache entry, and each search run its :class:`SearchSettings`.  The components are trained by
:mod:`proofbook.entailer.components`; their training data are read by :mod:`proofbook.entailer.datasets`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION
from proofbook.entailer import proposals
from proofbook.entailer.search_config import SearchConfig
from proofbook.models.cross_encoder import HEAD_INIT_VERSION
from proofbook.models.loading import WORDPIECE_VERSION


@dataclass(frozen=True)
class GeneratorTraining(ComponentSettings):
    """A scratch seq2seq trained on (input, output) pairs: the premise generator H -> P or the hypothesis writer."""

    CODE_VERSION = {"wordpiece": WORDPIECE_VERSION, "batching": BATCHING_VERSION}

    seed: int
    vocab_size: int
    d_model: int
    layers: int
    heads: int
    epochs: int
    batch: int
    lr: float
    examples: int | None        # train on a sample of this many pairs (None: all)
    context_facts: int = 0      # facts in each input's $context$ (the premise generator only); sets the input length

    @property
    def max_input_length(self) -> int:
        return 192 if self.context_facts else 96


@dataclass(frozen=True)
class TruthScorerTraining(ComponentSettings):
    """The truth scorer: its training statements, the facts it reads with each, and the training run."""

    #: ``data_version`` is bumped when the construction of the training statements changes
    CODE_VERSION = {"head": HEAD_INIT_VERSION, "data_version": 4, "batching": BATCHING_VERSION}

    seed: int
    questions: int              # OBQA train questions, with all their options
    statements: int             # EntailmentBank statements, with their perturbed/negated copies
    facts: int                  # WorldTree facts read with each statement
    max_length: int
    lr: float
    batch: int
    epochs: int


@dataclass(frozen=True)
class EntailmentScorerTraining(ComponentSettings):
    """The entailment scorer: its training pairs and the training run."""

    #: ``data_version`` is bumped when the construction of the training pairs changes
    CODE_VERSION = {"head": HEAD_INIT_VERSION, "data_version": 1, "batching": BATCHING_VERSION}

    seed: int
    examples: int
    max_length: int
    lr: float
    batch: int
    epochs: int


@dataclass(frozen=True)
class SearchSettings(ComponentSettings):
    """What a search system's run depends on besides the trained models (it keys the cached run)."""

    seed: int
    k: int
    temperature: float
    top_p: float
    max_new_tokens: int
    source: str
    pool: proposals.PoolSettings | None     # None for the ``generated`` source (no pool is read)


@dataclass(frozen=True)
class Settings:
    """Sizes of the models and training runs, and the search settings; :meth:`smoke` shrinks everything for tests.

    One flat set of fields, as the chapters' parameters are; each trained component is handed its own
    dataclass (:attr:`premise_generator`, :attr:`writer`, :attr:`truth_scorer`, :attr:`entailment_scorer`),
    which is all its training reads and what keys its cache entry.
    """

    seed: int = 0
    vocab_size: int = 4000
    gen_d_model: int = 128
    gen_layers: int = 2
    gen_heads: int = 4
    gen_epochs: int = 10
    gen_batch: int = 32
    gen_lr: float = 1e-3
    gen_examples: int | None = None
    context_facts: int = 0
    writer_epochs: int = 8
    writer_examples: int | None = None
    truth_questions: int = 5000     # every OBQA train question (4,957 before cleaning)
    truth_statements: int = 800
    truth_facts: int = 2
    truth_max_length: int = 112
    truth_lr: float = 1e-4
    truth_batch: int = 8
    entail_examples: int = 2400
    entail_max_length: int = 64
    entail_lr: float = 5e-5
    ce_epochs: int = 1
    ce_batch: int = 16
    k: int = 6
    temperature: float = 1.0
    top_p: float = 0.95
    max_new_tokens: int = 48
    premise_source: str = "generated"  # a search system's premises unless its name says: generated | retrieved | mixed
    pool_bm25: int = 4
    pool_dense: int = 4
    pool_pairs_from: int = 5

    def __post_init__(self):
        if self.premise_source not in proposals.SOURCES:
            raise ValueError(f"unknown premise_source {self.premise_source!r}; expected one of {proposals.SOURCES}")

    @property
    def pool(self) -> proposals.PoolSettings:
        return proposals.PoolSettings(self.pool_bm25, self.pool_dense, self.pool_pairs_from)

    @property
    def premise_generator(self) -> GeneratorTraining:
        return GeneratorTraining(self.seed, self.vocab_size, self.gen_d_model, self.gen_layers, self.gen_heads,
                                 self.gen_epochs, self.gen_batch, self.gen_lr, self.gen_examples, self.context_facts)

    @property
    def writer(self) -> GeneratorTraining:
        """The writer: the generator's model size and optimiser, its own epochs and sample; no context."""
        return GeneratorTraining(self.seed, self.vocab_size, self.gen_d_model, self.gen_layers, self.gen_heads,
                                 self.writer_epochs, self.gen_batch, self.gen_lr, self.writer_examples)

    @property
    def truth_scorer(self) -> TruthScorerTraining:
        return TruthScorerTraining(self.seed, self.truth_questions, self.truth_statements, self.truth_facts,
                                   self.truth_max_length, self.truth_lr, self.truth_batch, self.ce_epochs)

    @property
    def entailment_scorer(self) -> EntailmentScorerTraining:
        return EntailmentScorerTraining(self.seed, self.entail_examples, self.entail_max_length, self.entail_lr,
                                        self.ce_batch, self.ce_epochs)

    def search_settings(self, source: str) -> SearchSettings:
        """The settings a search run with premises from ``source`` reads."""
        return SearchSettings(self.seed, self.k, self.temperature, self.top_p, self.max_new_tokens, source,
                              self.pool if source != "generated" else None)

    def source(self, system: str) -> str:
        """The premise source of a search system: named in it (``entailer-mixed-sampled-d1``,
        ``entailer-retrieved-sampled-d1``) or the default (``entailer-sampled-d1``: ``premise_source``)."""
        return next((s for s in proposals.SOURCES if system.startswith(f"entailer-{s}-")), self.premise_source)

    @classmethod
    def smoke(cls, seed: int = 0) -> "Settings":
        """Tiny sizes for the tests: every component trains in seconds (the models learn next to nothing)."""
        return cls(seed=seed, vocab_size=600, gen_d_model=32, gen_layers=1, gen_heads=2, gen_epochs=1, context_facts=3,
                   gen_examples=64, writer_epochs=1, writer_examples=64, truth_questions=16, truth_statements=8,
                   entail_examples=48, truth_facts=1,
                   ce_batch=16, k=2, max_new_tokens=16, pool_dense=0)

    def search(self, system: str) -> SearchConfig:
        """The :class:`SearchConfig` of search system ``system`` (``entailer-greedy-d3`` ...): the depth of
        its ``-d`` suffix, greedy if the name says so, else sampled with these settings' ``k``, temperature
        and top-p."""
        depth = int(system.rsplit("-d", 1)[1])
        if "greedy" in system:
            return SearchConfig.greedy(depth, self.seed)
        return replace(SearchConfig.sampled(depth, self.k, self.seed), temperature=self.temperature, top_p=self.top_p)
