"""Reliability diagrams: does a score of 0.8 come true 8 times in 10?

A classifier's probability is *calibrated* when, among the items it gives about p, a share of about p turns out
true.  A reliability diagram bins the items by score and plots each bin's mean score against the share of its
items that came true; a calibrated model lies on the diagonal.  The expected calibration error (ECE; Guo et al.
2017, "On calibration of modern neural networks", §2) is the count-weighted mean distance from the diagonal.

Two uses in the book: the six-way veracity classifier of claims in the wild (score: the probability of its
predicted label; true: the prediction is PolitiFact's label), and Entailer's direct truth score s_d (score:
s_d of an option's hypothesis; true: the option is the gold answer).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np


def reliability_bins(scores: Sequence[float], outcomes: Sequence[bool], bins: int = 10) -> list[tuple[float, float, int]]:
    """``(mean score, share true, count)`` of each non-empty bin of ``bins`` equal-width bins over [0, 1]; a
    score of exactly 1 falls in the last bin."""
    scores, outcomes = np.asarray(scores, dtype=float), np.asarray(outcomes, dtype=bool)
    if scores.shape != outcomes.shape:
        raise ValueError(f"{len(scores)} scores but {len(outcomes)} outcomes")
    if scores.size and (scores.min() < 0 or scores.max() > 1):
        raise ValueError(f"scores must lie in [0, 1]; got {scores.min():.3f} to {scores.max():.3f}")
    index = np.minimum((scores * bins).astype(int), bins - 1)
    return [(float(scores[index == b].mean()), float(outcomes[index == b].mean()), int((index == b).sum()))
            for b in range(bins) if (index == b).any()]


def calibration_error(scores: Sequence[float], outcomes: Sequence[bool], bins: int = 10) -> float:
    """The expected calibration error: the count-weighted mean |mean score - share true| over the bins."""
    found = reliability_bins(scores, outcomes, bins)
    total = sum(n for _, _, n in found)
    return sum(n * abs(score - share) for score, share, n in found) / total if total else float("nan")


def top_label(probabilities: np.ndarray, gold: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """For a multi-class classifier: the probability of each predicted label, and whether it is the gold one."""
    probabilities = np.asarray(probabilities, dtype=float)
    predicted = probabilities.argmax(axis=1)
    return probabilities.max(axis=1), predicted == np.asarray(gold)


def reliability_curves(ax, curves: Mapping[str, tuple[Sequence[float], Sequence[bool]]], bins: int = 10,
                       title: str | None = None, xlabel: str = "score (bin mean)", ylabel: str = "share true") -> None:
    """One line per curve (``name -> (scores, outcomes)``) through its bins, each marker's area proportional to
    the bin's count; the legend gives each curve's ECE and item count; the diagonal is perfect calibration."""
    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
    for name, (scores, outcomes) in curves.items():
        found = reliability_bins(scores, outcomes, bins)
        x, y, n = (np.array(v) for v in zip(*found)) if found else (np.array([]),) * 3
        line, = ax.plot(x, y, label=f"{name} (ECE {calibration_error(scores, outcomes, bins):.2f}, n={len(scores)})")
        ax.scatter(x, y, s=12 + 300 * n / max(1, n.sum()), color=line.get_color(), alpha=0.7)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
