"""WordNet offline (proofbook.admiral.prover.wordnet) and the lexical natural-logic baseline (proofbook.admiral.prover.lexical)."""
import gzip
from pathlib import Path

import pytest

from proofbook.admiral.prover import wordnet as wnmod

pytestmark = pytest.mark.unit
HAVE_DEBIAN = (wnmod.DEBIAN_WORDNET / "data.noun").is_file() and wnmod.DEBIAN_LEXNAMES_MAN.is_file()
needs_wordnet = pytest.mark.skipif(not HAVE_DEBIAN, reason="WordNet Debian files missing: run scripts/install_wordnet.sh")


def _fake_debian(tmp_path: Path) -> tuple[Path, Path]:
    source = tmp_path / "usr-share-wordnet"
    source.mkdir()
    for name in wnmod.REQUIRED + ("noun.exc",):
        (source / name).write_text("  1 fake\n")
    lines = [".TS", "l l l."] + [f"{i:02d}\t{pos}.x{i}\tdescription" for i, pos in
                                  enumerate(["adj"] * 3 + ["noun"] * 26 + ["verb"] * 15 + ["adj"])] + [".TE"]
    man = tmp_path / "lexnames.5WN.gz"
    with gzip.open(man, "wt") as f:
        f.write("\n".join(lines) + "\n")
    return source, man


def test_ensure_wordnet_copies_and_is_idempotent(tmp_path):
    source, man = _fake_debian(tmp_path)
    folder = wnmod.ensure_wordnet(tmp_path / "nltk_data", source, man)
    assert folder == tmp_path / "nltk_data" / "corpora" / "wordnet"
    assert (folder / "data.noun").is_file() and not (folder / "data.noun").is_symlink()
    lexnames = (folder / "lexnames").read_text().splitlines()
    assert len(lexnames) == 45 and lexnames[0] == "00\tadj.x0\t3" and lexnames[5] == "05\tnoun.x5\t1"
    (folder / "data.noun").write_text("kept")
    assert wnmod.ensure_wordnet(tmp_path / "nltk_data", tmp_path / "gone", man) == folder   # complete: no copy
    assert (folder / "data.noun").read_text() == "kept"


def test_ensure_wordnet_honours_nltk_data(tmp_path, monkeypatch):
    monkeypatch.setenv("NLTK_DATA", str(tmp_path / "env_nltk"))
    assert wnmod.nltk_data_dir() == tmp_path / "env_nltk"
    source, man = _fake_debian(tmp_path)
    assert wnmod.ensure_wordnet(None, source, man).parent.parent == tmp_path / "env_nltk"


def test_missing_wordnet_names_the_apt_command(tmp_path):
    with pytest.raises(wnmod.WordNetMissing, match="apt-get install --no-install-recommends wordnet-base wordnet-sense-index"):
        wnmod.ensure_wordnet(tmp_path / "nltk_data", tmp_path / "nothing", tmp_path / "nothing.gz")


@needs_wordnet
def test_lexnames_from_the_real_man_page():
    text = wnmod.lexnames_from_man()
    assert text.splitlines()[18] == "18\tnoun.person\t1" and text.splitlines()[44] == "44\tadj.ppl\t3"


@needs_wordnet
@pytest.mark.parametrize("claim, evidence, op", [
    ("is a rapper", "is a rapper", "="),
    ("is a film", "is a movie", "="),
    ("is a performer", "is an American rapper", "<"),
    ("won an award", "won an Academy Award", "<"),
    ("is a rapper", "is a performer", ">"),
    ("was born in New Jersey", "was born in New Orleans", "|"),
    ("in 2012", "in 2015", "|"),
    ("is a dog", "is a cat", "|"),
    ("is not a singer", "is a singer", "!"),
    ("never won", "won", "!"),
    ("is a vegan", "is a fashion muse", "#"),
])
def test_lexical_operators(claim, evidence, op):
    from proofbook.admiral.prover.lexical import lexical_operator

    assert lexical_operator(claim, evidence) == op


@needs_wordnet
def test_lexical_proof_runs_the_automaton():
    from proofbook.admiral.prover.lexical import lexical_proof

    proof = lexical_proof("Anne Rice was born in New Jersey",
                          [("Anne Rice", "Anne Rice"), ("was born in New Jersey", "was born in New Orleans")])
    assert proof.operators == ("=", "|") and proof.verdict == "REFUTES"
