"""Choosing Entailer's judges on training data only: a model-selection split of OpenBookQA *train*.

The truth scorer (H -> Sd, Tafjord et al. 2022, §3.2) decides the ``direct`` system and every premise score of a
proof, so its variants (a larger encoder, more training questions, another learning rate) are compared before
any chapter uses one -- and never on an evaluation split.  :func:`selection_groups` draws the scorer's training
groups as :class:`~proofbook.entailer.settings.Settings` would, plus ``held_questions`` further OBQA train
questions that it holds out; :func:`truth_selection` trains a scorer with the book's own
:func:`~proofbook.entailer.components.fit_truth_scorer` (the multiple-choice loss, the statement read with its BM25
WorldTree facts)
and reports which held-out questions it answers (the true option ranked first: group accuracy).
:func:`compare` puts two such results side by side with a paired bootstrap interval.

The entailment scorer (PH -> Se) is chosen on the same held-out questions (:func:`entailment_selection`): it is
trained as the book trains it (:func:`~proofbook.entailer.components.fit_entailment_scorer`, on EntailmentBank
steps and NLI pairs, none of them from OpenBookQA), then every option's hypothesis gets the candidate premise sets
of the retrieved pool (:mod:`proofbook.entailer.proposals`) and is scored by its best set's s_e; a question counts as
answered when its true option scores highest.  With retrieved premises this is what a proof's score turns on
(premise truth aside), so it measures the one judgement the search cannot get from the truth scorer.

Measured with this module (the book's settings: 2,398 training pairs, one epoch, pairs cut to 64 tokens; chance
0.25): MiniLM-L6 (lr 5e-5, as in the book) 0.2925, with 0.879 on its own held-out pairs; all-mpnet-base-v2 (lr
2e-5, 494 s of training) 0.3175, with 0.933 on its own held-out pairs: +0.025, paired 95% interval [-0.025, 0.078]
(55 questions only mpnet answers, 45 only MiniLM).  The larger encoder learns the training pairs better and still
does not tell the true option's premises from the others' -- scoring word overlap is what both learn -- so the
book keeps MiniLM here too.

Run it from the command line (it trains for minutes to an hour; nothing is cached)::

    python -m proofbook.entailer.selection --checkpoint minilm --out /tmp/minilm.json
    python -m proofbook.entailer.selection --checkpoint /path/to/all-mpnet-base-v2 --lr 2e-5 --out /tmp/mpnet.json
    python -m proofbook.entailer.selection --compare /tmp/mpnet.json /tmp/minilm.json
    python -m proofbook.entailer.selection --judge entailment --checkpoint minilm --out /tmp/entail-minilm.json
"""
from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

import numpy as np

from proofbook.core import intervals
from proofbook.core.paths import resolve_data_dir
from proofbook.entailer.training_data import QUESTION_SOURCE, StatementGroups
from proofbook.entailer.behaviours import TruthContext, join_premises
from proofbook.entailer import proposals
from proofbook.entailer.components import fit_entailment_scorer, fit_truth_scorer, truth_ranked_first
from proofbook.entailer.datasets import fact_retriever, training_data
from proofbook.entailer.settings import Settings
from proofbook.models.cross_encoder import CrossEncoder

#: the judges this module selects (the ``--judge`` of the command line)
JUDGES = ("truth", "entailment")

def selection_groups(data_dir, settings: Settings, held_questions: int = 400
                     ) -> tuple[StatementGroups, StatementGroups]:
    """``(train, held)``: the last ``held_questions`` OBQA train question groups of a draw of *every* question
    are held out (the same questions whatever ``settings`` say); the training part is the first
    ``settings.truth_questions`` of the other question groups and ``settings.truth_statements`` statement groups.

    Raises ValueError if the training file holds too few questions to hold that many out and keep one.
    """
    return _held_out_split(_every_question(data_dir, settings).truth, settings, held_questions)


def _every_question(data_dir, settings: Settings):
    """The training data drawn with every OBQA train question in the truth groups (the other sets as ``settings``)."""
    return training_data(resolve_data_dir(data_dir), replace(settings, truth_questions=None))


def _held_out_split(groups: StatementGroups, settings: Settings, held_questions: int
                    ) -> tuple[StatementGroups, StatementGroups]:
    """:func:`selection_groups` on truth groups already drawn with every question."""
    if held_questions < 1:
        raise ValueError(f"held_questions must be positive, got {held_questions}")
    questions = [i for i, source in enumerate(groups.sources) if source == QUESTION_SOURCE]
    if len(questions) <= held_questions:
        raise ValueError(f"only {len(questions)} OBQA train questions after cleaning: cannot hold out "
                         f"{held_questions} and train on the rest")
    held_ids = set(questions[-held_questions:])
    kept_ids = set(questions[:-held_questions][:settings.truth_questions])
    kept_ids |= {i for i, source in enumerate(groups.sources) if source != QUESTION_SOURCE}
    pick = lambda ids: StatementGroups([g for i, g in enumerate(groups.groups) if i in ids],
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
    context = TruthContext(fact_retriever(root) if training.facts else None, training.facts)
    start = time.perf_counter()
    model = fit_truth_scorer(train, context, training, checkpoint, progress)
    train_s = time.perf_counter() - start
    start = time.perf_counter()
    p_true, correct = truth_ranked_first(model, context, held)
    predict_s = time.perf_counter() - start
    return {"checkpoint": str(checkpoint), "truth_scorer": training.cache_config(), "train_groups": len(train),
            "train_questions": sum(s == QUESTION_SOURCE for s in train.sources), "held_questions": len(held),
            "correct": correct, "group_accuracy": float(np.mean(correct)), "train_s": round(train_s, 1),
            "predict_s_per_pair": predict_s / max(1, len(p_true))}


def best_set_ranked_first(scorer: CrossEncoder, pool: proposals.FactPool, groups: StatementGroups
                          ) -> tuple[list[float], list[bool]]:
    """Per statement of ``groups`` (flattened, in order) the best s_e (``scorer``'s P(true) of the joined premises
    and the statement) over its pool's candidate sets (0 for an empty pool), and per group whether its true
    statement scores highest."""
    flat = groups.statements()
    sets = pool.sets(flat)
    pairs = [(join_premises(premises), text) for text, candidates in zip(flat, sets) for premises in candidates]
    scores = iter(scorer.predict_proba(pairs, progress=False)[:, 1].tolist() if pairs else [])
    best = [max((next(scores) for _ in candidates), default=0.0) for candidates in sets]
    return best, groups.true_ranked_first(best)


def entailment_selection(data_dir, settings: Settings = Settings(), checkpoint: str = "minilm",
                         held_questions: int = 400, progress: bool = True) -> dict:
    """Train an entailment scorer from ``checkpoint`` with ``settings.entailment_scorer`` (as the book does) and
    report, on :func:`selection_groups`'s held-out questions, which ones its best pool set answers
    (:func:`best_set_ranked_first`); the keys of :func:`truth_selection`'s result, and ``held_out_accuracy`` (on
    the scorer's own held-out pairs)."""
    root = resolve_data_dir(data_dir)
    training = settings.entailment_scorer
    every = _every_question(root, settings)      # its entailment pairs are those of ``settings``
    _, held = _held_out_split(every.truth, settings, held_questions)
    data = every.entailment
    start = time.perf_counter()
    model = fit_entailment_scorer(data, training, checkpoint, progress)
    train_s = time.perf_counter() - start
    pool = proposals.build_pool(fact_retriever(root), settings.pool)
    start = time.perf_counter()
    best, correct = best_set_ranked_first(model, pool, held)
    predict_s = time.perf_counter() - start
    return {"checkpoint": str(checkpoint), "entailment_scorer": training.cache_config(), "train_pairs": len(data),
            "held_questions": len(held), "correct": correct, "group_accuracy": float(np.mean(correct)),
            "held_out_accuracy": model.held_out["accuracy"], "train_s": round(train_s, 1),
            "predict_s_per_statement": predict_s / max(1, len(best))}


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
    parser.add_argument("--judge", choices=JUDGES, default="truth", help="the scorer to train and measure")
    parser.add_argument("--checkpoint", default="minilm", help="'minilm' or a local checkpoint folder")
    parser.add_argument("--lr", type=float, default=None,
                        help="learning rate (default: Settings.truth_lr or Settings.entail_lr)")
    parser.add_argument("--examples", type=int, default=None,
                        help="entailment training pairs (default: Settings.entail_examples)")
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
    truth = args.judge == "truth"
    overrides = {"truth_lr" if truth else "entail_lr": args.lr, "truth_questions": args.questions,
                 "truth_statements": args.statements, "entail_examples": args.examples}
    settings = replace(Settings(), **{name: value for name, value in overrides.items() if value is not None})
    select = truth_selection if truth else entailment_selection
    result = select(args.data_dir, settings, args.checkpoint, args.held)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(result, f)
    print({k: v for k, v in result.items() if k != "correct"})


if __name__ == "__main__":
    main()
