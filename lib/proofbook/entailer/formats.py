"""The official Entailer text formats: render model inputs and targets, parse model outputs.

Entailer (Tafjord, Dalvi Mishra & Clark 2022, §3.1 "Model") is one T5 model with
three behaviours chosen by the text it is given.  The "angle" format (``allenai/entailment_bank``,
``entailer.md``) names the output slot(s) first, then the inputs as ``$slot$ = value`` joined by
`` ; ``:

* H -> P   ``$proof$ ; $hypothesis$ = H``  ->  ``$proof$ = [PREMISE] p1 [PREMISE] p2``
  (optionally ``$question$ = Q ; $answer$ = A`` before the hypothesis and ``$context$ = ...`` last);
* H -> Sd  ``$valid$ ; $hypothesis$ = H``  ->  ``$valid$ = true`` / ``$valid$ = false``;
* PH -> Se ``$implied$ ; $hypothesis$ = H ; $proof$ = [PREMISE] p1 ...``  ->  ``$implied$ = true`` / ``false``.

The two scores are read by teacher-forcing both answers (``$valid$ = true`` and ``$valid$ = false``)
and normalising their probabilities (:func:`boolean_targets`).  Everything here is plain text: the
same strings go to a local ``allenai/entailer-large`` checkpoint and to the models trained in this
book (the premise generator is trained on exactly these inputs and targets).

Parsing reuses :func:`proofbook.data.entailment_text.parse_slots` (the reader of EntailmentBank's
text-to-text files).  Bad text raises :class:`FormatError` quoting it.
"""
from __future__ import annotations

import re
from typing import Sequence

from proofbook.data.entailment_text import parse_slots

PREMISE = "[PREMISE]"
PROOF, VALID, IMPLIED = "proof", "valid", "implied"
QUESTION, ANSWER, HYPOTHESIS, CONTEXT = "question", "answer", "hypothesis", "context"
TRUE, FALSE = "true", "false"


class FormatError(ValueError):
    """A text is not in the Entailer format: the message quotes the offending text."""


def _check_text(value: str, what: str) -> str:
    if not isinstance(value, str):
        raise FormatError(f"{what} must be text, got {type(value).__name__}: {value!r:.60}")
    value = " ".join(value.split())
    if not value:
        raise FormatError(f"{what} is empty")
    if " ; $" in f" {value}" or value.startswith("$") or PREMISE in value:
        raise FormatError(f"{what} {value!r:.80} contains a slot marker ('$...$' or {PREMISE})")
    return value


def render(outputs: Sequence[str], inputs: Sequence[tuple[str, str]]) -> str:
    """``$out$ ; $name$ = value ; ...``: the generic angle input (output slot names first)."""
    if not outputs:
        raise FormatError("an Entailer input names at least one output slot")
    parts = [f"${name}$" for name in outputs]
    parts += [f"${name}$ = {value}" for name, value in inputs]
    return " ; ".join(parts)


def render_premises(premises: Sequence[str]) -> str:
    """``[PREMISE] p1 [PREMISE] p2`` (each premise checked non-empty)."""
    if not premises:
        raise FormatError("a proof needs at least one premise")
    return " ".join(f"{PREMISE} {_check_text(p, f'premise {i + 1}')}" for i, p in enumerate(premises))


def premise_input(hypothesis: str, question: str | None = None, answer: str | None = None,
                  context: Sequence[str] | str | None = None) -> str:
    """The H -> P input: ``$proof$ ; [$question$ = Q ; $answer$ = A ;] $hypothesis$ = H [; $context$ = ...]``.

    A context given as a list of sentences is written EntailmentBank-style, ``sent1: ... sent2: ...``.
    """
    inputs = []
    if question is not None:
        inputs.append((QUESTION, _check_text(question, "question")))
    if answer is not None:
        inputs.append((ANSWER, _check_text(answer, "answer")))
    inputs.append((HYPOTHESIS, _check_text(hypothesis, "hypothesis")))
    if context:
        if not isinstance(context, str):
            context = " ".join(f"sent{i + 1}: {_check_text(s, f'context sentence {i + 1}')}"
                               for i, s in enumerate(context))
        inputs.append((CONTEXT, context))
    return render([PROOF], inputs)


def premise_target(premises: Sequence[str]) -> str:
    """The H -> P target ``$proof$ = [PREMISE] p1 [PREMISE] p2``."""
    return f"${PROOF}$ = {render_premises(premises)}"


_SPACED_SLOT = re.compile(r"\$\s*([A-Za-z_]+)\s*\$")
_SPACED_PREMISE = re.compile(r"\[\s*premise\s*\]", flags=re.I)


def clean_decoded(text: str) -> str:
    """Undo what an uncased WordPiece decoder does to the markers: ``$ proof $`` -> ``$proof$``,
    ``[ premise ]`` -> ``[PREMISE]`` (other text is left as decoded)."""
    text = _SPACED_SLOT.sub(lambda m: f"${m.group(1).lower()}$", str(text))
    return " ".join(_SPACED_PREMISE.sub(PREMISE, text).split())


def parse_premises(text: str) -> list[str]:
    """The premises of a generated ``$proof$ = [PREMISE] p1 [PREMISE] p2`` (empty ones dropped).

    Tolerates what a decoder does to spacing and case (``[premise]``, missing spaces); raises
    :class:`FormatError` when the text is not a ``$proof$`` output or holds no premise.
    """
    stripped = clean_decoded(text)
    try:
        slots = parse_slots(stripped)
    except ValueError as err:
        raise FormatError(f"not a '$proof$ = ...' output: {stripped!r:.100} ({err})") from None
    if PROOF not in slots:
        raise FormatError(f"no $proof$ slot in {stripped!r:.100}")
    body = slots[PROOF]
    lowered = body.lower()
    marker = PREMISE.lower()
    if marker not in lowered:
        raise FormatError(f"no {PREMISE} in {stripped!r:.100}")
    pieces, start = [], 0
    while True:
        at = lowered.find(marker, start)
        if at < 0:
            pieces.append(body[start:])
            break
        pieces.append(body[start:at])
        start = at + len(marker)
    premises = [" ".join(p.split()) for p in pieces[1:]]
    premises = [p for p in premises if p]
    if not premises:
        raise FormatError(f"every premise is empty in {stripped!r:.100}")
    return premises


def valid_input(hypothesis: str) -> str:
    """The H -> Sd input ``$valid$ ; $hypothesis$ = H``."""
    return render([VALID], [(HYPOTHESIS, _check_text(hypothesis, "hypothesis"))])


def implied_input(premises: Sequence[str], hypothesis: str) -> str:
    """The PH -> Se input ``$implied$ ; $hypothesis$ = H ; $proof$ = [PREMISE] p1 ...``."""
    return render([IMPLIED], [(HYPOTHESIS, _check_text(hypothesis, "hypothesis")),
                              (PROOF, render_premises(premises))])


def boolean_target(slot: str, value: bool) -> str:
    """``$valid$ = true`` (or ``false``; any slot)."""
    return f"${slot}$ = {TRUE if value else FALSE}"


def boolean_targets(slot: str) -> tuple[str, str]:
    """The two targets whose probabilities give a score: (``$slot$ = true``, ``$slot$ = false``)."""
    return boolean_target(slot, True), boolean_target(slot, False)


def parse_boolean(text: str, slot: str) -> bool:
    """``$valid$ = true`` -> True; raises :class:`FormatError` for any other slot or value."""
    stripped = clean_decoded(text)
    try:
        slots = parse_slots(stripped)
    except ValueError as err:
        raise FormatError(f"not a '${slot}$ = true|false' output: {stripped!r:.80} ({err})") from None
    value = slots.get(slot, None)
    if value is None:
        raise FormatError(f"no ${slot}$ slot in {stripped!r:.80}")
    if value.lower() not in (TRUE, FALSE):
        raise FormatError(f"${slot}$ is {value!r:.40}, expected 'true' or 'false'")
    return value.lower() == TRUE
