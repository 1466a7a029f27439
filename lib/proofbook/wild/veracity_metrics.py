"""Veracity metrics of claims in the wild: accuracy, macro-F1, MAE on label indices, soft accuracy.

Chen et al. (2023), §4: labels are the indices of
``pants-fire, false, barely-true, half-true, mostly-true, true`` (0-5), so a prediction one step off
counts less than one five steps off.  ``mae`` is the mean absolute difference of indices;
``soft_accuracy`` the share with ``|predicted - gold| <= 1``.  ``accuracy`` and ``macro_f1`` are
:func:`proofbook.models.cross_encoder.accuracy` / :func:`~proofbook.models.cross_encoder.macro_f1`
(macro-F1 averages over the classes present in gold or predictions, as scikit-learn's ``average="macro"``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from proofbook.models.cross_encoder import accuracy, macro_f1

METRIC_NAMES = ("accuracy", "macro_f1", "mae", "soft_accuracy")


def mae(gold: Sequence[int], predicted: Sequence[int]) -> float:
    """Mean absolute error between label indices."""
    _check(gold, predicted)
    return float(np.mean(np.abs(np.asarray(gold) - np.asarray(predicted)))) if len(gold) else 0.0


def soft_accuracy(gold: Sequence[int], predicted: Sequence[int], tolerance: int = 1) -> float:
    """Share of predictions at most ``tolerance`` label steps from the gold label."""
    _check(gold, predicted)
    return float(np.mean(np.abs(np.asarray(gold) - np.asarray(predicted)) <= tolerance)) if len(gold) else 0.0


def veracity_metrics(gold: Sequence[int], predicted: Sequence[int]) -> dict[str, float]:
    """All four metrics, named as in the results contract."""
    _check(gold, predicted)
    return {"accuracy": accuracy(gold, predicted), "macro_f1": macro_f1(gold, predicted),
            "mae": mae(gold, predicted), "soft_accuracy": soft_accuracy(gold, predicted)}


def confusion_matrix(gold: Sequence[int], predicted: Sequence[int], n_labels: int = 6) -> np.ndarray:
    """Counts, rows = gold label index, columns = predicted label index."""
    _check(gold, predicted)
    matrix = np.zeros((n_labels, n_labels), dtype=int)
    for g, p in zip(gold, predicted):
        matrix[g, p] += 1
    return matrix


def mae_by_label(gold: Sequence[int], predicted: Sequence[int], n_labels: int = 6) -> dict[int, tuple[float, int]]:
    """``gold label -> (MAE on the claims with that label, their count)`` for labels present."""
    _check(gold, predicted)
    gold, predicted = np.asarray(gold), np.asarray(predicted)
    return {label: (float(np.mean(np.abs(predicted[gold == label] - label))), int(np.sum(gold == label)))
            for label in range(n_labels) if np.any(gold == label)}


def _check(gold, predicted) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold labels but {len(predicted)} predictions")
