"""Plots and renderers for the book: one shared style, one place where figures are saved.

Every figure is saved by :func:`save_figure` to ``{figures_dir}/{paper}/{name}.svg`` (and ``.png``)
with the same style and DPI, so the book's figures look alike and tests can write them to a
temporary folder.  Tables of retrieval traces are in :mod:`proofbook.render.retrieval`; proofs and
entailment trees render themselves (:mod:`proofbook.admiral.prover.natlog`, :mod:`proofbook.entailer.trees`).
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from proofbook.core.intervals import HIGH, LOW
from proofbook.core.paths import PROJECT_ROOT

DPI = 120
STYLE = {
    "figure.figsize": (7.0, 3.6),
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "savefig.bbox": "tight",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "font.family": "DejaVu Sans",
    "svg.hashsalt": "proofbook",  # deterministic SVG ids: the same run writes the same file
}
PALETTE = "colorblind"


def use_style() -> None:
    """Apply the book's plotting style (matplotlib rcParams + seaborn palette)."""
    import matplotlib
    import seaborn as sns

    matplotlib.rcParams.update(STYLE)
    sns.set_palette(PALETTE)


def save_figure(fig, figures_dir: str | os.PathLike, paper: str, name: str, formats=("svg", "png")) -> Path:
    """Save ``fig`` as ``{figures_dir}/{paper}/{name}.{svg,png}``; returns the SVG path."""
    folder = Path(figures_dir)
    if not folder.is_absolute():
        folder = PROJECT_ROOT / folder
    folder = folder / paper
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fmt in formats:
        path = folder / f"{name}.{fmt}"
        fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
        paths.append(path)
    return paths[0]


def bars_with_intervals(ax, frame, group: str, hue: str, value: str, horizontal: bool = True,
                        legend: bool = True) -> None:
    """Grouped bars of ``value`` (one group per ``group``, one bar per ``hue``) with 95% interval whiskers
    from the ``value:ci95_low`` / ``value:ci95_high`` columns of ``frame`` (see :mod:`proofbook.core.intervals`)."""
    import seaborn as sns

    groups, hues = list(dict.fromkeys(frame[group])), list(dict.fromkeys(frame[hue]))
    width = 0.8 / len(hues)
    colours = sns.color_palette(PALETTE, len(hues))
    for h, (name, colour) in enumerate(zip(hues, colours)):
        part = frame[frame[hue] == name].set_index(group).reindex(groups)
        positions = np.arange(len(groups)) - 0.4 + width * (h + 0.5)
        whiskers = [(part[value] - part[value + LOW]).to_numpy(), (part[value + HIGH] - part[value]).to_numpy()]
        draw = ax.barh if horizontal else ax.bar
        draw(positions, part[value].to_numpy(), width, label=name, color=colour,
             **{"xerr" if horizontal else "yerr": whiskers}, error_kw={"elinewidth": 0.8, "capsize": 1.5})
    ticks = ax.set_yticks if horizontal else ax.set_xticks
    ticks(np.arange(len(groups)), groups)
    if horizontal:
        ax.invert_yaxis()
    if legend:
        ax.legend()


def roc_curves(ax, curves, title: str | None = None) -> None:
    """ROC curves on ``ax``: ``curves`` maps a name to ``(scores, positive)`` (a score per item and whether the
    item is a positive), its points joined by straight lines, so that the area under each is its AUC (ties count
    half); each curve's legend gives that area.  The diagonal is a score that knows
    nothing (AUC 0.5).  A curve whose items are all of one class has no ROC and is left out of the legend's AUCs
    with the word "one class"."""
    from sklearn.metrics import roc_auc_score, roc_curve

    ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8, linestyle="--")
    for name, (scores, positive) in curves.items():
        positive = np.asarray(positive, dtype=bool)
        if positive.all() or not positive.any():
            ax.plot([], [], label=f"{name} (one class)")
            continue
        fpr, tpr, _ = roc_curve(positive, np.asarray(scores, dtype=float))
        ax.plot(fpr, tpr, label=f"{name} (AUC {roc_auc_score(positive, scores):.2f})")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    if title:
        ax.set_title(title)
    ax.legend(loc="lower right")
