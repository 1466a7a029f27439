"""The Entailer method chapter's showcase: a question whose tree grows to depth two or more.

Entailer's search (Tafjord et al. 2022, §3.2) expands a node only when the proof scores above the node's
own belief, so most trees stop at one step.  The chapter walks through a question where backward chaining
goes further: the first question, in the order ``sample_seed`` shuffles them to, on which the depth-3
sampled search keeps a tree of height at least 2 for some option.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from proofbook.core.examples import Showcase, by_id, showcase, shuffled
from proofbook.entailer.entailer_experiments import write_hypotheses
from proofbook.entailer.search import answer_question

RULE = "the depth-3 sampled search keeps a tree of height 2 or more for some option"
SYSTEM = "entailer-sampled-d3"


def answered(questions: Sequence, components, settings, system: str = SYSTEM) -> Iterator[tuple]:
    """``(question, answer)`` pairs, each question answered by ``system`` only when asked for."""

    config = settings.search(system)
    for question in questions:
        [hypotheses] = write_hypotheses([question], components.writer)
        yield question, answer_question(question.id, [(o.label, o.text) for o in question.options], hypotheses,
                                        components.behaviours(settings.source(system)), config)


def tree_height(pair) -> int:
    """The height of the tallest tree the search kept for any option of the question."""
    return max(option.tree.height for option in pair[1].options)


def showcase_question(questions: Sequence, components, settings, example_id: str | None = None,
                      sample_seed: int = 0, limit: int = 12) -> Showcase:
    """The question (with its depth-3 answer) that the chapter walks through; ``example`` is
    ``(question, answer)``.  At most ``limit`` questions are searched."""
    if example_id is not None:
        question = by_id(questions, example_id, what="question", where="this OpenBookQA split")
        return showcase(answered([question], components, settings), tree_height, RULE, threshold=2,
                        example_id=example_id, key=lambda pair: pair[0].id, what="question")
    order = shuffled(questions, sample_seed)[:limit]
    return showcase(answered(order, components, settings), tree_height, RULE, threshold=2,
                    key=lambda pair: pair[0].id, what="question", where="this OpenBookQA split")
