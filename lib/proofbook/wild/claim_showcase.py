"""The claims-in-the-wild method chapter's showcase: a claim on which every stage has something to show.

The pipeline (Chen et al. 2023, §3) only shows what it does when the search, after its date and site
filters, keeps pages for the claim's questions, and the fine-grained retrieval turns them into a
claim-focused summary; for many claims the cached results are all filtered out.  The chapter therefore
walks through the first ClaimDecomp test claim, in the order ``sample_seed`` shuffles them to, for which
both happen.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from proofbook.core.examples import Showcase, by_id, showcase, shuffled

RULE = "the filtered search keeps at least one page and the claim-focused summary is not empty"


def evidence_found(pair) -> float:
    """1 when the trace kept a page after the filters and wrote a non-empty summary; 0.5 for a page only."""
    _, trace = pair
    pages = bool(trace.search.pages)
    return 1.0 if pages and trace.web_summaries.strip() else 0.5 if pages else 0.0


def traced(pipeline, claims: Sequence) -> Iterator[tuple]:
    """``(claim, trace)`` pairs, each claim run through the pipeline only when asked for."""
    for claim in claims:
        yield claim, pipeline.run(claim)


def showcase_claim(pipeline, claims: Sequence, example_id: str | None = None, sample_seed: int = 0,
                   limit: int = 40) -> Showcase:
    """The claim (with its trace) the chapter walks through; ``example`` is ``(claim, trace)``."""
    key = lambda pair: pair[0].example_id  # noqa: E731
    if example_id is not None:
        claim = by_id(claims, example_id, key=lambda c: c.example_id, what="claim", where="ClaimDecomp test")
        return showcase(traced(pipeline, [claim]), evidence_found, RULE, example_id=example_id, key=key,
                        what="claim")
    return showcase(traced(pipeline, shuffled(claims, sample_seed)[:limit]), evidence_found, RULE, key=key,
                    what="claim", where="ClaimDecomp test")
