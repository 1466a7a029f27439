"""Document-retrieval metrics of AdMIRaL's experiments, as this book defines them.

AdMIRaL (Aly & Vlachos 2022, §4, Tables 1-3) reports document recall ("fully supported": all gold
documents retrieved), F1 and exact match, and for HoVer the recall by number of hops.  The book's
metric names (those of ``admiral/02_experiments``) are defined here, per claim with gold document set ``G``
and a ranked document list:

* ``recall@k`` -- every gold title is among the top ``k`` documents (so always false when ``|G| > k``);
* ``f1@k``     -- F1 between the set of the top ``k`` documents and ``G`` (precision over the documents
  actually present, so a list shorter than ``k`` is not penalised for the missing ones; 0 when the
  list is empty or shares nothing with ``G``);
* ``em``       -- the top ``|G|`` documents are exactly ``G``;
* ``recall@5/<h>hop`` -- ``recall@5`` over the claims with ``h`` hops.

A ranked list is de-duplicated first (first occurrence kept), so "the top k" always means the first
``k`` *distinct* documents.  Values are fractions in [0, 1]; every row carries ``n``, the number of
claims it averages over.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence

from proofbook.admiral.retrieval.tasks import RetrievalClaim


def dedupe(ranked: Iterable[Hashable]) -> list:
    """``ranked`` without repeats, each item at its first position."""
    return list(dict.fromkeys(ranked))


def _top(ranked: Sequence[str], k: int) -> list[str]:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    return dedupe(ranked)[:k]


def _gold_set(gold: Sequence[str]) -> set[str]:
    if isinstance(gold, str):
        raise ValueError("gold must be a collection of titles, not one string")
    gold_set = set(gold)
    if not gold_set:
        raise ValueError("gold has no titles: retrieval metrics need at least one gold document")
    return gold_set


def recall_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> bool:
    """Whether all gold titles are among the first ``k`` distinct documents of ``ranked``."""
    gold_set = _gold_set(gold)
    return gold_set <= set(_top(ranked, k))


def f1_at_k(ranked: Sequence[str], gold: Sequence[str], k: int) -> float:
    """F1 between the set of the first ``k`` distinct documents and the gold set (0 if they share none)."""
    gold_set = _gold_set(gold)
    top = set(_top(ranked, k))
    hits = len(top & gold_set)
    if hits == 0:
        return 0.0
    precision, recall = hits / len(top), hits / len(gold_set)
    return 2 * precision * recall / (precision + recall)


def exact_match(ranked: Sequence[str], gold: Sequence[str]) -> bool:
    """Whether the first ``|G|`` distinct documents are exactly the gold set ``G``."""
    gold_set = _gold_set(gold)
    return set(_top(ranked, len(gold_set))) == gold_set


def _row(metric: str, values: list[float]) -> dict:
    return {"metric": metric, "value": sum(values) / len(values), "n": len(values)}


def per_claim_metrics(rankings: Mapping[str, Sequence[str]], claims: Sequence[RetrievalClaim],
                      ks: Sequence[int] = (2, 5, 10), by_hops: bool = True, f1_k: int = 5,
                      hop_k: int = 5) -> dict[str, list[float]]:
    """``metric -> [value of each claim]`` (1/0 for recall and EM), the metrics of :func:`retrieval_metrics`
    in its order; ``recall@5/<h>hop`` lists only the claims with ``h`` hops, in the order of ``claims``.
    The per-claim values are what a (paired) bootstrap resamples."""
    if not claims:
        raise ValueError("no claims to evaluate")
    missing = [c.id for c in claims if c.id not in rankings]
    if missing:
        raise ValueError(f"no ranking for {len(missing)} claim(s), e.g. {missing[:5]}")
    no_gold = [c.id for c in claims if not c.gold_titles]
    if no_gold:
        raise ValueError(f"{len(no_gold)} claim(s) have no gold titles, e.g. {no_gold[:5]}")
    values = {f"recall@{k}": [float(recall_at_k(rankings[c.id], c.gold_titles, k)) for c in claims] for k in ks}
    values[f"f1@{f1_k}"] = [f1_at_k(rankings[c.id], c.gold_titles, f1_k) for c in claims]
    values["em"] = [float(exact_match(rankings[c.id], c.gold_titles)) for c in claims]
    if by_hops:
        for hops in sorted({c.num_hops for c in claims}):
            values[f"recall@{hop_k}/{hops}hop"] = [float(recall_at_k(rankings[c.id], c.gold_titles, hop_k))
                                                   for c in claims if c.num_hops == hops]
    return values


def retrieval_metrics(rankings: Mapping[str, Sequence[str]], claims: Sequence[RetrievalClaim],
                      ks: Sequence[int] = (2, 5, 10), by_hops: bool = True, f1_k: int = 5,
                      hop_k: int = 5) -> list[dict]:
    """Rows ``{"metric", "value", "n"}`` over ``claims``, each ranked by ``rankings[claim.id]``.

    Metrics, in this order: ``recall@k`` for each ``k`` in ``ks``, ``f1@5``, ``em``, and with
    ``by_hops`` ``recall@5/<h>hop`` for every hop count ``h`` present (ascending; HoVer has 2, 3, 4),
    whose ``n`` is the number of claims with ``h`` hops.  Rankings of ids not in ``claims`` are
    ignored; a claim without a ranking, or without gold titles, raises ValueError (pass an empty list
    for a claim the system returned nothing for).
    """
    per_claim = per_claim_metrics(rankings, claims, ks, by_hops, f1_k, hop_k)
    return [_row(metric, values) for metric, values in per_claim.items()]
