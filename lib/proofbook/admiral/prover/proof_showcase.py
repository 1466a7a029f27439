"""The natural-logic chapter's showcase: a few-shot proof with an independence step.

In ProoFVer's proofs (Krishna et al. 2022, §3; AdMIRaL §3.2) most steps are equivalences (``=``); the
step that decides whether evidence suffices is the independence operator ``#``, which sends the automaton
to NOT ENOUGH INFO.  The chapter therefore first shows a proof that has one: the first few-shot claim, in
the order ``sample_seed`` shuffles them to, whose proof holds a ``#`` step.
"""
from __future__ import annotations

from typing import Sequence

from proofbook.core.examples import Showcase, showcase, shuffled

RULE = "its proof has an independence step (#)"


def independence_steps(example) -> int:
    """How many steps of a few-shot proof carry the independence operator ``#``."""
    return sum(step.operator == "#" for step in example.steps)


def showcase_proof(examples: Sequence, example_id: str | None = None, sample_seed: int = 0) -> Showcase:
    """The few-shot example (first proof variant of its claim) that the chapter shows first; ``example_id``
    is a FEVER claim id of the few-shot file."""
    return showcase(examples if example_id is not None else shuffled(examples, sample_seed), independence_steps,
                    RULE, example_id=example_id, key=lambda e: e.claim_id, what="few-shot claim",
                    where="QA-NatVer's few-shot proofs")
