"""BM25 (proofbook.index.bm25): the word rule, BM25Okapi's formula, the fast backend's exactness,
deterministic top-k, page and sentence indexes over a Corpus, and the synthetic benchmark."""
import math

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from proofbook.core.corpus import Corpus
from proofbook.index.bm25 import (BM25, DocumentIndex, SentenceIndex, benchmark_backends, synthetic_corpus,
                                  synthetic_queries, tokenize)
from proofbook.admiral.retrieval.tasks import load_task

# "the" is in 3 of 4 documents (negative IDF -> epsilon floor); doc 3 is empty.
DOCS = [
    ["the", "river", "ama", "flows", "past", "belo"],
    ["the", "painter", "cora", "dune", "lived", "in", "belo", "belo"],
    ["the", "ama", "is", "a", "river", "river", "river"],
    [],
]
CONFIGS = [dict(), dict(k1=0.9, b=0.1), dict(k1=1.2, b=0.0, epsilon=0.5), dict(k1=2.0, b=1.0 - 1e-9)]


def both(docs, **params):
    return BM25(docs, backend="reference", **params), BM25(docs, backend="fast", **params)


# ----------------------------------------------------------------------------------------- tokenize


@pytest.mark.unit
@pytest.mark.parametrize("text, tokens", [
    ("Tolkien's 2nd café, J.R.R.", ["tolkien", "s", "2nd", "café", "j", "r", "r"]),
    ("Cafe\u0301 ＡＢＣ ﬁne", ["café", "abc", "fine"]),          # decomposed accent, full-width, ligature
    ("snake_case -- dash/slash", ["snake", "case", "dash", "slash"]),
    ("Москва 東京 İzmir", ["москва", "東京", "i\u0307zmir"]),     # 'İ' lower-cases to i + combining dot
    ("  ...  ", []),
    ("", []),
])
def test_tokenize_rule(text, tokens):
    assert tokenize(text) == tokens


@pytest.mark.unit
def test_tokenize_rejects_non_strings():
    with pytest.raises(ValueError):
        tokenize(["a", "list"])


# ------------------------------------------------------------------------------- BM25 formula, exactness


@pytest.mark.unit
def test_scores_match_a_hand_computation():
    n, lengths = 4, [len(d) for d in DOCS]
    avgdl = sum(lengths) / n
    raw_idf = {w: math.log(n - df + 0.5) - math.log(df + 0.5)
               for w, df in {"the": 3, "river": 2, "belo": 2, "ama": 2, "flows": 1, "past": 1, "painter": 1,
                             "cora": 1, "dune": 1, "lived": 1, "in": 1, "is": 1, "a": 1}.items()}
    average = sum(raw_idf.values()) / len(raw_idf)
    assert raw_idf["the"] < 0
    for backend in ("reference", "fast"):
        bm25 = BM25(DOCS, k1=1.5, b=0.75, epsilon=0.25, backend=backend)
        assert bm25.idf("the") == pytest.approx(0.25 * average)            # the epsilon floor
        assert bm25.idf("river") == pytest.approx(raw_idf["river"])
        assert bm25.idf("unknown") == 0.0
        assert bm25.idf("river") == 0.0                                  # in exactly half: log(1) = 0
        query = ["the", "painter", "river"]
        expected = [sum((0.25 * average if w == "the" else raw_idf[w]) * d.count(w) * 2.5
                        / (d.count(w) + 1.5 * (0.25 + 0.75 * len(d) / avgdl)) for w in query)
                    for d in DOCS]
        assert expected[1] > expected[0] > 0 and expected[3] == 0
        np.testing.assert_allclose(bm25.get_scores(query), expected, rtol=1e-12)


@pytest.mark.unit
@pytest.mark.parametrize("params", CONFIGS)
def test_fast_backend_equals_rank_bm25_bit_for_bit(params):
    reference, fast = both(DOCS, **params)
    okapi = BM25Okapi(DOCS, **params)
    queries = [["river"], ["the", "river", "belo"], ["belo", "belo", "river", "belo"],   # repeats count
               ["ama", "unknown", "ama"], ["unknown"], [], ["the"]]
    for query in queries:
        expected = okapi.get_scores(query)
        np.testing.assert_array_equal(reference.get_scores(query), expected)
        np.testing.assert_array_equal(fast.get_scores(query), expected)
        assert fast.top_k(query, 3) == reference.top_k(query, 3)


@pytest.mark.unit
def test_fast_backend_equals_reference_on_random_corpora():
    rng = np.random.default_rng(7)
    for trial in range(6):
        vocab = [f"t{i}" for i in range(int(rng.integers(3, 40)))]
        docs = [list(rng.choice(vocab, size=int(rng.integers(0, 25)))) for _ in range(int(rng.integers(1, 60)))]
        if not any(docs):
            docs[0] = ["t0"]
        params = dict(k1=float(rng.uniform(0.2, 3)), b=float(rng.uniform(0, 0.99)), epsilon=float(rng.uniform(0, 1)))
        reference, fast = both(docs, **params)
        assert fast.average_idf == reference.average_idf
        for _ in range(10):
            query = list(rng.choice(vocab + ["oov"], size=int(rng.integers(1, 8))))
            np.testing.assert_allclose(fast.get_scores(query), reference.get_scores(query), rtol=0, atol=1e-6)
            np.testing.assert_array_equal(fast.get_scores(query), reference.get_scores(query))


@pytest.mark.unit
def test_empty_document_with_b_one_scores_zero_where_rank_bm25_gives_nan():
    # the documented exception: BM25Okapi computes 0 / 0 for an empty document when b == 1
    reference, fast = both(DOCS, b=1.0)
    with np.errstate(invalid="ignore"):
        expected = reference.get_scores(["river"])
    assert np.isnan(expected[3]) and fast.get_scores(["river"])[3] == 0.0
    np.testing.assert_array_equal(fast.get_scores(["river"])[:3], expected[:3])


@pytest.mark.unit
def test_repeated_query_tokens_count_each_time_and_unknown_tokens_add_nothing():
    for bm25 in both(DOCS):
        one = bm25.get_scores(["river"])
        np.testing.assert_allclose(bm25.get_scores(["river", "river"]), 2 * one)
        np.testing.assert_array_equal(bm25.get_scores(["river", "zzz"]), one)
        np.testing.assert_array_equal(bm25.get_scores(["zzz"]), np.zeros(4))
        np.testing.assert_array_equal(bm25.get_scores([]), np.zeros(4))


@pytest.mark.unit
def test_top_k_orders_by_score_then_lower_index():
    docs = [["b"], ["a"], ["a", "x"], ["a"], ["c"], ["a"]]      # docs 1, 3, 5 tie on "a"
    for bm25 in both(docs):
        top = bm25.top_k(["a"], 2)
        assert [i for i, _ in top] == [1, 3]
        assert [i for i, _ in bm25.top_k(["a"], 4)] == [1, 3, 5, 2]
        everything = bm25.top_k(["a"], 100)                      # k > n: every document
        assert [i for i, _ in everything] == [1, 3, 5, 2, 0, 4]
        assert all(isinstance(i, int) and isinstance(s, float) for i, s in everything)
        with pytest.raises(ValueError):
            bm25.top_k(["a"], 0)


@pytest.mark.unit
def test_batch_scores_are_the_subset():
    for bm25 in both(DOCS):
        full = bm25.get_scores(["belo", "river"])
        np.testing.assert_array_equal(bm25.get_batch_scores(["belo", "river"], [2, 0]), full[[2, 0]])
        with pytest.raises(ValueError):
            bm25.get_batch_scores(["belo"], [4])


@pytest.mark.unit
def test_index_size_and_build_time_are_reported():
    for bm25 in both(DOCS):
        assert bm25.nbytes > 0 and bm25.build_seconds >= 0
        assert bm25.n_docs == 4 and bm25.avgdl == pytest.approx(21 / 4)


@pytest.mark.unit
@pytest.mark.parametrize("docs, params", [
    ([], {}),
    ([[], []], {}),
    (["a text, not tokens"], {}),
    (DOCS, {"backend": "bm25s"}),
    (DOCS, {"k1": 0}),
    (DOCS, {"b": 1.5}),
])
def test_bad_index_input_is_a_clear_error(docs, params):
    with pytest.raises(ValueError):
        BM25(docs, **params)


@pytest.mark.unit
def test_a_string_query_is_rejected():
    for bm25 in both(DOCS):
        with pytest.raises(ValueError, match="tokenize"):
            bm25.get_scores("river")


# ------------------------------------------------------------------------------- indexes over a Corpus


def small_corpus() -> Corpus:
    corpus = Corpus("small")
    corpus.add("Ama (river)", ["The Ama is a river in the north.", "It flows past Belo and Kestry."])
    corpus.add("Belo", ["Belo is a town.", "In 2010 its population was 3,000."])
    corpus.add("Cora Dune", ["Cora Dune was a painter from Belo.", "She painted bridges."])
    return corpus


@pytest.mark.unit
@pytest.mark.parametrize("backend", ["fast", "reference"])
def test_document_index_searches_pages_by_title_and_text(backend):
    index = DocumentIndex(small_corpus(), backend=backend)
    assert (index.bm25.k1, index.bm25.b) == (0.9, 0.1)
    assert len(index) == 3 and index.nbytes > 0
    hits = index.search("Which painter lived in Belo?", k=2)
    assert [t for t, _ in hits] == ["Cora Dune", "Belo"]
    assert hits[0][1] > hits[1][1] > 0
    assert index.search("river", k=10)[0][0] == "Ama (river)"     # the title is indexed
    assert index.search("no shared words whatsoever") == []       # only pages with a positive score


@pytest.mark.unit
def test_document_index_backends_agree():
    fast, reference = (DocumentIndex(small_corpus(), backend=b) for b in ("fast", "reference"))
    for query in ["Belo painter", "the river Ama flows north", "population of 2010"]:
        assert fast.search(query) == reference.search(query)


@pytest.mark.unit
@pytest.mark.parametrize("query", ["", "   ", "?!", None])
def test_an_empty_query_is_a_clear_error(query):
    for index in (DocumentIndex(small_corpus()), SentenceIndex(small_corpus())):
        with pytest.raises(ValueError):
            index.search(query)


@pytest.mark.unit
def test_an_empty_corpus_is_a_clear_error():
    with pytest.raises(ValueError, match="no pages"):
        DocumentIndex(Corpus("empty"))
    with pytest.raises(ValueError, match="no sentences"):
        SentenceIndex(Corpus("empty"))


@pytest.mark.unit
def test_sentence_index_returns_sentence_ids():
    index = SentenceIndex(small_corpus())
    assert len(index) == 6
    hits = index.search("Kestry", k=5)
    assert hits[0][0] == ("Ama (river)", 1)
    # "Title . sentence": the title words make every sentence of a page findable
    assert {sid for sid, _ in index.search("Cora Dune", k=10)} >= {("Cora Dune", 0), ("Cora Dune", 1)}
    restricted = index.search("Belo", k=10, titles=["Cora Dune", "Ama (river)"])
    assert {title for (title, _), _ in restricted} <= {"Cora Dune", "Ama (river)"}
    assert ("Ama (river)", 1) in [sid for sid, _ in restricted]
    assert index.search("Belo", titles=[]) == []
    with pytest.raises(ValueError, match="not in the corpus"):
        index.search("Belo", titles=["Nowhere"])
    with pytest.raises(ValueError):
        index.search("Belo", titles="Belo")


@pytest.mark.unit
def test_sentence_index_restricted_search_breaks_ties_in_corpus_order():
    corpus = Corpus("ties")
    for title in ("P", "Q", "R"):
        corpus.add(title, ["same words here"])
    for title in ("S", "T", "U", "V"):          # so that "same" and "words" are in fewer than half
        corpus.add(title, [f"filler sentence {title}"])
    index = SentenceIndex(corpus)
    assert [sid for sid, _ in index.search("same words", titles=["R", "P", "Q"])] == [("P", 0), ("Q", 0), ("R", 0)]
    assert [sid for sid, _ in index.search("same words", k=1, titles=["R", "Q"])] == [("Q", 0)]


# ------------------------------------------------------------------------------------ synthetic benchmark


@pytest.mark.unit
def test_synthetic_corpus_is_seeded_zipf():
    docs = synthetic_corpus(n_docs=300, doc_words=20, vocab=500, seed=3)
    assert len(docs) == 300 and all(len(d) == 20 for d in docs)
    assert docs == synthetic_corpus(n_docs=300, doc_words=20, vocab=500, seed=3)
    assert docs != synthetic_corpus(n_docs=300, doc_words=20, vocab=500, seed=4)
    counts = {}
    for doc in docs:
        for word in doc:
            counts[word] = counts.get(word, 0) + 1
    ranked = sorted(counts, key=counts.get, reverse=True)
    assert ranked[0] == "w0" and counts["w0"] > 1.5 * counts.get("w1", 0) > 0   # rank-frequency falls off
    queries = synthetic_queries(4, query_words=8, vocab=500, seed=3)
    assert len(queries) == 4 and all(len(q) == 8 for q in queries)


@pytest.mark.unit
def test_benchmark_backends_reports_both_backends_and_agreement():
    result = benchmark_backends(n_docs=2000, n_queries=5, k=10, seed=0)
    assert result["dataset"] == "synthetic-2k" and result["n_queries"] == 5
    for system in ("bm25-reference", "bm25-fast"):
        assert set(result[system]) == {"index_build_s", "seconds_per_query", "index_bytes", "runs"}
        assert result[system]["seconds_per_query"] > 0 and result[system]["runs"] == 3
    assert result["top10_agreement"] == 1.0
    assert result["max_abs_score_diff"] <= 1e-6
    with pytest.raises(ValueError, match="runs"):
        benchmark_backends(n_docs=50, n_queries=2, runs=0)


# ------------------------------------------------------------------------------------------ real data


@pytest.mark.data
def test_backends_agree_on_the_hover_corpus(real_data_dir):
    task = load_task("hover", real_data_dir)
    fast, reference = (DocumentIndex(task.corpus, backend=b) for b in ("fast", "reference"))
    for claim in task.evaluation[:40]:
        query = tokenize(claim.claim)
        np.testing.assert_allclose(fast.bm25.get_scores(query), reference.bm25.get_scores(query), rtol=0, atol=1e-6)
        assert fast.search(claim.claim, k=10) == reference.search(claim.claim, k=10)


@pytest.mark.data
def test_bm25_finds_gold_pages_on_feverous_s(real_data_dir):
    # FEVEROUS-S with distractors: most claims name their page; BM25 alone finds all gold pages in the
    # top 10 for about nine claims in ten (0.92 measured on the 575 evaluation claims)
    task = load_task("feverous_s+distractors", real_data_dir)
    index = DocumentIndex(task.corpus)
    claims = task.evaluation[:200]
    found = [set(claim.gold_titles) <= {t for t, _ in index.search(claim.claim, k=10)} for claim in claims]
    assert np.mean(found) > 0.8


@pytest.mark.data
def test_sentence_index_finds_gold_sentences_on_hover(real_data_dir):
    task = load_task("hover", real_data_dir)
    index = SentenceIndex(task.corpus)
    claims = [c for c in task.evaluation if c.gold_sentences][:50]
    for claim in claims:
        hits = index.search(claim.claim, k=5, titles=claim.gold_titles)
        assert hits and all(title in claim.gold_titles for (title, _), _ in hits)
    # a sentence's own text retrieves it first (ties broken by corpus order, so compare the text)
    sentence = task.corpus.sentence(claims[0].gold_sentences[0])
    top = index.search(f"{sentence.title} . {sentence.text}", k=1)[0][0]
    assert task.corpus.sentence(top).text == sentence.text


@pytest.mark.unit
def test_top_k_prefilter_gives_the_exact_selection():
    """The block-maximum pre-filter of long score vectors changes nothing: ties, equal blocks, infinities."""
    from proofbook.index.ranking import _exact_top_k, top_k

    rng = np.random.default_rng(0)
    for trial in range(400):
        n, k = int(rng.integers(1, 20_000)), int(rng.integers(1, 50))
        scores = [rng.standard_normal(n), rng.integers(0, 5, n).astype(float), np.zeros(n),
                  np.where(rng.random(n) < 0.001, np.inf, rng.standard_normal(n)).astype(np.float32)][trial % 4]
        assert top_k(scores, k) == _exact_top_k(scores, k)
    with_nan = rng.standard_normal(5_000)
    with_nan[7] = np.nan
    assert top_k(with_nan, 3) == _exact_top_k(with_nan, 3)
