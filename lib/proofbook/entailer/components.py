"""Entailer's components (Tafjord et al. 2022, §3): the behaviours trained here, with their settings and cache.

:class:`Settings` holds the sizes of every model and training run and the search settings of the systems;
:func:`build_components` trains (or loads from the artifact cache) the premise generator, the hypothesis
writer, the truth scorer and the entailment scorer and returns them as :class:`Components`.

Training (all on the training files found in ``data_dir``, :func:`training_files`, cached with
:class:`proofbook.core.cache.ArtifactCache`):

* **Tokenizer.**  A 4,000-piece uncased WordPiece vocabulary for the training texts
  (:func:`proofbook.models.loading.train_wordpiece`).  **Departure:** measured on this machine, MiniLM's 30,522-piece vocabulary makes the output
  layer of a small seq2seq model dominate its cost (0.7 steps/s at batch 32 for d_model 256 on a loaded
  machine), so the generators use this smaller vocabulary.
* **Premise generator** H -> P: a scratch BART (:class:`proofbook.models.seq2seq.Seq2Seq`) on
  EntailmentBank's one-step entailments (task 1 train, official format), by default from the hypothesis
  alone, as the paper's H -> P behaviour is used at search time.  With ``context_facts`` > 0 the input
  also carries a ``$context$`` of that many facts: the gold premises and BM25-retrieved WorldTree
  distractors in training, the top BM25 WorldTree facts for the hypothesis at search time
  (:func:`.behaviours.premise_pairs_with_context`; the paper's training contexts mix gold and BM25 facts
  the same way).  Measured during development: with a five-fact context (inputs of up to 192 tokens) a
  generator of this size, trained for the minutes this book can spend, ignored its input and wrote the
  same word salad for every hypothesis; from the hypothesis alone (about 25 tokens) it learns, in fewer
  minutes, premises about the hypothesis's own subject, though many are still false or garbled.  Larger
  generators measured during development did not change that: a scratch BART of d_model 256 with 3+3 layers
  (12 epochs, about 12 minutes) took ``entailer-sampled-d1`` on the first 100 OBQA dev questions to 0.21-0.23
  against ``direct`` 0.38-0.53 across truth-scorer variants; an ``EncoderDecoderModel`` warm-started from
  MiniLM (:meth:`proofbook.models.seq2seq.Seq2Seq.warm_start`, 49M parameters, 2 epochs at batch 16 and
  lr 1e-4: 709 s) still sampled garbled premises at temperature 1.0; premises taken as subsets of the top-5
  BM25 WorldTree facts reached 0.24-0.26.
* **Hypothesis writer**: the same kind of model on EntailmentBank's question/answer/hypothesis triples;
  compared with the rules on EntailmentBank dev (:func:`.hypotheses.compare_writers`); the notebooks use
  the better one by token F1 (``Components.writer``).
* **Truth scorer**: a MiniLM cross-encoder trained on :func:`.behaviours.truth_groups` (``truth_questions``
  OBQA train questions with all their options, ``truth_statements`` EntailmentBank statements with their
  perturbed/negated copies) with the multiple-choice loss of
  :meth:`proofbook.models.cross_encoder.CrossEncoder.fit_groups`; 10% of the groups are held out to report accuracy and
  group accuracy (no model selection on them).  **Departure:** the truth scorer reads the statement *with the
  ``truth_facts`` WorldTree facts BM25 retrieves for it* (:class:`.behaviours.TruthContext`).  The paper's
  s_d is the belief stored in T5-11B's weights; a 22M-parameter MiniLM trained for minutes stores almost
  none (measured: 0.55 held-out accuracy without facts, chance 0.5), so its "belief" here is what it
  concludes from the facts it reads.  The memory still overrides it.
* **Entailment scorer**: a MiniLM cross-encoder on :func:`.behaviours.entailment_examples`; 10% held out.

Every training set is cleaned of near-duplicates of the evaluation statements (all option hypotheses of
the OBQA and QASC evaluation splits, the conclusions of the EntailmentBank evaluation trees); the counts
removed are in ``Components.data_report``.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from proofbook.core.cache import ArtifactCache, object_codec
from proofbook.core.paths import resolve_data_dir
from proofbook.core.training import TrainConfig, set_seed
from proofbook.data.entailmentbank import read_entailmentbank
from proofbook.entailer import behaviours as bh
from proofbook.entailer import hypotheses as hyp
from proofbook.entailer import proposals
from proofbook.entailer.datasets import (evaluation_files, evaluation_splits, fact_retriever, training_data,
                                         training_files)
from proofbook.entailer.search import SearchConfig
from proofbook.models.cross_encoder import HEAD_INIT_VERSION, CrossEncoder, accuracy
from proofbook.models.loading import WORDPIECE_VERSION, small_seq2seq, special_token_ids, train_wordpiece
from proofbook.models.seq2seq import Seq2Seq

#: settings that change the search only (not the trained models' cache keys)
SEARCH_SETTINGS = ("k", "temperature", "top_p", "max_new_tokens", "premise_source", "pool_bm25", "pool_dense",
                   "pool_pairs_from")


#: bumped when the construction of a scorer's training data changes (enters its cache key)
DATA_VERSION = {"truth scorer": 4, "entailment scorer": 1}


@dataclass(frozen=True)
class Settings:
    """Sizes of the models and training runs; :meth:`smoke` shrinks everything for tests."""

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
    truth_questions: int = 2500
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
    premise_source: str = "mixed"      # generated | retrieved | mixed (:mod:`.proposals`)
    pool_bm25: int = 4
    pool_dense: int = 4
    pool_pairs_from: int = 5

    def __post_init__(self):
        if self.premise_source not in proposals.SOURCES:
            raise ValueError(f"unknown premise_source {self.premise_source!r}; expected one of {proposals.SOURCES}")

    @property
    def pool(self) -> proposals.PoolSettings:
        return proposals.PoolSettings(self.pool_bm25, self.pool_dense, self.pool_pairs_from)

    def source(self, system: str) -> str:
        """The premise source of a search system: named in it (``entailer-retrieved-sampled-d1``) or the default."""
        return next((s for s in proposals.SOURCES if system.startswith(f"entailer-{s}-")), self.premise_source)

    @classmethod
    def smoke(cls, seed: int = 0) -> "Settings":
        return cls(seed=seed, vocab_size=600, gen_d_model=32, gen_layers=1, gen_heads=2, gen_epochs=1, context_facts=3,
                   gen_examples=64, writer_epochs=1, writer_examples=64, truth_questions=16, truth_statements=8,
                   entail_examples=48, truth_facts=1,
                   ce_batch=16, k=2, max_new_tokens=16, pool_dense=0)

    def search(self, system: str) -> SearchConfig:
        depth = int(system.rsplit("-d", 1)[1])
        if "greedy" in system:
            return SearchConfig.greedy(depth, self.seed)
        return replace(SearchConfig.sampled(depth, self.k, self.seed), temperature=self.temperature, top_p=self.top_p)


def _seq2seq(pairs, settings: Settings, epochs: int):

    tokenizer = train_wordpiece([text for pair in pairs for text in pair], settings.vocab_size)
    set_seed(settings.seed)
    model = small_seq2seq(len(tokenizer), d_model=settings.gen_d_model, layers=settings.gen_layers,
                          heads=settings.gen_heads, max_positions=192 if settings.context_facts else 128,
                          **special_token_ids(tokenizer))
    seq2seq = Seq2Seq(model, tokenizer, max_input_length=192 if settings.context_facts else 96, max_target_length=64,
                      backend="scratch")
    result = seq2seq.fit(pairs, TrainConfig(epochs=epochs, batch_size=settings.gen_batch, lr=settings.gen_lr,
                                            seed=settings.seed, progress=True))
    return seq2seq, result


def _cross_encoder(data: bh.LabelledPairs, max_length: int, lr: float, settings: Settings):

    n_dev = max(1, len(data) // 10)
    model = CrossEncoder("minilm", labels=bh.LABELS, max_length=max_length, seed=settings.seed)
    result = model.fit(data.pairs[n_dev:], data.labels[n_dev:],
                       config=TrainConfig(epochs=settings.ce_epochs, batch_size=settings.ce_batch, lr=lr,
                                          seed=settings.seed, progress=True))
    held_out = accuracy(model.label_ids(data.labels[:n_dev]), model.label_ids(model.predict(data.pairs[:n_dev])))
    return model, result, held_out, n_dev


def _truth_scorer(groups: bh.StatementGroups, context: bh.TruthContext, settings: Settings):
    """The truth scorer, trained on statement groups (multiple-choice loss); 10% of the groups held out.

    Held-out figures: ``accuracy`` (each statement on its own, P(true) > 0.5 or not) and ``group
    accuracy`` (the true statement of a group ranked first, as a question's correct option must be).
    """


    n_dev = max(1, len(groups) // 10)
    held, kept = groups.split(n_dev)
    model = CrossEncoder("minilm", labels=bh.LABELS, max_length=settings.truth_max_length,
                         seed=settings.seed)
    model.fit_groups([[(context.pair(text), flag) for text, flag in group] for group in kept.groups],
                     TrainConfig(epochs=settings.ce_epochs, batch_size=settings.truth_batch, lr=settings.truth_lr,
                                 seed=settings.seed, progress=True))
    flat = [(text, flag) for group in held.groups for text, flag in group]
    p_true = model.predict_proba([context.pair(text) for text, _ in flat], progress=False)[:, 1]
    ranked_first, at = 0, 0
    for group in held.groups:
        scores = p_true[at:at + len(group)]
        ranked_first += group[int(np.argmax(scores))][1]
        at += len(group)
    model.held_out = {"accuracy": float(np.mean((p_true > 0.5) == np.array([f for _, f in flat]))), "n": len(flat),
                      "group accuracy": ranked_first / len(held), "groups": len(held)}
    return model


@dataclass
class Components:
    """The trained behaviours, the writers, and what training did."""

    model: bh.TrainedEntailer
    writers: dict
    writer_scores: list
    train_seconds: dict
    held_out_accuracy: dict
    data_report: list
    data_sizes: dict
    keys: dict
    pool: proposals.FactPool | None = None
    _behaviours: dict = field(default_factory=dict, repr=False)

    def behaviours(self, source: str) -> proposals.ProposingEntailer:
        """The behaviour model whose H -> P draws from ``source`` (one per source, so its memo lasts the run)."""
        if source not in self._behaviours:
            self._behaviours[source] = proposals.ProposingEntailer(self.model, self.pool, source)
        return self._behaviours[source]

    @property
    def facts(self) -> frozenset[str]:
        """The fact corpus's sentences (true by construction), for the error categories and the memory demo."""
        return frozenset(self.pool.retriever.facts) if self.pool is not None else frozenset()

    @property
    def writer(self):
        """The writer with the higher token F1 on EntailmentBank dev (rules when there is no dev file)."""
        if not self.writer_scores:
            return self.writers["rules"]
        best = max(self.writer_scores, key=lambda s: s.token_f1)
        return self.writers[best.writer]


def build_components(data_dir=None, settings: Settings = Settings(), cache=None) -> Components:
    """Train (or load from the cache) the premise generator, the writer and the two scorers."""

    cache = cache or ArtifactCache()
    root = resolve_data_dir(data_dir)
    files = training_files(root) + evaluation_files(root)
    data = training_data(root, settings)
    seconds, held_out, keys = {}, {}, {}
    every = asdict(settings)

    def fields(*prefixes: str) -> dict:
        """The settings one component reads (its cache key): the seed and the fields with these prefixes."""
        return {k: v for k, v in every.items() if k == "seed" or k.startswith(prefixes)}

    def timed(name, kind, config, build, codec):
        start = time.perf_counter()
        misses = cache.stats["misses"]
        value = cache.get_or_build(kind, config, build, *codec, data=files)
        seconds[name] = round(time.perf_counter() - start, 1) if cache.stats["misses"] > misses else 0.0
        keys[name] = cache.key_for(kind, config, files)
        return value

    generator = timed("premise generator", "entailer-premise-generator",
                      {**fields("gen_", "vocab_", "context_"), "what": "premises", "wordpiece": WORDPIECE_VERSION},
                      lambda: _seq2seq(data.premise_pairs, settings, settings.gen_epochs)[0], object_codec(Seq2Seq))
    writer_model = timed("hypothesis writer", "entailer-hypothesis-writer",
                         {**fields("gen_", "vocab_", "writer_"), "what": "writer", "wordpiece": WORDPIECE_VERSION},
                         lambda: _seq2seq(data.writer_pairs, settings, settings.writer_epochs)[0], object_codec(Seq2Seq))
    retriever = fact_retriever(root)
    truth_context = bh.TruthContext(retriever if settings.truth_facts else None, settings.truth_facts)
    scorers = {}

    def train_entailment():
        model, _, accuracy_, n_dev = _cross_encoder(data.entailment, settings.entail_max_length, settings.entail_lr,
                                                    settings)
        model.held_out = {"accuracy": accuracy_, "n": n_dev}
        return model

    for name, kind, build, prefix in (
            ("truth scorer", "entailer-truth-scorer", lambda: _truth_scorer(data.truth, truth_context, settings),
             "truth_"),
            ("entailment scorer", "entailer-entailment-scorer", train_entailment, "entail_")):

        def save(model, folder):
            model.save(folder)
            (folder / "held_out.json").write_text(json.dumps(model.held_out))

        def load(folder):
            model = CrossEncoder.load(folder)
            model.held_out = json.loads((Path(folder) / "held_out.json").read_text())
            return model

        config = {**fields(prefix, "ce_"), "what": name, "data": DATA_VERSION[name], "head": HEAD_INIT_VERSION}
        scorers[name] = timed(name, kind, config, build, (save, load))
        held_out[name] = scorers[name].held_out
    model = bh.TrainedEntailer(generator, scorers["truth scorer"], scorers["entailment scorer"],
                               max_new_tokens=settings.max_new_tokens,
                               retriever=retriever if settings.context_facts else None,
                               n_context=settings.context_facts, truth_context=truth_context)
    writers = {"rules": hyp.RuleWriter(), "learned": hyp.LearnedWriter(writer_model)}
    scores = []
    dev_trees = [t for s in evaluation_splits(root, "entailmentbank")[:1] for t in read_entailmentbank(root, s, 1)]
    if dev_trees:
        scores = hyp.compare_writers(list(writers.values()), dev_trees)
    sizes = {"premise generator": len(data.premise_pairs), "hypothesis writer": len(data.writer_pairs),
             "truth scorer": sum(len(g) for g in data.truth.groups), "entailment scorer": len(data.entailment)}
    report = data.report + [{"training set": f"{name} {unit}", "source": "; ".join(f"{k} {v}" for k, v in d.counts().items()),
                             "kept": sizes[name], "near-duplicates removed": None}
                            for name, unit, d in (("truth scorer", "statements", data.truth),
                                                  ("entailment scorer", "pairs", data.entailment))]
    components = Components(model, writers, scores, seconds, held_out, report, sizes, keys)
    components.pool = proposals.build_pool(retriever, settings.pool, cache)
    return components
