"""EntailmentBank entailment trees and the WorldTree fact corpus: Entailer's training data.

EntailmentBank (Dalvi et al. 2021) explains the answer to a grade-school science question with an
*entailment tree*: facts (``sent1``, ``sent2``, ...) combine in steps into intermediate conclusions
(``int1``, ...) and finally into the *hypothesis* (question + answer as a statement).  Entailer
(Tafjord et al. 2022) is trained on the tree's one-step entailments -- each step
"premises -> conclusion" is a positive example for generating premises (H -> P) and for scoring an
inference (PH -> Se): 4,175 of them from the 1,313 train questions.  The book evaluates premise
generation on the task 1 trees (dataset ``entailmentbank``), whose context holds
exactly the gold premises.

Official formats read here (folder ``entailmentbank``, repository paths with ``/`` -> ``__``):

* ``dataset__task_{1,2,3}__{split}.jsonl`` -- one tree per line: ``{id, question, answer, hypothesis,
  context: "sent1: ... sent2: ...", proof: "sent1 & sent3 -> int1: ...; int1 & sent2 -> hypothesis; ",
  depth_of_proof, length_of_proof, full_text_proof, meta{...}}``.  Task 1 gives the gold premises
  only, task 2 adds distractors (25 sentences), task 3 gives 25 sentences retrieved from WorldTree
  and *no* proof (``proof`` is empty, no depth or length): its trees have no steps.  Only ``dev`` is
  in the shared copy (``train`` is too large, ``test`` is held back).  The official test files repeat
  one id (``Mercury_SC_405304``, two consecutive lines, two different trees): both are kept and
  counted in ``.irregular``.
* ``data__processed_data__angles__task_{1,2}__train.jsonl`` -- the same train questions in the
  model's text-to-text form ``{id, input, output, angle}``: input ``"$proof$ ; $question$ = ... ;
  $answer$ = ... ; $hypothesis$ = ... ; $context$ = sent1: ..."`` and output ``"$proof$ = <proof>"``
  (:func:`~proofbook.data.entailment_text.parse_slots`).  Read into the same :class:`EntailmentTree`
  (depth and length computed from the proof).  Five ids occur twice (one question, two accepted
  answers): both are kept and counted in ``.irregular``.
* ``supporting_data__worldtree_corpus_sentences_extended.json`` -- one JSON object ``{fact id: text}``:
  WorldTree facts (ids like ``a0b9-0a12-2eb9-c50e``) plus EntailmentBank's additions
  (``ET_addon:N``); the placeholder ``ET_addon:0 = "DUMMY"`` is skipped and counted.

Where things live: this module holds the tree, entailment and fact-table records, the parsers and
readers of the three files, :func:`one_step_entailments`, :func:`worldtree_corpus` and :func:`describe`.
The step record :class:`~proofbook.data.entailment_text.ProofStep` and the parsers of the context, proof
and slot texts (:func:`~proofbook.data.entailment_text.parse_context`,
:func:`~proofbook.data.entailment_text.parse_proof`, :func:`~proofbook.data.entailment_text.check_proof`,
:func:`~proofbook.data.entailment_text.proof_depth`, :func:`~proofbook.data.entailment_text.parse_slots`)
are in :mod:`proofbook.data.entailment_text`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from proofbook.core.corpus import Corpus
from proofbook.core.paths import resolve_data_dir
from proofbook.data.base import Records, SkipReport, check_split, dataset_file, require, require_records
from proofbook.data.entailment_text import (HYPOTHESIS, ProofStep, check_proof, parse_context, parse_proof, parse_slots,
                                            proof_depth)
from proofbook.data.jsonparse import iter_json_object, iter_jsonl
from proofbook.data.textfile import DataError

FOLDER = "entailmentbank"
SPLITS = ("train", "dev", "test")
TASKS = (1, 2, 3)
#: the tasks with a text-to-text ("angles") version of the train questions
ANGLE_TASKS = (1, 2)
WORLDTREE_FILE = "supporting_data__worldtree_corpus_sentences_extended.json"
#: the value of EntailmentBank's placeholder fact (``ET_addon:0``)
PLACEHOLDER_FACT = "DUMMY"


def dataset_name(task: int, split: str) -> str:
    """The file name of EntailmentBank task ``task``'s ``split`` in :data:`FOLDER`."""
    return f"dataset__task_{task}__{split}.jsonl"


def angles_name(task: int, split: str = "train") -> str:
    """The file name of the text-to-text ("angles") version of task ``task``'s ``split`` in :data:`FOLDER`."""
    return f"data__processed_data__angles__task_{task}__{split}.jsonl"


# --- records -------------------------------------------------------------------------------------

@dataclass
class EntailmentTree:
    """A question with its hypothesis, context sentences and (gold) step-by-step proof."""

    id: str
    question: str
    answer: str
    hypothesis: str
    context: dict[str, str]
    proof: str
    steps: tuple[ProofStep, ...]
    depth_of_proof: int | None
    length_of_proof: int | None
    meta: dict = field(default_factory=dict)
    task: int | None = None

    @property
    def intermediates(self) -> dict[str, str]:
        """``int1 -> text`` for the intermediate conclusions of the proof."""
        return {s.conclusion: s.conclusion_text for s in self.steps if s.conclusion != HYPOTHESIS}

    def text_of(self, node: str) -> str:
        """The text of a node id: a context sentence, an intermediate conclusion or ``hypothesis``."""
        if node == HYPOTHESIS:
            return self.hypothesis
        if node in self.context:
            return self.context[node]
        intermediates = self.intermediates
        if node in intermediates:
            return intermediates[node]
        raise KeyError(f"{self.id}: no sentence, intermediate or hypothesis called {node!r}")


@dataclass(frozen=True)
class Entailment:
    """A one-step entailment: premise texts that jointly entail the conclusion text.

    ``tree_id`` says where it came from and does not take part in comparisons, so equal texts from
    two trees compare (and hash) equal.
    """

    premises: tuple[str, ...]
    conclusion: str
    tree_id: str = field(default="", compare=False)


def one_step_entailments(tree: EntailmentTree) -> list[Entailment]:
    """Every step of ``tree`` with its ids resolved to texts, in proof order.

    ``sentN`` comes from the context, ``intN`` from an earlier step and ``hypothesis`` is the
    hypothesis: Entailer's positive H -> P and PH -> Se examples.  Trees without a proof (task 3)
    give none.
    """
    return [Entailment(tuple(tree.text_of(p) for p in step.premises), step.conclusion_text, tree.id)
            for step in tree.steps]


# --- EntailmentBank trees ------------------------------------------------------------------------

def _proof_steps(proof: str, hypothesis: str, context: dict[str, str], path: Path, line: int,
                 field_name: str) -> tuple[ProofStep, ...]:
    try:
        steps = parse_proof(proof, hypothesis)
        check_proof(steps, context)
    except ValueError as err:
        raise DataError(path, line, field_name, str(err)) from None
    return steps


def _context(text: str, path: Path, line: int, field_name: str) -> dict[str, str]:
    try:
        return parse_context(text)
    except ValueError as err:
        raise DataError(path, line, field_name, str(err)) from None


def _optional_int(obj: dict, key: str, path: Path, line: int) -> int | None:
    if key not in obj:
        return None
    value = require(obj, key, path, line, kind=int)
    if isinstance(value, bool) or value < 0:
        raise DataError(path, line, key, f"expected a non-negative integer, found {value!r}")
    return value

def parse_entailmentbank_file(path: os.PathLike | str, task: int | None = None) -> Records:
    """Read any ``dataset__task_N__{split}.jsonl`` file into :class:`EntailmentTree` records.

    An empty ``proof`` (task 3) gives a tree without steps (an error where ``length_of_proof`` counts
    steps).  ``length_of_proof``, where given, must equal the number of steps.  A repeated ``id`` is
    kept and counted in ``.irregular`` ("duplicate id", with both lines), as in
    :func:`parse_entailmentbank_train_file`: the official v2 test release (tasks 1-3) repeats
    ``Mercury_SC_405304`` on two consecutive lines with two different trees, and both are evaluated.
    Code downstream therefore must not key trees by ``id`` alone.
    """
    path = Path(path)
    trees = Records(skipped=SkipReport(source=path.name), irregular=SkipReport(source=path.name, kept=True))
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        tree_id = require(obj, "id", path, line)
        hypothesis = require(obj, "hypothesis", path, line).strip()
        context = _context(require(obj, "context", path, line), path, line, "context")
        proof = require(obj, "proof", path, line, nonempty=False)
        steps = _proof_steps(proof, hypothesis, context, path, line, "proof")
        length = _optional_int(obj, "length_of_proof", path, line)
        if not steps and length:
            raise DataError(path, line, "proof", f"empty, but length_of_proof is {length}")
        if length is not None and length != len(steps):
            raise DataError(path, line, "length_of_proof", f"{length}, but the proof has {len(steps)} steps")
        meta = require(obj, "meta", path, line, kind=dict, nonempty=False) if "meta" in obj else {}
        if tree_id in seen:
            trees.irregular.add("duplicate id", f"{tree_id} (lines {seen[tree_id]}, {line})")
        seen.setdefault(tree_id, line)
        trees.append(EntailmentTree(
            id=tree_id, question=require(obj, "question", path, line).strip(),
            answer=require(obj, "answer", path, line).strip(), hypothesis=hypothesis, context=context,
            proof=proof, steps=steps, depth_of_proof=_optional_int(obj, "depth_of_proof", path, line),
            length_of_proof=length, meta=meta, task=task))
    return trees


def _slot(slots: dict[str, str], name: str, path: Path, line: int, field_name: str, required: bool = True) -> str:
    """A slot's value; absent optional slots give ``""``, present ones must not be empty."""
    if name not in slots:
        if required:
            raise DataError(path, line, f"{field_name} ${name}$", "missing")
        return ""
    if not slots[name]:
        raise DataError(path, line, f"{field_name} ${name}$", "empty")
    return slots[name]


def parse_entailmentbank_train_file(path: os.PathLike | str, task: int | None = None) -> Records:
    """Read any text-to-text ("angles") file ``{id, input, output, angle}`` into :class:`EntailmentTree`.

    The input must give ``$hypothesis$`` and ``$context$`` (``$question$``/``$answer$`` where present),
    the output ``$proof$``.  ``depth_of_proof`` and ``length_of_proof`` are computed from the proof;
    ``meta`` holds the remaining fields (``angle``).  A repeated id is kept and counted in ``.irregular``:
    the official train files repeat 5 question ids (the same question with another answer and proof).
    """
    path = Path(path)
    trees = Records(skipped=SkipReport(source=path.name), irregular=SkipReport(source=path.name, kept=True))
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        tree_id = require(obj, "id", path, line)
        slots = {}
        for field_name in ("input", "output"):
            text = require(obj, field_name, path, line)
            try:
                slots[field_name] = parse_slots(text)
            except ValueError as err:
                raise DataError(path, line, field_name, str(err)) from None
        given, wanted = slots["input"], slots["output"]
        hypothesis = _slot(given, "hypothesis", path, line, "input")
        context = _context(_slot(given, "context", path, line, "input"), path, line, "input $context$")
        proof = _slot(wanted, "proof", path, line, "output")
        steps = _proof_steps(proof, hypothesis, context, path, line, "output $proof$")
        if tree_id in seen:
            trees.irregular.add("duplicate id", f"{tree_id} (lines {seen[tree_id]}, {line})")
        seen.setdefault(tree_id, line)
        trees.append(EntailmentTree(
            id=tree_id, question=_slot(given, "question", path, line, "input", required=False),
            answer=_slot(given, "answer", path, line, "input", required=False), hypothesis=hypothesis,
            context=context, proof=proof, steps=steps, depth_of_proof=proof_depth(steps),
            length_of_proof=len(steps), meta={k: v for k, v in obj.items() if k not in ("id", "input", "output")},
            task=task))
    return trees


def _check_task(task: int, allowed: tuple[int, ...]) -> int:
    if task not in allowed:
        raise ValueError(f"entailmentbank: unknown task {task!r}; expected one of {list(allowed)}")
    return task


def read_entailmentbank(data_dir: os.PathLike | str | None = None, split: str = "dev", task: int = 1) -> Records:
    """EntailmentBank trees of ``task`` (1, 2 or 3) and ``split`` from ``dataset__task_N__{split}.jsonl``."""
    check_split(split, SPLITS, "entailmentbank")
    _check_task(task, TASKS)
    return parse_entailmentbank_file(dataset_file(data_dir, FOLDER, dataset_name(task, split)), task)


def read_entailmentbank_train(data_dir: os.PathLike | str | None = None, task: int = 1,
                              split: str = "train") -> Records:
    """The train questions (text-to-text form, task 1 or 2) as :class:`EntailmentTree` records."""
    check_split(split, SPLITS, "entailmentbank")
    _check_task(task, ANGLE_TASKS)
    return parse_entailmentbank_train_file(dataset_file(data_dir, FOLDER, angles_name(task, split)), task)


# --- WorldTree -----------------------------------------------------------------------------------

class FactTable(dict):
    """``fact id -> text``, carrying the reader's :class:`SkipReport` as ``.skipped``."""

    def __init__(self, items: Iterable = (), skipped: SkipReport | None = None):
        super().__init__(items)
        self.skipped = skipped if skipped is not None else SkipReport()

def parse_worldtree_file(path: os.PathLike | str) -> FactTable:
    """Read a WorldTree sentence file (one JSON object ``{fact id: text}``); placeholders are skipped.

    An error inside an entry names its line and, as the field, the fact id: an empty fact id, a fact
    id given twice, a text that is empty or not a string.
    """
    path = Path(path)
    facts = FactTable(skipped=SkipReport(source=path.name))
    lines: dict[str, int] = {}
    for line, fact_id, text in iter_json_object(path, "facts"):
        if not fact_id.strip():
            raise DataError(path, line, "fact id", "empty")
        if fact_id in lines:
            raise DataError(path, line, fact_id, f"duplicate fact id {fact_id!r} (first on line {lines[fact_id]})")
        lines[fact_id] = line
        if not isinstance(text, str) or not text.strip():
            found = "empty" if isinstance(text, str) else f"expected text, found {type(text).__name__}"
            raise DataError(path, line, fact_id, found)
        if text.strip() == PLACEHOLDER_FACT:
            facts.skipped.add(f"placeholder {PLACEHOLDER_FACT!r}", fact_id)
            continue
        facts[fact_id] = text.strip()
    return require_records(facts, path, "facts")


def read_worldtree(data_dir: os.PathLike | str | None = None) -> FactTable:
    """The WorldTree fact corpus (with EntailmentBank's additions) as ``fact id -> text``."""
    return parse_worldtree_file(dataset_file(data_dir, FOLDER, WORLDTREE_FILE))


def worldtree_corpus(facts: dict[str, str]) -> Corpus:
    """The facts as a :class:`~proofbook.core.corpus.Corpus`: one single-sentence document per fact id."""
    corpus = Corpus("worldtree")
    for fact_id, text in facts.items():
        corpus.add(fact_id, [text])
    return corpus


def is_entailmentbank_addition(fact_id: str) -> bool:
    """EntailmentBank's own facts are ``ET_addon:N``; the rest are WorldTree's."""
    return fact_id.startswith("ET_addon:")


# --- the book's data table ---------------------------------------------------------------------------

def _range(values: Iterable[int]) -> str:
    values = sorted(set(values))
    if not values:
        return "-"
    return str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"


def _tree_detail(trees: Records) -> str:
    entailments = sum(len(t.steps) for t in trees)
    parts = [f"{_range(len(t.context) for t in trees)} context sentences"]
    if entailments:
        parts.insert(0, f"{entailments:,} one-step entailments")
        parts.append("depth " + _range(t.depth_of_proof for t in trees if t.depth_of_proof is not None))
    else:
        parts.append("no gold proof")
    if trees.irregular.total:
        parts.append(", ".join(f"{reason} x{n} (kept)" for reason, n in trees.irregular.counts.items()))
    return "; ".join(parts)


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per EntailmentBank tree file, text-to-text train file and the WorldTree corpus present."""
    root = resolve_data_dir(data_dir)
    rows = []
    for task in TASKS:
        for split in SPLITS:
            if (root / FOLDER / dataset_name(task, split)).is_file():
                trees = read_entailmentbank(root, split, task)
                rows.append({"dataset": f"entailmentbank task {task}", "split": split, "records": len(trees),
                             "detail": _tree_detail(trees)})
    for task in ANGLE_TASKS:
        for split in SPLITS:
            if (root / FOLDER / angles_name(task, split)).is_file():
                trees = read_entailmentbank_train(root, task, split)
                rows.append({"dataset": f"entailmentbank task {task} (text-to-text)", "split": split,
                             "records": len(trees), "detail": _tree_detail(trees)})
    if (root / FOLDER / WORLDTREE_FILE).is_file():
        facts = read_worldtree(root)
        additions = sum(map(is_entailmentbank_addition, facts))
        detail = f"{len(facts) - additions:,} WorldTree facts + {additions:,} EntailmentBank additions"
        if facts.skipped.total:
            detail += f"; {facts.skipped.total} placeholder skipped"
        rows.append({"dataset": "worldtree", "split": "corpus", "records": len(facts), "detail": detail})
    return rows
