"""Rows of runs trained with several seeds: means over seeds, per-seed values and spreads, intervals over both."""
import pytest

from proofbook.admiral.retrieval import retrieval_experiments as rx
from proofbook.admiral.retrieval.tasks import RetrievalClaim
from proofbook.core import intervals

pytestmark = pytest.mark.unit

CLAIMS = [RetrievalClaim(f"c{i}", f"claim {i}", (f"G{i}",), (), 2, "SUPPORTED") for i in range(6)]


def _run(admiral_hits: int, initial_hits: int) -> rx.TaskRun:
    """A run whose ``admiral`` finds the gold page of the first ``admiral_hits`` claims, ``initial`` of the first
    ``initial_hits``, and BM25 of every claim (an untrained system: the same under every seed)."""
    def ranking(hits):
        return {c.id: [c.gold_titles[0] if i < hits else "other"] for i, c in enumerate(CLAIMS)}
    rankings = {"admiral": ranking(admiral_hits), "initial": ranking(initial_hits), "bm25": ranking(len(CLAIMS))}
    return rx.TaskRun("hover", CLAIMS, rankings, [], [], [], [], {})


def _rows(rows, system, metric):
    return {r["metric"]: r["value"] for r in rows if r["system"] == system and r["metric"].startswith(metric)}


def test_one_seed_gives_the_rows_of_one_run():
    run = _run(4, 2)
    assert rx.seeded_metric_rows({0: run}) == rx.metric_rows(run)


def test_several_seeds_give_means_per_seed_values_and_spreads():
    rows = rx.seeded_metric_rows({0: _run(4, 2), 1: _run(6, 2), 2: _run(2, 3)}, seed=0)
    gain = _rows(rows, "admiral-vs-initial", "recall@5")
    # per seed: (4-2)/6, (6-2)/6, (2-3)/6; the value is their mean
    assert [gain[f"recall@5:seed{s}"] for s in (0, 1, 2)] == pytest.approx([2 / 6, 4 / 6, -1 / 6])
    assert gain["recall@5"] == pytest.approx(5 / 18)
    assert gain["recall@5:seeds"] == 3
    assert gain["recall@5:seed_spread"] == pytest.approx(5 / 6)
    assert gain["recall@5" + intervals.LOW] <= gain["recall@5"] <= gain["recall@5" + intervals.HIGH]
    admiral = _rows(rows, "admiral", "recall@5")
    assert admiral["recall@5"] == pytest.approx(12 / 18) and admiral["recall@5:seed_spread"] == pytest.approx(4 / 6)
    bm25 = _rows(rows, "bm25", "recall@5")
    assert bm25["recall@5"] == 1.0 and bm25["recall@5:seed_spread"] == 0.0
    # only the claims' metrics get per-seed rows; every metric gets its value and interval
    assert not any(r["metric"].startswith("recall@2:seed") for r in rows)
    assert _rows(rows, "admiral", "recall@2").keys() == {"recall@2", "recall@2" + intervals.LOW, "recall@2" + intervals.HIGH}


def test_the_interval_over_seeds_is_wider_than_over_one_seeds_claims():
    one = _rows(rx.seeded_metric_rows({0: _run(4, 2)}), "admiral-vs-initial", "recall@5")
    three = _rows(rx.seeded_metric_rows({0: _run(4, 2), 1: _run(6, 2), 2: _run(2, 3)}), "admiral-vs-initial",
                  "recall@5")
    width = lambda r: r["recall@5" + intervals.HIGH] - r["recall@5" + intervals.LOW]  # noqa: E731
    assert width(three) > width(one)


def test_seeds_frame_has_a_column_per_seed_and_the_runs_must_share_their_claims():
    rows = rx.seeded_metric_rows({0: _run(4, 2), 1: _run(6, 2)})
    frame = rx.seeds_frame(rows, "hover")
    assert list(frame.columns) == ["seed 0", "seed 1", "mean", "spread"]
    assert frame.loc["admiral-vs-initial", "spread"] == pytest.approx(2 / 6)
    assert rx.seeds_frame(rx.seeded_metric_rows({0: _run(4, 2)}), "hover").empty
    other = _run(4, 2)
    other.claims = CLAIMS[:3]
    with pytest.raises(ValueError, match="training seed 1: its run is of other claims"):
        rx.seeded_metric_rows({0: _run(4, 2), 1: other})


def test_training_seeds_count_from_the_chapters_seed():
    assert rx.training_seeds(5, 3) == [5, 6, 7]
    with pytest.raises(ValueError, match="seeds must be at least 1"):
        rx.training_seeds(0, 0)
