"""The operator model: a MiniLM cross-encoder over (claim span, evidence span) -> natural-logic operator.

AdMIRaL's proofs (Aly & Vlachos 2022, §3.2; ProoFVer) label each aligned (claim span, evidence span) pair
with one of the six operators.  ProoFVer's operator-assignment step is not released;
here a cross-encoder (:class:`proofbook.models.cross_encoder.CrossEncoder`, all-MiniLM-L6-v2, pair ``claim span [SEP]
evidence span``) learns it from the data in ``natlog_proofs_qanatver``:

* the **silver** proofs (QA-NatVer's predictions for 19,998 FEVER dev claims; model output, not gold);
* the **few-shot** gold-like proofs (``train_with_ids_fewshot.target`` and the processed few-shot file),
  repeated ``fewshot_repeat`` times because they are few and closer to gold.

Every claim id that occurs in FEVER-Symmetric is left out (its claims come from FEVER dev, as the silver
proofs do), and a **held-out part** -- the claims with ``sha1("heldout:<id>") % 10 == 0``,
from both sources -- is never trained on; :func:`per_operator_scores` reports precision / recall there.

Departures, stated: the silver proofs are dominated by ``=`` (30k of 41k steps), so training draws at most
``max_per_operator`` silver steps per operator (class balance; the same cap applies to the few-shot steps,
where it binds only at smoke sizes); the held-out report uses at most
``heldout_per_operator`` steps per operator, so its precision is that of a balanced sample, not of the
natural distribution.  MED's 2-hop relations are not used: they relate whole sentences under
monotonicity edits, not spans, and we did not measure whether they help.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.core.codecs import object_codec
from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION, TrainConfig
from proofbook.data.fever_symmetric import fever_symmetric_claim_ids
from proofbook.data.natlog import read_fewshot_processed, read_fewshot_targets, read_silver_proofs
from proofbook.data.proofver import OPERATORS
from proofbook.models.cross_encoder import CrossEncoder

LABELS = tuple(OPERATORS)


@dataclass(frozen=True)
class OperatorSettings(ComponentSettings):
    """How the operator model is trained; the defaults are the book's full-size run (~2 min on 2 cores)."""

    CODE_VERSION = {"batching": BATCHING_VERSION}
    seed: int = 0
    max_per_operator: int = 500
    fewshot_repeat: int = 3
    heldout_per_operator: int = 150
    max_length: int = 32
    epochs: int = 1
    batch_size: int = 32
    lr: float = 1e-4

    @classmethod
    def smoke(cls, seed: int = 0) -> "OperatorSettings":
        """Tiny sizes for the tests: seconds, not minutes (the model learns next to nothing)."""
        return cls(seed=seed, max_per_operator=12, fewshot_repeat=1, heldout_per_operator=6, max_length=24, epochs=1)


@dataclass(frozen=True)
class OperatorExample:
    """One (claim span, evidence span) step of a QA-NatVer proof with its operator, source and claim id."""
    claim_span: str
    evidence_span: str
    operator: str
    source: str          # "silver" or "fewshot"
    claim_id: int


@dataclass
class OperatorData:
    """The operator model's training and held-out steps (:func:`operator_data`), with the number of claims
    left out for FEVER-Symmetric and per-operator counts."""
    train: list[OperatorExample]
    heldout: list[OperatorExample]
    excluded_claims: int                                     # claim ids dropped because FEVER-Symmetric has them
    counts: dict[str, dict[str, int]] = field(default_factory=dict)   # part -> operator -> examples


def is_heldout(claim_id: int) -> bool:
    """The fixed held-out rule of the operator model (10% of claim ids, both sources)."""
    return int(hashlib.sha1(f"heldout:{claim_id}".encode()).hexdigest(), 16) % 10 == 0


def _steps(data_dir) -> tuple[list[OperatorExample], list[OperatorExample]]:

    silver = [OperatorExample(s.claim_span, s.evidence_span, s.operator, "silver", p.claim_id)
              for p in read_silver_proofs(data_dir) for s in p.steps]
    fewshot = {(s.claim_span, s.evidence_span, s.operator, t.claim_id) for t in read_fewshot_targets(data_dir)
               for s in t.steps}
    fewshot |= {(s.claim_span, s.evidence_span, s.operator, e.claim_id) for e in read_fewshot_processed(data_dir)
                for s in e.steps}
    return silver, [OperatorExample(c, e, op, "fewshot", i) for c, e, op, i in sorted(fewshot)]


def operator_data(data_dir=None, settings: OperatorSettings = OperatorSettings()) -> OperatorData:
    """Training and held-out steps by the rules of the module docstring (deterministic for the seed)."""

    symmetric = fever_symmetric_claim_ids(data_dir)
    silver, fewshot = _steps(data_dir)
    excluded = {x.claim_id for x in silver + fewshot if x.claim_id in symmetric}
    silver = [x for x in silver if x.claim_id not in symmetric]
    fewshot = [x for x in fewshot if x.claim_id not in symmetric]
    rng = random.Random(settings.seed)
    train, heldout = [], []
    for source, items in (("silver", silver), ("fewshot", fewshot)):
        by_op: dict[str, dict[str, list]] = defaultdict(lambda: {"train": [], "heldout": []})
        for x in items:
            by_op[x.operator]["heldout" if is_heldout(x.claim_id) else "train"].append(x)
        for op in LABELS:
            part = by_op[op]
            if source == "silver":
                rng.shuffle(part["train"])
                rng.shuffle(part["heldout"])
                train += part["train"][:settings.max_per_operator]
                heldout += part["heldout"][:settings.heldout_per_operator]
            else:
                train += part["train"][:settings.max_per_operator] * settings.fewshot_repeat
                heldout += part["heldout"]
    rng.shuffle(train)
    counts = {name: dict(Counter(x.operator for x in part)) for name, part in (("train", train), ("heldout", heldout))}
    return OperatorData(train, heldout, len(excluded), counts)


class OperatorModel:
    """The trained cross-encoder with the operator labels; ``predict`` maps span pairs to operators."""

    def __init__(self, encoder: CrossEncoder):
        if list(encoder.labels) != list(LABELS):
            raise ValueError(f"an operator model needs labels {list(LABELS)}, got {encoder.labels}")
        self.encoder = encoder

    def __repr__(self) -> str:
        return f"OperatorModel({self.encoder!r})"

    @classmethod
    def new(cls, max_length: int = 32, checkpoint="minilm", seed: int = 0) -> "OperatorModel":
        """An untrained cross-encoder from ``checkpoint`` (MiniLM) over the operators :data:`LABELS`."""
        return cls(CrossEncoder(checkpoint, labels=LABELS, max_length=max_length, seed=seed))

    def predict_proba(self, pairs: Sequence[tuple[str, str]], batch_size: int = 64) -> np.ndarray:
        """Operator probabilities of each ``(claim span, evidence span)``, columns in :data:`LABELS` order."""
        return self.encoder.predict_proba(list(pairs), batch_size=batch_size, progress=False)

    def predict(self, pairs: Sequence[tuple[str, str]], batch_size: int = 64) -> list[str]:
        """The most probable operator of each ``(claim span, evidence span)``."""
        if not pairs:
            return []
        return self.encoder.predict(list(pairs), batch_size=batch_size, progress=False)

    def save(self, folder: os.PathLike | str) -> Path:
        """Write the cross-encoder into ``folder`` (usable with ``object_codec``); returns the folder."""
        return self.encoder.save(folder)

    @classmethod
    def load(cls, folder: os.PathLike | str, device: str | None = None) -> "OperatorModel":
        """An operator model written by :meth:`save`."""
        return cls(CrossEncoder.load(folder, device=device))


def train_operator_model(data: OperatorData, settings: OperatorSettings = OperatorSettings()) -> OperatorModel:
    """Fine-tune MiniLM on ``data.train`` (no early stopping: the held-out part is for reporting only)."""
    model = OperatorModel.new(settings.max_length, seed=settings.seed)
    config = TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr, seed=settings.seed)
    model.encoder.fit([(x.claim_span, x.evidence_span) for x in data.train], [x.operator for x in data.train],
                      config=config)
    return model


def cached_operator_model(data_dir=None, settings: OperatorSettings = OperatorSettings(),
                          cache: ArtifactCache | None = None) -> tuple[OperatorModel, OperatorData, float]:
    """The trained operator model from the cache (built on a miss), its data and the seconds it took."""
    cache = cache or ArtifactCache()
    data = operator_data(data_dir, settings)
    key = settings.cache_config(train=fingerprint([dataclasses.astuple(x) for x in data.train]))
    start = time.perf_counter()
    model = cache.get_or_build("natlog-operator-model", key, lambda: train_operator_model(data, settings),
                               *object_codec(OperatorModel))
    return model, data, time.perf_counter() - start


def per_operator_scores(gold: Sequence[str], predicted: Sequence[str]) -> list[dict]:
    """Precision, recall, F1 and support of each operator (rows in :data:`LABELS` order)."""
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold operators but {len(predicted)} predictions")
    rows = []
    for op in LABELS:
        tp = sum(g == op and p == op for g, p in zip(gold, predicted))
        n_pred, n_gold = sum(p == op for p in predicted), sum(g == op for g in gold)
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_gold if n_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        rows.append({"operator": op, "name": OPERATORS[op], "precision": precision, "recall": recall, "f1": f1,
                     "support": n_gold})
    return rows


def confusion_matrix(gold: Sequence[str], predicted: Sequence[str]) -> np.ndarray:
    """Counts, rows = gold operator, columns = predicted operator, both in :data:`LABELS` order."""
    matrix = np.zeros((len(LABELS), len(LABELS)), dtype=int)
    for g, p in zip(gold, predicted):
        matrix[LABELS.index(g), LABELS.index(p)] += 1
    return matrix
