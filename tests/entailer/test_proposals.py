"""Premise sources: the fact pool, nucleus draws over a pool, and the proposing behaviour model."""
import numpy as np
import pytest

from proofbook.entailer.behaviours import FactRetriever
from proofbook.entailer.proposals import FactPool, PoolSettings, ProposingEntailer, nucleus_draw
from proofbook.entailer.search import SearchConfig, answer_question

pytestmark = pytest.mark.unit

FACTS = ["a magnet attracts iron", "a nail is made of iron", "plants need sunlight to make food",
         "the sun is a kind of star", "iron is a kind of metal"]


class FakeBase:
    """Truth: every fact true, anything else 0.3; entailment: the share of the hypothesis' words covered."""

    def __init__(self, generated=None):
        self.generated = generated or []
        self.entailment_calls = 0

    def generate_premises(self, hypotheses, k, sample, temperature=2.0, top_p=0.95, seed=0):
        return [[list(s) for s in self.generated][:k] for _ in hypotheses]

    def truth_scores(self, statements):
        return [0.95 if s in FACTS else 0.3 for s in statements]

    def entailment_scores(self, proofs):
        self.entailment_calls += len(proofs)
        out = []
        for premises, h in proofs:
            words, covered = set(h.split()), set(" ".join(premises).split())
            out.append(len(words & covered) / len(words))
        return out


class FakeEmbedder:
    """Bag-of-words unit vectors over a fixed vocabulary (enough to rank facts by overlap)."""

    def __init__(self, texts):
        self.vocab = sorted({w for t in texts for w in t.split()})

    def encode(self, texts, progress=False):
        rows = np.array([[float(w in t.split()) for w in self.vocab] for t in texts]) + 1e-6
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def pool(dense=2, bm25=2, pairs_from=3):
    embedder = FakeEmbedder(FACTS + ["a magnet attracts a nail"])
    retriever = FactRetriever(FACTS)
    return FactPool(retriever, embedder, embedder.encode(retriever.facts), PoolSettings(bm25, dense, pairs_from))


def test_pool_merges_bm25_and_dense_facts_and_forms_singles_and_pairs():
    [facts] = pool().facts_for(["a magnet attracts a nail"])
    assert facts[0] == "a magnet attracts iron" and len(facts) == len(set(facts)) <= 4
    [sets] = pool().sets(["a magnet attracts a nail"])
    singles = [s for s in sets if len(s) == 1]
    pairs = [s for s in sets if len(s) == 2]
    assert [s[0] for s in singles] == facts and len(pairs) == len(facts[:3]) * (len(facts[:3]) - 1) // 2


def test_pool_settings_and_vectors_are_checked():
    with pytest.raises(ValueError, match="not both 0"):
        PoolSettings(bm25=0, dense=0)
    with pytest.raises(ValueError, match="needs an embedder"):
        FactPool(FactRetriever(FACTS), None, None, PoolSettings(dense=2))
    with pytest.raises(ValueError, match="2 vectors for 5 facts"):
        FactPool(FactRetriever(FACTS), FakeEmbedder(FACTS), np.zeros((2, 3)), PoolSettings(dense=2))
    with pytest.raises(ValueError, match="no facts"):
        FactRetriever(["", "  "])


def test_nucleus_draw_keeps_to_the_nucleus_and_is_deterministic_for_a_seed():
    scores = [0.9, 0.8, 0.01, 0.001]
    draws = nucleus_draw(scores, 50, 1.0, 0.9, np.random.default_rng(0))
    assert set(draws) <= {0, 1} and draws == nucleus_draw(scores, 50, 1.0, 0.9, np.random.default_rng(0))
    assert set(nucleus_draw(scores, 200, 2.0, 1.0, np.random.default_rng(1))) == {0, 1, 2, 3}   # top-p 1: all
    assert nucleus_draw(scores, 3, 1.0, 0.01, np.random.default_rng(0)) == [0, 0, 0]            # tiny nucleus
    with pytest.raises(ValueError):
        nucleus_draw(scores, 0, 1.0, 0.9, np.random.default_rng(0))
    with pytest.raises(ValueError):
        nucleus_draw(scores, 1, 0.0, 0.9, np.random.default_rng(0))


def test_retrieved_source_ranks_the_pool_by_entailment_and_greedy_takes_the_best():
    model = ProposingEntailer(FakeBase(), pool(), "retrieved")
    [[best]] = model.generate_premises(["a magnet attracts a nail"], 1, False)
    assert set(best) == {"a magnet attracts iron", "a nail is made of iron"}
    [sampled] = model.generate_premises(["a magnet attracts a nail"], 6, True, 2.0, 0.95, seed=3)
    assert len(sampled) == 6 and sampled == model.generate_premises(["a magnet attracts a nail"], 6, True, 2.0, 0.95,
                                                                    seed=3)[0]


def test_mixed_source_adds_the_generated_sets_to_the_pool_and_scores_each_set_once():
    base = FakeBase(generated=[["a magnet pulls a nail toward it"]])
    model = ProposingEntailer(base, pool(), "mixed")
    [[best]] = model.generate_premises(["a magnet pulls a nail"], 1, False)
    assert best == ["a magnet pulls a nail toward it"]      # covers every word; the best retrieved pair 3 of 4
    calls = base.entailment_calls
    model.generate_premises(["a magnet pulls a nail"], 1, False)
    assert base.entailment_calls == calls                   # memoised
    assert ProposingEntailer(base, None, "generated").generate_premises(["x"], 1, False) == [
        [["a magnet pulls a nail toward it"]]]


def test_unknown_source_or_missing_pool_is_an_error():
    with pytest.raises(ValueError, match="unknown premise source 'web'"):
        ProposingEntailer(FakeBase(), pool(), "web")
    with pytest.raises(ValueError, match="needs a fact pool"):
        ProposingEntailer(FakeBase(), None, "retrieved")


def test_an_empty_pool_makes_the_option_a_leaf_scored_by_its_direct_score():
    model = ProposingEntailer(FakeBase(), pool(dense=0, bm25=2), "retrieved")
    answer = answer_question("q1", [("A", "a magnet attracts a nail"), ("B", "zzz qqq")],
                             ["a magnet attracts a nail", "zzz qqq"], model, SearchConfig.greedy())
    a, b = answer.options
    assert not a.fallback and a.tree.candidates and a.proof_score > 0
    assert b.fallback and b.proof_score == pytest.approx(0.3) and b.tree.note == "no well-formed candidate"
    assert answer.entailer.label == "A"
