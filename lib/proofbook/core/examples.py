"""Examples a reader picks: one by its id from the data, or a seeded sample, and each chapter's showcase rule.

The method and error-analysis chapters take three parameters for the examples they walk through:

- ``example_id`` -- an id from the data (a HoVer or FEVER claim id, a ClaimDecomp ``example_id``, an
  OpenBookQA question id): the chapter shows that example;
- ``sample_seed`` -- which examples the chapter lists: a sample drawn by ``random.Random(sample_seed)``,
  shown in the data's own order;
- ``n_examples`` -- how many it lists.

Without ``example_id`` a chapter shows its **showcase**: the first example, in the sampled order, on which
the chapter's mechanism matters (a hop that adds a gold page, a proof with an independence step, a tree of
depth two or more), found by a rule written once in the paper's package.  :func:`showcase` applies a rule
and says, in a sentence the chapter glues, which rule it was and whether an example met it; where none
does, the chapter shows the nearest example instead (the one the rule's score ranks highest).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence


def sample(items: Sequence, n: int, seed: int = 0) -> list:
    """``n`` items drawn without replacement by ``random.Random(seed)``, in their original order (all of
    them when there are at most ``n``)."""
    if n < 1:
        raise ValueError(f"n_examples must be at least 1, got {n}")
    items = list(items)
    if len(items) <= n:
        return items
    chosen = sorted(random.Random(seed).sample(range(len(items)), n))
    return [items[i] for i in chosen]


def shuffled(items: Sequence, seed: int = 0) -> list:
    """Every item in the order ``random.Random(seed)`` shuffles them to (the order a showcase rule scans)."""
    items = list(items)
    random.Random(seed).shuffle(items)
    return items


def by_id(items: Iterable, example_id: str, key: Callable[[Any], Any] = lambda item: item.id,
          what: str = "example", where: str = "the data") -> Any:
    """The item whose ``key`` equals ``example_id`` (compared as text); a ValueError naming where it was
    looked for and a few ids that exist."""
    if not isinstance(example_id, str) or not example_id.strip():
        raise ValueError(f"example_id: an empty id (give one of the {what} ids of {where})")
    items = list(items)
    for item in items:
        if str(key(item)) == example_id.strip():
            return item
    known = ", ".join(repr(str(key(item))) for item in items[:5])
    raise ValueError(f"example_id {example_id!r}: no {what} of {where} has this id ({len(items)} {what}s, "
                     f"e.g. {known})")


@dataclass
class Showcase:
    """What :func:`showcase` chose: the example, whether it met the rule, and the sentence that says so."""

    example: Any
    met_rule: bool
    rule: str
    text: str
    scanned: int


def showcase(candidates: Iterable, rule: Callable[[Any], float], description: str, threshold: float = 1.0,
             example_id: str | None = None, key: Callable[[Any], Any] = lambda item: item.id,
             what: str = "example", where: str = "the data") -> Showcase:
    """The example a chapter walks through.

    ``rule(candidate)`` scores a candidate; the first one scoring at least ``threshold`` is the showcase
    (``candidates`` is scanned lazily, so a rule that runs a model stops at the first hit).  When none does,
    the highest-scoring candidate is shown and the text says so.  ``example_id`` overrides the rule: that
    example is shown (looked up among the candidates), and the text says whether it meets the rule.
    """
    scanned, best, best_score = 0, None, float("-inf")
    if example_id is not None:
        chosen = by_id(candidates, example_id, key, what, where)
        met = rule(chosen) >= threshold
        verdict = "it meets" if met else "it does not meet"
        return Showcase(chosen, met, description, f"the {what} you chose ({example_id}); {verdict} the "
                                                  f"showcase rule ({description})", 1)
    for candidate in candidates:
        scanned += 1
        score = rule(candidate)
        if score >= threshold:
            return Showcase(candidate, True, description, f"the first {what} in the sampled order for which "
                                                          f"{description} ({scanned} scanned)", scanned)
        if score > best_score:
            best, best_score = candidate, score
    if best is None:
        raise ValueError(f"no {what} to show: {where} holds none")
    return Showcase(best, False, description, f"no {what} among the {scanned} scanned meets the rule "
                                              f"({description}); shown instead: the nearest one, by the rule's score",
                    scanned)
