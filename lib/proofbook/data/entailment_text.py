"""EntailmentBank's text notations: ``sentN: ...`` contexts, ``a & b -> int1: ...;`` proofs, ``$slot$ = ...`` inputs.

EntailmentBank (Dalvi et al. 2021) writes a tree's context as ``"sent1: ... sent2: ..."`` and its proof
as ``"sent1 & sent3 -> int1: <text>; int1 & sent2 -> hypothesis; "``; the text-to-text ("angles") files
that train Entailer (Tafjord et al. 2022) write slots ``"$proof$ ; $question$ = ... ; $context$ = ..."``.
Here are the proof-step record (:class:`ProofStep`) and the functions that parse and check these texts
(:func:`parse_context`, :func:`parse_proof`, :func:`check_proof`, :func:`proof_depth`,
:func:`parse_slots`); they raise :class:`ValueError`, which :mod:`proofbook.data.entailmentbank` turns
into a :class:`~proofbook.data.textfile.DataError` naming the file, line and field.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

HYPOTHESIS = "hypothesis"


@dataclass(frozen=True)
class ProofStep:
    """One step of a tree: premise ids (``sent3``, ``int1``) entail the conclusion id (``int2`` or
    ``hypothesis``), whose text the proof writes (``-> int2: text``) or, for the hypothesis, the
    tree's hypothesis."""

    premises: tuple[str, ...]
    conclusion: str
    conclusion_text: str


# --- parsing the text fields -------------------------------------------------------------------------

_SENTENCE_ID = re.compile(r"(?:^|(?<=\s))(sent\d+):\s*")
_NODE = r"(?:sent|int)\d+"
_STEP = re.compile(rf"^\s*({_NODE}(?:\s*&\s*{_NODE})*)\s*->\s*(hypothesis|int\d+)\s*(?::\s*(.*?))?\s*$", re.S)
# a step ends at ";" followed by the next step's premises (or by the end), so ";" inside text is kept
_STEP_END = re.compile(rf";\s*(?={_NODE}(?:\s*&\s*{_NODE})*\s*->)|;\s*$")
_SLOT = re.compile(r"(?:^|\s+;\s+)\$([A-Za-z_]+)\$")


def parse_context(text: str) -> dict[str, str]:
    """``"sent1: a sent2: b"`` -> ``{"sent1": "a", "sent2": "b"}``; :class:`ValueError` if malformed."""
    text = text.strip()
    marks = list(_SENTENCE_ID.finditer(text))
    if not marks or marks[0].start() != 0:
        raise ValueError(f"does not start with 'sent1:'-style id: {text[:40]!r}")
    context: dict[str, str] = {}
    for mark, following in zip(marks, marks[1:] + [None]):
        sid = mark.group(1)
        sentence = text[mark.end(): following.start() if following else len(text)].strip()
        if sid in context:
            raise ValueError(f"{sid} occurs twice")
        if not sentence:
            raise ValueError(f"{sid} is empty")
        context[sid] = sentence
    return context


def parse_proof(proof: str, hypothesis: str = "") -> tuple[ProofStep, ...]:
    """Parse ``"sent1 & sent3 -> int1: text; int1 & sent2 -> hypothesis;"`` into steps.

    The hypothesis step's ``conclusion_text`` is ``hypothesis``.  Checks the syntax only (see
    :func:`check_proof` for ids); raises :class:`ValueError` naming the bad step.
    """
    steps = []
    for number, part in enumerate((p for p in _STEP_END.split(proof) if p and p.strip()), start=1):
        match = _STEP.match(part)
        if not match:
            raise ValueError(f"step {number} {part.strip()[:60]!r} is not 'premises -> conclusion'")
        premises = tuple(p.strip() for p in match.group(1).split("&"))
        conclusion, text = match.group(2), (match.group(3) or "").strip()
        if conclusion == HYPOTHESIS:
            text = text or hypothesis
        elif not text:
            raise ValueError(f"step {number}: {conclusion} has no text ('-> {conclusion}: ...')")
        steps.append(ProofStep(premises, conclusion, text))
    return tuple(steps)


def check_proof(steps: Iterable[ProofStep], context: dict[str, str]) -> None:
    """A proof must use only context sentences and earlier conclusions, define each ``intN`` once and
    end in the hypothesis (once).  Raises :class:`ValueError`."""
    known = set(context)
    steps = list(steps)
    for number, step in enumerate(steps, start=1):
        for premise in step.premises:
            if premise not in known:
                raise ValueError(f"step {number} uses {premise}, which is neither in the context nor concluded earlier")
        if step.conclusion in known:
            raise ValueError(f"step {number} concludes {step.conclusion} a second time")
        known.add(step.conclusion)
    if steps and steps[-1].conclusion != HYPOTHESIS:
        raise ValueError("the last step does not conclude the hypothesis")


def proof_depth(steps: Iterable[ProofStep]) -> int:
    """Depth of the hypothesis: 1 + the deepest premise (context sentences have depth 0).

    Computed from the step proof; EntailmentBank's own ``depth_of_proof`` differs for 5 of the 187
    task-1 dev trees, so readers keep the official value where the file gives one.
    """
    depth: dict[str, int] = {}
    for step in steps:
        depth[step.conclusion] = 1 + max(depth.get(p, 0) for p in step.premises)
    return depth.get(HYPOTHESIS, max(depth.values(), default=0))


def parse_slots(text: str) -> dict[str, str]:
    """The text-to-text slots ``"$proof$ ; $question$ = Q ; ..."`` -> ``{"proof": "", "question": "Q"}``.

    A slot without ``= value`` (the one the model is asked to produce) maps to ``""``.
    """
    parts = _SLOT.split(text.strip())
    if parts[0].strip() or len(parts) < 3:
        raise ValueError(f"does not start with a '$slot$': {text[:40]!r}")
    slots: dict[str, str] = {}
    for name, rest in zip(parts[1::2], parts[2::2]):
        rest = rest.strip()
        if rest and not rest.startswith("="):
            raise ValueError(f"${name}$ is followed by {rest[:20]!r} instead of '= value' or ' ; '")
        if name in slots:
            raise ValueError(f"${name}$ occurs twice")
        slots[name] = rest[1:].strip()
    return slots
