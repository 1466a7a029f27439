"""The ROC curves draw sklearn's curve for the given scores, with the AUC the chapters quote in the legend."""
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from proofbook.admiral.prover.calibration import roc_auc  # noqa: E402
from proofbook.render.figures import roc_curves  # noqa: E402

pytestmark = pytest.mark.unit


def test_each_curve_ends_at_the_corners_and_its_legend_gives_the_auc():
    rng = np.random.default_rng(0)
    positive = rng.random(50) < 0.5
    scores = positive * 0.3 + rng.random(50)
    fig, ax = plt.subplots()
    roc_curves(ax, {"noisy": (scores, positive), "perfect": (positive.astype(float), positive)}, title="t")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [f"noisy (AUC {roc_auc(scores, positive):.2f})", "perfect (AUC 1.00)"]
    noisy = ax.lines[1]
    assert (noisy.get_xdata()[0], noisy.get_ydata()[0]) == (0, 0)
    assert (noisy.get_xdata()[-1], noisy.get_ydata()[-1]) == (1, 1)
    assert ax.get_title() == "t"
    plt.close(fig)


def test_a_curve_over_one_class_is_named_not_drawn():
    fig, ax = plt.subplots()
    roc_curves(ax, {"all complete": ([0.2, 0.9], [True, True])})
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["all complete (one class)"]
    assert len(ax.lines) == 2 and len(ax.lines[1].get_xdata()) == 0
    plt.close(fig)


def test_the_area_under_the_drawn_curve_is_the_auc():
    rng = np.random.default_rng(1)
    positive = rng.random(40) < 0.4
    scores = np.round(positive * 0.2 + rng.random(40), 1)        # ties, as a coarse score has
    fig, ax = plt.subplots()
    roc_curves(ax, {"coarse": (scores, positive)})
    x, y = ax.lines[1].get_xdata(), ax.lines[1].get_ydata()
    assert np.trapezoid(y, x) == pytest.approx(roc_auc(scores, positive))
    plt.close(fig)
