"""The official Entailer formats: rendering, parsing, clear errors."""
import pytest

from proofbook.entailer import formats

pytestmark = pytest.mark.unit


def test_render_the_three_inputs():
    assert formats.premise_input("a leaf is green") == "$proof$ ; $hypothesis$ = a leaf is green"
    assert (formats.premise_input("h", question="q?", answer="a", context=["x", "y"])
            == "$proof$ ; $question$ = q? ; $answer$ = a ; $hypothesis$ = h ; $context$ = sent1: x sent2: y")
    assert formats.valid_input("h") == "$valid$ ; $hypothesis$ = h"
    assert formats.implied_input(["p1", "p2"], "h") == "$implied$ ; $hypothesis$ = h ; $proof$ = [PREMISE] p1 [PREMISE] p2"
    assert formats.premise_target(["p1", "p2"]) == "$proof$ = [PREMISE] p1 [PREMISE] p2"
    assert formats.boolean_targets("valid") == ("$valid$ = true", "$valid$ = false")


def test_parse_premises_round_trip_and_decoder_spacing():
    assert formats.parse_premises(formats.premise_target(["a b", "c"])) == ["a b", "c"]
    # what an uncased WordPiece decoder gives back
    assert formats.parse_premises("$ proof $ = [ premise ] a leaf is green [ premise ] green is a colour") == [
        "a leaf is green", "green is a colour"]
    assert formats.parse_premises("$proof$ = [PREMISE] x [PREMISE] ") == ["x"]


@pytest.mark.parametrize("text, message", [
    ("a leaf is green", "not a '$proof$"),
    ("$valid$ = true", "no $proof$"),
    ("$proof$ = a leaf is green", "no [PREMISE]"),
    ("$proof$ = [PREMISE] [PREMISE]", "every premise is empty"),
])
def test_parse_premises_errors_quote_the_text(text, message):
    with pytest.raises(formats.FormatError, match=message.replace("$", r"\$").replace("[", r"\[")):
        formats.parse_premises(text)


def test_parse_boolean():
    assert formats.parse_boolean("$valid$ = true", "valid") is True
    assert formats.parse_boolean("$ implied $ = False", "implied") is False
    with pytest.raises(formats.FormatError, match="expected 'true' or 'false'"):
        formats.parse_boolean("$valid$ = maybe", "valid")
    with pytest.raises(formats.FormatError, match=r"no \$valid\$"):
        formats.parse_boolean("$implied$ = true", "valid")


@pytest.mark.parametrize("bad", ["", "   ", "$valid$ ; x", "a [PREMISE] b"])
def test_bad_hypotheses_are_refused(bad):
    with pytest.raises(formats.FormatError):
        formats.valid_input(bad)


def test_empty_premise_list_is_refused():
    with pytest.raises(formats.FormatError, match="at least one premise"):
        formats.implied_input([], "h")
    with pytest.raises(formats.FormatError, match="premise 2 is empty"):
        formats.premise_target(["a", " "])
