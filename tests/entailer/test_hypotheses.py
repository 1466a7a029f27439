"""Question + option -> hypothesis: the rules, the writer format, the metrics."""
import pytest

from proofbook.entailer import hypotheses as hyp

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("question, answer, expected", [
    ("Which event occurs on a daily cycle?", "The Sun rises and sets.", "the sun rises and sets is the event that occurs on a daily cycle"),
    ("What is the main source of energy for Earth?", "the Sun", "the main source of energy for earth is the sun"),
    ("The measure of light from a star is known as", "apparent magnitude.", "the measure of light from a star is known as apparent magnitude"),
    ("In New York State, the shortest day occurs during which month?", "December", "in new york state, the shortest day occurs during december"),
    ("The Moon is kept in orbit by which of the following?", "gravity", "the moon is kept in orbit by gravity"),
    ("A plant needs ___ to grow.", "light", "a plant needs light to grow"),
    ("Andy lives in the south. What season does he experience in August?", "winter", "winter is the season that he experience in august"),
])
def test_rules(question, answer, expected):
    assert hyp.rule_hypothesis(question, answer) == expected


def test_rule_errors():
    with pytest.raises(ValueError, match="empty answer"):
        hyp.rule_hypothesis("What is it?", " . ")
    with pytest.raises(ValueError, match="empty question"):
        hyp.rule_hypothesis("  ", "x")


def test_writer_format_and_metrics():
    assert hyp.writer_input("What is X?", "y.") == "$hypothesis$ ; $question$ = What is X? ; $answer$ = y"
    assert hyp.writer_target("x  is y") == "$hypothesis$ = x is y"
    assert hyp.parse_writer_output("$ hypothesis $ = x is y") == "x is y"
    assert hyp.parse_writer_output("x is y") == "x is y"
    assert hyp.token_f1("the sun is a star", "the sun is a star") == 1.0
    assert hyp.token_f1("a b", "c d") == 0.0
    score = hyp.hypothesis_metrics("rules", ["The sun is a star.", "a b"], ["the sun is a star", "a c"])
    assert score.exact_match == 0.5 and score.n == 2 and 0.5 < score.token_f1 < 1


class FakeSeq2Seq:
    def __init__(self, texts):
        self.texts = texts

    def generate(self, inputs, **kwargs):
        from types import SimpleNamespace
        return [[SimpleNamespace(text=t)] for t in self.texts[:len(inputs)]]


def test_learned_writer_falls_back_on_empty_output():
    writer = hyp.LearnedWriter(FakeSeq2Seq(["$ hypothesis $ = The Sun is a star", "$hypothesis$ = "]))
    out = writer.write(["What is the sun?", "What is the moon?"], ["a star", "a satellite"])
    assert out == ["the sun is a star", "the moon is a satellite"] and writer.fallbacks == 1
