"""Fine-grained retrieval: each step pinned on small hand-made documents."""
import pytest

from proofbook.wild.fine_grained import (Span, Window, expand, fine_grained_retrieval, make_windows, merge_spans,
                                         rank_documents, score_windows, select_windows)

pytestmark = pytest.mark.unit


def words(prefix, n):
    return " ".join(f"{prefix}{i}" for i in range(n))


def test_windows_k1_30_stride_15():
    assert [(w.start, w.end) for w in make_windows(40)] == [(0, 30), (15, 40)]
    assert [(w.start, w.end) for w in make_windows(60)] == [(0, 30), (15, 45), (30, 60)]
    assert [(w.start, w.end) for w in make_windows(61)] == [(0, 30), (15, 45), (30, 60), (45, 61)]
    assert [(w.start, w.end) for w in make_windows(27)] == [(0, 27)]   # a snippet: one window
    assert make_windows(0) == []
    assert [(w.start, w.end) for w in make_windows(10, k1=4, stride=2)] == [(0, 4), (2, 6), (4, 8), (6, 10)]
    with pytest.raises(ValueError):
        make_windows(5, k1=0)


def test_bm25_per_question_keeps_top_windows_with_positive_score():
    docs = [["apple", "pie", "recipe"], ["tax", "cut", "jobs"], ["apple", "tax"], ["zebra"], ["lion"], ["fox"]]
    windows = [Window(d, 0, len(t)) for d, t in enumerate(docs)]
    found = score_windows(docs, windows, ["apple pie", "tax jobs", "nothing here"], per_question=2)
    assert [w.doc for w in found[0]] == [0, 2]
    assert [w.doc for w in found[1]] == [1, 2]
    assert found[2] == []
    assert all(w.score > 0 for ws in found for w in ws) and found[0][0].question == 0


def test_union_keeps_best_score_and_top_k1():
    a = [Window(0, 0, 30, 2.0, 0), Window(1, 0, 30, 1.0, 0)]
    b = [Window(1, 0, 30, 3.0, 1), Window(2, 15, 45, 0.5, 1)]
    kept = select_windows([a, b], top=2)
    assert [(w.doc, w.score, w.question) for w in kept] == [(1, 3.0, 1), (0, 2.0, 0)]


def test_expand_clips_to_document():
    spans = expand([Window(0, 10, 40, 1.0), Window(1, 200, 230, 2.0)], lengths=[50, 1000], k2=150)
    assert spans == [Span(0, 0, 50, 1.0), Span(1, 50, 380, 2.0)]


def test_merge_overlapping_and_touching_spans_per_document():
    spans = [Span(0, 100, 200, 1.0), Span(0, 0, 120, 3.0), Span(0, 200, 250, 0.5), Span(0, 300, 400, 2.0),
             Span(1, 0, 100, 4.0)]
    assert merge_spans(spans) == [Span(0, 0, 250, 3.0), Span(0, 300, 400, 2.0), Span(1, 0, 100, 4.0)]


def test_documents_ranked_by_best_window_top_k2():
    spans = [Span(0, 0, 10, 1.0), Span(0, 20, 30, 5.0), Span(1, 0, 10, 2.0), Span(2, 0, 10, 5.0)]
    assert rank_documents(spans, top=2) == [0, 2]


def test_whole_pipeline_on_long_documents():
    # document 0: 400 filler tokens with "senator voted budget" at 200; document 1: short, on topic
    filler = words("w", 400).split()
    filler[200:203] = ["senator", "voted", "budget"]
    doc0 = " ".join(filler)
    doc1 = "the senator voted against the budget in 2019"
    doc2 = words("x", 100)
    result = fine_grained_retrieval([doc0, doc1, doc2], ["Did the senator vote on the budget?"], top_documents=2)
    # windows covering token 200 in doc 0: starts 180 and 195 (k1 30, stride 15)
    hits0 = sorted((w.start, w.end) for w in result.kept if w.doc == 0)
    assert hits0 == [(180, 210), (195, 225)]
    assert {w.doc for w in result.kept} == {0, 1}
    # expansion by 150 each side then merging: one span 30..375 in doc 0
    assert [s for s in result.merged if s.doc == 0] == [Span(0, 30, 375, max(w.score for w in result.kept if w.doc == 0))]
    assert set(result.documents) == {0, 1}
    assert "senator voted budget" in result.document_evidence(0)
    assert result.document_evidence(1) == doc1
    assert 2 not in result.evidence


def test_no_overlap_with_questions_gives_nothing():
    result = fine_grained_retrieval(["alpha beta", "gamma"], ["delta?"])
    assert result.kept == [] and result.documents == []
    assert fine_grained_retrieval([], ["q"]).documents == []
