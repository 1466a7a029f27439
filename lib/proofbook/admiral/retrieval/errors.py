"""Where AdMIRaL's retrieval loses a gold document: the stage of the pipeline that dropped it.

For a claim whose top ``k`` misses gold documents, each missing title gets the last stage it reached
(the pipeline of :mod:`proofbook.admiral.retrieval.multihop`):

1. ``not found``: neither BM25's top 100, nor the GENRE titles, nor any beam of a hop contains it;
2. ``candidate outside the reranked 10``: among BM25/GENRE's candidates, but not among the top 10
   documents whose sentences are reranked -- and no hop brought it back;
3. ``generated, not kept``: among a hop's beams, but after the first 5 new titles that are kept;
4. ``ranked below k``: retrieved (reranked or kept by a hop), but after position ``k`` of the list.

Each missing title also says whether it was *copyable* at the hop: written in the claim or in the sentences
the hop model read (``written_in_hop_input``; a claim that ran no hop: False).  A title model with a copy head
can write such a title by copying it; any other title it has to generate from what it learned of the titles.
"""
from __future__ import annotations

import re
from collections import Counter
from typing import Sequence

from proofbook.admiral.retrieval.hop_examples import written_in

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
    """One row per (claim, missing gold title) with its stage, hop count, whether the title is ambiguous and
    whether it is written in the first hop's input (``written_in_hop_input``)."""
    rows = []
    for trace, claim in zip(traces, claims):
        for title in claim.gold_titles:
            stage = missing_stage(trace, title, k)
            if stage is not None:
                hop_input = trace.hops[0].input_sentences if trace.hops else None
                rows.append({"claim_id": claim.id, "hops": claim.num_hops, "title": title, "stage": stage,
                             "disambiguated_title": bool(re.search(r"\(.+\)$", title)),
                             "written_in_hop_input": hop_input is not None and written_in(title, trace.claim,
                                                                                          hop_input)})
    return rows


def stage_counts(rows: Sequence[dict]) -> Counter:
    """How many missing gold documents each stage lost: :func:`error_rows` counted by ``stage``."""
    return Counter(row["stage"] for row in rows)


def most_common_stages(rows: Sequence[dict]) -> tuple[list[str], int, int]:
    """``(stages, count, total)``: every stage that lost the most missing documents (several on a tie, in
    :data:`STAGES` order), how many each lost, and how many documents are missing in all."""
    counts = stage_counts(rows)
    if not counts:
        return [], 0, 0
    top = max(counts.values())
    return [s for s in STAGES if counts.get(s) == top], top, sum(counts.values())


def most_common_text(rows: Sequence[dict]) -> str:
    """The most common fate of a missing document as a sentence part, naming a tie as a tie."""
    stages, count, total = most_common_stages(rows)
    if not stages:
        return "none: no gold document is missing"
    share = f"{count} of {total} missing documents ({count / total:.0%})"
    if len(stages) == 1:
        return f"*{stages[0]}*, {share}"
    names = ", ".join(f"*{s}*" for s in stages[:-1]) + f" and *{stages[-1]}*"
    return f"a {len(stages)}-way tie between {names}, {share} each"
