"""Claim-focused summaries: extractive ranking/threshold (fake embedder and MiniLM), LLM prompt via a fake server."""
import numpy as np
import pytest

from proofbook.wild.summaries import IRRELEVANT, ExtractiveSummariser, LLMSummariser, summary_prompt

from tests.fake_llm import chat_reply

pytestmark = pytest.mark.unit


class KeywordEmbedder:
    """Vectors over a tiny vocabulary: cosine = shared keywords."""
    VOCAB = ["tax", "school", "rain", "senator", "budget"]

    def encode(self, texts, progress=None):
        rows = [[float(w in t.lower()) for w in self.VOCAB] + [0.01] for t in texts]
        matrix = np.array(rows)
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_extractive_keeps_best_two_sentences_in_document_order():
    document = ("The senator spoke on Monday. Rain is expected. The school budget was cut by the senator. "
                "Taxes on school supplies rose.")
    summary = ExtractiveSummariser(KeywordEmbedder(), threshold=0.5).summarise(
        "The senator cut the school budget.", ["Did taxes rise?"], document)
    assert summary == "The school budget was cut by the senator. Taxes on school supplies rose."


def test_extractive_irrelevant_below_threshold():
    summariser = ExtractiveSummariser(KeywordEmbedder(), threshold=0.5)
    assert summariser.summarise("The senator cut the budget.", [], "Rain tomorrow. More rain.") == IRRELEVANT
    assert summariser.summarise_many("x", [], ["", "Rain."]) == [IRRELEVANT, IRRELEVANT]


def test_extractive_with_minilm():
    summariser = ExtractiveSummariser()
    claim = "The governor raised the state sales tax to 7 percent."
    relevant = "In 2015 the governor signed a bill raising the sales tax from 6 to 7 percent. The weather was fine."
    summaries = summariser.summarise_many(claim, ["Did the governor raise the sales tax?"],
                                          [relevant, "Recipe: mix flour and eggs, then bake for an hour."])
    assert summaries[0].startswith("In 2015 the governor signed") and summaries[1] == IRRELEVANT


def test_llm_summary_prompt_and_irrelevant(fake_llm):
    fake_llm.script = [(200, chat_reply("  The bill raised the tax\n to 7%. ")),
                       (200, chat_reply("The document is irrelevant to the claim"))]
    summariser = LLMSummariser()
    assert summariser.summarise("claim text", [], "doc text") == "The bill raised the tax to 7%."
    assert summariser.summarise("claim text", [], "other") == IRRELEVANT
    prompt = fake_llm.requests[0]["messages"][0]["content"]
    assert prompt == summary_prompt("claim text", "doc text")
    assert "1-2 sentences" in prompt and "Do not make any judgment" in prompt
