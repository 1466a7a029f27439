"""Choosing Entailer's truth scorer on training data only: a model-selection split of OpenBookQA *train*.

The truth scorer (H -> Sd, Tafjord et al. 2022, §3.2) decides the ``direct`` system and every premise score of a
proof, so its variants (a larger encoder, more training questions, another learning rate) are compared before
any chapter uses one -- and never on an evaluation split.  :func:`selection_groups` draws the scorer's training
groups as :class:`~proofbook.entailer.components.Settings` would, plus ``held_questions`` further OBQA train
questions that it holds out; :func:`truth_selection` trains a scorer with the book's own
:func:`~proofbook.entailer.components.fit_truth_scorer` (the multiple-choice loss, the statement read with its BM25
WorldTree facts)
and reports which held-out questions it answers (the true option ranked first: group accuracy).
:func:`compare` puts two such results side by side with a paired bootstrap interval.

Run it from the command line (it trains for minutes to an hour; nothing is cached)::

    python -m proofbook.entailer.selection --checkpoint minilm --out /tmp/minilm.json
    python -m proofbook.entailer.selection --checkpoint /path/to/all-mpnet-base-v2 --lr 2e-5 --out /tmp/mpnet.json
    python -m proofbook.entailer.selection --compare /tmp/mpnet.json /tmp/minilm.json
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import numpy as np

from proofbook.core import intervals
from proofbook.core.paths import resolve_data_dir
from proofbook.entailer import behaviours as bh
from proofbook.entailer.components import Settings, fit_truth_scorer, truth_ranked_first
from proofbook.entailer.datasets import fact_retriever, training_data

def selection_groups(data_dir, settings: Settings, held_questions: int = 400
                     ) -> tuple[bh.StatementGroups, bh.StatementGroups]:
    """``(train, held)``: the last ``held_questions`` OBQA train question groups of a draw of *every* question
    are held out (the same questions whatever ``settings`` say); the training part is the first
    ``settings.truth_questions`` of the other question groups and ``settings.truth_statements`` statement groups.

    Raises ValueError if the training file holds too few questions to hold that many out and keep one.
    """
    if held_questions < 1:
        raise ValueError(f"held_questions must be positive, got {held_questions}")
    every = replace(settings, truth_questions=None)
    groups = training_data(resolve_data_dir(data_dir), every).truth
    questions = [i for i, source in enumerate(groups.sources) if source == bh.QUESTION_SOURCE]
    if len(questions) <= held_questions:
        raise ValueError(f"only {len(questions)} OBQA train questions after cleaning: cannot hold out "
                         f"{held_questions} and train on the rest")
    held_ids = set(questions[-held_questions:])
    kept_ids = set(questions[:-held_questions][:settings.truth_questions])
    kept_ids |= {i for i, source in enumerate(groups.sources) if source != bh.QUESTION_SOURCE}
    pick = lambda ids: bh.StatementGroups([g for i, g in enumerate(groups.groups) if i in ids],
                                          [s for i, s in enumerate(groups.sources) if i in ids])
    return pick(kept_ids), pick(held_ids)


def truth_selection(data_dir, settings: Settings = Settings(), checkpoint: str = "minilm", held_questions: int = 400,
                    progress: bool = True) -> dict:
    """Train a truth scorer from ``checkpoint`` with ``settings.truth_scorer`` on :func:`selection_groups`'s
    training part; return its held-out result: ``correct`` (per held-out question, in order), ``group_accuracy``,
    ``train_s``, ``predict_s_per_pair``, the sizes and the settings used."""
    root = resolve_data_dir(data_dir)
    training = settings.truth_scorer
    train, held = selection_groups(root, settings, held_questions)
    context = bh.TruthContext(fact_retriever(root) if training.facts else None, training.facts)
    start = time.perf_counter()
    model = fit_truth_scorer(train, context, training, checkpoint, progress)
    train_s = time.perf_counter() - start
    start = time.perf_counter()
    p_true, correct = truth_ranked_first(model, context, held)
    predict_s = time.perf_counter() - start
    return {"checkpoint": str(checkpoint), "truth_scorer": training.cache_config(), "train_groups": len(train),
            "train_questions": sum(s == bh.QUESTION_SOURCE for s in train.sources), "held_questions": len(held),
            "correct": correct, "group_accuracy": float(np.mean(correct)), "train_s": round(train_s, 1),
            "predict_s_per_pair": predict_s / max(1, len(p_true))}


def compare(a: dict, b: dict, seed: int = 0) -> dict:
    """``a`` against ``b`` (two :func:`truth_selection` results on the same held-out questions): each one's group
    accuracy, the paired difference a - b with its 95% bootstrap interval, and the questions only one answers."""
    if len(a["correct"]) != len(b["correct"]):
        raise ValueError(f"the results hold {len(a['correct'])} and {len(b['correct'])} questions: not the same split")
    diff, low, high = intervals.paired_difference([float(x) for x in a["correct"]], [float(x) for x in b["correct"]],
                                                  seed)
    return {"a": a["checkpoint"], "b": b["checkpoint"], "a_group_accuracy": float(np.mean(a["correct"])),
            "b_group_accuracy": float(np.mean(b["correct"])), "difference": diff, "ci95": [low, high],
            "only_a": sum(x and not y for x, y in zip(a["correct"], b["correct"])),
            "only_b": sum(y and not x for x, y in zip(a["correct"], b["correct"])), "n": len(a["correct"])}


def main(argv=None) -> None:
    """The command line (see the module docstring): one selection run, or ``--compare`` of two result files."""
    parser = argparse.ArgumentParser(prog="python -m proofbook.entailer.selection", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default=None, help="the data directory (default: PROOFBOOK_DATA or ./data)")
    parser.add_argument("--checkpoint", default="minilm", help="'minilm' or a local checkpoint folder")
    parser.add_argument("--lr", type=float, default=None, help="learning rate (default: Settings.truth_lr)")
    parser.add_argument("--questions", type=int, default=None, help="training questions (default: Settings)")
    parser.add_argument("--statements", type=int, default=None, help="EntailmentBank statements (default: Settings)")
    parser.add_argument("--held", type=int, default=400, help="OBQA train questions held out (default 400)")
    parser.add_argument("--out", help="write the result here (JSON)")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two result files instead")
    args = parser.parse_args(argv)
    if args.compare:
        a, b = (json.loads(open(path, encoding="utf-8").read()) for path in args.compare)
        print(json.dumps(compare(a, b), indent=1))
        return
    overrides = {"truth_lr": args.lr, "truth_questions": args.questions, "truth_statements": args.statements}
    settings = replace(Settings(), **{name: value for name, value in overrides.items() if value is not None})
    result = truth_selection(args.data_dir, settings, args.checkpoint, args.held)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f)
    print({k: v for k, v in result.items() if k != "correct"})


if __name__ == "__main__":
    main()
