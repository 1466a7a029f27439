"""Claim decomposition: filters, prompt, the four backends (LLM against a loopback fake), question recall."""
from types import SimpleNamespace

import numpy as np
import pytest

from proofbook.data.politifact import ClaimDecompFinetuneExample
from proofbook.models.llm import ChatClient, LLMError, LLMSettings
from proofbook.wild.decomposition import (AnnotatedQuestions, CachedQuestions, GeneratorSettings, LLMQuestions,
                                          TrainedQuestionGenerator, decomposition_prompt, default_shots,
                                          filter_questions, question_recall, training_pairs, QUESTION_WORDS)

from tests.fake_llm import chat_reply

pytestmark = pytest.mark.unit

CLAIM = SimpleNamespace(example_id=7, person="Jane Doe", venue="stated on May 1, 2019 in a speech:",
                        claim="Taxes doubled.", subquestions=["Did taxes double?", "Did Doe say it?"])
EXAMPLES = [ClaimDecompFinetuneExample(i + 1, f"P{i}", "stated on May 1, 2019 in a speech:", f"claim {i}",
                                       [f"Is claim {i} true?", f"Did P{i} say claim {i}?"]) for i in range(4)]


def test_filters_drop_numbering_wh_words_and_duplicates():
    lines = ["1. Did taxes double?", "2) What did she say?", "- did taxes   DOUBLE?", "", "Is the source which she cited real?",
             "Q3: Were taxes raised in 2019?", "How much?"]
    assert filter_questions(lines) == ["Did taxes double?", "Were taxes raised in 2019?"]
    assert filter_questions(["Did taxes double?"], already=["did taxes double?"]) == []


def test_annotated_and_cached_backends():
    assert AnnotatedQuestions().questions(CLAIM) == CLAIM.subquestions
    assert CachedQuestions({7: ["Q?"]}).questions(CLAIM) == ["Q?"]
    with pytest.raises(KeyError, match="no cached questions"):
        CachedQuestions({}).questions(CLAIM)


def test_prompt_has_instruction_three_shots_and_the_claim():
    shots = default_shots(EXAMPLES)
    prompt = decomposition_prompt("Jane Doe stated on May 1, 2019 in a speech:\nTaxes doubled.", shots)
    assert prompt.startswith("Suppose you are a fact-checker, generate several yes or no questions")
    assert prompt.count("Claim: ") == 4 and "Is claim 2 true?" in prompt and "claim 3" not in prompt
    assert prompt.endswith("Claim: Jane Doe stated on May 1, 2019 in a speech:\nTaxes doubled.\nQuestions:")
    with pytest.raises(ValueError):
        default_shots(EXAMPLES[:2])


def test_llm_repeats_until_ten_questions(fake_llm):
    replies = ["1. Did taxes double?\n2. Who said it?\n3. Was it in 2019?",
               "1. Did taxes double?\n2. Is Doe a senator?\n" + "\n".join(f"{i}. Is fact {i} true?" for i in range(3, 9)),
               "1. Is fact 9 true?\n2. Is fact 10 true?"]
    fake_llm.script = [(200, chat_reply(r)) for r in replies]
    llm = LLMQuestions(default_shots(EXAMPLES))
    questions = llm.questions(CLAIM)
    assert len(questions) >= 10 and len(set(questions)) == len(questions)
    assert "Who said it?" not in questions and questions[0] == "Did taxes double?"
    assert llm.calls == [3] and fake_llm.requests[0]["temperature"] == 0.7


def test_llm_stops_after_five_calls(fake_llm):
    fake_llm.script = [(200, chat_reply("1. Did taxes double?"))]
    llm = LLMQuestions(default_shots(EXAMPLES))
    assert llm.questions(CLAIM) == ["Did taxes double?"]
    assert llm.calls == [5] and len(fake_llm.requests) == 5


def test_llm_errors_surface(fake_llm):
    fake_llm.script = [(400, {"error": "bad request"})]
    client = ChatClient(LLMSettings(fake_llm.base_url, "k", "m", max_retries=0))
    with pytest.raises(LLMError, match="HTTP 400"):
        LLMQuestions(default_shots(EXAMPLES), client=client).questions(CLAIM)


def test_training_pairs_one_per_question():
    pairs = training_pairs(EXAMPLES[:2])
    assert pairs[0] == ("P0 stated on May 1, 2019 in a speech:\nclaim 0", "Is claim 0 true?") and len(pairs) == 4


def test_trained_generator_runs_end_to_end():
    settings = GeneratorSettings(epochs=1, batch_size=4, beam=3, questions=3, max_target_length=12)
    generator = TrainedQuestionGenerator.train(EXAMPLES, settings, progress=False)
    questions = generator.questions_many([CLAIM, CLAIM])
    assert len(questions) == 2 and questions[0] == questions[1]          # one claim, one decode
    # at most min(beam, questions) = 3 beams kept; only question-like decodes (one '?', at the end) survive
    assert len(questions[0]) <= 3 and all(q.endswith("?") and q.count("?") == 1 for q in questions[0])
    from dataclasses import replace
    generator.settings = replace(settings, copy_constrained=True)
    words = set("taxes doubled jane doe stated on may 1 2019 in a speech".split())
    constrained = generator.questions_many([CLAIM])[0]
    # the constraint ends every beam with '?' then EOS, uses each token at most once, and allows '?' only after
    # three tokens: at least one beam reads as a question
    assert 1 <= len(constrained) <= 3 and all(q.endswith("?") and q.count("?") == 1 for q in constrained)
    for q in constrained:   # only claim words and question words
        assert set(q.rstrip("?").replace(",", " ").replace(":", " ").split()) <= words | set(QUESTION_WORDS), q


class FakeEmbedder:
    """Unit vectors from a fixed table: equal strings have cosine 1, others 0 unless listed."""
    def __init__(self, table):
        self.table = table

    def encode(self, texts, progress=None):
        return np.array([self.table[t] for t in texts], dtype=float)


def test_question_recall():
    s = np.sqrt(0.5)
    table = {"a": [1, 0, 0], "b": [0, 1, 0], "a'": [s, s, 0], "c": [0, 0, 1]}
    # claim 1: a matched by a' (cosine 0.707 >= 0.7), b matched by a' too; claim 2: c unmatched
    assert question_recall([["a", "b"], ["c"]], [["a'"], []], FakeEmbedder(table)) == pytest.approx(2 / 3)
    assert question_recall([["a", "b"], ["c"]], [["a'"], []], FakeEmbedder(table), threshold=0.8) == 0
    with pytest.raises(ValueError):
        question_recall([["a"]], [], FakeEmbedder(table))


def test_notebook_llm_hooks(fake_llm, monkeypatch):
    from proofbook.wild.tables import llm_questions, llm_summaries

    fake_llm.script = [(200, chat_reply("\n".join(f"{i}. Is fact {i} true?" for i in range(1, 11)))),
                       (200, chat_reply("A short summary."))]
    data = SimpleNamespace(finetune_train=EXAMPLES)
    assert llm_questions(data, CLAIM)[:2] == ["Is fact 1 true?", "Is fact 2 true?"]
    trace = SimpleNamespace(claim=CLAIM, questions=["q?"], evidence_texts=["some evidence"])
    assert llm_summaries(trace) == ["A short summary."]
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert llm_questions(data, CLAIM) is None and llm_summaries(trace) is None


def test_copy_constraint_allows_claim_words_then_question_mark():
    from proofbook.wild.decomposition import CopyConstraint

    c = CopyConstraint(content_ids=[10, 11, 12], function_ids=[1, 2], question_id=99, eos_token_id=0,
                       max_tokens=8, max_function=1)
    assert c.allowed([]) == [10, 11, 12, 1, 2]
    assert c.allowed([1]) == [10, 11, 12]                  # one question word used: no more
    assert c.allowed([1, 10, 11]) == [12, 99]              # each claim token once; '?' after three tokens
    assert c.allowed([1, 10, 11, 99]) == [0]               # then EOS
    assert c.allowed([10, 11, 12, 1, 2, 2]) == [99]        # at max_tokens - 2: close the question
