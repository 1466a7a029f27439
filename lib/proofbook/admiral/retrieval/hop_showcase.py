"""The AdMIRaL method chapter's showcase: a claim on which the autoregressive hop adds a gold page.

AdMIRaL's point (Aly & Vlachos 2022, §3) is that a later iteration finds documents the first one missed,
so the chapter walks through a claim where that happens: :func:`hop_gain` counts the gold titles that are
in the final top ``k`` only because a hop wrote them.  The claims are scanned in the order
``sample_seed`` shuffles them to, a batch at a time (each batch is one batched run of the loop), until one
has a gain; :func:`proofbook.core.examples.showcase` picks it, or the nearest claim when none of the first
``limit`` has one.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from proofbook.core.examples import Showcase, by_id, showcase, shuffled

RULE = "a hop brings a gold page into the top 5 that iteration 1 did not have there"


def hop_gain(trace, claim, k: int = 5) -> float:
    """Gold titles in the final top ``k`` that a hop wrote and iteration 1's top ``k`` lacked; plus, as a
    tie-breaker below 1, the share of gold titles among the hops' beams (the "nearest" claim's score)."""
    initial, final = set(trace.initial_ranking()[:k]), trace.ranking()[:k]
    written = {t for hop in trace.hops for t in hop.new_documents}
    gained = sum(1 for t in claim.gold_titles if t in final and t not in initial and t in written)
    beamed = {b.title for hop in trace.hops for b in hop.beams}
    near = sum(1 for t in claim.gold_titles if t in beamed and t not in initial) / max(1, len(claim.gold_titles))
    return gained + 0.99 * near if gained == 0 else float(gained)


def traced(retriever, claims: Sequence, batch: int = 8) -> Iterator[tuple]:
    """``(claim, trace)`` pairs, running the loop on ``batch`` claims at a time only when asked for more."""
    for start in range(0, len(claims), batch):
        part = list(claims[start:start + batch])
        yield from zip(part, retriever.retrieve_many([c.claim for c in part], progress=False))


def showcase_claim(retriever, claims: Sequence, example_id: str | None = None, sample_seed: int = 0,
                   limit: int = 48, k: int = 5, lookup: Sequence | None = None) -> Showcase:
    """The claim (with its trace) that the method chapter walks through; ``example`` is ``(claim, trace)``.

    The rule scans ``claims`` (the evaluation claims); ``example_id`` is looked up in ``lookup`` (default:
    the same claims), e.g. every claim of the task, training claims included."""
    if example_id is not None:
        claim = by_id(lookup if lookup is not None else claims, example_id, what="claim",
                      where="the HoVer claims of this corpus")
        return showcase(traced(retriever, [claim]), lambda pair: hop_gain(pair[1], pair[0], k), RULE,
                        example_id=example_id, key=lambda pair: pair[0].id, what="claim")
    order = shuffled(claims, sample_seed)[:limit]
    return showcase(traced(retriever, order), lambda pair: hop_gain(pair[1], pair[0], k), RULE,
                    key=lambda pair: pair[0].id, what="claim", where="the evaluation claims")
