"""Bootstrap intervals (proofbook.core.intervals): deterministic, sensible widths, paired differences, row names."""
import numpy as np
import pytest

from proofbook.core import intervals

pytestmark = pytest.mark.unit


def test_the_interval_is_the_same_for_a_seed_and_sensible():
    rng = np.random.default_rng(7)
    values = rng.integers(0, 2, size=200)
    first = intervals.mean_interval(values, seed=3)
    assert first == intervals.mean_interval(values, seed=3) != intervals.mean_interval(values, seed=4)
    low, high = first
    assert low < values.mean() < high
    assert 0.10 < high - low < 0.18          # about 2 x 1.96 x sqrt(.25 / 200) = .139
    assert intervals.mean_interval([1, 1, 1]) == (1.0, 1.0)


def test_a_statistic_interval_uses_the_same_resamples():
    values = np.arange(50) % 3 == 0
    assert intervals.interval(lambda idx: values[idx].mean(), len(values), seed=1) == \
        pytest.approx(intervals.mean_interval(values, seed=1))


def test_a_paired_difference_is_tighter_than_the_two_intervals():
    rng = np.random.default_rng(0)
    b = rng.integers(0, 2, size=120)
    a = b.copy()
    a[:6] = 1                                  # system A fixes a few of B's misses, on the same examples
    value, low, high = intervals.paired_difference(a, b)
    assert value == pytest.approx(a.mean() - b.mean()) and 0 <= low <= value <= high
    a_low, a_high = intervals.mean_interval(a)
    assert high - low < (a_high - a_low) / 2
    assert intervals.paired_difference(b, b) == (0.0, 0.0, 0.0)
    with pytest.raises(ValueError, match="same examples"):
        intervals.paired_difference(a, b[:-1])


def test_rows_follow_the_naming_rule():
    base = {"dataset": "hover", "split": "dev", "system": "admiral"}
    rows = intervals.mean_rows(base, "recall@5", [1, 0, 1, 1])
    assert [r["metric"] for r in rows] == ["recall@5", "recall@5:ci95_low", "recall@5:ci95_high"]
    assert rows[0]["value"] == 0.75 and all(r["n"] == 4 for r in rows)
    diff = intervals.difference_rows(base, "admiral", "initial", "recall@5", [1, 1, 0], [1, 0, 0])
    assert {r["system"] for r in diff} == {"admiral-vs-initial"} and diff[0]["value"] == pytest.approx(1 / 3)
    assert intervals.is_interval("recall@5:ci95_high") and not intervals.is_interval("recall@5")
    with pytest.raises(ValueError):
        intervals.resamples(0)


def test_an_interval_table_shows_value_and_interval_per_cell():
    rows = [{"dataset": "hover", "system": "bm25", "metric": "recall@5", "value": 0.5},
            {"dataset": "hover", "system": "bm25", "metric": "recall@5:ci95_low", "value": 0.25},
            {"dataset": "hover", "system": "bm25", "metric": "recall@5:ci95_high", "value": 0.75},
            {"dataset": "hover", "system": "bm25", "metric": "em", "value": 0.1}]
    table = intervals.interval_table(rows, ["recall@5", "em"])
    assert table.loc[("hover", "bm25"), "recall@5"] == "0.500 [0.250, 0.750]"
    assert table.loc[("hover", "bm25"), "em"] == "0.100"
    assert intervals.interval_table(rows, ["recall@5"], index=("system",)).loc["bm25", "recall@5"] == "0.500 [0.250, 0.750]"


def test_a_seeded_difference_covers_the_spread_between_trainings():
    rng = np.random.default_rng(3)
    b = rng.integers(0, 2, size=(3, 200)).astype(float)
    same = b + (rng.random((3, 200)) < 0.1)            # A a little better than B with every training seed
    value, low, high = intervals.seeded_paired_difference(same, b)
    assert value == pytest.approx((same - b).mean()) and low <= value <= high
    shifted = same.copy()
    shifted[0] -= 0.3                                   # one training of A far worse: the interval widens
    _, low2, high2 = intervals.seeded_paired_difference(shifted, b)
    assert high2 - low2 > high - low
    assert intervals.seeded_paired_difference(same[:1], b[:1]) == intervals.paired_difference(same[0], b[0])
    assert intervals.seed_spread([0.4, 0.45, 0.41]) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="one shape"):
        intervals.seeded_paired_difference(same, b[:2])
