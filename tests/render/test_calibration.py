"""Reliability bins and the calibration error, checked on scores whose calibration is known by construction."""
import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from proofbook.render import calibration as c  # noqa: E402

pytestmark = pytest.mark.unit


def test_bins_hold_each_items_mean_score_and_share_true():
    found = c.reliability_bins([0.05, 0.15, 0.12, 1.0, 0.95], [False, True, False, True, False])
    assert found == [(0.05, 0.0, 1), (pytest.approx(0.135), 0.5, 2), (pytest.approx(0.975), 0.5, 2)]


def test_a_calibrated_score_has_an_error_near_zero_and_an_overconfident_one_does_not():
    rng = np.random.default_rng(0)
    scores = rng.random(20000)
    calibrated = rng.random(20000) < scores
    assert c.calibration_error(scores, calibrated) < 0.02
    overconfident = rng.random(20000) < 0.5
    assert c.calibration_error(scores, overconfident) == pytest.approx(0.25, abs=0.02)


def test_top_label_takes_the_argmax_and_compares_it_with_gold():
    confidence, correct = c.top_label(np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6]]), [0, 1])
    assert confidence.tolist() == [0.7, 0.6] and correct.tolist() == [True, False]


@pytest.mark.parametrize("scores, outcomes, message", [([0.5], [True, False], "1 scores but 2 outcomes"),
                                                       ([1.5], [True], "must lie in")])
def test_bad_input_is_named(scores, outcomes, message):
    with pytest.raises(ValueError, match=message):
        c.reliability_bins(scores, outcomes)


def test_the_figure_draws_one_line_per_curve_with_its_ece_in_the_legend():
    fig, ax = plt.subplots()
    scores, outcomes = [0.1, 0.88, 0.82], [False, True, False]
    c.reliability_curves(ax, {"model": (scores, outcomes)}, title="t")
    [label] = [t.get_text() for t in ax.get_legend().get_texts()]
    assert label == f"model (ECE {c.calibration_error(scores, outcomes):.2f}, n=3)"
    assert list(ax.lines[1].get_xdata()) == [0.1, pytest.approx(0.85)]
    plt.close(fig)
