"""The simulated knowledge bases of the efficiency chapter: filler titles and pages, nested corpora, scaling helpers."""
import numpy as np
import pytest

from proofbook.admiral.retrieval.efficiency import (TitleStatistics, admiral_index, filler_pages, filler_titles,
                                                    grown_corpora)
from proofbook.admiral.retrieval.scaling import (SYSTEMS, Timings, efficiency_glue, extrapolate, growth_pairs,
                                                 latency_growth, log_log_slope, simulated_vectors)
from proofbook.core.corpus import Corpus
from proofbook.index.bm25 import tokenize
from tests.notebook_glue import shown_not_glued_by_name

REAL_TITLES = ["Extras (TV series)", "Extras", "Battle of Manila (1945)", "Battle of Manila", "Dijon",
               "Gustave Eiffel", "Eiffel Tower", "Life Goes On (Fergie song)", "Paris", "Seine (river)"]


def toy_corpus() -> Corpus:
    corpus = Corpus("toy")
    for number, title in enumerate(REAL_TITLES):
        corpus.add(title, [f"{title} is page number {number} of the toy corpus.", "It has a second sentence here."])
    return corpus


@pytest.mark.unit
def test_title_statistics_split_the_disambiguator():
    stats = TitleStatistics.of(REAL_TITLES)
    assert sorted(stats.disambiguators) == ["1945", "Fergie song", "TV series", "river"]
    assert stats.disambiguated_share == pytest.approx(0.4)
    assert stats.lengths[0] == 1 and stats.lengths[2] == 3      # "Extras", "Battle of Manila"
    with pytest.raises(ValueError, match="at least one real title"):
        TitleStatistics.of([])


@pytest.mark.unit
def test_filler_titles_are_new_unique_seeded_and_share_bases():
    titles = filler_titles(REAL_TITLES, 2_000, seed=3)
    assert len(titles) == len(set(titles)) == 2_000
    assert not set(titles) & set(REAL_TITLES)
    assert titles == filler_titles(REAL_TITLES, 2_000, seed=3)
    assert titles != filler_titles(REAL_TITLES, 2_000, seed=4)
    disambiguated = [t for t in titles if t.endswith(")")]
    assert 0.25 < len(disambiguated) / len(titles) < 0.6          # about the real share, 0.4, plus numbered repeats
    bases = {t.rsplit(" (", 1)[0] for t in disambiguated}
    assert bases & set(REAL_TITLES) and bases & set(titles)       # "X (d)" built on real and on filler titles
    words = {w for t in REAL_TITLES for w in t.replace("(", " ").replace(")", " ").split()}
    assert {w for t in titles for w in t.replace("(", " ").replace(")", " ").split()} <= words | {str(n) for n in range(2, 2_000)}
    with pytest.raises(ValueError, match="n must be"):
        filler_titles(REAL_TITLES, -1)


@pytest.mark.unit
def test_filler_pages_copy_real_page_shapes_and_word_frequencies():
    corpus = toy_corpus()
    filler = filler_pages(corpus, 50, seed=1)
    assert len(filler) == 50 and not set(filler.titles) & set(corpus.titles)
    real_shapes = {tuple(len(tokenize(s)) for s in doc.sentences) for doc in corpus}
    vocabulary = {token for doc in corpus for token in tokenize(doc.text)}
    for doc in filler:
        assert tuple(len(tokenize(s)) for s in doc.sentences) in real_shapes
        assert set(tokenize(doc.text)) <= vocabulary
    assert [d.sentences for d in filler] == [d.sentences for d in filler_pages(corpus, 50, seed=1)]
    assert filler_pages(corpus, 0).titles == []
    with pytest.raises(ValueError, match="no pages"):
        filler_pages(Corpus("empty"), 3)
    avoided = filler_pages(corpus, 20, seed=1, taken=filler.titles[:5])
    assert not set(avoided.titles) & set(filler.titles[:5])


@pytest.mark.unit
def test_grown_corpora_are_nested_and_counted():
    base, other = toy_corpus(), Corpus("other")
    for number in range(7):
        other.add(f"Other page {number}", [f"Another real sentence number {number}."])
    other.add("Paris", ["A second Paris page, already in the base."])
    corpora, growth = grown_corpora(base, {"x1": 10, "x2": 20, "x5": 50}, [other], seed=0)
    assert [len(c) for c in corpora.values()] == [10, 20, 50]
    assert corpora["x2"].titles == corpora["x5"].titles[:20]
    assert corpora["x1"].titles == base.titles
    assert growth[1] == {"dataset": "x2", "pages": 20, "from_other_corpora": 7, "filler_pages": 3}
    assert growth[2]["filler_pages"] == 33 and corpora["x5"]["Paris"].sentences == base["Paris"].sentences
    with pytest.raises(ValueError, match="below the base"):
        grown_corpora(base, {"tiny": 3}, [other])


@pytest.mark.unit
def test_admiral_index_reports_its_parts():
    from proofbook.models.loading import load_tokenizer, minilm_path

    built = admiral_index(toy_corpus(), load_tokenizer(minilm_path()))
    assert built["index_bytes"] == built["bm25_bytes"] + built["trie_bytes"]
    assert built["index_build_s"] == pytest.approx(built["bm25_build_s"] + built["trie_build_s"])
    assert built["bm25_bytes_ram"] > 0 and len(built["trie"]) == len(REAL_TITLES)


@pytest.mark.unit
def test_simulated_vectors_are_unit_seeded_and_follow_the_real_mean():
    rng = np.random.default_rng(0)
    real = rng.standard_normal((200, 8)) + np.arange(8)
    real /= np.linalg.norm(real, axis=1, keepdims=True)
    drawn = simulated_vectors(real, 3_000, seed=2)
    assert drawn.shape == (3_000, 8) and drawn.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(drawn, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(drawn, simulated_vectors(real, 3_000, seed=2))
    np.testing.assert_allclose(drawn.mean(axis=0), real.mean(axis=0), atol=0.03)
    with pytest.raises(ValueError, match="two real vectors"):
        simulated_vectors(real[:1], 5)


@pytest.mark.unit
def test_log_log_slope_and_extrapolation():
    sizes = [1e4, 1e5, 1e6]
    assert log_log_slope(sizes, [2.0 * s ** 0.5 for s in sizes]) == pytest.approx(0.5)
    assert log_log_slope(sizes, [3.0, 3.0, 3.0]) == pytest.approx(0.0, abs=1e-12)
    assert extrapolate(1e4, 2.0, 1.0, 1e6) == pytest.approx(200.0)
    with pytest.raises(ValueError, match="positive"):
        log_log_slope([1, 2], [0.0, 1.0])
    with pytest.raises(ValueError, match="two"):
        log_log_slope([1], [1.0])


@pytest.mark.unit
def test_latency_growth_is_the_ratio_of_means_with_a_paired_interval_over_the_claims():
    small = [1.0, 2.0, 1.5, 0.5, 1.2, 0.8, 1.1, 2.2, 0.9, 1.4]
    doubled = Timings(claim_seconds={"x1": small, "x2": [2 * s for s in small]})
    assert latency_growth(doubled, "x2", "x1") == pytest.approx((2.0, 2.0, 2.0))   # every resample: exactly 2x
    noisy = Timings(claim_seconds={"x1": small, "x2": [s * f for s, f in zip(small, [1, 2] * 5)]})
    value, low, high = latency_growth(noisy, "x2", "x1", seed=3)
    assert value == pytest.approx(sum(noisy.claim_seconds["x2"]) / sum(small))
    assert 1.0 <= low < value < high <= 2.0
    assert latency_growth(noisy, "x2", "x1", seed=3) == (value, low, high)         # the same for the same seed
    with pytest.raises(ValueError, match="same claims"):
        latency_growth(Timings(claim_seconds={"x1": small, "x2": small[:3]}), "x2", "x1")


@pytest.mark.unit
def test_growth_pairs_fall_back_to_the_smallest_size_without_hover_x4():
    assert growth_pairs(["hover-x1", "hover-x2", "hover-x4", "hover-250k"]) == {
        "latency_growth_per_doubling": ("hover-x2", "hover-x1"), "latency_growth_from_x4": ("hover-250k", "hover-x4")}
    assert growth_pairs(["hover-x1", "hover-x2", "hover-8k"])["latency_growth_from_x4"] == ("hover-8k", "hover-x1")


@pytest.mark.unit
def test_efficiency_glue_shows_every_number_the_chapter_text_needs():
    import pandas as pd

    names = ["hover-x1", "hover-x2", "hover-x4", "hover-250k"]
    sizes = dict(zip(names, (4_000, 8_000, 16_000, 250_000)))
    columns = ("latency_s_per_claim", "latency_s_per_claim/rerank", "latency_s_per_claim/bm25",
               "latency_s_per_claim/generation", "reranked_sentences_per_claim", "index_bytes", "index_bytes_python",
               "index_bytes_ratio_to_admiral", "recall_vs_exact@10", "filler_share@10", "filler_share_of_corpus",
               "recall@10/bm25")
    index = pd.MultiIndex.from_product([names, SYSTEMS], names=("dataset", "system"))
    table = pd.DataFrame(1.0, index=index, columns=columns)
    table.loc[("hover-x1", "admiral"), ["latency_s_per_claim", "latency_s_per_claim/rerank",
                                        "reranked_sentences_per_claim", "index_bytes"]] = [1.0, 0.5, 250, 2e6]
    table.loc[("hover-250k", "admiral"), "latency_s_per_claim"] = 1.25
    table.loc[("hover-x1", "dense-mdr"), "index_bytes"] = 6e6
    exponents = pd.DataFrame(0.5, index=list(SYSTEMS), columns=["latency_exponent", "index_bytes_exponent",
                                                                "latency_exponent/bm25", "latency_exponent/generation"])
    growth = {"latency_growth_per_doubling": (1.1, 1.0, 1.2), "latency_growth_from_x4": (1.05, 0.9, 1.3)}
    shown = efficiency_glue(table, exponents, names, sizes, growth)
    assert shown["last_pages"] == "250,000" and shown["x4_pages"] == "16,000" and shown["latency_growth"] == "1.25"
    assert shown["latency_growth_per_doubling_interval"] == "1.10 (95% interval over the claims 1.00 to 1.20)"
    assert shown["memory_ratio"] == "3.00" and shown["memory_verdict"] == "smaller than"
    assert (shown["rerank_share_x1"], shown["rerank_ms_per_sentence_x1"]) == ("50%", "2.0")
    assert shown["latency_goal_text"] == "0.20 s over it" and shown["latency_exponent_dense_mdr_ivf"] == "0.50"
    verdicts = {"C2a_memory_vs_dense", "C2e_memory_in_ram", "C2b_index_build_time", "C2c_latency_flat",
                "C2d_latency_at_scale", "C2f_latency_vs_dense"}
    assert shown_not_glued_by_name("admiral/03_efficiency") <= set(shown) | verdicts


@pytest.mark.notebook
def test_efficiency_chapter_smoke_writes_every_size_and_the_exponents(smoke_run):
    run = smoke_run("admiral/03_efficiency")
    [data] = run["results"].values()
    assert data["params"]["smoke"] is True and run["figures"]
    rows = {(r["dataset"], r["system"], r["metric"]): r for r in data["rows"]}
    sizes = sorted({d for d, _, m in rows if m == "pages"}, key=lambda d: rows[d, "corpus", "pages"]["value"])
    assert sizes[:2] == ["hover-x1", "hover-x2"] and len(sizes) == 3
    for dataset in sizes:
        for metric in ("index_bytes", "bm25_bytes_ram", "prefix_tree_bytes", "index_build_s", "latency_s_per_claim",
                       "latency_s_per_claim/bm25", "latency_s_per_claim/rerank", "latency_s_per_claim/mentions",
                       "latency_s_per_claim/generation", "recall@5", "filler_share@10"):
            assert (dataset, "admiral", metric) in rows, (dataset, metric)
        for system in ("dense-mdr", "dense-mdr-ivf"):
            assert {(dataset, system, "index_bytes"), (dataset, system, "latency_s_per_claim")} <= set(rows)
        assert (dataset, "dense-mdr-ivf", "recall_vs_exact@10") in rows
        assert (dataset, "dense-mdr", "index_bytes_ratio_to_admiral") in rows
    for system in ("admiral", "dense-mdr", "dense-mdr-ivf"):
        assert {("hover-scaling", system, "latency_exponent"), ("hover-scaling", system, "index_bytes_exponent")} <= set(rows)
    for metric in ("latency_growth_per_doubling", "latency_growth_from_x4"):
        value = rows["hover-scaling", "admiral", metric]["value"]
        low, high = (rows["hover-scaling", "admiral", metric + bound]["value"] for bound in (":ci95_low", ":ci95_high"))
        assert low <= value <= high, metric
    assert rows["synthetic-2k", "bm25-fast", "top10_agreement"]["value"] == 1.0
    assert ("wikipedia-5.4m-extrapolated", "admiral", "index_bytes") in rows
    if ("hover", "bm25-lucene", "recall@10") not in rows:
        pytest.fail("the Lucene comparison did not run")
