"""What Entailer's chapters read: the evaluation splits present in a data directory, the questions, and the
training sets of the behaviours cleaned of the evaluation statements (Tafjord et al. 2022, §4).

:func:`evaluation_plan` names the OBQA and QASC splits a chapter evaluates on (the labelled test split where it is
present, else dev); :func:`training_data` builds the training pairs of every behaviour from the training files
(:func:`training_files`) and removes near-duplicates of every evaluation statement (:func:`evaluation_statements`:
all option hypotheses of the evaluation splits and the conclusions of the EntailmentBank evaluation trees), with
the counts removed in its report.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from proofbook.core.paths import resolve_data_dir
from proofbook.data import entailmentbank as eb
from proofbook.data.entailmentbank import (dataset_name, one_step_entailments, read_entailmentbank,
                                           read_entailmentbank_train, read_worldtree)
from proofbook.data.nli import read_scitail, read_sick
from proofbook.data.science_qa import read_obqa, read_qasc
from proofbook.entailer.training_data import (LabelledPairs, StatementGroups, drop_near_duplicates,
                                              entailment_examples, premise_pairs, premise_pairs_with_context,
                                              truth_groups)
from proofbook.entailer.behaviours import FactRetriever
from proofbook.entailer import hypotheses as hyp
from proofbook.entailer.settings import Settings



def _present(path: Path) -> list[Path]:
    return [path] if path.is_file() else []


def evaluation_files(data_dir) -> list[Path]:
    """The evaluation files present (their statements are removed from every training set)."""

    root = resolve_data_dir(data_dir)
    files = []
    for split in ("dev", "test"):
        files += _present(root / "openbookqa" / f"{split}.tsv")
        files += _present(root / "entailmentbank" / eb.dataset_name(1, split))
    files += _present(root / "qasc" / "dev.jsonl")
    return files


def training_files(data_dir) -> list[Path]:
    """The training files in ``data_dir``: EntailmentBank task 1 train and OBQA train (FileNotFoundError if
    one is missing), then SciTail dev/test and SICK where present."""

    root = resolve_data_dir(data_dir)
    files = [root / "entailmentbank" / eb.angles_name(1, "train"), root / "openbookqa" / "train.tsv"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise FileNotFoundError(f"Entailer training needs {', '.join(missing)}")
    for split in ("dev", "test"):
        files += _present(root / "scitail" / f"{split}.jsonl")
    files += _present(root / "sick" / "SICK.txt")
    return files


def evaluation_splits(data_dir, dataset: str, split: str | None = None) -> list[str]:
    """The labelled evaluation splits of ``dataset`` present in the data directory, or just ``split``."""
    root = resolve_data_dir(data_dir)
    folder, suffix, candidates = {"obqa": ("openbookqa", "tsv", ("dev", "test")), "qasc": ("qasc", "jsonl", ("dev",)),
                                  "entailmentbank": ("entailmentbank", None, ("dev", "test"))}[dataset]
    if split is not None:
        if split not in candidates:
            raise ValueError(f"{dataset}: no evaluation split {split!r} (expected one of {list(candidates)})")
        candidates = (split,)
    if dataset == "entailmentbank":
        return [s for s in candidates if (root / folder / dataset_name(1, s)).is_file()]
    present = [s for s in candidates if (root / folder / f"{s}.{suffix}").is_file()]
    if dataset == "obqa" and "test" in present:  # the test file counts only with its answer keys
        try:
            read_obqa(root, "test")
        except Exception:  # noqa: BLE001 - no keys: not a labelled split
            present.remove("test")
    return present


def evaluation_plan(data_dir, split: str | None = None) -> dict[str, list[str]]:
    """``{"obqa": [...], "qasc": [...]}``: the labelled splits to evaluate (``split`` only, where a dataset has it)."""
    plan = {}
    for dataset in ("obqa", "qasc"):
        try:
            plan[dataset] = evaluation_splits(data_dir, dataset, split)
        except ValueError:
            plan[dataset] = []
    if not any(plan.values()):
        raise ValueError(f"no OBQA or QASC evaluation split {split or ''} in {resolve_data_dir(data_dir)}")
    return {dataset: splits for dataset, splits in plan.items() if splits}


def read_questions(data_dir, dataset: str, split: str):
    """The multiple-choice questions of one split of ``dataset`` (``"obqa"``, else QASC)."""

    return (read_obqa if dataset == "obqa" else read_qasc)(data_dir, split)


def evaluation_statements(data_dir) -> list[str]:
    """What the evaluations ask about: every option hypothesis (rules) and question stem of OBQA/QASC, and the
    hypothesis and intermediate conclusions of every EntailmentBank evaluation tree (the statements whose
    premises are generated).  Context facts are *not* included: they are WorldTree corpus facts shared by
    train and dev trees, not evaluation examples."""

    statements = []
    for dataset in ("obqa", "qasc"):
        for split in evaluation_splits(data_dir, dataset):
            for q in read_questions(data_dir, dataset, split):
                statements += [hyp.rule_hypothesis(q.stem, o.text) for o in q.options if o.text.strip()]
                statements.append(q.stem)
    for split in evaluation_splits(data_dir, "entailmentbank"):
        for tree in read_entailmentbank(data_dir, split, 1):
            statements += [tree.hypothesis, *tree.intermediates.values()]
    return statements


@dataclass
class TrainingData:
    """What :func:`training_data` returns: the premise-generator and writer pairs, the truth groups, the
    entailment pairs, and ``report``, one row per source with the near-duplicates removed."""
    premise_pairs: list
    writer_pairs: list
    truth: StatementGroups
    entailment: LabelledPairs
    report: list[dict] = field(default_factory=list)


def fact_retriever(data_dir) -> FactRetriever:
    """BM25 over the WorldTree fact corpus of ``data_dir`` (with EntailmentBank's additions)."""

    return FactRetriever(list(read_worldtree(data_dir).values()))


def training_data(data_dir, settings: Settings) -> TrainingData:
    """All training sets, cleaned of near-duplicates of the evaluation statements (counts in ``report``).

    Each set is drawn with its component's settings only (``settings.truth_scorer`` and so on), the ones that
    key the component's cache entry.
    """

    root = resolve_data_dir(data_dir)
    banned = evaluation_statements(root)
    trees = list(read_entailmentbank_train(root, 1))
    steps = [e for tree in trees for e in one_step_entailments(tree)]
    steps_kept = drop_near_duplicates(steps, lambda e: (e.conclusion,), banned)
    trees_kept = drop_near_duplicates(trees, lambda t: (t.hypothesis, t.question), banned)
    obqa = list(read_obqa(root, "train"))
    obqa_kept = drop_near_duplicates(obqa, lambda q: (q.stem,), banned)
    question_hypotheses = [(hyp.rule_hypothesis(q.stem, q.answer_text),
                            [hyp.rule_hypothesis(q.stem, o.text) for o in q.options
                             if o.label != q.answer_key and o.text.strip()]) for q in obqa_kept.examples]
    nli = []
    for split in ("dev", "test"):
        if (root / "scitail" / f"{split}.jsonl").is_file():
            nli += list(read_scitail(root, split))
    if (root / "sick" / "SICK.txt").is_file():
        nli += list(read_sick(root, "train"))
    nli_kept = drop_near_duplicates(nli, lambda p: (p.premise, p.hypothesis), banned)
    generator, writer = settings.premise_generator, settings.writer
    truth_training, entail_training = settings.truth_scorer, settings.entailment_scorer
    truth = truth_groups(trees_kept.examples, question_hypotheses, truth_training.seed, truth_training.questions,
                         truth_training.statements)
    entail = entailment_examples(steps_kept.examples, nli_kept.examples, entail_training.seed,
                                 entail_training.examples)
    retriever = fact_retriever(root) if generator.context_facts else None
    generator_pairs = (premise_pairs_with_context(steps_kept.examples, retriever, generator.context_facts,
                                                  generator.seed)
                       if retriever is not None else premise_pairs(steps_kept.examples))
    if generator.examples:
        generator_pairs = random.Random(generator.seed).sample(generator_pairs,
                                                               min(generator.examples, len(generator_pairs)))
    writer_pairs = hyp.writer_pairs(trees_kept.examples)
    if writer.examples:
        writer_pairs = random.Random(writer.seed).sample(writer_pairs, min(writer.examples, len(writer_pairs)))
    report = [
        {"training set": "one-step entailments (premise generator, entailment positives)",
         "source": "EntailmentBank task 1 train", "kept": len(steps_kept.examples), "near-duplicates removed": steps_kept.removed},
        {"training set": "question/answer/hypothesis (writer, truth positives)", "source": "EntailmentBank task 1 train",
         "kept": len(trees_kept.examples), "near-duplicates removed": trees_kept.removed},
        {"training set": "OBQA train questions (truth positives/negatives)", "source": "openbookqa/train.tsv",
         "kept": len(obqa_kept.examples), "near-duplicates removed": obqa_kept.removed},
        {"training set": "NLI pairs (entailment)", "source": "SciTail dev/test, SICK train",
         "kept": len(nli_kept.examples), "near-duplicates removed": nli_kept.removed},
    ]
    return TrainingData(generator_pairs, writer_pairs, truth, entail, report)
