"""The dense multi-hop baseline (dense-mdr): embeddings as sentence-transformers, search, the hop rule, cache."""
import numpy as np
import pytest

from proofbook.core.corpus import Corpus
from proofbook.core.cache import ArtifactCache
from proofbook.index.dense import Chain, DenseIndex, SentenceEmbedder, corpus_fingerprint, page_text

PAGES = {
    "Eiffel Tower": ["The Eiffel Tower is a wrought-iron lattice tower in Paris.",
                     "It was designed by the company of Gustave Eiffel."],
    "Gustave Eiffel": ["Gustave Eiffel was a French civil engineer born in Dijon."],
    "Dijon": ["Dijon is a city in eastern France, the capital of the Côte-d'Or department."],
    "Photosynthesis": ["Photosynthesis is the process by which plants turn light into chemical energy."],
    "Volcano": ["A volcano is a rupture in the crust of a planet through which lava escapes."],
    "Empty page": [],
}


@pytest.fixture(scope="module")
def embedder():
    return SentenceEmbedder()


@pytest.fixture(scope="module")
def corpus():
    toy = Corpus("toy")
    for title, sentences in PAGES.items():
        toy.add(title, sentences)
    return toy


@pytest.fixture(scope="module")
def index(corpus, embedder):
    return DenseIndex(corpus, batch_size=4, embedder=embedder, progress=False)


@pytest.mark.unit
def test_embeddings_match_sentence_transformers(embedder):
    """Mean pooling + L2 norm over 256 tokens, as the checkpoint's modules.json asks: the reference is the
    sentence-transformers library itself (a pinned dependency, so this test always runs)."""
    import sentence_transformers
    from proofbook.models.loading import minilm_path

    texts = ["The Eiffel Tower is in Paris.", "short", "a much longer sentence " * 80]
    reference = sentence_transformers.SentenceTransformer(str(minilm_path()), device="cpu").encode(texts)
    ours = embedder.encode(texts, batch_size=2)
    assert embedder.max_length == 256
    np.testing.assert_allclose(ours, reference, atol=1e-5)


@pytest.mark.unit
def test_encode_keeps_order_and_unit_norm_whatever_the_batch(embedder):
    texts = ["a", "a rather longer text about towers", "towers", "", "Paris is in France."]
    one_batch = embedder.encode(texts, batch_size=64)
    small_batches = embedder.encode(texts, batch_size=2)
    np.testing.assert_allclose(one_batch, small_batches, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(one_batch, axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, 384)
    with pytest.raises(ValueError, match="batch_size"):
        embedder.encode(texts, batch_size=0)


@pytest.mark.unit
def test_index_has_one_vector_per_page(index, corpus):
    assert index.embeddings.shape == (len(corpus), 384)
    assert index.nbytes == len(corpus) * 384 * 4
    assert index.build_seconds > 0 and not index.from_cache
    assert page_text(corpus["Dijon"]).startswith("Dijon . Dijon is a city")


@pytest.mark.unit
def test_search_ranks_the_matching_page_first(index):
    hits = index.search("Which engineer designed the wrought-iron tower in Paris?", k=3)
    assert hits[0][0] == "Eiffel Tower"
    assert [score for _, score in hits] == sorted((score for _, score in hits), reverse=True)
    assert len(index.search("plants and light", k=100)) == len(PAGES)   # k larger than the corpus
    assert index.search("plants turning light into energy", k=1)[0][0] == "Photosynthesis"


@pytest.mark.unit
def test_bad_input_is_a_clear_error(index, embedder):
    with pytest.raises(ValueError, match="empty"):
        index.search("  ")
    with pytest.raises(ValueError, match="empty claim"):
        index.multi_hop("")
    with pytest.raises(ValueError, match="k must be"):
        index.search("towers", k=0)
    with pytest.raises(ValueError, match="beam must be"):
        index.multi_hop("towers", beam=0)
    with pytest.raises(ValueError, match="no pages"):
        DenseIndex(Corpus("empty"), embedder=embedder)
    # a claim longer than the model input is truncated, not an error
    assert index.multi_hop("towers " * 2000, k=3)


def _chain(first, second, s1, s2, rank):
    return Chain(first, second, s1, s2, rank)


@pytest.mark.unit
def test_rank_rule_on_hand_made_chains():
    # hop 1 ranked A (0.9) before B (0.5); chain (B, C) has the best total score
    chains = sorted([_chain("A", "B", 0.9, 0.1, 0), _chain("A", "D", 0.9, 0.3, 0),
                     _chain("B", "C", 0.5, 0.9, 1), _chain("B", "A", 0.5, 0.2, 1)], key=lambda c: -c.score)
    assert [c.score for c in chains] == pytest.approx([1.4, 1.2, 1.0, 0.7])
    # hops: first-hop pages in hop-1 order, then new second-hop pages by best chain score
    assert DenseIndex.rank(chains, k=10) == ["A", "B", "C", "D"]
    assert DenseIndex.rank(chains, k=3) == ["A", "B", "C"]
    # fewer pages than k: topped up from the hop-1 ranking
    assert DenseIndex.rank(chains, k=6, fill=["A", "B", "E", "F", "G"]) == ["A", "B", "C", "D", "E", "F"]
    # chains: MDR's order, d1 then d2 of each chain from the best
    assert DenseIndex.rank(chains, k=10, order="chains") == ["B", "C", "A", "D"]
    with pytest.raises(ValueError, match="order"):
        DenseIndex.rank(chains, k=3, order="best")


@pytest.mark.unit
def test_multi_hop_follows_the_rule(index):
    claim = "The designer of the Eiffel Tower was born in a city in eastern France."
    first_hop = [title for title, _ in index.search(claim, k=2)]
    chains = index.chains(claim, beam=2)
    assert len(chains) == 4 and all(c.first != c.second for c in chains)
    assert {c.first for c in chains} == set(first_hop)
    assert [c.score for c in chains] == sorted((c.score for c in chains), reverse=True)
    ranked = index.multi_hop(claim, k=10, beam=2)
    assert ranked[:2] == first_hop
    assert len(ranked) == len(set(ranked)) == len(PAGES)  # topped up from hop 1
    second_hop = list(dict.fromkeys(c.second for c in chains if c.second not in first_hop))
    assert ranked[2:2 + len(second_hop)] == second_hop
    assert index.multi_hop_many([claim, claim], k=3, beam=2) == [ranked[:3], ranked[:3]]


@pytest.mark.unit
def test_embeddings_are_cached_by_corpus(tmp_path, corpus, embedder):
    cache = ArtifactCache(tmp_path)
    built = DenseIndex(corpus, embedder=embedder, cache=cache, progress=False)
    loaded = DenseIndex(corpus, embedder=embedder, cache=cache, progress=False)
    assert not built.from_cache and loaded.from_cache
    np.testing.assert_array_equal(built.embeddings, loaded.embeddings)
    assert loaded.build_seconds == pytest.approx(built.build_seconds)
    assert cache.stats["hits"] == 1 and cache.stats["misses"] == 1
    changed = corpus.merged(name="toy")
    changed.add("Lava", ["Lava is molten rock."])
    assert corpus_fingerprint(changed) != corpus_fingerprint(corpus)
    assert not DenseIndex(changed, embedder=embedder, cache=cache, progress=False).from_cache


@pytest.mark.data
def test_dense_multi_hop_on_real_hover(real_data_dir, embedder):
    """A HoVer sub-corpus (gold pages of 40 evaluation claims + 150 other pages): sane recall."""
    from proofbook.admiral.retrieval.tasks import load_task

    task = load_task("hover", real_data_dir)
    claims = task.evaluation[:40]
    titles = list(dict.fromkeys([t for c in claims for t in c.gold_titles] + task.corpus.titles[:150]))
    sub = Corpus("hover-sub")
    for title in titles:
        sub.add(title, task.corpus[title].sentences)
    index = DenseIndex(sub, embedder=embedder, progress=False)
    ranked = index.multi_hop_many([c.claim for c in claims], k=10)
    single = index.search_many([c.claim for c in claims], k=10)
    assert all(len(r) == len(set(r)) == 10 for r in ranked)
    assert all(r[:3] == [t for t, _ in s[:3]] for r, s in zip(ranked, single))
    recall = np.mean([all(t in r for t in c.gold_titles) for r, c in zip(ranked, claims)])
    any_gold = np.mean([any(t in r[:5] for t in c.gold_titles) for r, c in zip(ranked, claims)])
    assert recall >= 0.5 and any_gold >= 0.9
