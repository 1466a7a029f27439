"""Entailer's components (Tafjord et al. 2022, §3): the behaviours trained here, with their settings and cache.

The sizes of every model and training run are in :class:`~proofbook.entailer.settings.Settings`;
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
  (:func:`.training_data.premise_pairs_with_context`; the paper's training contexts mix gold and BM25 facts
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
* **Truth scorer**: a MiniLM cross-encoder trained on :func:`.training_data.truth_groups` (``truth_questions``
  OBQA train questions with all their options, ``truth_statements`` EntailmentBank statements with their
  perturbed/negated copies) with the multiple-choice loss of
  :meth:`proofbook.models.cross_encoder.CrossEncoder.fit_groups`; 10% of the groups are held out to report accuracy and
  group accuracy (no model selection on them).  **Departure:** the truth scorer reads the statement *with the
  ``truth_facts`` WorldTree facts BM25 retrieves for it* (:class:`.behaviours.TruthContext`).  The paper's
  s_d is the belief stored in T5-11B's weights; a 22M-parameter MiniLM trained for minutes stores almost
  none (measured: 0.55 held-out accuracy without facts, chance 0.5), so its "belief" here is what it
  concludes from the facts it reads.  The memory still overrides it.
  **Encoder: MiniLM, measured against a larger one.**  On the model-selection split of
  :mod:`proofbook.entailer.selection` (400 further OBQA *train* questions, the true option ranked first;
  2,500 questions + 800 statement groups, one epoch; measured with an earlier draw of the 400 held-out
  questions): MiniLM-L6 at lr 1e-4 0.460 (418 s of training, 8 ms per statement); all-mpnet-base-v2 (12
  layers, 768-d; the one larger encoder installable offline) at lr 1e-4 did not learn (0.350), at lr 2e-5
  0.503 (2,654 s, 77 ms per statement): +0.04, paired 95% interval [-0.02, 0.10].  Six times the training
  time and ten times the time per statement for a difference the split cannot separate from zero, so the
  book keeps MiniLM.  More questions paid instead (the module's split as it is): MiniLM on all 4,529 other
  OBQA train questions 0.558 against 0.500 on 2,500 of them, +0.06, paired 95% interval [0.01, 0.11]
  (676 s against 506 s of training), so ``truth_questions`` covers the whole training file.
* **Entailment scorer**: a MiniLM cross-encoder on :func:`.training_data.entailment_examples`; 10% held out
  (:func:`fit_entailment_scorer`).  MiniLM is kept against all-mpnet-base-v2 here as well: on the selection
  split, the option whose best retrieved premise set it scores highest is the true one for 0.29 (MiniLM) and 0.32
  (mpnet) of the 400 questions, an interval that includes zero (:mod:`proofbook.entailer.selection`).

Every training set is cleaned of near-duplicates of the evaluation statements (all option hypotheses of
the OBQA and QASC evaluation splits, the conclusions of the EntailmentBank evaluation trees); the counts
removed are in ``Components.data_report``.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proofbook.core.cache import ArtifactCache
from proofbook.core.codecs import object_codec
from proofbook.core.paths import resolve_data_dir
from proofbook.core.training import TrainConfig, set_seed
from proofbook.data.entailmentbank import read_entailmentbank
from proofbook.entailer.training_data import (LabelledPairs, StatementGroups, entailment_examples,
                                              premise_pairs_with_context, truth_groups)
from proofbook.entailer.behaviours import LABELS, TrainedEntailer, TruthContext
from proofbook.entailer import hypotheses as hyp
from proofbook.entailer import proposals
from proofbook.entailer.datasets import (evaluation_files, evaluation_splits, fact_retriever, training_data,
                                         training_files)
from proofbook.entailer.settings import (EntailmentScorerTraining, GeneratorTraining, Settings,
                                        TruthScorerTraining)
from proofbook.models.cross_encoder import CrossEncoder, accuracy
from proofbook.models.loading import small_seq2seq, special_token_ids, train_wordpiece
from proofbook.models.seq2seq import Seq2Seq


def _seq2seq(pairs, training: GeneratorTraining) -> Seq2Seq:

    tokenizer = train_wordpiece([text for pair in pairs for text in pair], training.vocab_size)
    set_seed(training.seed)
    model = small_seq2seq(len(tokenizer), d_model=training.d_model, layers=training.layers, heads=training.heads,
                          max_positions=max(128, training.max_input_length), **special_token_ids(tokenizer))
    seq2seq = Seq2Seq(model, tokenizer, max_input_length=training.max_input_length, max_target_length=64,
                      backend="scratch")
    seq2seq.fit(pairs, TrainConfig(epochs=training.epochs, batch_size=training.batch, lr=training.lr,
                                   seed=training.seed, progress=True))
    return seq2seq


def fit_entailment_scorer(data: LabelledPairs, training: EntailmentScorerTraining, checkpoint: str = "minilm",
                          progress: bool = True) -> CrossEncoder:
    """The entailment scorer from ``checkpoint``; the first 10% of the pairs held out (``held_out``: accuracy and n)."""

    n_dev = max(1, len(data) // 10)
    model = CrossEncoder(checkpoint, labels=LABELS, max_length=training.max_length, seed=training.seed)
    model.fit(data.pairs[n_dev:], data.labels[n_dev:],
              config=TrainConfig(epochs=training.epochs, batch_size=training.batch, lr=training.lr,
                                 seed=training.seed, progress=progress))
    held_out = accuracy(model.label_ids(data.labels[:n_dev]), model.label_ids(model.predict(data.pairs[:n_dev])))
    model.held_out = {"accuracy": held_out, "n": n_dev}
    return model


def fit_truth_scorer(groups: StatementGroups, context: TruthContext, training: TruthScorerTraining,
                     checkpoint: str = "minilm", progress: bool = True) -> CrossEncoder:
    """A truth scorer from ``checkpoint`` trained on statement groups (multiple-choice loss), each statement read
    with its facts (``context``)."""
    model = CrossEncoder(checkpoint, labels=LABELS, max_length=training.max_length, seed=training.seed)
    model.fit_groups([[(context.pair(text), flag) for text, flag in group] for group in groups.groups],
                     TrainConfig(epochs=training.epochs, batch_size=training.batch, lr=training.lr,
                                 seed=training.seed, progress=progress))
    return model


def truth_ranked_first(model: CrossEncoder, context: TruthContext, groups: StatementGroups
                       ) -> tuple[np.ndarray, list[bool]]:
    """P(true) of every statement of ``groups`` (flattened, in order) and, per group, whether its true statement
    is ranked first (as a question's correct option must be)."""
    p_true = model.predict_proba([context.pair(text) for text in groups.statements()], progress=False)[:, 1]
    return p_true, groups.true_ranked_first(p_true)


def _truth_scorer(groups: StatementGroups, context: TruthContext, training: TruthScorerTraining):
    """The truth scorer, trained on statement groups (multiple-choice loss); 10% of the groups held out.

    Held-out figures: ``accuracy`` (each statement on its own, P(true) > 0.5 or not) and ``group
    accuracy`` (the true statement of a group ranked first, as a question's correct option must be).
    """
    n_dev = max(1, len(groups) // 10)
    held, kept = groups.split(n_dev)
    model = fit_truth_scorer(kept, context, training)
    p_true, ranked = truth_ranked_first(model, context, held)
    flags = np.array([flag for group in held.groups for _, flag in group])
    model.held_out = {"accuracy": float(np.mean((p_true > 0.5) == flags)), "n": len(flags),
                      "group accuracy": sum(ranked) / len(held), "groups": len(held)}
    return model


@dataclass
class Components:
    """The trained behaviours, the writers, and what training did."""

    model: TrainedEntailer
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
    seconds, keys = {}, {}

    def timed(name, kind, config, build, codec):
        start = time.perf_counter()
        misses = cache.stats["misses"]
        value = cache.get_or_build(kind, config, build, *codec, data=files)
        seconds[name] = round(time.perf_counter() - start, 1) if cache.stats["misses"] > misses else 0.0
        keys[name] = cache.key_for(kind, config, files)
        return value

    generator = timed("premise generator", "entailer-premise-generator", settings.premise_generator.cache_config(),
                      lambda: _seq2seq(data.premise_pairs, settings.premise_generator), object_codec(Seq2Seq))
    writer_model = timed("hypothesis writer", "entailer-hypothesis-writer", settings.writer.cache_config(),
                         lambda: _seq2seq(data.writer_pairs, settings.writer), object_codec(Seq2Seq))
    retriever = fact_retriever(root)
    truth = settings.truth_scorer
    truth_context = TruthContext(retriever if truth.facts else None, truth.facts)

    def save(model, folder):
        model.save(folder)
        (folder / "held_out.json").write_text(json.dumps(model.held_out))

    def load(folder):
        model = CrossEncoder.load(folder)
        model.held_out = json.loads((Path(folder) / "held_out.json").read_text())
        return model

    scorers = {
        "truth scorer": timed("truth scorer", "entailer-truth-scorer", truth.cache_config(),
                              lambda: _truth_scorer(data.truth, truth_context, truth), (save, load)),
        "entailment scorer": timed("entailment scorer", "entailer-entailment-scorer",
                                   settings.entailment_scorer.cache_config(),
                                   lambda: fit_entailment_scorer(data.entailment, settings.entailment_scorer),
                                   (save, load))}
    held_out = {name: scorer.held_out for name, scorer in scorers.items()}
    model = TrainedEntailer(generator, scorers["truth scorer"], scorers["entailment scorer"],
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
