"""Retrieval metrics (proofbook.admiral.retrieval.metrics): each definition of results.md pinned on hand-made
rankings -- duplicates in the ranking, fewer than k documents, more gold documents than k."""
import pytest

from proofbook.index.bm25 import DocumentIndex
from proofbook.admiral.retrieval.metrics import dedupe, exact_match, f1_at_k, recall_at_k, retrieval_metrics
from proofbook.admiral.retrieval.tasks import RetrievalClaim, load_task


def claim(cid, gold, hops=None):
    return RetrievalClaim(cid, f"claim {cid}", tuple(gold), (), hops or len(gold), "SUPPORTED")


@pytest.mark.unit
def test_dedupe_keeps_first_occurrences_in_order():
    assert dedupe(["B", "A", "B", "C", "A"]) == ["B", "A", "C"]
    assert dedupe([]) == []


@pytest.mark.unit
def test_recall_at_k_needs_every_gold_title_in_the_top_k():
    ranked = ["A", "B", "C", "D"]
    assert recall_at_k(ranked, ["A", "C"], 3)
    assert not recall_at_k(ranked, ["A", "C"], 2)          # C is third
    assert not recall_at_k(ranked, ["A", "E"], 4)          # E never retrieved
    assert recall_at_k(ranked, ["C", "A", "A"], 3)         # gold is a set


@pytest.mark.unit
def test_recall_counts_distinct_documents():
    # duplicates do not use up the k slots: the top 2 distinct documents are A, B
    assert recall_at_k(["A", "A", "A", "B"], ["A", "B"], 2)


@pytest.mark.unit
def test_recall_with_fewer_documents_than_k_and_more_gold_than_k():
    assert recall_at_k(["A", "B"], ["A", "B"], 10)         # fewer than k documents: nothing missing
    assert not recall_at_k([], ["A"], 5)
    assert not recall_at_k(["A", "B", "C"], ["A", "B", "C"], 2)   # |G| > k can never be recalled


@pytest.mark.unit
def test_f1_at_k_between_the_top_k_set_and_the_gold_set():
    # top 5 = {A, B, C, D, E}, gold {A, C, X}: P = 2/5, R = 2/3, F1 = 2PR/(P+R) = 1/2
    assert f1_at_k(["A", "B", "C", "D", "E", "X"], ["A", "C", "X"], 5) == pytest.approx(0.5)
    assert f1_at_k(["A", "B"], ["A", "B"], 5) == 1.0       # precision over the 2 documents present
    assert f1_at_k(["A", "A", "B"], ["A"], 5) == pytest.approx(2 * 0.5 * 1 / 1.5)   # top set {A, B}
    assert f1_at_k(["B", "C"], ["A"], 5) == 0.0
    assert f1_at_k([], ["A"], 5) == 0.0
    # |G| > k: recall is capped at k / |G|
    assert f1_at_k(["A", "B"], ["A", "B", "C", "D"], 2) == pytest.approx(2 * 1 * 0.5 / 1.5)


@pytest.mark.unit
def test_exact_match_compares_the_top_g_set_with_g():
    assert exact_match(["B", "A", "C"], ["A", "B"])        # order inside the top |G| does not matter
    assert not exact_match(["A", "C", "B"], ["A", "B"])
    assert exact_match(["A", "A", "B"], ["A", "B"])        # duplicates collapse first
    assert not exact_match(["A"], ["A", "B"])              # fewer documents than |G|
    assert exact_match(["A", "B", "C"], ["A", "B", "B"])   # |G| counts distinct titles


@pytest.mark.unit
@pytest.mark.parametrize("call", [
    lambda: recall_at_k(["A"], [], 5),
    lambda: recall_at_k(["A"], "A", 5),
    lambda: recall_at_k(["A"], ["A"], 0),
    lambda: f1_at_k(["A"], ["A"], -1),
    lambda: exact_match(["A"], []),
])
def test_bad_metric_input_is_a_clear_error(call):
    with pytest.raises(ValueError):
        call()


CLAIMS = [claim("c1", ["A", "B"]), claim("c2", ["C", "D", "E"]), claim("c3", ["F", "G", "H", "I"]),
          claim("c4", ["J", "K"])]
RANKINGS = {
    "c1": ["B", "A", "Z"],                          # everything in the top 2
    "c2": ["C", "Z", "D", "Y", "E", "W"],            # all three only by the top 5
    "c3": ["F", "G", "H", "Z", "Y", "X", "I"],       # fourth gold at rank 7
    "c4": ["Z", "Z", "J"],                           # one gold document, after a duplicate
    "other": ["A"],                                  # not a claim: ignored
}


@pytest.mark.unit
def test_retrieval_metrics_rows():
    rows = {r["metric"]: r for r in retrieval_metrics(RANKINGS, CLAIMS)}
    assert list(rows) == ["recall@2", "recall@5", "recall@10", "f1@5", "em",
                          "recall@5/2hop", "recall@5/3hop", "recall@5/4hop"]
    assert rows["recall@2"] == {"metric": "recall@2", "value": 0.25, "n": 4}
    assert rows["recall@5"]["value"] == 0.5
    assert rows["recall@10"]["value"] == 0.75
    # per claim, 2PR / (P + R): c1 {B, A, Z}, c2 3 of 5, c3 3 of 5 and 3 of 4, c4 top set {Z, J}
    f1 = [2 * (2 / 3) * 1 / (5 / 3), 2 * 0.6 * 1 / 1.6, 2 * 0.6 * 0.75 / 1.35, 2 * 0.5 * 0.5 / 1.0]
    assert rows["f1@5"]["value"] == pytest.approx(sum(f1) / 4)
    assert rows["em"]["value"] == 0.25
    assert rows["recall@5/2hop"] == {"metric": "recall@5/2hop", "value": 0.5, "n": 2}
    assert rows["recall@5/3hop"] == {"metric": "recall@5/3hop", "value": 1.0, "n": 1}
    assert rows["recall@5/4hop"] == {"metric": "recall@5/4hop", "value": 0.0, "n": 1}
    assert all(0 <= r["value"] <= 1 and isinstance(r["value"], float) for r in rows.values())


@pytest.mark.unit
def test_retrieval_metrics_options_and_omitted_hops():
    rows = retrieval_metrics(RANKINGS, CLAIMS[:2], ks=(5,), by_hops=True)
    assert [r["metric"] for r in rows] == ["recall@5", "f1@5", "em", "recall@5/2hop", "recall@5/3hop"]
    rows = retrieval_metrics(RANKINGS, CLAIMS, by_hops=False)
    assert [r["metric"] for r in rows] == ["recall@2", "recall@5", "recall@10", "f1@5", "em"]


@pytest.mark.unit
def test_retrieval_metrics_bad_input():
    with pytest.raises(ValueError, match="no claims"):
        retrieval_metrics(RANKINGS, [])
    with pytest.raises(ValueError, match="no ranking"):
        retrieval_metrics({"c1": ["A"]}, CLAIMS)
    with pytest.raises(ValueError, match="no gold titles"):
        retrieval_metrics({"x": ["A"]}, [claim("x", [], hops=2)])
    assert retrieval_metrics({"c1": []}, CLAIMS[:1])[0]["value"] == 0.0   # an empty ranking is a miss


@pytest.mark.data
def test_metrics_on_real_hover_rankings(real_data_dir):
    task = load_task("hover", real_data_dir)
    claims = task.evaluation
    oracle = {c.id: list(c.gold_titles) + ["Padding"] for c in claims}
    rows = {r["metric"]: r for r in retrieval_metrics(oracle, claims)}
    assert rows["recall@5"]["value"] == rows["em"]["value"] == 1.0
    at_most_two = sum(len(set(c.gold_titles)) <= 2 for c in claims) / len(claims)
    assert rows["recall@2"]["value"] == pytest.approx(at_most_two)
    assert sum(rows[f"recall@5/{h}hop"]["n"] for h in (2, 3, 4)) == rows["em"]["n"] == len(claims)
    # BM25 alone: recall falls with the number of hops (measured 0.89 / 0.45 / 0.16 on 523 claims)
    index = DocumentIndex(task.corpus)
    bm25 = {c.id: [t for t, _ in index.search(c.claim, k=100)] for c in claims}
    rows = {r["metric"]: r["value"] for r in retrieval_metrics(bm25, claims)}
    assert rows["recall@2"] <= rows["recall@5"] <= rows["recall@10"]
    assert rows["recall@5/2hop"] > rows["recall@5/3hop"] > rows["recall@5/4hop"]
