"""Claim chunking and MiniLM chunk-to-evidence alignment (proofbook.admiral.prover.alignment)."""
import pytest

from proofbook.admiral.prover.alignment import Aligner, chunk_claim
from proofbook.admiral.prover.natlog import span_position

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("claim, chunks", [
    ("Anne Rice was born in New Jersey.", ["Anne Rice", "was born", "in New Jersey"]),
    ("Future is a rapper.", ["Future", "is a rapper"]),
    ("The director of the film Titanic, James Cameron, was born in Canada.",
     ["The director", "of the film Titanic", "James Cameron", "was born", "in Canada"]),
    ("one two three four five six seven eight", ["one two three four five six", "seven eight"]),
])
def test_chunk_claim(claim, chunks):
    assert chunk_claim(claim) == chunks
    position = 0
    for chunk in chunks:  # chunks are claim spans, in claim order
        position = span_position(chunk, claim, position)[1]


def test_chunk_claim_rejects_wordless_claims():
    with pytest.raises(ValueError, match=r"without words: '\.\.\.'"):
        chunk_claim("...")


@pytest.fixture(scope="module")
def aligner():
    return Aligner()


def test_align_finds_matching_spans(aligner):
    evidence = ["Anne Rice (born 1941) is an American novelist.", "Rice was born in New Orleans, Louisiana."]
    result = aligner.align("Anne Rice was born in New Jersey.", evidence)
    assert [a.chunk for a in result] == ["Anne Rice", "was born", "in New Jersey"]
    assert (result[0].evidence_span, result[0].sentence) == ("Anne Rice", 0)
    assert result[1].sentence == 1 and "born" in result[1].evidence_span
    for a in result:
        assert evidence[a.sentence].find(a.evidence_span) >= 0 and 1 <= a.end - a.start <= 6


def test_align_many_and_errors(aligner):
    many = aligner.align_many(["Future is a rapper.", "Titanic is a film."],
                              [["Future is an American rapper."], ["Titanic is a 1997 film."]])
    assert [len(r) for r in many] == [2, 2] and many[1][0].evidence_span == "Titanic"
    with pytest.raises(ValueError, match="no evidence sentence"):
        aligner.align("Future is a rapper.", [])
    with pytest.raises(ValueError, match="'is a singer' does not occur in the claim"):
        aligner.align("Future is a rapper.", ["Future raps."], chunks=["is a singer"])
