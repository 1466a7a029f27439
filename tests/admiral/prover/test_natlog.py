"""Proof objects, the verdict automaton and the renderings of proofbook.admiral.prover.natlog (papers.md §1)."""
import pytest

from proofbook.admiral.prover.natlog import NEI, REFUTES, SUPPORTS, TRANSITIONS, Proof, ProofError, automaton_path, normalize, proofs_html, span_position, verdict
from proofbook.data.proofver import OPERATORS

pytestmark = pytest.mark.unit

EXAMPLE = "{ Future } [ Future ] = { is a rapper } [ is an American rapper ] <"


def test_automaton_table_matches_papers_md():
    expected = {SUPPORTS: "S S R R NEI NEI", REFUTES: "R NEI S NEI R NEI"}
    short = {"S": SUPPORTS, "R": REFUTES, "NEI": NEI}
    for state, row in expected.items():
        assert [TRANSITIONS[state][op] for op in "=<!|>#"] == [short[x] for x in row.split()]
    assert all(TRANSITIONS[NEI][op] == NEI for op in OPERATORS)  # NEI absorbs


@pytest.mark.parametrize("ops, result", [
    ("==<", SUPPORTS), ("=!", REFUTES), ("!!", SUPPORTS), ("|=", REFUTES), ("|<", NEI), ("=#=", NEI),
    ("!>", REFUTES), (">", NEI), ("", SUPPORTS), ("|!", SUPPORTS), ("#!", NEI),
])
def test_verdicts(ops, result):
    assert verdict(list(ops)) == result


def test_path_and_unknown_operator_in_automaton():
    assert automaton_path("=!=") == [SUPPORTS, SUPPORTS, REFUTES, REFUTES]
    with pytest.raises(ProofError, match=r"unknown operator '\?' in step 2"):
        automaton_path(["=", "?"])


def test_parse_render_roundtrip():
    proof = Proof.parse(EXAMPLE, claim="Future is a rapper.")
    assert proof.operators == ("=", "<")
    assert proof.verdict == SUPPORTS and proof.path == [SUPPORTS, SUPPORTS, SUPPORTS]
    assert str(proof) == EXAMPLE
    assert Proof.parse(str(proof)).steps == proof.steps
    assert proof.spans == ((0, 1), (1, 4)) and proof.covered() == pytest.approx(4 / 5)  # "." uncovered


def test_text_and_html_rendering():
    proof = Proof.parse("{ Anne Rice } [ Anne Rice ] = { was born in New Jersey } [ was born in New Orleans ] |",
                        claim="Anne Rice was born in New Jersey", evidence=[("Anne Rice", "Anne Rice was born in New Orleans.")],
                        score=-0.42)
    text = proof.to_text()
    assert "alternation" in text and "S -> R" in text and "REFUTES" in text and "-0.420" in text
    page = proof.to_html()
    assert "<table" in page and "excludes" in page  # the operator as words
    assert "alternation" in page and "equivalence" in page and "REFUTES" in page
    assert "<u>Anne Rice</u>" in page and "New Orleans" in page and "&rarr;" in page
    assert proof._repr_html_() == page
    hostile = Proof.parse("{ a<b } [ <script> ] =", claim="a<b")
    assert "<script>" not in hostile.to_html()
    assert proofs_html([proof, hostile], ["one", "two"]).count("natlog-proof") == 2


def test_span_matching_is_case_and_spacing_insensitive():
    claim = "The 49ers' season, in 2013."
    assert normalize("The 49ERS ' season ,") == "the 49ers ' season ,"
    assert span_position("49ers ' season", claim) == (1, 4)
    Proof.parse("{ the 49ers ' season } [ x ] = { in 2013 } [ in 2013 ] =", claim=claim)


def test_error_unparseable():
    with pytest.raises(ProofError, match=r"cannot read proof .*\{ Future \[ Future.*cannot parse"):
        Proof.parse("{ Future [ Future ] =")
    with pytest.raises(ProofError, match="empty proof"):
        Proof.parse("   ")


def test_error_unknown_operator():
    with pytest.raises(ProofError, match=r"unknown operator '\?' in step 2"):
        Proof.parse("{ Future } [ Future ] = { is a rapper } [ is a rapper ] ?")
    with pytest.raises(ProofError, match=r"unknown operator '~' in step 1"):
        Proof.from_triples([("a", "b", "~")])


def test_error_span_not_in_claim():
    with pytest.raises(ProofError, match=r"claim span 'is a singer' \(step 2\) does not occur in the claim 'Future is a rapper.'"):
        Proof.parse("{ Future } [ Future ] = { is a singer } [ is a rapper ] =", claim="Future is a rapper.")
    with pytest.raises(ProofError, match=r"'Future' \(step 2\) occurs only before the previous span"):
        Proof.parse("{ is a rapper } [ x ] = { Future } [ Future ] =", claim="Future is a rapper.")


def test_from_triples_errors():
    with pytest.raises(ProofError, match="expected"):
        Proof.from_triples([("a", "b")])
    with pytest.raises(ProofError, match="empty evidence span"):
        Proof.from_triples([("a", " ", "=")])
    with pytest.raises(ProofError, match="at least one step"):
        Proof(())


def test_best_operators_reaches_the_target_verdict():
    from math import log

    from proofbook.admiral.prover.natlog import best_operators

    steps = [{"=": log(0.7), "|": log(0.2), "#": log(0.1)}, {"=": log(0.5), "#": log(0.4), "!": log(0.1)}]
    assert best_operators(steps) == ["=", "="]
    assert best_operators(steps, SUPPORTS) == ["=", "="]
    assert best_operators(steps, REFUTES) == ["|", "="]            # 0.2*0.5 > 0.7*0.1
    assert verdict(best_operators(steps, NEI)) == NEI and best_operators(steps, NEI) == ["=", "#"]
    with pytest.raises(ProofError, match="unknown verdict 'MAYBE'"):
        best_operators(steps, "MAYBE")


def test_target_verdict_counts_an_unreadable_proof_instead_of_stopping():
    from proofbook.admiral.prover.natlog import UNREADABLE, target_verdict

    assert target_verdict(EXAMPLE) == Proof.parse(EXAMPLE).verdict
    assert target_verdict("{ a } [ b, {'1 ] = { c } [ c ] =") == UNREADABLE
