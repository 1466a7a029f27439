"""The sentence reranker: query format, training pairs, reranking rule, training and save/load."""
from collections import Counter

import numpy as np
import pytest

from proofbook.core.corpus import Corpus
from proofbook.core.training import TrainConfig
from proofbook.admiral.retrieval.reranker import (CONTEXT_SEPARATOR, LABELS, RerankResult, SentenceReranker,
                                                  reranker_examples, reranker_query, sentence_passage, train_reranker)
from proofbook.admiral.retrieval.tasks import RetrievalClaim

PAGES = {
    "Eiffel Tower": ["The Eiffel Tower is a lattice tower in Paris.", "It opened in 1889.",
                     "It is painted brown.", "Millions visit it every year."],
    "Gustave Eiffel": ["Gustave Eiffel was a French engineer.", "He was born in Dijon.", "He died in 1923."],
    "Dijon": ["Dijon is a city in eastern France.", "It is known for mustard."],
    "Louvre": ["The Louvre is a museum in Paris.", "It holds the Mona Lisa."],
    "Volcano": ["A volcano is a rupture in a planet's crust."],
    "Mustard": ["Mustard is a condiment made from seeds."],
    "Only gold": ["This page holds a single gold sentence."],
    "Blank": [],
}


def _corpus() -> Corpus:
    corpus = Corpus("toy")
    for title, sentences in PAGES.items():
        corpus.add(title, sentences)
    return corpus


CLAIM = RetrievalClaim("c1", "The Eiffel Tower was designed by an engineer born in Dijon.",
                       ("Eiffel Tower", "Gustave Eiffel"), (("Eiffel Tower", 0), ("Gustave Eiffel", 1)), 2, "SUPPORTED")
ONE_PAGE = RetrievalClaim("c2", "A single gold sentence page exists.", ("Only gold",), (("Only gold", 0),), 1,
                          "supports")


def _bm25_stub(claim):
    return ["Louvre", "Eiffel Tower", "Dijon", "Volcano", "Mustard", "not a page"]


class OverlapEncoder:
    """A stand-in cross-encoder: P(yes) grows with word overlap between query and passage; records pairs."""

    labels = list(LABELS)

    def __init__(self):
        self.calls = []

    def predict_proba(self, pairs, batch_size=64):
        self.calls.append(list(pairs))
        scores = []
        for query, passage in pairs:
            q, p = set(query.lower().replace(".", "").split()), set(passage.lower().replace(".", "").split())
            scores.append(len(q & p) / (len(p) + 1))
        yes = np.array(scores, dtype=np.float32)
        return np.stack([1 - yes, yes], axis=1)


# ---------------------------------------------------------------- formats


@pytest.mark.unit
def test_query_and_passage_formats():
    corpus = _corpus()
    assert reranker_query("A claim.") == "A claim."
    assert reranker_query("A claim.", "a previous sentence") == "A claim. </s> a previous sentence"
    assert reranker_query("A claim.", ("Dijon", 1), corpus) == "A claim." + CONTEXT_SEPARATOR + \
        "Dijon . It is known for mustard."
    assert sentence_passage(corpus.sentence(("Louvre", 1))) == "Louvre . It holds the Mona Lisa."
    with pytest.raises(ValueError, match="empty claim"):
        reranker_query("   ")
    with pytest.raises(ValueError, match="not in corpus"):
        reranker_query("A claim.", ("Nowhere", 0), corpus)


# ---------------------------------------------------------------- training pairs


@pytest.mark.unit
def test_examples_positives_and_hard_negatives():
    corpus = _corpus()
    examples = reranker_examples([CLAIM], corpus, negatives_per_claim=4, seed=3, hard_negative_fn=_bm25_stub)
    plain = [e for e in examples if not e.kind.startswith("context")]
    kinds = Counter(e.kind for e in plain)
    assert kinds == {"gold": 2, "same-page": 1, "other-page": 3}
    assert {e.sentence_id for e in plain if e.label == "yes"} == set(CLAIM.gold_sentences)
    for e in plain:
        assert e.query == CLAIM.claim and e.passage == sentence_passage(corpus.sentence(e.sentence_id))
        if e.label == "no":
            assert e.sentence_id not in CLAIM.gold_sentences
        if e.kind == "same-page":
            assert e.sentence_id[0] in CLAIM.gold_titles
        if e.kind == "other-page":
            assert e.sentence_id[0] in {"Louvre", "Dijon", "Volcano", "Mustard"}   # retrieved, not gold
            # position-matched: at the index of a gold sentence (0 or 1), or the page's last
            assert e.sentence_id[1] == min(e.sentence_id[1], 1)
    context = [e for e in examples if e.kind.startswith("context")]
    assert [e.label for e in context] == ["yes", "no"]
    query = context[0].query
    assert query.startswith(CLAIM.claim + CONTEXT_SEPARATOR)
    context_page = "Eiffel Tower" if "Eiffel Tower . " in query else "Gustave Eiffel"
    assert context[0].sentence_id in CLAIM.gold_sentences and context[0].sentence_id[0] != context_page
    assert context[1].sentence_id[0] != context_page and context[1].sentence_id not in CLAIM.gold_sentences


@pytest.mark.unit
def test_pages_with_only_gold_sentences_take_negatives_from_other_pages():
    corpus = _corpus()
    examples = reranker_examples([ONE_PAGE], corpus, negatives_per_claim=3, seed=0, hard_negative_fn=_bm25_stub)
    kinds = Counter(e.kind for e in examples)
    assert kinds["gold"] == 1 and kinds["same-page"] == 0 and kinds["other-page"] == 3
    assert not any(e.kind.startswith("context") for e in examples)   # one page only: no hop-2 pair
    # without a candidates callable the negatives come from random non-gold pages
    randoms = reranker_examples([ONE_PAGE], corpus, negatives_per_claim=3, seed=0)
    assert Counter(e.kind for e in randoms) == {"gold": 1, "random": 3}
    assert all(e.sentence_id[0] != "Only gold" for e in randoms if e.label == "no")


@pytest.mark.unit
def test_examples_are_seeded_per_claim():
    corpus = _corpus()
    alone = reranker_examples([CLAIM], corpus, 4, seed=5, hard_negative_fn=_bm25_stub)
    together = reranker_examples([ONE_PAGE, CLAIM], corpus, 4, seed=5, hard_negative_fn=_bm25_stub)
    assert [e for e in together if e.claim_id == "c1"] == alone
    assert reranker_examples([CLAIM], corpus, 4, seed=5, hard_negative_fn=_bm25_stub) == alone
    draws = {tuple(e.sentence_id for e in reranker_examples([CLAIM], corpus, 2, seed=s)) for s in range(8)}
    assert len(draws) > 1


@pytest.mark.unit
def test_examples_refuse_bad_input():
    corpus = _corpus()
    with pytest.raises(ValueError, match="negatives_per_claim"):
        reranker_examples([CLAIM], corpus, negatives_per_claim=-1)
    broken = RetrievalClaim("c3", "x", ("Dijon",), (("Dijon", 9),), 1, "supports")
    with pytest.raises(ValueError, match="no sentence 9"):
        reranker_examples([broken], corpus)
    empty = RetrievalClaim("c4", "x", ("Dijon",), (), 1, "supports")
    assert reranker_examples([empty], corpus) == []


# ---------------------------------------------------------------- reranking rule (stand-in encoder)


@pytest.mark.unit
def test_rerank_orders_documents_by_best_sentence():
    corpus = _corpus()
    encoder = OverlapEncoder()
    reranker = SentenceReranker(encoder)
    titles = ["Volcano", "Louvre", "Blank", "Dijon", "Louvre", "Gustave Eiffel", "Mustard"]
    result = reranker.rerank("Gustave Eiffel was born in Dijon, a city known for mustard.", titles, corpus,
                             top_sentences=3, max_documents=5)
    assert isinstance(result, RerankResult)
    # the head (first 5 distinct titles) reordered by best sentence, sentence-less page last, tail as given
    head = ["Volcano", "Louvre", "Blank", "Dijon", "Gustave Eiffel"]
    assert result.documents[:5] == sorted(head, key=lambda t: -result.document_scores.get(t, -1))
    assert result.documents[4] == "Blank" and result.documents[5:] == ["Mustard"]
    assert result.documents[0] in ("Gustave Eiffel", "Dijon")
    # top sentences come only from the head, best first
    assert len(result.sentences) == 3
    assert all(title in head for (title, _), _ in result.sentences)
    scores = [score for _, score in result.sentences]
    assert scores == sorted(scores, reverse=True)
    # everything was scored in one batched call
    assert len(encoder.calls) == 1 and len(encoder.calls[0]) == sum(len(corpus[t].sentences) for t in head)


@pytest.mark.unit
def test_rerank_uses_the_context_and_matches_score():
    corpus = _corpus()
    encoder = OverlapEncoder()
    reranker = SentenceReranker(encoder)
    ids = [("Dijon", 0), ("Dijon", 1)]
    scores = reranker.score("A claim about Dijon.", ids, corpus, context=("Gustave Eiffel", 1))
    assert scores.shape == (2,) and np.all((scores >= 0) & (scores <= 1))
    assert all(q == "A claim about Dijon. </s> Gustave Eiffel . He was born in Dijon." for q, _ in encoder.calls[-1])
    result = reranker.rerank("A claim about Dijon.", ["Dijon"], corpus, context=("Gustave Eiffel", 1))
    assert dict(result.sentences) == pytest.approx(dict(zip(ids, scores.tolist())))


@pytest.mark.unit
def test_rerank_many_equals_rerank_one_by_one():
    corpus = _corpus()
    reranker = SentenceReranker(OverlapEncoder())
    claims = ["The Louvre holds the Mona Lisa.", "Mustard comes from Dijon."]
    titles = [["Eiffel Tower", "Louvre"], ["Mustard", "Dijon", "Volcano"]]
    many = reranker.rerank_many(claims, titles, corpus, contexts=[None, "Dijon . It is known for mustard."])
    single = [reranker.rerank(claims[0], titles[0], corpus),
              reranker.rerank(claims[1], titles[1], corpus, context="Dijon . It is known for mustard.")]
    assert many == single


@pytest.mark.unit
def test_rerank_refuses_bad_input():
    corpus = _corpus()
    reranker = SentenceReranker(OverlapEncoder())
    with pytest.raises(ValueError, match="'Atlantis' is not in corpus"):
        reranker.rerank("A claim.", ["Dijon", "Atlantis"], corpus)
    with pytest.raises(ValueError, match="empty claim"):
        reranker.rerank("", ["Dijon"], corpus)
    with pytest.raises(ValueError, match="no sentence 7"):
        reranker.score("A claim.", [("Dijon", 7)], corpus)
    with pytest.raises(ValueError, match="must be positive"):
        reranker.rerank("A claim.", ["Dijon"], corpus, top_sentences=0)
    assert reranker.rerank("A claim.", [], corpus) == RerankResult([], [], {})


# ---------------------------------------------------------------- training (real MiniLM, a few steps)


@pytest.mark.unit
def test_train_save_load_roundtrip(tmp_path):
    corpus = _corpus()
    examples = reranker_examples([CLAIM, ONE_PAGE], corpus, 4, seed=1, hard_negative_fn=_bm25_stub)
    config = TrainConfig(epochs=1, batch_size=4, max_steps=3, progress=False, seed=2)
    reranker = train_reranker(examples, examples[:4], config, max_length=48, max_examples=None)
    assert reranker.train_result.steps == 3 and reranker.cross_encoder.max_length == 48
    ids = [("Dijon", 0), ("Gustave Eiffel", 1), ("Volcano", 0)]
    scores = reranker.score(CLAIM.claim, ids, corpus)
    assert scores.shape == (3,) and np.all((scores > 0) & (scores < 1))
    loaded = SentenceReranker.load(reranker.save(tmp_path / "reranker"))
    np.testing.assert_allclose(loaded.score(CLAIM.claim, ids, corpus), scores, atol=1e-6)
    with pytest.raises(FileNotFoundError, match="SentenceReranker.save"):
        SentenceReranker.load(tmp_path)
    with pytest.raises(ValueError, match="no training examples"):
        train_reranker([], config=config)


@pytest.mark.unit
def test_max_examples_keeps_whole_claims():
    from proofbook.admiral.retrieval.reranker import _subsample

    corpus = _corpus()
    examples = reranker_examples([CLAIM, ONE_PAGE], corpus, 4, seed=1, hard_negative_fn=_bm25_stub)
    per_claim = Counter(e.claim_id for e in examples)
    kept = _subsample(examples, per_claim["c2"], seed=0)
    assert Counter(e.claim_id for e in kept) == {"c2": per_claim["c2"]}
    assert _subsample(examples, None, seed=0) == examples


# ---------------------------------------------------------------- real data


@pytest.mark.data
@pytest.mark.parametrize("dataset", ["hover", "feverous_s"])
def test_examples_on_real_data(real_data_dir, dataset):
    from proofbook.admiral.retrieval.tasks import load_task

    task = load_task(dataset, real_data_dir)
    claims = task.train[:200]
    others = {c.id: [t for o in claims[i + 1:i + 6] for t in o.gold_titles] for i, c in enumerate(claims)}
    examples = reranker_examples(claims, task.corpus, seed=13, hard_negative_fn=lambda c: others[c.id])
    labels = Counter(e.label for e in examples)
    gold = {(c.id, sid) for c in claims for sid in c.gold_sentences}
    assert all(((e.claim_id, e.sentence_id) in gold) == (e.label == "yes") for e in examples)
    assert all(e.sentence_id[0] not in c.gold_titles for c in claims for e in examples
               if e.claim_id == c.id and e.kind in ("other-page", "random"))
    # the documented ratio: about 1:1 on HoVer, about 1:2 on FEVEROUS-S
    ratio = labels["no"] / labels["yes"]
    assert (0.8 <= ratio <= 1.4) if dataset == "hover" else (1.4 <= ratio <= 2.4)
    if dataset == "feverous_s":   # pages hold (almost) only gold sentences: negatives from other pages
        kinds = Counter(e.kind for e in examples)
        assert kinds["other-page"] > 3 * kinds["same-page"]
