"""Veracity rows of runs trained with several seeds: means over seeds, per-seed values and spreads, intervals
over both."""
import numpy as np
import pytest

from proofbook.core import intervals
from proofbook.wild import wild_experiments as wx
from proofbook.wild.veracity_metrics import macro_f1

pytestmark = pytest.mark.unit

GOLD = [0, 1, 2, 3, 4, 5, 3, 2]
IDS = [f"claimdecomp:{i}" for i in range(len(GOLD))]


def _run(justification: list[int], matched: list[int]) -> wx.Run:
    """A run on eight ClaimDecomp test claims: two trained systems and the untrained constant."""
    predictions = {("claimdecomp", "test", name): {"ids": IDS, "gold": GOLD, "predicted": predicted}
                   for name, predicted in (("justification", justification), ("claim-only-matched", matched),
                                           ("always-half-true", [3] * len(GOLD)))}
    return wx.Run(predictions, {}, {"questions-cached": (0.5, 10)}, {}, {})


RUNS = {0: _run(GOLD, [3] * 8), 1: _run([0, 1, 2, 3, 4, 4, 3, 2], [2] * 8), 2: _run([1, 1, 2, 3, 4, 5, 3, 3], [3] * 8)}


def _rows(rows, system, metric):
    return {r["metric"]: r["value"] for r in rows if r["system"] == system and r["metric"].startswith(metric)}


def test_one_seed_gives_the_rows_of_one_run():
    assert wx.seeded_metric_rows({0: RUNS[0]}) == wx.metric_rows(RUNS[0])


def test_several_seeds_give_means_per_seed_values_and_spreads():
    rows = wx.seeded_metric_rows(RUNS, seed=0)
    per_seed_mae = [0.0, 1 / 8, 2 / 8]
    matched_mae = [np.mean(np.abs(np.array(GOLD) - p)) for p in (3, 2, 3)]
    gain = _rows(rows, "justification-vs-claim-only-matched", "mae")
    assert [gain[f"mae:seed{s}"] for s in (0, 1, 2)] == pytest.approx([a - b for a, b in zip(per_seed_mae, matched_mae)])
    assert gain["mae"] == pytest.approx(np.mean(per_seed_mae) - np.mean(matched_mae))
    assert gain["mae:seeds"] == 3
    assert gain["mae" + intervals.LOW] <= gain["mae"] <= gain["mae" + intervals.HIGH]
    justification = _rows(rows, "justification", "mae")
    assert justification["mae"] == pytest.approx(1 / 8) and justification["mae:seed_spread"] == pytest.approx(2 / 8)
    f1 = _rows(rows, "justification", "macro_f1")
    assert f1["macro_f1"] == pytest.approx(np.mean([macro_f1(GOLD, r.predictions["claimdecomp", "test", "justification"]
                                                             ["predicted"]) for r in RUNS.values()]))
    assert f1["macro_f1" + intervals.LOW] <= f1["macro_f1"] <= f1["macro_f1" + intervals.HIGH]
    constant = _rows(rows, "always-half-true", "mae")
    assert constant["mae:seed_spread"] == 0.0 and constant["mae" + intervals.LOW] <= constant["mae"]
    # only MAE and macro-F1 get per-seed rows; accuracy has its value and interval; every row says its n
    assert _rows(rows, "justification", "accuracy").keys() == {"accuracy", "accuracy" + intervals.LOW,
                                                               "accuracy" + intervals.HIGH}
    assert all(r["n"] == len(GOLD) for r in rows if r["metric"] != "question_recall")
    assert _rows(rows, "questions-cached", "question_recall") == {"question_recall": 0.5}


def test_the_interval_over_seeds_is_wider_than_over_one_seeds_claims():
    width = lambda r: r["mae" + intervals.HIGH] - r["mae" + intervals.LOW]  # noqa: E731
    one = _rows(wx.seeded_metric_rows({1: RUNS[1]}), "justification-vs-claim-only-matched", "mae")
    three = _rows(wx.seeded_metric_rows(RUNS), "justification-vs-claim-only-matched", "mae")
    assert width(three) > width(one)


def test_the_runs_must_share_their_claims_and_seeds_count_from_the_chapters_seed():
    other = _run(GOLD, [3] * 8)
    other.predictions["claimdecomp", "test", "justification"]["ids"] = IDS[::-1]
    with pytest.raises(ValueError, match="training seed 1: its claimdecomp/test/justification predictions are of "
                                         "other claims"):
        wx.seeded_metric_rows({0: RUNS[0], 1: other})
    assert wx.training_seeds(5, 3) == [5, 6, 7]
    with pytest.raises(ValueError, match="seeds must be at least 1"):
        wx.training_seeds(0, 0)


def test_with_seed_gives_the_seed_to_every_trained_part():
    settings = wx.WildSettings.smoke(0).with_seed(4)
    assert {settings.seed, settings.claim_only.seed, settings.evidence.seed, settings.generator.seed} == {4}
    assert wx.WildSettings.full(2) == wx.WildSettings().with_seed(2)


def test_seeds_frame_has_a_column_per_seed_then_the_mean_and_the_spread():
    from proofbook.wild.tables import seeds_frame

    frame = seeds_frame(wx.seeded_metric_rows(RUNS))
    assert list(frame.columns) == ["seed 0", "seed 1", "seed 2", "mean", "spread"]
    assert frame.loc["justification", "spread"] == pytest.approx(2 / 8)
    assert "justification-vs-claim-only-matched" in frame.index
    assert seeds_frame(wx.seeded_metric_rows({0: RUNS[0]})).empty
