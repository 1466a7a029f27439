"""Bootstrap intervals for the book's headline numbers, and for the difference between two systems.

The book evaluates on 95-200 claims or questions, where a difference of a few examples is noise.  So
each headline number (an accuracy, a recall, an F1, an MAE) comes with a 95% percentile bootstrap
interval (Efron & Tibshirani 1993): :data:`N_RESAMPLES` resamples of the examples, drawn with
replacement by a generator seeded with the run's seed, so the interval is the same on every rerun.
A comparison of two systems on the *same* examples is a **paired** bootstrap: both systems are
scored on the same resampled examples, and the interval is that of the difference A - B.

As result rows (:mod:`proofbook.core.results`), an interval sits next to its value under the metric's name
with ``:ci95_low`` / ``:ci95_high`` appended (``recall@5``, ``recall@5:ci95_low``,
``recall@5:ci95_high``), and a difference is the system ``A-vs-B`` with value A - B in the same metric
(``admiral-vs-initial`` / ``recall@5``), with its own interval rows.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

N_RESAMPLES = 1000
LEVEL = 0.95
LOW, HIGH = ":ci95_low", ":ci95_high"


def resamples(n: int, seed: int = 0, n_resamples: int = N_RESAMPLES) -> np.ndarray:
    """``(n_resamples, n)`` example indices drawn with replacement; the same for the same ``n`` and seed."""
    if n < 1:
        raise ValueError("a bootstrap needs at least one example")
    return np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))


def _percentiles(estimates: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """The central ``level`` percentile interval of bootstrap estimates."""
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(estimates, [tail, 100 - tail])
    return float(low), float(high)


def interval(statistic: Callable[[np.ndarray], float], n: int, seed: int = 0,
             n_resamples: int = N_RESAMPLES, level: float = LEVEL) -> tuple[float, float]:
    """The percentile interval of ``statistic(indices)`` over bootstrap resamples of ``n`` examples."""
    return _percentiles(np.array([statistic(idx) for idx in resamples(n, seed, n_resamples)], dtype=float), level)


def mean_interval(values: Sequence[float], seed: int = 0) -> tuple[float, float]:
    """The interval of the mean of per-example values (1/0 for an accuracy or a recall)."""
    array = np.asarray(values, dtype=float)
    return _percentiles(array[resamples(len(array), seed)].mean(axis=1))


def paired_difference(a: Sequence[float], b: Sequence[float], seed: int = 0) -> tuple[float, float, float]:
    """``(mean(a) - mean(b), low, high)`` for two systems' per-example values on the same examples."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"a paired bootstrap needs the same examples: {a.shape} vs {b.shape}")
    low, high = mean_interval(a - b, seed)
    return float(a.mean() - b.mean()), low, high


def interval_rows(row: dict, low: float, high: float) -> list[dict]:
    """``row`` (a result row) followed by its two interval rows."""
    return [row, {**row, "metric": row["metric"] + LOW, "value": low},
            {**row, "metric": row["metric"] + HIGH, "value": high}]


def mean_rows(base: dict, metric: str, values: Sequence[float], seed: int = 0) -> list[dict]:
    """The value row of the mean of ``values`` and its interval rows; ``base`` holds dataset, split, system."""
    low, high = mean_interval(values, seed)
    return interval_rows({**base, "metric": metric, "value": float(np.mean(values)), "n": len(values)}, low, high)


def difference_rows(base: dict, a: str, b: str, metric: str, a_values: Sequence[float], b_values: Sequence[float],
                    seed: int = 0) -> list[dict]:
    """System ``a-vs-b``: the difference of the means of ``metric`` and its paired interval."""
    value, low, high = paired_difference(a_values, b_values, seed)
    return interval_rows({**base, "system": f"{a}-vs-{b}", "metric": metric, "value": value, "n": len(a_values)},
                         low, high)


def seeded_paired_difference(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], seed: int = 0,
                             n_resamples: int = N_RESAMPLES) -> tuple[float, float, float]:
    """``(value, low, high)`` for two systems each trained with several seeds, on the same examples.

    ``a[s][i]`` is system A's value on example ``i`` when trained with the ``s``-th seed (the same seeds and
    examples for B).  The value is the mean over seeds of the paired difference of the means.  The interval is a
    two-level bootstrap: every resample draws the training seeds with replacement and, for them all, the same
    examples with replacement, so it covers the spread between trainings as well as the choice of examples.
    With one seed it is :func:`paired_difference`.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.ndim != 2 or a.shape != b.shape:
        raise ValueError(f"a seeded paired bootstrap needs (seeds, examples) arrays of one shape: {a.shape} vs {b.shape}")
    n_seeds, n = a.shape
    if n_seeds < 1 or n < 1:
        raise ValueError("a bootstrap needs at least one seed and one example")
    diff = a - b
    if n_seeds == 1:
        return paired_difference(a[0], b[0], seed)
    rng = np.random.default_rng(seed)
    seeds = rng.integers(0, n_seeds, size=(n_resamples, n_seeds))
    examples = rng.integers(0, n, size=(n_resamples, n))
    estimates = np.array([diff[s][:, idx].mean() for s, idx in zip(seeds, examples)])
    low, high = _percentiles(estimates)
    return float(diff.mean()), low, high


def seed_spread(values: Sequence[float]) -> float:
    """The largest minus the smallest of one quantity measured once per training seed."""
    return float(np.max(values) - np.min(values))


def relation(low: float, high: float, reference: float) -> str:
    """Where an interval lies against a reference value: ``"above"``, ``"below"`` or
    ``"indistinguishable from"`` (the interval contains it)."""
    return "above" if low > reference else "below" if high < reference else "indistinguishable from"


def is_interval(metric: str) -> bool:
    """Whether a metric name is an interval bound (``...:ci95_low`` / ``...:ci95_high``)."""
    return metric.endswith(LOW) or metric.endswith(HIGH)


def interval_table(rows: Sequence[dict], metrics: Sequence[str], index: Sequence[str] = ("dataset", "system"),
                   digits: int = 3):
    """A table of ``value [low, high]`` strings (index x metric) from result rows with interval rows;
    a value without interval rows is shown alone."""
    import pandas as pd

    found = {(tuple(r[i] for i in index), r["metric"]): r["value"] for r in rows}
    keys = list(dict.fromkeys(tuple(r[i] for i in index) for r in rows if r["metric"] in metrics))
    cells = {}
    for metric in metrics:
        column = {}
        for key in keys:
            if (key, metric) not in found:
                continue
            value, low, high = (found.get((key, metric + suffix)) for suffix in ("", LOW, HIGH))
            column[key if len(index) > 1 else key[0]] = f"{value:.{digits}f}" + (f" [{low:.{digits}f}, {high:.{digits}f}]" if low is not None else "")
        cells[metric] = column
    frame = pd.DataFrame(cells, index=pd.MultiIndex.from_tuples(keys, names=list(index)) if len(index) > 1
                         else pd.Index([k[0] for k in keys], name=index[0]))
    return frame.fillna("")
