"""Natural-logic proofs: the ProoFVer proof object, the verdict automaton, and its renderings.

AdMIRaL (Aly & Vlachos 2022, §3.2) decides
whether retrieved evidence suffices by generating a **proof** in ProoFVer's format (Krishna, Riedel &
Vlachos 2022): a sequence of triples ``{ claim span } [ evidence span ] OP`` that covers the claim in
order, each operator one of MacCartney's natural-logic relations (:data:`proofbook.data.proofver.OPERATORS`).  A deterministic
finite automaton reads the operators from the state SUPPORTS; its final state is the verdict:

==========  ===  ===  ===  ===  ===  ===
state        =    <    !    |    >    #
==========  ===  ===  ===  ===  ===  ===
SUPPORTS     S    S    R    R   NEI  NEI
REFUTES      R   NEI   S   NEI   R   NEI
==========  ===  ===  ===  ===  ===  ===

NOT ENOUGH INFO absorbs.  The parsing of the textual format is the data reader's
(:func:`proofbook.data.proofver.parse_proof_string`, :class:`~proofbook.data.proofver.ProofStep`); this module
adds what a proof *means*: :class:`Proof` checks that every claim span occurs in the claim (in claim
order), runs the automaton (:func:`automaton_path`, :func:`verdict`) and renders the proof as plain text
(:meth:`Proof.to_text`) and as HTML for the book (:meth:`Proof.to_html`: claim spans aligned to evidence
spans, operators as words, the automaton's path).

Departures from the paper: span matching is case-insensitive and ignores spacing around punctuation,
because a proof decoded by an uncased WordPiece model is lower-cased and re-spaced; a claim span that
occurs in the claim but *before* the previous span is an error (out of claim order), as in ProoFVer.
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from proofbook.data.proofver import OPERATORS, VERDICTS, ProofStep, format_proof, parse_proof_string

__all__ = [
    "SUPPORTS", "REFUTES", "NEI", "TRANSITIONS", "OPERATOR_WORDS",
    "ProofError", "Proof", "automaton_path", "verdict", "normalize",
    "span_position", "best_operators", "verdict_probabilities",
]

SUPPORTS, REFUTES, NEI = VERDICTS
#: the automaton: state -> operator -> next state; NEI absorbs
TRANSITIONS: dict[str, dict[str, str]] = {
    SUPPORTS: {"=": SUPPORTS, "<": SUPPORTS, "!": REFUTES, "|": REFUTES, ">": NEI, "#": NEI},
    REFUTES: {"=": REFUTES, "<": NEI, "!": SUPPORTS, "|": NEI, ">": REFUTES, "#": NEI},
    NEI: {op: NEI for op in OPERATORS},
}
#: how an operator reads in a sentence: "the evidence span ... the claim span"
OPERATOR_WORDS: dict[str, str] = {
    "=": "is equivalent to",
    "<": "entails",
    ">": "is entailed by",
    "!": "negates",
    "|": "excludes",
    "#": "is independent of",
}
_STATE_SHORT = {SUPPORTS: "S", REFUTES: "R", NEI: "NEI"}
_STATE_COLOUR = {SUPPORTS: "#2e7d32", REFUTES: "#c62828", NEI: "#757575"}


class ProofError(ValueError):
    """A proof that cannot be read or does not fit its claim; the message quotes the offending text."""


def _check_operator(op: str, step: int | None = None) -> str:
    if op not in OPERATORS:
        where = f" in step {step}" if step is not None else ""
        raise ProofError(f"unknown operator {op!r}{where}; expected one of {list(OPERATORS)}")
    return op


def automaton_path(operators: Iterable[str], start: str = SUPPORTS) -> list[str]:
    """The states the automaton visits: ``[start, after op 1, after op 2, ...]``.

    An operator outside :data:`OPERATORS` raises a :class:`ProofError` naming it.
    """
    if start not in TRANSITIONS:
        raise ProofError(f"unknown automaton state {start!r}; expected one of {list(TRANSITIONS)}")
    path = [start]
    for number, op in enumerate(operators, start=1):
        path.append(TRANSITIONS[path[-1]][_check_operator(op, number)])
    return path


def best_operators(logprobs: Sequence[dict[str, float]], target: str | None = None) -> list[str]:
    """The operator sequence with the highest total log-probability whose automaton verdict is ``target``.

    ``logprobs[i]`` maps each operator to its log-probability at step ``i`` (e.g. from the operator
    model); ``target=None`` takes each step's best operator.  A Viterbi pass over the automaton's three
    states; raises :class:`ProofError` if no sequence reaches ``target`` (only possible for an empty proof).
    """
    if target is None:
        return [max(step, key=step.get) for step in logprobs]
    if target not in TRANSITIONS:
        raise ProofError(f"unknown verdict {target!r}; expected one of {list(TRANSITIONS)}")
    best: dict[str, tuple[float, list[str]]] = {SUPPORTS: (0.0, [])}
    for number, step in enumerate(logprobs, start=1):
        following: dict[str, tuple[float, list[str]]] = {}
        for state, (score, ops) in best.items():
            for op, logprob in step.items():
                nxt = TRANSITIONS[state][_check_operator(op, number)]
                candidate = (score + logprob, ops + [op])
                if nxt not in following or candidate[0] > following[nxt][0]:
                    following[nxt] = candidate
        best = following
    if target not in best:
        raise ProofError(f"no operator sequence of {len(logprobs)} steps reaches {target}")
    return best[target][1]


def verdict_probabilities(probabilities: Sequence[dict[str, float]]) -> dict[str, float]:
    """The probability of each verdict when step ``i``'s operator is drawn from ``probabilities[i]``
    (operator -> probability, steps independent): the automaton run forward over its three states,
    summing where :func:`best_operators` maximises.  An empty proof stays in SUPPORTS."""
    mass = {SUPPORTS: 1.0, REFUTES: 0.0, NEI: 0.0}
    for number, step in enumerate(probabilities, start=1):
        following = {SUPPORTS: 0.0, REFUTES: 0.0, NEI: 0.0}
        for state, p_state in mass.items():
            if p_state == 0.0:
                continue
            for op, p_op in step.items():
                following[TRANSITIONS[state][_check_operator(op, number)]] += p_state * p_op
        mass = following
    return mass


#: what :func:`target_verdict` says of a proof text that cannot be read back as triples
UNREADABLE = "unreadable"


def target_verdict(text: str) -> str:
    """The verdict a proof text's operators reach, or :data:`UNREADABLE` when the text is not a sequence of
    ``{ claim span } [ evidence span ] OP`` triples -- e.g. an evidence span copied from a corpus sentence
    that itself holds the format's braces or brackets.  For tables that count proofs by verdict, so that
    such a proof is counted as what it is instead of stopping the count."""
    try:
        return Proof.parse(text).verdict
    except ProofError:
        return UNREADABLE


def verdict(operators: Iterable[str]) -> str:
    """The automaton's final state for an operator sequence (SUPPORTS for an empty one)."""
    return automaton_path(operators)[-1]


# --- span matching ----------------------------------------------------------------------------

_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def normalize(text: str) -> str:
    """Lower-cased words and punctuation marks joined by single spaces (how spans are compared)."""
    return " ".join(_words(text))


def span_position(span: str, claim: str, start: int = 0) -> tuple[int, int] | None:
    """``(first word, end word)`` of the first occurrence of ``span`` in ``claim`` at or after word
    ``start`` (words as :func:`normalize` splits them), or None."""
    needle, hay = _words(span), _words(claim)
    if not needle:
        return None
    for i in range(start, len(hay) - len(needle) + 1):
        if hay[i:i + len(needle)] == needle:
            return i, i + len(needle)
    return None


# --- the proof object -------------------------------------------------------------------------

@dataclass
class Proof:
    """A ProoFVer proof of ``claim``: its steps, optionally the evidence it was read from and a score.

    ``score`` is the generator's length-normalised log-probability (``None`` for a proof not generated).
    ``spans`` holds the word positions of each claim span in the claim (filled by :meth:`check`, which
    runs on construction unless ``check_spans`` is False -- e.g. for data proofs whose spans were edited).
    """

    steps: tuple[ProofStep, ...]
    claim: str | None = None
    evidence: tuple[tuple[str, str], ...] = ()
    score: float | None = None
    spans: tuple[tuple[int, int], ...] = field(default=(), compare=False)
    check_spans: bool = field(default=True, compare=False, repr=False)

    def __post_init__(self) -> None:
        self.steps = tuple(self.steps)
        if not self.steps:
            raise ProofError("a proof needs at least one step")
        for number, step in enumerate(self.steps, start=1):
            _check_operator(step.operator, number)
        self.evidence = tuple(tuple(e) for e in self.evidence)
        if self.claim is not None and not self.spans:
            try:
                self.check()
            except ProofError:
                if self.check_spans:
                    raise

    # construction
    @classmethod
    def parse(cls, text: str, claim: str | None = None, evidence: Sequence[tuple[str, str]] = (),
              score: float | None = None) -> "Proof":
        """Read ``{ claim span } [ evidence span ] OP ...``; with ``claim``, check its spans against it.

        Errors (all :class:`ProofError`, quoting the offending text): a string that is not a sequence of
        triples, an unknown operator, a claim span that does not occur in the claim.
        """
        if not isinstance(text, str):
            raise ProofError(f"a proof must be a string, got {type(text).__name__}")
        try:
            steps = parse_proof_string(text)
        except ValueError as err:  # DataError: "<string>, field 'proof': ..." -> keep only the message
            message = getattr(err, "message", None) or str(err)
            raise ProofError(f"cannot read proof {text[:120]!r}: {message}") from None
        return cls(tuple(steps), claim, tuple(evidence), score)

    @classmethod
    def from_triples(cls, triples: Iterable[Sequence[str]], claim: str | None = None,
                     evidence: Sequence[tuple[str, str]] = (), score: float | None = None) -> "Proof":
        """A proof from ``(claim span, evidence span, operator)`` triples."""
        steps = []
        for number, triple in enumerate(triples, start=1):
            if len(triple) != 3:
                raise ProofError(f"step {number}: expected (claim span, evidence span, operator), got {tuple(triple)!r}")
            claim_span, evidence_span, op = (str(x).strip() for x in triple)
            if not claim_span or not evidence_span:
                raise ProofError(f"step {number}: empty {'claim' if not claim_span else 'evidence'} span in {tuple(triple)!r}")
            steps.append(ProofStep(claim_span, evidence_span, _check_operator(op, number)))
        return cls(tuple(steps), claim, tuple(evidence), score)

    def check(self) -> "Proof":
        """Locate each claim span in the claim, in order; a span not found raises :class:`ProofError`."""
        if self.claim is None:
            raise ProofError("no claim to check the proof against")
        spans, position = [], 0
        for number, step in enumerate(self.steps, start=1):
            found = span_position(step.claim_span, self.claim, position)
            if found is None:
                anywhere = span_position(step.claim_span, self.claim)
                problem = ("occurs only before the previous span (proofs cover the claim in order)" if anywhere
                           else "does not occur in the claim")
                raise ProofError(f"claim span {step.claim_span!r} (step {number}) {problem} {self.claim!r}")
            spans.append(found)
            position = found[1]
        self.spans = tuple(spans)
        return self

    # meaning
    @property
    def operators(self) -> tuple[str, ...]:
        return tuple(step.operator for step in self.steps)

    @property
    def path(self) -> list[str]:
        """The automaton's states, from SUPPORTS to the verdict (one more than the steps)."""
        return automaton_path(self.operators)

    @property
    def verdict(self) -> str:
        return self.path[-1]

    def covered(self) -> float:
        """Share of the claim's words covered by the claim spans (1.0 without a claim to compare)."""
        if self.claim is None:
            return 1.0
        words = set()
        for start, end in self.spans:
            words.update(range(start, end))
        return len(words) / max(1, len(_words(self.claim)))

    # rendering
    def __str__(self) -> str:
        return format_proof(self.steps)

    def to_text(self) -> str:
        """A terminal rendering: one line per step, then the automaton's path and the verdict."""
        lines = []
        if self.claim is not None:
            lines.append(f"claim: {self.claim}")
        for title, sentence in self.evidence:
            lines.append(f"evidence: [{title}] {sentence}" if title else f"evidence: {sentence}")
        width = max(len(s.claim_span) for s in self.steps)
        path = self.path
        for number, step in enumerate(self.steps):
            lines.append(f"  {step.claim_span:<{width}}  {step.operator}  {step.evidence_span}"
                         f"   ({step.operator_name}; {_STATE_SHORT[path[number]]} -> {_STATE_SHORT[path[number + 1]]})")
        score = f"  (score {self.score:.3f})" if self.score is not None else ""
        lines.append("path: " + " -> ".join(_STATE_SHORT[s] for s in path) + f"  => {self.verdict}{score}")
        return "\n".join(lines)

    def to_html(self) -> str:
        """HTML for the book: a table aligning claim spans to evidence spans, operator words, the path."""
        e = html.escape
        path = self.path
        rows = []
        for number, step in enumerate(self.steps):
            state = path[number + 1]
            rows.append(
                "<tr>"
                f"<td style='padding:2px 8px'><b>{e(step.claim_span)}</b></td>"
                f"<td style='padding:2px 8px;text-align:center' title='evidence {e(OPERATOR_WORDS[step.operator])} claim'>"
                f"<code>{e(step.operator)}</code> {e(step.operator_name)}</td>"
                f"<td style='padding:2px 8px'><i>{e(step.evidence_span)}</i></td>"
                f"<td style='padding:2px 8px;color:{_STATE_COLOUR[state]}'>{e(state)}</td>"
                "</tr>")
        head = ("<tr><th style='text-align:left;padding:2px 8px'>claim span</th><th>operator</th>"
                "<th style='text-align:left;padding:2px 8px'>evidence span</th><th>state after</th></tr>")
        parts = ["<div class='natlog-proof' style='margin:0.5em 0'>"]
        if self.claim is not None:
            parts.append(f"<div><b>Claim:</b> {self._claim_html()}</div>")
        for title, sentence in self.evidence:
            parts.append(f"<div><b>Evidence</b> [{e(title)}]: {e(sentence)}</div>" if title
                         else f"<div><b>Evidence:</b> {e(sentence)}</div>")
        parts.append(f"<table style='border-collapse:collapse;margin:4px 0'>{head}{''.join(rows)}</table>")
        arrows = " &rarr; ".join(f"<span style='color:{_STATE_COLOUR[s]}'>{e(s)}</span>" for s in path)
        score = f" &nbsp;(score {self.score:.3f})" if self.score is not None else ""
        parts.append(f"<div><b>Automaton:</b> {arrows} &rArr; <b>{e(self.verdict)}</b>{score}</div></div>")
        return "".join(parts)

    def _claim_html(self) -> str:
        """The claim with each claim span underlined (spans are known after :meth:`check`)."""
        words = _WORD.findall(self.claim or "")
        if not self.spans:
            return html.escape(self.claim or "")
        starts = {start: end for start, end in self.spans}
        out, i = [], 0
        while i < len(words):
            if i in starts:
                end = starts[i]
                out.append(f"<u>{html.escape(' '.join(words[i:end]))}</u>")
                i = end
            else:
                out.append(html.escape(words[i]))
                i += 1
        return " ".join(out)

    def _repr_html_(self) -> str:
        return self.to_html()


def proofs_html(proofs: Iterable[Proof], captions: Iterable[str] | None = None) -> str:
    """Several proofs one under another (with optional captions), for a notebook cell."""
    proofs = list(proofs)
    captions = list(captions) if captions is not None else [""] * len(proofs)
    return "".join((f"<h4>{html.escape(c)}</h4>" if c else "") + p.to_html() for p, c in zip(proofs, captions))
