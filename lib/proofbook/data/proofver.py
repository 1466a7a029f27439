"""The ProoFVer proof notation that every natural-logic file of QA-NatVer uses.

A ProoFVer proof (Krishna, Riedel & Vlachos 2022) is a sequence of triples ``{ claim span } [ evidence
span ] OP``; each operator is one of MacCartney's six natural-logic relations (:data:`OPERATORS`), and
the verdicts (:data:`VERDICTS`) are the states of the automaton that AdMIRaL's sufficiency check
(Aly & Vlachos 2022, §3.2) runs over the operators.  Here are the step record (:class:`ProofStep`),
the parser and writer of proof strings (:func:`parse_proof_string`, :func:`format_proof`),
:func:`operator_counts` and :class:`OperatorSequence` (the ``operators`` of a record of steps).  The
readers of the files written in it are in :mod:`proofbook.data.natlog` and
:mod:`proofbook.data.natlog_processed`.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass

from proofbook.data.textfile import DataError

#: the six natural-logic operators of ProoFVer, symbol -> name (in the papers' order)
OPERATORS: dict[str, str] = {
    "=": "equivalence",
    "<": "forward entailment",
    ">": "reverse entailment",
    "!": "negation",
    "|": "alternation",
    "#": "independence",
}
#: FEVER verdicts, the states of the natural-logic automaton
VERDICTS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")

_START_MARKER = "^"
# One triple: "{ claim span } [ evidence span ] OP".  The spans are matched lazily and the operator
# must be one of the six followed by a space, "{" or the end, so a span that itself holds "}", "[" or
# "]" still parses as long as the rest of the string does.  A span never holds "{", the start of a
# triple: otherwise a triple that lost its operator (or its evidence span) would silently swallow the
# next one into its span ("{ a } [ b ] { c } [ d ] =" read as one step with evidence "b ] { c } [ d").
# _LOOSE_STEP (any operator token) only serves to tell an unknown operator from a string that is not
# a triple at all.
_STEP = re.compile(r"\s*\{(?P<claim>[^{]*?)\}\s*\[(?P<evidence>[^{]*?)\]\s*(?P<op>[=<>!|#])(?=\s|\{|$)")
_LOOSE_STEP = re.compile(r"\s*\{(?P<claim>[^{]*?)\}\s*\[(?P<evidence>[^{]*?)\]\s*(?P<op>[^\s{]+)")


# --- proof steps -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ProofStep:
    """One triple of a proof: a claim span, the evidence span aligned to it, and their operator."""

    claim_span: str
    evidence_span: str
    operator: str

    @property
    def operator_name(self) -> str:
        return OPERATORS[self.operator]

    def __str__(self) -> str:
        return f"{{ {self.claim_span} }} [ {self.evidence_span} ] {self.operator}"


def format_proof(steps: list[ProofStep] | tuple[ProofStep, ...]) -> str:
    """The ProoFVer target string of ``steps`` (without the ``^`` marker)."""
    return " ".join(str(step) for step in steps)


def parse_proof_string(text: str, path: os.PathLike | str | None = None, line: int | None = None) -> list[ProofStep]:
    """Parse ``{ claim span } [ evidence span ] OP ...`` (an optional leading ``^`` is dropped).

    Spaces around spans and between triples are free (``{ x}`` and ``{ x }`` both parse).  An empty
    proof, text that is not a sequence of triples, an empty span or an operator outside
    :data:`OPERATORS` raises a :class:`DataError` on field ``proof``, naming ``path``/``line`` when
    they are given (``<string>`` otherwise).
    """
    where = path if path is not None else "<string>"
    body = text.strip()
    if body.startswith(_START_MARKER):
        body = body[len(_START_MARKER):].strip()
    if not body:
        raise DataError(where, line, "proof", "empty proof")
    steps: list[ProofStep] = []
    position = 0
    while position < len(body):
        match = _STEP.match(body, position)
        number = len(steps) + 1
        if match is None:
            loose = _LOOSE_STEP.match(body, position)
            if loose is not None and loose["op"] not in OPERATORS:
                raise DataError(where, line, "proof", f"unknown operator {loose['op']!r} in step {number}; "
                                                      f"expected one of {list(OPERATORS)}")
            raise DataError(where, line, "proof", f"cannot parse a '{{ claim span }} [ evidence span ] OP' triple "
                                                  f"at column {position + 1}: {body[position:position + 40]!r}")
        claim, evidence, op = match["claim"].strip(), match["evidence"].strip(), match["op"]
        if not claim:
            raise DataError(where, line, "proof", f"empty claim span in step {number}")
        if not evidence:
            raise DataError(where, line, "proof", f"empty evidence span in step {number}")
        steps.append(ProofStep(claim, evidence, op))
        position = match.end()
        while position < len(body) and body[position].isspace():
            position += 1
    return steps


def operator_counts(steps_per_proof) -> Counter:
    """How often each operator occurs in an iterable of step sequences."""
    return Counter(step.operator for steps in steps_per_proof for step in steps)


class OperatorSequence:
    """The ``operators`` of a record whose ``steps`` are :class:`ProofStep` records, in step order."""

    @property
    def operators(self) -> tuple[str, ...]:
        return tuple(step.operator for step in self.steps)
