"""The multi-hop loop on a hand-made corpus with stub components (the real models are tested elsewhere)."""
from dataclasses import dataclass

import pytest

from proofbook.core.corpus import Corpus
from proofbook.admiral.retrieval.multihop import Admiral, AdmiralConfig

pytestmark = pytest.mark.unit


def corpus():
    c = Corpus("toy")
    for title in "ABCDEFG":
        c.add(title, [f"{title} first.", f"{title} second."])
    return c


class Index:
    def search(self, claim, k=100):
        return [(t, 1.0 / (i + 1)) for i, t in enumerate("BCDEFG")][:k]


@dataclass
class Result:
    documents: list
    sentences: list


class Reranker:
    """Scores a page by its position in 'CBADEFG' (C best); context is recorded."""
    order = "CBADEFG"

    def __init__(self):
        self.contexts = []

    def rerank(self, claim, titles, corpus, top_sentences=5, max_documents=10, context=None):
        self.contexts.append(context)
        titles = sorted(titles[:max_documents], key=self.order.index)
        sentences = [((t, i), 1.0 - self.order.index(t) / 10 - i / 100) for t in titles for i in range(2)]
        return Result(titles, sorted(sentences, key=lambda p: -p[1])[:top_sentences])

    def rerank_many(self, claims, titles, corpus, top_sentences=5, max_documents=10, contexts=None):
        contexts = contexts or [None] * len(claims)
        return [self.rerank(c, t, corpus, top_sentences, max_documents, x) for c, t, x in zip(claims, titles, contexts)]


@dataclass
class Beam:
    pointers: tuple
    title: str
    score: float


class HopModel:
    def __init__(self, titles):
        self.titles, self.calls = titles, []

    def generate_batch(self, queries, beam=25, candidates=None):
        self.calls.append((queries, candidates))
        allowed = candidates or [self.titles] * len(queries)
        return [[Beam((0,), t, -i) for i, t in enumerate(self.titles) if t in ok] for ok in allowed]


def admiral(**config):
    return Admiral(corpus(), Index(), Reranker(), {0: HopModel(["A", "Z"]), 1: HopModel(["C", "F", "G", "E"])},
                   AdmiralConfig(**{"rerank_documents": 3, "top_sentences": 3, **config}))


def test_initial_retrieval_puts_genre_titles_first_and_reranks():
    trace = admiral(iterations=1).retrieve("a claim")
    assert trace.candidates[:3] == ["A", "B", "C"]      # GENRE's A (Z is not a corpus title), then BM25
    assert trace.reranked_documents == ["C", "B", "A"]  # reordered by their best sentence
    assert [s.id for s, _ in trace.selected] == [("C", 0), ("C", 1), ("B", 0)]
    assert trace.iterations == 1 and trace.ranking() == trace.initial_ranking() == list("CBADEFG")


def test_a_hop_adds_new_documents_after_the_selected_ones():
    model = admiral(iterations=2)
    trace = model.retrieve("a claim")
    hop = trace.hops[0]
    assert hop.new_documents == ["F", "G", "E"]         # C was retrieved already; D is not generated
    assert trace.ranking() == ["C", "B", "F", "G", "E", "A", "D"]
    assert trace.ranking(top1=True) == ["C", "B", "F", "A", "D", "E", "G"]
    assert model.reranker.contexts[-1] == "C first."   # the beam's pointer 0 = the best input sentence
    assert len(hop.input_sentences) == 3


def test_sufficiency_stops_after_iteration_one():
    model = admiral(iterations=3)
    model.sufficiency = lambda claim, sentences: True
    trace = model.retrieve("a claim")
    assert trace.stopped_by_sufficiency and trace.iterations == 1
    assert model.hop_models[1].calls == []


def test_reusing_the_initial_retrieval_runs_only_the_hops():
    model = admiral(iterations=2)
    first = model.retrieve_many(["one", "two"], progress=False)
    calls = len(model.hop_models[0].calls)
    again = model.retrieve_many(["one", "two"], progress=False, initial=first)
    assert len(model.hop_models[0].calls) == calls       # no new GENRE step
    assert [t.ranking() for t in again] == [t.ranking() for t in first]
    with pytest.raises(ValueError, match="other claims"):
        model.retrieve_many(["three"], initial=first)


def test_extending_a_shorter_run_gives_the_longer_run_and_runs_only_the_missing_iterations():
    longer = admiral(iterations=3).retrieve_many(["one", "two"], progress=False)
    shorter = admiral(iterations=2).retrieve_many(["one", "two"], progress=False)
    model = admiral(iterations=3)
    extended = model.extend(shorter, progress=False)
    assert model.hop_models[0].calls == [] and len(model.hop_models[1].calls) == 1   # iteration 3 only
    assert [t.iterations for t in extended] == [3, 3] and [t.iterations for t in shorter] == [2, 2]  # copies
    for a, b in zip(extended, longer):
        assert a.ranking() == b.ranking()
        assert [h.new_documents for h in a.hops] == [h.new_documents for h in b.hops]
        assert [s.id for s, _ in a.selected] == [s.id for s, _ in b.selected]
    assert [t.ranking() for t in model.extend(longer, progress=False)] == [t.ranking() for t in longer]  # nothing to run


def test_bad_input_is_refused_before_any_work():
    model = admiral()
    with pytest.raises(ValueError, match="claim 1: empty claim"):
        model.retrieve_many(["fine", "  "])
    with pytest.raises(ValueError, match="iterations must be >= 1"):
        Admiral(corpus(), Index(), Reranker(), {}, AdmiralConfig(iterations=0))
    with pytest.raises(ValueError, match="needs a hop model"):
        Admiral(corpus(), Index(), Reranker(), {0: HopModel([])}, AdmiralConfig(iterations=2))


def test_linked_titles_narrow_each_hop_to_mentioned_and_searched_pages():
    c = Corpus("linked")
    c.add("Alpha", ["Alpha first mentions Golf.", "Alpha second."])
    for title in ("Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf"):
        c.add(title, [f"{title} first.", f"{title} second."])

    class LinkedIndex:
        def search(self, query, k=100):
            titles = ("Alpha", "Bravo", "Delta") if query == "a claim about Alpha" else ("Bravo", "Delta", "Echo")
            return [(t, 1.0) for t in titles][:k]

    class LinkedReranker(Reranker):
        order = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf"]

    hop = HopModel(["Foxtrot", "Golf", "Echo", "Charlie"])
    model = Admiral(c, LinkedIndex(), LinkedReranker(), {1: hop},
                    AdmiralConfig(iterations=2, rerank_documents=2, top_sentences=2, hop_titles="linked", linked_bm25_k=3))
    trace = model.retrieve("a claim about Alpha")
    assert [s.id for s in trace.hops[0].input_sentences] == [("Alpha", 0), ("Alpha", 1)]
    (queries, candidates), = hop.calls
    assert candidates == [["Golf", "Bravo", "Delta", "Echo"]]   # mentioned first, then BM25 pages
    assert trace.hops[0].new_documents == ["Golf", "Echo"]      # Foxtrot and Charlie are outside the set
    with pytest.raises(ValueError, match="hop_titles"):
        Admiral(c, LinkedIndex(), LinkedReranker(), {1: hop}, AdmiralConfig(hop_titles="nearby"))
