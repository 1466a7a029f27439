"""The cross-encoder: a MiniLM (or any local encoder) scoring a text pair into k classes.

One class serves six models of the book: AdMIRaL's sentence reranker, natural-logic operator model
and sufficiency classifier (Aly & Vlachos 2022, §3), the veracity classifier of claims in the wild,
and Entailer's truth scorer H -> Sd and entailment scorer PH -> Se (Tafjord et al. 2022, §3.2).
The pair is encoded jointly (``[CLS] a [SEP] b [SEP]``) and a classification head on ``[CLS]``
gives a distribution over the labels.  ``fit`` goes through :func:`proofbook.core.training.train`;
``save``/``load`` keep the labels with the weights so the ArtifactCache can store a trained model
(``object_codec(CrossEncoder)``).

**Length.**  A batch is padded to its longest pair, so batching pairs of similar length saves most of the
work spent on padding: prediction sorts the pairs by their token count, scores them in that order and
returns the probabilities in the order given (the same numbers up to float rounding, about 2x faster on
thousands of pairs of mixed length), and training batches examples of similar length together when
``TrainConfig.length_pool`` is set (:func:`proofbook.core.training.batch_order`).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import torch
from tqdm.auto import tqdm

from proofbook.core.training import TrainConfig, TrainResult, train
from proofbook.models.loading import (load_classifier, load_tokenizer, read_settings, resolve_checkpoint,
                                      save_with_settings)

CONFIG_FILE = "cross_encoder.json"
#: how a new classification head is initialised; enters the cache keys of models built after other
#: training in the same process (2: from ``seed``; 1 was torch's global generator, whose state
#: depended on what ran before)
HEAD_INIT_VERSION = 2
Pair = tuple[str, str]


def accuracy(gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Share of predictions equal to the gold label."""
    return float(np.mean(np.asarray(gold) == np.asarray(predicted))) if len(gold) else 0.0


def macro_f1(gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Unweighted mean of per-class F1 over the classes seen in gold or predictions."""
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    scores = []
    for label in np.union1d(gold, predicted):
        tp = np.sum((gold == label) & (predicted == label))
        denominator = np.sum(gold == label) + np.sum(predicted == label)
        scores.append(2 * tp / denominator if denominator else 0.0)
    return float(np.mean(scores)) if scores else 0.0


METRICS: dict[str, Callable[[Sequence[int], Sequence[int]], float]] = {"accuracy": accuracy, "macro_f1": macro_f1}


class CrossEncoder:
    """A pair classifier over ``labels`` on a local encoder checkpoint (``"minilm"`` by default).

    ``device`` defaults to CUDA when available, else the CPU.  On a bare encoder the new
    classification head is drawn from a generator seeded with ``seed`` (torch's global generator is
    left as it was), so the same arguments give the same untrained model whatever ran before in the
    process -- a cached model loaded earlier, or a longer training run, changes nothing.
    """

    def __init__(self, checkpoint: os.PathLike | str = "minilm", *, labels: Sequence[str], max_length: int = 128,
                 device: str | None = None, seed: int = 0):
        if len(labels) < 2 or len(set(labels)) != len(labels):
            raise ValueError(f"CrossEncoder needs at least two distinct labels, got {list(labels)}")
        self.checkpoint = str(checkpoint)
        self.labels = [str(label) for label in labels]
        self.max_length = max_length
        self.device = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
        folder = resolve_checkpoint(checkpoint)
        self.tokenizer = load_tokenizer(folder)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.model = load_classifier(folder, num_labels=len(self.labels)).to(self.device)
        self.model.config.id2label = dict(enumerate(self.labels))
        self.model.config.label2id = {label: i for i, label in enumerate(self.labels)}
        self.model.eval()

    def __repr__(self) -> str:
        return f"CrossEncoder({self.checkpoint!r}, labels={self.labels}, max_length={self.max_length})"

    def label_ids(self, labels: Sequence[str | int]) -> list[int]:
        """Label names (or ids) as ids; an unknown label raises a ValueError naming it and its position."""
        ids = []
        for position, label in enumerate(labels):
            if isinstance(label, (int, np.integer)) and not isinstance(label, bool) and 0 <= label < len(self.labels):
                ids.append(int(label))
            elif isinstance(label, str) and label in self.labels:
                ids.append(self.labels.index(label))
            else:
                raise ValueError(f"label {label!r} at position {position} is not one of {self.labels}")
        return ids

    def encode(self, pairs: Sequence[Pair]) -> dict[str, torch.Tensor]:
        """Tokenise pairs jointly, truncated to ``max_length`` and padded to the longest."""
        first, second = [a for a, _ in pairs], [b for _, b in pairs]
        return dict(self.tokenizer(first, second, truncation=True, max_length=self.max_length, padding=True,
                                   return_tensors="pt"))

    def _token_ids(self, pairs: Sequence[Pair]):
        """Each pair tokenised jointly and truncated to ``max_length``, not padded."""
        return self.tokenizer([a for a, _ in pairs], [b for _, b in pairs], truncation=True,
                              max_length=self.max_length)

    def token_lengths(self, pairs: Sequence[Pair]) -> list[int]:
        """The number of tokens of each pair as encoded (truncated to ``max_length``)."""
        return [len(ids) for ids in self._token_ids(pairs)["input_ids"]]

    def _collate(self, examples: list[tuple[str, str, int]]) -> dict[str, torch.Tensor]:
        batch = self.encode([(a, b) for a, b, _ in examples])
        batch["labels"] = torch.tensor([label for _, _, label in examples])
        return batch

    def fit(self, pairs: Sequence[Pair], labels: Sequence[str | int], dev_pairs: Sequence[Pair] | None = None,
            dev_labels: Sequence[str | int] | None = None, config: TrainConfig | None = None,
            metric: str | Callable[[Sequence[int], Sequence[int]], float] = "accuracy") -> TrainResult:
        """Fine-tune on labelled pairs; with dev pairs, keep the weights best on ``metric``.

        ``metric`` is ``"accuracy"``, ``"macro_f1"`` or ``f(gold_ids, predicted_ids) -> float``
        (higher is better unless ``config.higher_is_better`` is False).
        """
        if len(pairs) != len(labels):
            raise ValueError(f"fit: {len(pairs)} pairs but {len(labels)} labels")
        score = METRICS[metric] if isinstance(metric, str) else metric
        examples = [(a, b, label) for (a, b), label in zip(pairs, self.label_ids(labels))]
        evaluate = None  # no dev set: train for the configured epochs, no early stopping
        if dev_pairs is not None:
            dev_pairs = list(dev_pairs)
            if dev_labels is None or len(dev_pairs) != len(dev_labels):
                raise ValueError("fit: dev_pairs need as many dev_labels")
            dev_gold = self.label_ids(dev_labels)
            evaluate = lambda model: score(dev_gold, self._probabilities(dev_pairs, 64, progress=False).argmax(axis=1))  # noqa: E731
        config = config or TrainConfig()
        lengths = self.token_lengths([(a, b) for a, b, _ in examples]) if config.length_pool else None
        result = train(self.model, examples, self._collate, evaluate, config, lengths=lengths)
        self.model.eval()
        return result

    def fit_groups(self, groups: Sequence[Sequence[tuple[Pair, bool]]], config: TrainConfig | None = None,
                   positive: str | None = None) -> TrainResult:
        """Fine-tune on groups of pairs with exactly one true member (the options of one question).

        The loss of a group is the cross-entropy of a softmax over its members' scores z = logit(positive)
        - logit(other) (a *listwise* multiple-choice loss: which member is the true one?) plus the binary
        cross-entropy of every member on its own, so that P(positive) stays a calibrated score for a pair
        seen alone.  Needs exactly two labels; ``positive`` (default: the second label) is the "true" one.
        ``config.batch_size`` counts groups.
        """
        if len(self.labels) != 2:
            raise ValueError(f"fit_groups needs two labels, this model has {self.labels}")
        column = self.labels.index(positive) if positive is not None else 1
        examples = []
        for number, group in enumerate(groups):
            group = [((str(a), str(b)), bool(flag)) for (a, b), flag in group]
            if len(group) < 2 or sum(flag for _, flag in group) != 1:
                raise ValueError(f"fit_groups: group {number} needs at least two pairs and exactly one true "
                                 f"pair, has {len(group)} pairs and {sum(f for _, f in group)} true")
            examples.append(group)

        def collate(batch: list) -> dict[str, torch.Tensor]:
            encoded = self.encode([pair for group in batch for pair, _ in group])
            encoded["group_sizes"] = torch.tensor([len(group) for group in batch])
            encoded["targets"] = torch.tensor([flag for group in batch for _, flag in group], dtype=torch.float)
            return encoded

        def loss_fn(model: torch.nn.Module, batch: dict[str, torch.Tensor]) -> torch.Tensor:
            sizes, targets = batch.pop("group_sizes").tolist(), batch.pop("targets")
            logits = model(**batch).logits.float()
            z = logits[:, column] - logits[:, 1 - column]
            pointwise = torch.nn.functional.binary_cross_entropy_with_logits(z, targets)
            listwise = torch.stack([-(torch.log_softmax(zs, 0) * ts).sum()
                                    for zs, ts in zip(z.split(sizes), targets.split(sizes))]).mean()
            return listwise + pointwise

        config = config or TrainConfig()
        lengths = None  # a group is padded to its longest pair
        if config.length_pool:
            pair_lengths = iter(self.token_lengths([pair for group in examples for pair, _ in group]))
            lengths = [max(next(pair_lengths) for _ in group) for group in examples]
        result = train(self.model, examples, collate, None, config, loss_fn=loss_fn, lengths=lengths)
        self.model.eval()
        return result

    def _probabilities(self, pairs: Sequence[Pair], batch_size: int, progress: bool | None) -> np.ndarray:
        probabilities = np.zeros((len(pairs), len(self.labels)), dtype=np.float32)
        if not pairs:
            return probabilities
        encoded = self._token_ids(pairs)
        fields = list(encoded.keys())
        order = sorted(range(len(pairs)), key=lambda i: len(encoded["input_ids"][i]))  # stable: ties keep order
        starts = range(0, len(order), batch_size)
        show = progress if progress is not None else len(starts) > 10
        with torch.no_grad():
            for start in tqdm(starts, desc="predict", unit="batch", file=sys.stderr, disable=not show, leave=False):
                indices = order[start:start + batch_size]
                batch = self.tokenizer.pad({name: [encoded[name][i] for i in indices] for name in fields},
                                           return_tensors="pt")
                batch = {k: v.to(self.device) for k, v in batch.items()}
                probabilities[indices] = torch.softmax(self.model(**batch).logits.float(), dim=-1).cpu().numpy()
        return probabilities

    def predict_proba(self, pairs: Sequence[Pair], batch_size: int = 64, progress: bool | None = None) -> np.ndarray:
        """Probabilities, shape ``(len(pairs), len(labels))``, columns in the order of ``labels``.

        A progress bar appears for more than ten batches unless ``progress`` is False.
        """
        was_training = self.model.training
        self.model.eval()
        try:
            return self._probabilities(list(pairs), batch_size, progress)
        finally:
            self.model.train(was_training)

    def predict(self, pairs: Sequence[Pair], batch_size: int = 64, progress: bool | None = None) -> list[str]:
        """The most probable label of each pair."""
        return [self.labels[i] for i in self.predict_proba(pairs, batch_size, progress).argmax(axis=1)]

    def save(self, folder: os.PathLike | str) -> Path:
        """Write weights, tokenizer and ``cross_encoder.json`` (labels, max_length) into ``folder``."""
        settings = {"labels": self.labels, "max_length": self.max_length, "trained_from": self.checkpoint}
        return save_with_settings(folder, self.model, self.tokenizer, CONFIG_FILE, settings)

    @classmethod
    def load(cls, folder: os.PathLike | str, device: str | None = None) -> "CrossEncoder":
        """A cross-encoder written by :meth:`save`."""
        settings = read_settings(folder, CONFIG_FILE, "CrossEncoder.save")
        return cls(folder, labels=settings["labels"], max_length=settings["max_length"], device=device)
