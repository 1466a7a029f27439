"""The six-way veracity classifier of claims in the wild.

Chen et al. (2023), §3.5: DeBERTa-large reads
``"{person} {venue} {claim} [SEP] {summaries}"`` (max 512 tokens) and predicts one of six labels, in the
index order ``pants-fire, false, barely-true, half-true, mostly-true, true``
(:data:`proofbook.data.politifact_text.LABELS`); lr 3e-5, batch 8 x 2, up to 25 epochs; the checkpoint with
the lowest dev MAE is kept.

Here (departures, each forced by this machine or this copy of the data):

* **Model**: MiniLM (all-MiniLM-L6-v2, 22M parameters) as a :class:`proofbook.models.cross_encoder.CrossEncoder`
  on the pair ``(classifier_input(person, venue, claim), evidence)``, which the tokenizer encodes as
  ``[CLS] {person} {venue} {claim} [SEP] {evidence} [SEP]``; the venue is normalised across LIAR and
  ClaimDecomp (:func:`proofbook.data.politifact_text.classifier_input`).  ``max_length``, epochs, batch size and
  lr are :class:`VeracitySettings` (chosen so the chapter fits its time budget on two CPU cores).
* **Training data**: ClaimDecomp's 800 labelled train claims are not in this copy; the claim-only model
  trains on LIAR train, the evidence model on claims paired with justification-like evidence (LIAR-PLUS
  ``val2`` justifications and ClaimDecomp dev justifications).
* **Checkpoint selection**: lowest MAE on a *selection part* carved out of the training data
  (:func:`selection_split`: ``int(sha1(statement_key), 16) % 100 < 100 * fraction``), evaluated
  ``evaluations_per_epoch`` times an epoch -- never an evaluation split.
* **Verdicts removed from justifications**: ClaimDecomp's justification paragraphs end with the verdict
  ("We rate it Half True.") and often quote PolitiFact's standard definition of the rating ("contains an
  element of truth but ignores critical facts ..." = Mostly False).  :func:`strip_verdict` drops every
  sentence that states a rating or quotes a definition (and share-the-facts links), in ClaimDecomp and
  LIAR-PLUS alike, so that the ``justification`` oracle measures the fact-checker's *reasons*, not a
  read-off label.  The paper does not say whether it kept them; with them, the oracle is trivial.
* **Near-duplicates**: every training set has the near-duplicates of every evaluation claim removed
  (:func:`remove_near_duplicates`; same :func:`proofbook.data.politifact_text.statement_key`), and the count is
  reported.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from proofbook.core.cache import fingerprint
from proofbook.core.corpus import split_sentences
from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION, TrainConfig, set_seed
from proofbook.data.politifact_text import LABELS, classifier_input, statement_key
from proofbook.models.cross_encoder import CrossEncoder
from proofbook.wild.veracity_metrics import mae, veracity_metrics

SEPARATOR = " [SEP] "

#: a sentence that states a Truth-O-Meter rating, or quotes PolitiFact's definition of one
VERDICT_SENTENCE = re.compile(
    r"\b(?:we|politifact|i)\s+(?:rate|rated|rates|give|gave|would rate)\b|\bour (?:rating|ruling) is\b|sharethefacts"
    r"|truth-o-meter|\bpants on fire\b|\brating of\b|\brate (?:it|this|that|the|his|her)\b"
    r"|element of truth but ignores critical facts|partially accurate but leaves out important details"
    r"|accurate but needs clarification|accurate and there(?:'|’)s nothing significant missing"
    r"|not accurate and makes a ridiculous claim|statement is not accurate\.?$",
    re.IGNORECASE)


def strip_verdict(text: str) -> str:
    """``text`` without the sentences that state or define a rating (see the module docstring)."""

    return " ".join(s for s in split_sentences(text) if not VERDICT_SENTENCE.search(s))


@dataclass(frozen=True)
class VeracityExample:
    """One classifier input: the claim text (person venue claim), its evidence, its gold label."""

    claim_id: str
    statement: str          # the bare claim, for near-duplicate matching
    text: str               # "{person} {venue} {claim}"
    evidence: str
    label: str

    @property
    def label_index(self) -> int:
        return LABELS.index(self.label)

    @property
    def pair(self) -> tuple[str, str]:
        return self.text, self.evidence

    def with_evidence(self, evidence: str) -> "VeracityExample":
        """A copy of the example with ``evidence`` in place of its own."""
        return replace(self, evidence=evidence)


def liar_examples(statements: Iterable, evidence: str = "none") -> list[VeracityExample]:
    """LIAR (or LIAR-PLUS) statements; ``evidence="justification"`` uses LIAR-PLUS's justification (verdicts stripped)."""
    if evidence not in ("none", "justification"):
        raise ValueError(f"evidence must be 'none' or 'justification', got {evidence!r}")
    return [VeracityExample(f"liar:{s.id}", s.statement, classifier_input(s.speaker, s.context, s.statement),
                            strip_verdict(s.justification) if evidence == "justification" else "", s.label)
            for s in statements]


def claimdecomp_examples(claims: Iterable, evidence: dict | str = "none") -> list[VeracityExample]:
    """ClaimDecomp claims; ``evidence`` is ``"none"``, ``"justification"`` or ``{example_id: text}``."""
    examples = []
    for c in claims:
        if evidence == "none":
            text = ""
        elif evidence == "justification":
            text = strip_verdict(" ".join(" ".join(p.split()) for p in c.justification))
        elif isinstance(evidence, dict):
            text = evidence.get(c.example_id, "")
        else:
            raise ValueError(f"evidence must be 'none', 'justification' or a dict, got {evidence!r}")
        examples.append(VeracityExample(f"claimdecomp:{c.example_id}", c.claim,
                                        classifier_input(c.person, c.venue, c.claim), text, c.label))
    return examples


def remove_near_duplicates(train: Sequence[VeracityExample], evaluation_statements: Iterable[str]
                           ) -> tuple[list[VeracityExample], int]:
    """``train`` without examples whose statement_key equals that of an evaluation claim; and how many went."""
    keys = {statement_key(s) for s in evaluation_statements}
    kept = [e for e in train if statement_key(e.statement) not in keys]
    return kept, len(train) - len(kept)


def selection_split(examples: Sequence[VeracityExample], fraction: float = 0.1
                    ) -> tuple[list[VeracityExample], list[VeracityExample]]:
    """``(train part, selection part)``: a claim goes to selection when its hash bucket (of 100) < 100*fraction.

    The rule hashes the statement (not the position), so copies of one statement land on the same side.
    """
    if not 0 < fraction < 1:
        raise ValueError(f"selection fraction must be in (0, 1), got {fraction}")
    train, selection = [], []
    for e in examples:
        bucket = int(hashlib.sha1(statement_key(e.statement).encode("utf-8")).hexdigest(), 16) % 100
        (selection if bucket < 100 * fraction else train).append(e)
    return train, selection


@dataclass(frozen=True)
class VeracitySettings(ComponentSettings):
    """Training settings of one veracity model (every field keys its cache entry)."""

    CODE_VERSION = {"batching": BATCHING_VERSION}
    max_length: int = 128
    epochs: int = 1
    batch_size: int = 16
    lr: float = 5e-5
    selection_fraction: float = 0.1
    evaluations_per_epoch: int = 3
    seed: int = 0
    limit: int | None = None        # train on at most this many examples (smoke runs)
    checkpoint: str = "minilm"      # or the folder of a trained veracity classifier to continue from


def cache_settings(settings: VeracitySettings, cache) -> VeracitySettings:
    """The settings as the cache key sees them: a checkpoint folder inside the cache is named by its place
    in the cache (``cache:<kind>/<key>``), so the key is the same wherever the checkout or cache lies."""
    folder = Path(settings.checkpoint)
    if not folder.is_absolute():
        return settings
    try:
        inside = folder.resolve().relative_to(Path(cache.root).resolve())
    except ValueError:                  # a checkpoint of one's own, outside the cache: keyed by its path
        return settings
    return replace(settings, checkpoint=f"cache:{inside.as_posix()}")


class VeracityClassifier:
    """A CrossEncoder over :data:`LABELS` with the training rule of the module docstring."""

    def __init__(self, encoder, settings: VeracitySettings, train_result=None, counts: dict | None = None):
        self.encoder, self.settings, self.train_result = encoder, settings, train_result
        self.counts = counts or {}
        self.summary: dict = {}          # training summary (counts, best selection MAE, speed); set by cached()
        self.folder = None               # the cache folder of the weights; set by cached()

    @classmethod
    def train(cls, examples: Sequence[VeracityExample], settings: VeracitySettings,
              progress: bool = True) -> "VeracityClassifier":
        """Carve the selection part, fine-tune, keep the checkpoint with the lowest selection MAE."""

        train_part, selection = selection_split(examples, settings.selection_fraction)
        if settings.limit:
            train_part, selection = train_part[:settings.limit], selection[:max(8, settings.limit // 4)]
        if not train_part or not selection:
            raise ValueError(f"veracity training: {len(train_part)} training and {len(selection)} selection "
                             "examples; need both")
        set_seed(settings.seed)
        encoder = CrossEncoder(settings.checkpoint, labels=LABELS, max_length=settings.max_length,
                               seed=settings.seed)
        steps = -(-len(train_part) // settings.batch_size)
        config = TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr,
                             seed=settings.seed, higher_is_better=False, progress=progress,
                             eval_every=max(1, steps // settings.evaluations_per_epoch))
        result = encoder.fit([e.pair for e in train_part], [e.label for e in train_part],
                             dev_pairs=[e.pair for e in selection], dev_labels=[e.label for e in selection],
                             config=config, metric=mae)
        counts = {"train": len(train_part), "selection": len(selection)}
        return cls(encoder, settings, result, counts)

    @classmethod
    def cached(cls, kind: str, examples: Sequence[VeracityExample], settings: VeracitySettings, cache,
               progress: bool = True) -> "VeracityClassifier":
        """Trained once per (settings, training examples) through the ArtifactCache.

        When loaded from the cache, ``train_result`` is ``None`` and ``summary`` comes from the entry.
        """

        trained: dict = {}

        def build():
            classifier = cls.train(examples, settings, progress)
            trained["classifier"] = classifier
            return classifier.encoder

        def save(encoder, folder):
            encoder.save(folder)
            info = trained["classifier"]
            summary = {"counts": info.counts, "best_selection_mae": info.train_result.best_metric,
                       "best_step": info.train_result.best_step, "steps": info.train_result.steps,
                       "seconds": info.train_result.seconds,
                       "examples_per_second": info.train_result.examples_per_second}
            (folder / "veracity_training.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")

        def load(folder):
            encoder = CrossEncoder.load(folder)
            encoder.training_summary = json.loads((folder / "veracity_training.json").read_text(encoding="utf-8"))
            return encoder

        config = cache_settings(settings, cache).cache_config(
            examples=fingerprint([(e.claim_id, e.text, e.evidence, e.label) for e in examples]))
        encoder = cache.get_or_build(kind, config, build, save, load)
        classifier = trained.get("classifier") or cls(encoder, settings)
        classifier.folder = cache.path_for(kind, cache.key_for(kind, config))
        summary = getattr(encoder, "training_summary", None)
        classifier.summary = summary or {"counts": classifier.counts,
                                         "best_selection_mae": classifier.train_result.best_metric,
                                         "seconds": classifier.train_result.seconds,
                                         "examples_per_second": classifier.train_result.examples_per_second}
        return classifier

    def predict_proba(self, examples: Sequence[VeracityExample], progress: bool | None = None) -> np.ndarray:
        """Label probabilities, one row per example, columns in :data:`LABELS` order."""
        return self.encoder.predict_proba([e.pair for e in examples], progress=progress)

    def predict(self, examples: Sequence[VeracityExample], progress: bool | None = None) -> list[int]:
        """Predicted label indices."""
        return self.predict_proba(examples, progress).argmax(axis=1).tolist() if examples else []

    def evaluate(self, examples: Sequence[VeracityExample]) -> dict[str, float]:
        """Accuracy, macro F1, MAE and soft accuracy of the predictions (:func:`veracity_metrics`)."""
        return veracity_metrics([e.label_index for e in examples], self.predict(examples))


def constant_predictions(examples: Sequence[VeracityExample], label: str = "half-true") -> list[int]:
    """The ``always-half-true`` baseline."""
    return [LABELS.index(label)] * len(examples)
