"""The stored BM25 index (proofbook.index.index_file): varint codes, and files that read back into an
index with bit-for-bit the same scores; damaged files are clear errors."""
import numpy as np
import pytest

from proofbook.core.corpus import Corpus
from proofbook.index.bm25 import BM25, DocumentIndex
from proofbook.index.index_file import decode_varints, encode_varints


@pytest.mark.unit
def test_varints_round_trip_at_every_byte_boundary():
    values = [0, 1, 127, 128, 255, 16383, 16384, 2**21 - 1, 2**21, 2**32 + 5, 2**63, 2**64 - 1]
    data = encode_varints(values)
    assert len(encode_varints([127])) == 1 and len(encode_varints([128])) == 2 and len(encode_varints([2**64 - 1])) == 10
    decoded, used = decode_varints(data + b"\x05", len(values))
    assert decoded.tolist() == values and used == len(data)


@pytest.mark.unit
def test_a_truncated_varint_stream_is_a_clear_error():
    with pytest.raises(ValueError, match="stored.bin: truncated: expected 3 numbers, found 1"):
        decode_varints(encode_varints([300, 5])[:-1], 3, "stored.bin")


def random_docs(seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    words = ["ama", "belo", "río", "the", "a", "cora", "dune", "Ωmega", "x" * 300] + [f"w{i}" for i in range(200)]
    return [list(rng.choice(words, size=rng.integers(0, 40))) for _ in range(300)]


@pytest.mark.unit
@pytest.mark.parametrize("seed, params", [(0, {}), (1, dict(k1=0.9, b=0.1)), (2, dict(k1=1.2, b=0.0, epsilon=0.5))])
def test_a_stored_index_scores_bit_for_bit_the_same(seed, params):
    docs = random_docs(seed)
    index = BM25(docs, **params)
    back = BM25.from_bytes(index.to_bytes())
    assert (back.k1, back.b, back.epsilon, back.n_docs) == (index.k1, index.b, index.epsilon, index.n_docs)
    assert back.average_idf == index.average_idf and back.avgdl == index.avgdl
    rng = np.random.default_rng(seed + 10)
    for _ in range(20):
        query = list(rng.choice(docs[int(rng.integers(len(docs)))] + ["unseen"], size=5))
        assert np.array_equal(back.get_scores(query), index.get_scores(query))


@pytest.mark.unit
def test_the_stored_index_is_smaller_than_its_python_objects():
    index = BM25(random_docs(3))
    assert len(index.to_bytes()) < index.nbytes / 2


@pytest.mark.unit
def test_a_page_index_keeps_its_titles():
    corpus = Corpus("pages")
    corpus.add("Ama River", ["The Ama is a river.", "It flows past Belo."])
    corpus.add("Cora Dune", ["Cora Dune was a painter.", "She lived in Belo."])
    corpus.add("Belo", ["Belo is a town."])
    index = DocumentIndex(corpus)
    back = DocumentIndex.from_bytes(index.to_bytes())
    assert back.titles == index.titles == ["Ama River", "Cora Dune", "Belo"]
    assert back.search("painter in Belo", k=3) == index.search("painter in Belo", k=3)


@pytest.mark.unit
def test_only_the_fast_backend_is_written():
    with pytest.raises(ValueError, match="only the fast backend"):
        BM25([["a", "b"]], backend="reference").to_bytes()


@pytest.mark.unit
@pytest.mark.parametrize("damage, message", [
    (lambda data: b"NOTBM25" + data[7:], "not a proofbook BM25 index"),
    (lambda data: data[:10], "truncated header"),
    (lambda data: data[:-3], "expected .* bytes, found"),
    (lambda data: data + b"xyz", "expected .* bytes, found"),
])
def test_a_damaged_file_is_a_clear_error(damage, message):
    data = BM25([["ama", "belo", "belo"], ["cora"]]).to_bytes(["A", "B"])
    with pytest.raises(ValueError, match=f"pages.bin: {message}"):
        BM25.from_bytes(damage(data), what="pages.bin")
