"""The teachable belief memory: persistence, exact and embedding matches, errors."""
import numpy as np
import pytest

from proofbook.entailer.memory import BeliefMemory, normalise

pytestmark = pytest.mark.unit


def fake_embed(texts):
    """Bag of letters: statements that share letters are close."""
    out = np.zeros((len(texts), 26), dtype=np.float32)
    for i, text in enumerate(texts):
        for ch in text.lower():
            if "a" <= ch <= "z":
                out[i, ord(ch) - 97] += 1
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_teach_persists_in_a_file_and_replaces(tmp_path):
    path = tmp_path / "beliefs.sqlite"
    memory = BeliefMemory(path)
    memory.teach("A whale is a fish.", False, note="mammal")
    memory.teach("the sun is a star", True)
    again = BeliefMemory(path)
    assert [(b.statement, b.truth) for b in again.beliefs()] == [("A whale is a fish.", False), ("the sun is a star", True)]
    again.teach("a whale is a fish", True)  # same key after normalising: replaces
    assert len(BeliefMemory(path)) == 2
    assert BeliefMemory(path).lookup(["A  WHALE is a fish"])[0].truth is True
    assert again.forget("a whale is a fish.") and not again.forget("a whale is a fish")


def test_exact_and_similar_matches():
    memory = BeliefMemory(embed=fake_embed, threshold=0.95)
    memory.teach("metals conduct electricity", True)
    exact, similar, none = memory.lookup(["Metals conduct electricity.", "metals conduct electricty", "a cat sleeps"])
    assert exact.match == "exact" and exact.similarity == 1.0
    assert similar.match == "similar" and similar.similarity >= 0.95 and similar.truth
    assert none is None
    assert BeliefMemory(threshold=0.5).lookup(["anything"]) == [None]  # empty memory
    without_embedder = BeliefMemory()
    without_embedder.teach("metals conduct electricity", True)
    assert without_embedder.lookup(["metals conduct electricty"]) == [None]


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="empty statement"):
        BeliefMemory().teach("  ", True)
    with pytest.raises(ValueError, match="True or False"):
        BeliefMemory().teach("x", "yes")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        BeliefMemory(tmp_path / "missing" / "b.sqlite")
    bad = tmp_path / "not.sqlite"
    bad.write_text("this is not a database" * 100)
    with pytest.raises(ValueError, match="not a SQLite database"):
        BeliefMemory(bad)
    with pytest.raises(ValueError, match="threshold"):
        BeliefMemory(threshold=0)
    assert normalise(" The Sun  is a star. ") == "the sun is a star"
