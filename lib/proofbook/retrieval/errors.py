"""Where AdMIRaL's retrieval loses a gold document: the stage of the pipeline that dropped it.

For a claim whose top ``k`` misses gold documents, each missing title gets the last stage it reached
(the pipeline of :mod:`proofbook.retrieval.admiral`):

1. ``not found``: neither BM25's top 100, nor the GENRE titles, nor any beam of a hop contains it;
2. ``candidate outside the reranked 10``: among BM25/GENRE's candidates, but not among the top 10
   documents whose sentences are reranked -- and no hop brought it back;
3. ``generated, not kept``: among a hop's beams, but after the first 5 new titles that are kept;
4. ``ranked below k``: retrieved (reranked or kept by a hop), but after position ``k`` of the list.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

STAGES = ("not found", "candidate outside the reranked 10", "generated, not kept", "ranked below k")


def missing_stage(trace, title: str, k: int = 5) -> str | None:
    """The stage at which ``title`` was lost for this trace, or None if it is in the top ``k``."""
    if title in trace.ranking()[:k]:
        return None
    kept = {t for hop in trace.hops for t in hop.new_documents}
    if title in trace.reranked_documents or title in kept:
        return STAGES[3]
    if any(title == b.title for hop in trace.hops for b in hop.beams):
        return STAGES[2]
    if title in trace.candidates:
        return STAGES[1]
    return STAGES[0]


def error_rows(traces: Sequence, claims: Sequence, k: int = 5) -> list[dict]:
    """One row per (claim, missing gold title) with its stage, hop count and whether the title is ambiguous."""
    rows = []
    for trace, claim in zip(traces, claims):
        for title in claim.gold_titles:
            stage = missing_stage(trace, title, k)
            if stage is not None:
                rows.append({"claim_id": claim.id, "hops": claim.num_hops, "title": title, "stage": stage,
                             "disambiguated_title": bool(re.search(r"\(.+\)$", title))})
    return rows


def stage_counts(rows: Sequence[dict]) -> Counter:
    return Counter(row["stage"] for row in rows)
