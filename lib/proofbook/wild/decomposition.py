"""Claim decomposition of claims in the wild: a claim -> yes/no questions, behind one interface.

Chen et al. (2023), §3.1: an LLM (text-davinci-003, temperature
0.7) with a 3-shot prompt ("Suppose you are a fact-checker, generate several yes or no questions ...")
is called repeatedly, at most 5 times, until at least 10 questions are collected; numbering,
questions with wh-words and duplicates are dropped (:func:`filter_questions`).

Every backend is a :class:`Decomposer`: ``decomposer.questions(claim) -> list[str]`` for a ClaimDecomp
record (anything with ``example_id``, ``person``, ``venue``, ``claim``):

* :class:`AnnotatedQuestions` -- ClaimDecomp's annotated subquestions (both annotators);
* :class:`CachedQuestions` -- the cached LLM questions of ``derived_web_search_cache`` (the questions
  whose search results the cache holds);
* :class:`TrainedQuestionGenerator` -- a :class:`proofbook.models.seq2seq.Seq2Seq` trained here on the
  800 train claims of ``finetune_train.jsonl``, one ``(claim, question)`` pair per annotated question, and
  decoded with beam search, the ``n`` best beams being the questions (then :func:`filter_questions`),
  optionally restricted to the claim's words and question words (:class:`CopyConstraint`);
* :class:`LLMQuestions` -- any OpenAI-compatible chat endpoint through
  :class:`proofbook.models.llm.ChatClient` with the paper's prompt, repeat-until-10 rule and filters.

Departures from the paper, stated where they matter:

* The paper's three in-context examples are not given in the paper text; :func:`default_shots` takes
  the first three train claims of ``finetune_train.jsonl`` with their annotated questions (never an
  evaluation claim).
* The trained generator is a small model trained on a CPU (the paper's fine-tuned baseline is T5-3B);
  its tokenizer is uncased, so its questions come back lower-cased.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping, Protocol, Sequence

from proofbook.core.codecs import object_codec
from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION, TrainConfig
from proofbook.data.politifact import ClaimDecompFinetuneExample
from proofbook.data.politifact_text import clean_question
from proofbook.models.llm import ChatClient
from proofbook.models.seq2seq import Seq2Seq

MIN_QUESTIONS, MAX_CALLS, TEMPERATURE = 10, 5, 0.7
WH_WORDS = ("what", "when", "where", "which", "who", "whom", "whose", "why", "how")
_WH = re.compile(r"\b(?:" + "|".join(WH_WORDS) + r")\b", re.IGNORECASE)
INSTRUCTION = ("Suppose you are a fact-checker, generate several yes or no questions to help me answer if "
               "this claim is true or false.")


class Decomposer(Protocol):
    """The interface of a decomposition backend: ``questions(claim)`` -> the claim's yes/no questions."""
    name: str

    def questions(self, claim) -> list[str]: ...


def claim_prompt_text(claim) -> str:
    """``"{person} {venue}\\n{claim}"`` -- the form of the fine-tuning chats' user turn."""
    return f"{claim.person} {claim.venue}".strip() + "\n" + claim.claim


def filter_questions(lines: Sequence[str], already: Sequence[str] = ()) -> list[str]:
    """The paper's filters: numbering removed; questions with a wh-word and duplicates dropped.

    Duplicates are found case- and space-insensitively, also against ``already``; blank lines and
    lines without a question are dropped.
    """
    seen = {" ".join(q.lower().split()) for q in already}
    kept = []
    for line in lines:
        question = clean_question(line)
        key = " ".join(question.lower().split())
        if not question or _WH.search(question) or key in seen:
            continue
        seen.add(key)
        kept.append(question)
    return kept


class AnnotatedQuestions:
    """ClaimDecomp's annotated subquestions."""

    name = "annotated"

    def questions(self, claim) -> list[str]:
        """The claim's annotated subquestions (ClaimDecomp, both annotators)."""
        return list(claim.subquestions)


class CachedQuestions:
    """Questions looked up by ``example_id`` (e.g. ``read_cached_subquestions(data_dir, "icl_gpt")``)."""

    def __init__(self, cache: Mapping[int, Sequence[str]], name: str = "cached"):
        self.cache, self.name = cache, name

    def questions(self, claim) -> list[str]:
        """The cached questions of ``claim.example_id``; raises KeyError for a claim not in the cache."""
        if claim.example_id not in self.cache:
            raise KeyError(f"claim {claim.example_id} has no cached questions ({len(self.cache)} claims cached)")
        return list(self.cache[claim.example_id])


# --- the trained question generator ------------------------------------------------------------

@dataclass(frozen=True)
class GeneratorSettings(ComponentSettings):
    """How the question generator is built, trained and decoded (every field keys its cache entry)."""

    CODE_VERSION = {"batching": BATCHING_VERSION}
    backend: str = "scratch"        # "scratch" (small BART) or "warm-start" (MiniLM encoder-decoder)
    d_model: int = 256              # size of the scratch model
    layers: int = 3
    epochs: int = 1
    batch_size: int = 8
    lr: float = 5e-4
    max_input_length: int = 64
    max_target_length: int = 32
    beam: int = 8
    questions: int = 8
    seed: int = 0
    limit: int | None = None        # train on the first `limit` claims only (smoke runs)
    copy_constrained: bool = False  # decode with :class:`CopyConstraint` (words of the claim + question words)

    @classmethod
    def smoke(cls, seed: int = 0) -> "GeneratorSettings":
        """Tiny settings for the tests: eight training claims, two beams, two questions."""
        return cls(epochs=1, limit=8, beam=2, questions=2, max_target_length=16, seed=seed)


def training_pairs(examples: Sequence[ClaimDecompFinetuneExample]) -> list[tuple[str, str]]:
    """One ``(claim text, question)`` pair per annotated question."""
    return [(claim_prompt_text(e), q) for e in examples for q in e.subquestions]


class TrainedQuestionGenerator:
    """A seq2seq question generator: the ``n`` best beams for a claim, filtered."""

    name = "trained"

    def __init__(self, model, settings: GeneratorSettings):
        self.model, self.settings = model, settings

    @classmethod
    def train(cls, examples: Sequence[ClaimDecompFinetuneExample], settings: GeneratorSettings,
              progress: bool = True) -> "TrainedQuestionGenerator":
        """A generator trained on the :func:`training_pairs` of ``examples`` (the first ``settings.limit``
        claims when set): a scratch seq2seq, or a warm-started one for ``backend="warm-start"``."""

        lengths = dict(max_input_length=settings.max_input_length, max_target_length=settings.max_target_length)
        model = (Seq2Seq.warm_start(seed=settings.seed, **lengths) if settings.backend == "warm-start"
                 else Seq2Seq.from_scratch(seed=settings.seed, d_model=settings.d_model, layers=settings.layers,
                                           **lengths))
        examples = list(examples)[:settings.limit] if settings.limit else list(examples)
        config = TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr,
                             seed=settings.seed, progress=progress)
        model.fit(training_pairs(examples), config)
        return cls(model, settings)

    @classmethod
    def cached(cls, examples: Sequence[ClaimDecompFinetuneExample], settings: GeneratorSettings, cache,
               data: os.PathLike | str | None = None, progress: bool = True) -> "TrainedQuestionGenerator":
        """Trained once per settings and training file, through the ArtifactCache."""

        model = cache.get_or_build("wild-question-generator", settings.cache_config(),
                                   lambda: cls.train(examples, settings, progress).model,
                                   *object_codec(Seq2Seq), data=data)
        return cls(model, settings)

    def questions_many(self, claims: Sequence) -> list[list[str]]:
        """The questions of each claim: its ``min(beam, questions)`` best beams (copy-constrained if
        ``copy_constrained``), degenerate decodes dropped, then :func:`filter_questions`."""
        s = self.settings
        texts = [claim_prompt_text(c) for c in claims]
        constraints = ([CopyConstraint.for_claim(self.model.tokenizer, text, self.model.eos_token_id,
                                                 s.max_target_length) for text in texts]
                       if s.copy_constrained else None)
        outputs = self.model.generate(texts, beam=s.beam, num_return=min(s.beam, s.questions),
                                      max_new_tokens=s.max_target_length, constraints=constraints)
        return [filter_questions([g.text for g in generated if _is_question_like(g.text)]) for generated in outputs]

    def questions(self, claim) -> list[str]:
        """The questions of one claim (see :meth:`questions_many`)."""
        return self.questions_many([claim])[0]


#: words a yes/no question may add to the words of its claim
QUESTION_WORDS = ("did", "does", "do", "is", "was", "were", "are", "has", "have", "had", "can", "could", "will",
                  "would", "should", "the", "a", "an", "of", "to", "in", "on", "for", "that", "this", "it", "and",
                  "or", "not", "any", "more", "than", "by", "with", "at", "from", "say", "said", "claim", "true",
                  "really", "actually", "there", "be", "been", "his", "her", "their", "he", "she", "they", "as",
                  "accurate", "correct", "evidence", "support", "many", "most", "percent", "increase", "decrease")


class CopyConstraint:
    """Copy-constrained decoding for the small trained generator (an addition to the paper).

    A generator trained from scratch on 800 claims for a CPU budget has not learnt to copy: left free,
    its beams repeat one or two frequent words.  This constraint lets it write only tokens of its own
    claim and at most ``max_function`` of :data:`QUESTION_WORDS`, each token at most once, then ``?``
    (allowed after three tokens) and EOS.  The model still chooses which words and in which order.  It has the
    interface :meth:`Seq2Seq.generate` expects of a constraint (``allowed``, ``max_length``).
    """

    def __init__(self, content_ids, function_ids, question_id: int, eos_token_id: int, max_tokens: int,
                 max_function: int = 5):
        self.content = sorted(set(content_ids) - set(function_ids) - {question_id})
        self.function = sorted(set(function_ids) - {question_id})
        self.question_id, self.eos_token_id, self.max_tokens = question_id, eos_token_id, max_tokens
        self._function_set = set(self.function)
        self.max_function = max_function

    @classmethod
    def for_claim(cls, tokenizer, claim_text: str, eos_token_id: int, max_tokens: int = 32) -> "CopyConstraint":
        """The constraint for one claim's text: its tokens, those of :data:`QUESTION_WORDS`, ``?`` and EOS."""
        ids = lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]  # noqa: E731
        function = {i for word in QUESTION_WORDS for i in ids(word)}
        return cls(ids(claim_text), function, ids("?")[0], eos_token_id, max_tokens)

    def max_length(self) -> int:
        """The most tokens a question may have (``max_tokens``)."""
        return self.max_tokens

    def allowed(self, prefix: Sequence[int], memo: dict | None = None) -> list[int]:
        """The token ids that may follow ``prefix``: unused claim tokens and (up to ``max_function``)
        question words, ``?`` after three tokens; only ``?`` near ``max_tokens``, only EOS after ``?``."""
        prefix = list(prefix)
        if prefix and prefix[-1] == self.question_id:
            return [self.eos_token_id]
        if len(prefix) >= self.max_tokens - 2:
            return [self.question_id]
        used = {}
        for token in prefix:
            used[token] = used.get(token, 0) + 1
        n_function = sum(count for token, count in used.items() if token in self._function_set)
        options = [t for t in self.content if t not in used]
        if n_function < self.max_function:
            options += [t for t in self.function if t not in used]
        if len(prefix) >= 3:
            options.append(self.question_id)
        return options or [self.question_id]


def _is_question_like(text: str) -> bool:
    """At least three distinct words and one question mark at the end: drops degenerate decodes (``"did did ??"``).

    An addition to the paper's filters, for the small trained generator only.
    """
    words = re.findall(r"[a-z0-9']+", text.lower())
    return len(set(words)) >= 3 and text.rstrip().endswith("?") and text.count("?") == 1


# --- the LLM backend -------------------------------------------------------------------------------

def default_shots(examples: Sequence[ClaimDecompFinetuneExample], n: int = 3) -> list[tuple[str, list[str]]]:
    """The in-context examples: the first ``n`` train claims with their annotated questions."""
    if len(examples) < n:
        raise ValueError(f"need {n} training claims for the prompt's examples, got {len(examples)}")
    return [(claim_prompt_text(e), list(e.subquestions)) for e in examples[:n]]


def decomposition_prompt(claim_text: str, shots: Sequence[tuple[str, Sequence[str]]]) -> str:
    """The paper's instruction, ``len(shots)`` examples, then the claim."""
    parts = [INSTRUCTION, ""]
    for example, questions in shots:
        parts += [f"Claim: {example}", "Questions:", *questions, ""]
    parts += [f"Claim: {claim_text}", "Questions:"]
    return "\n".join(parts)


class LLMQuestions:
    """The paper's decomposition through an OpenAI-compatible endpoint.

    Calls the endpoint at most ``max_calls`` times (temperature 0.7) until ``min_questions`` questions
    survive :func:`filter_questions`; ``calls`` records how many calls each claim took.
    """

    name = "llm"

    def __init__(self, shots: Sequence[tuple[str, Sequence[str]]], client=None, temperature: float = TEMPERATURE,
                 min_questions: int = MIN_QUESTIONS, max_calls: int = MAX_CALLS, max_tokens: int = 256):

        self.client = client or ChatClient()
        self.shots, self.temperature = list(shots), temperature
        self.min_questions, self.max_calls, self.max_tokens = min_questions, max_calls, max_tokens
        self.calls: list[int] = []

    def questions(self, claim) -> list[str]:
        """The paper's decomposition of one claim: endpoint calls until ``min_questions`` questions survive
        :func:`filter_questions` or ``max_calls`` is reached (the number of calls goes to ``calls``)."""
        prompt = decomposition_prompt(claim_prompt_text(claim), self.shots)
        questions: list[str] = []
        calls = 0
        while len(questions) < self.min_questions and calls < self.max_calls:
            reply = self.client.complete(prompt, temperature=self.temperature, max_tokens=self.max_tokens)
            calls += 1
            questions += filter_questions(reply.splitlines(), questions)
        self.calls.append(calls)
        return questions


# --- evaluation --------------------------------------------------------------------------------------

RECALL_THRESHOLD = 0.7


def question_recall(annotated: Sequence[Sequence[str]], generated: Sequence[Sequence[str]], embedder,
                    threshold: float = RECALL_THRESHOLD) -> float:
    """Share of annotated questions matched by some generated question of the same claim at cosine >= threshold.

    ``embedder`` is a :class:`proofbook.index.dense.SentenceEmbedder` (unit vectors: cosine = dot).
    A claim without generated questions matches none of its annotated ones.
    """
    if len(annotated) != len(generated):
        raise ValueError(f"question_recall: {len(annotated)} annotated lists but {len(generated)} generated")
    flat_a = [q for qs in annotated for q in qs]
    flat_g = [q for qs in generated for q in qs]
    if not flat_a:
        return 0.0
    vectors_a = embedder.encode(flat_a, progress=False)
    vectors_g = embedder.encode(flat_g, progress=False) if flat_g else None
    matched, a0, g0 = 0, 0, 0
    for qs_a, qs_g in zip(annotated, generated):
        if qs_g and qs_a:
            similarity = vectors_a[a0:a0 + len(qs_a)] @ vectors_g[g0:g0 + len(qs_g)].T
            matched += int((similarity.max(axis=1) >= threshold).sum())
        a0, g0 = a0 + len(qs_a), g0 + len(qs_g)
    return matched / len(flat_a)
