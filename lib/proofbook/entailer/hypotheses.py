"""Question + answer option -> a declarative hypothesis, the statement Entailer proves.

Entailer (Tafjord et al. 2022, §3.3) proves a *hypothesis* for each answer option:
question + answer rewritten as one statement ("Which event occurs on a daily cycle?" + "the sun rises
and sets" -> "the sun rises and sets is the event that occurs on a daily cycle").  The paper uses a
hypothesis writer trained for this (EntailmentBank gives question/answer/hypothesis triples).  Two
writers are here, compared on EntailmentBank dev by :func:`compare_writers`:

* :class:`RuleWriter` -- a few rewriting rules, no training: fill a blank or a trailing fragment,
  turn "what is X?" into "X is A", "which N V ...?" into "A is the N that V ...", and replace an inner
  "which N" by the answer.  Output is lower case (EntailmentBank's hypotheses are).
* :class:`LearnedWriter` -- a :class:`proofbook.models.seq2seq.Seq2Seq` trained on EntailmentBank's
  train triples in the official angle format ``$hypothesis$ ; $question$ = Q ; $answer$ = A`` ->
  ``$hypothesis$ = H`` (:func:`writer_pairs`).

Metrics (:func:`hypothesis_metrics`): exact match after normalising case, spaces and final punctuation,
and the mean unigram F1 against the gold hypothesis (EntailmentBank's hypotheses are free rewrites, so
exact match is low for any writer).  Questions whose stem has context sentences before the question
keep only the last sentence in the rule writer (the hypothesis should stand alone).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Protocol, Sequence

from proofbook.entailer.formats import ANSWER, HYPOTHESIS, QUESTION, FormatError, render

_AUX = ("is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "might",
        "may", "has", "have", "had", "must")
_BE = ("is", "are", "was", "were")
_PREPOSITIONS = ("in", "on", "at", "during", "by", "from", "to", "for", "with", "into", "of", "through")
_VERB_AFTER_WH = ("explains", "describes", "causes", "makes", "happens", "occurs", "determines", "shows", "helps",
                  "best", "most", "likely", "would", "will", "can", "could", "should", "might", "may", "must",
                  "produces", "results", "forms", "prevents", "allows", "uses", "contains", "provides", "affects")
_BLANK = re.compile(r"_{2,}|\b_\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")


def _clean_answer(answer: str) -> str:
    answer = " ".join(str(answer).split()).rstrip(".!?;:, ")
    if not answer:
        raise ValueError("empty answer option")
    return answer


def _last_sentence(stem: str) -> str:
    stem = " ".join(str(stem).split())
    if not stem:
        raise ValueError("empty question")
    parts = [p for p in _SENTENCE_END.split(stem) if p.strip()]
    return parts[-1] if parts else stem


def rule_hypothesis(question: str, answer: str) -> str:
    """One declarative hypothesis for ``question`` + ``answer`` by rewriting rules (lower case)."""
    answer = _clean_answer(answer)
    q = _last_sentence(question)
    if _BLANK.search(q):
        text = _BLANK.sub(answer, q, count=1)
    elif not q.endswith("?"):
        text = f"{q.rstrip(' :;,-')} {answer}"
    else:
        text = _wh_question(q.rstrip("? ").strip(), answer)
    return re.sub(r"\s+", " ", text).strip().rstrip(".").lower()


def _wh_question(q: str, answer: str) -> str:
    words = q.split()
    lower = [w.lower().strip(",") for w in words]
    # "what is the function of roots" -> "the function of roots is A"
    if len(words) >= 3 and lower[0] in ("what", "which", "who") and lower[1] in _BE:
        return f"{' '.join(words[2:])} {lower[1]} {answer}"
    # "in which season do the plants receive ..." -> "the plants receive ... in A"
    if len(words) >= 4 and lower[0] in _PREPOSITIONS and lower[1] in ("which", "what"):
        rest = words[3:]
        if rest and rest[0].lower() in ("do", "does", "did"):
            rest = rest[1:]
        return f"{' '.join(rest)} {lower[0]} {answer}"
    if lower[0] in ("which", "what", "who"):
        if len(words) >= 3 and lower[1] == "of" and lower[2] in ("the", "these", "those"):
            # "which of these (locations ...) contains X" -> "A contains X"
            start = 4 if lower[2] == "the" else 3  # "of the following" / "of these"
            verbs = [i for i in range(start, len(words)) if lower[i] in _AUX or lower[i] in _VERB_AFTER_WH]
            return f"{answer} {' '.join(words[verbs[0] if verbs else start:])}"
        if len(words) >= 3 and lower[1] in ("do", "does", "did"):
            # "what does the discovery tell the scientist" -> "the discovery tell the scientist A"
            return f"{' '.join(words[2:])} {answer}"
        if len(words) >= 2 and lower[1] in _VERB_AFTER_WH:
            return f"{answer} {' '.join(words[1:])}"
        # "which N ... AUX rest": noun phrase up to the first auxiliary (at most 4 words)
        for i in range(2, min(len(words), 6)):
            if lower[i] in _AUX or (lower[i] in _VERB_AFTER_WH and lower[i - 1] != "of"):
                noun, aux, rest = " ".join(words[1:i]), lower[i], words[i + 1:]
                if aux in ("do", "does", "did"):
                    return f"{answer} is the {noun} that {' '.join(rest)}"
                return f"{answer} is the {noun} that {aux} {' '.join(rest)}"
        if len(words) >= 3:  # "which event occurs on a daily cycle", "which type of motion describes ..."
            end = 4 if len(words) >= 5 and lower[2] == "of" else 2
            return f"{answer} is the {' '.join(words[1:end])} that {' '.join(words[end:])}"
        return f"{answer} is the {' '.join(words[1:])}"
    # an inner "which N": "the shortest period occurs during which month" -> "... during A"
    for i, w in enumerate(lower):
        if w in ("which", "what") and i > 0 and i + 1 < len(words):
            if lower[i + 1] == "of":  # "... by which of the following" -> "... by A"
                skip = 4 if i + 2 < len(words) and lower[i + 2] == "the" else 3
                return " ".join(words[:i] + [answer] + words[i + skip:])
            return " ".join(words[:i] + [answer] + words[i + 2:])
    if lower[0] == "why":
        return f"{' '.join(words[1:])} because {answer}"
    return f"{q} {answer}"


class HypothesisWriter(Protocol):
    """The interface of a hypothesis writer: ``write(questions, answers)`` -> one hypothesis per pair."""
    def write(self, questions: Sequence[str], answers: Sequence[str]) -> list[str]: ...


class RuleWriter:
    """The rule-based writer (no training)."""

    name = "rules"

    def write(self, questions: Sequence[str], answers: Sequence[str]) -> list[str]:
        """One hypothesis per ``(question, answer)`` pair, by :func:`rule_hypothesis`."""
        return [rule_hypothesis(q, a) for q, a in zip(questions, answers)]


def writer_input(question: str, answer: str) -> str:
    """``$hypothesis$ ; $question$ = Q ; $answer$ = A`` (the official angle format)."""
    return render([HYPOTHESIS], [(QUESTION, " ".join(question.split())), (ANSWER, _clean_answer(answer))])


def writer_target(hypothesis: str) -> str:
    """``$hypothesis$ = H``, the writer's training target (white space normalised)."""
    return f"${HYPOTHESIS}$ = {' '.join(hypothesis.split())}"


def parse_writer_output(text: str) -> str:
    """The hypothesis of a generated ``$hypothesis$ = H`` (a bare sentence is accepted as is)."""
    text = " ".join(str(text).split())
    match = re.match(r"^\$\s*hypothesis\s*\$\s*=\s*(.*)$", text, flags=re.I)
    hypothesis = (match.group(1) if match else text).strip()
    if not hypothesis:
        raise FormatError(f"no hypothesis in {text!r:.80}")
    return hypothesis


def writer_pairs(trees) -> list[tuple[str, str]]:
    """(input, target) pairs from EntailmentBank trees that have question, answer and hypothesis."""
    return [(writer_input(t.question, t.answer), writer_target(t.hypothesis)) for t in trees
            if t.question and t.answer and t.hypothesis]


class LearnedWriter:
    """A trained seq2seq hypothesis writer (greedy decoding); falls back to the rules on bad output."""

    name = "learned"

    def __init__(self, seq2seq, batch_size: int = 32, max_new_tokens: int = 48):
        self.seq2seq, self.batch_size, self.max_new_tokens = seq2seq, batch_size, max_new_tokens
        self.fallbacks = 0

    def write(self, questions: Sequence[str], answers: Sequence[str]) -> list[str]:
        """One lower-case hypothesis per ``(question, answer)`` pair; a malformed output falls back to
        :func:`rule_hypothesis` and is counted in ``fallbacks``."""
        inputs = [writer_input(q, a) for q, a in zip(questions, answers)]
        generated = self.seq2seq.generate(inputs, beam=1, max_new_tokens=self.max_new_tokens,
                                          batch_size=self.batch_size)
        out = []
        for q, a, candidates in zip(questions, answers, generated):
            try:
                out.append(parse_writer_output(candidates[0].text).lower())
            except (FormatError, IndexError):
                self.fallbacks += 1
                out.append(rule_hypothesis(q, a))
        return out



def _tokens(text: str) -> list[str]:
    return re.findall(r"\w+", str(text).lower())


def token_f1(predicted: str, gold: str) -> float:
    """Unigram F1 between two texts (SQuAD-style, lower case, punctuation ignored)."""
    p, g = _tokens(predicted), _tokens(gold)
    common = sum((Counter(p) & Counter(g)).values())
    if not p or not g or not common:
        return float(p == g)
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


@dataclass
class WriterScore:
    """A writer's exact match and mean token F1 over ``n`` questions (see :func:`hypothesis_metrics`)."""
    writer: str
    exact_match: float
    token_f1: float
    n: int
    per_question_f1: tuple[float, ...] = ()     # the token F1 of each question (for its bootstrap interval)


def hypothesis_metrics(writer_name: str, predicted: Sequence[str], gold: Sequence[str]) -> WriterScore:
    """Exact match (same lower-case word tokens) and mean :func:`token_f1` of ``predicted`` against ``gold``;
    raises ValueError if the two differ in length or are empty."""
    if len(predicted) != len(gold) or not gold:
        raise ValueError(f"{len(predicted)} predicted vs {len(gold)} gold hypotheses")
    exact = sum(_tokens(p) == _tokens(g) for p, g in zip(predicted, gold)) / len(gold)
    f1s = tuple(token_f1(p, g) for p, g in zip(predicted, gold))
    return WriterScore(writer_name, exact, sum(f1s) / len(gold), len(gold), f1s)


def compare_writers(writers: Sequence, trees) -> list[WriterScore]:
    """Each writer's exact match and token F1 on the trees' (question, answer) -> hypothesis."""
    trees = [t for t in trees if t.question and t.answer]
    questions, answers, gold = [t.question for t in trees], [t.answer for t in trees], [t.hypothesis for t in trees]
    return [hypothesis_metrics(w.name, w.write(questions, answers), gold) for w in writers]
