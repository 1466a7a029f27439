"""Multiple-choice science questions: OpenBookQA and QASC, the question sets Entailer answers.

Entailer (Tafjord, Dalvi Mishra & Clark 2022) turns each answer option of a
multiple-choice question into a declarative hypothesis, proves or disproves every hypothesis and
answers with the best-scoring option.  The paper evaluates on the OpenBookQA test set (500
questions); the book also runs on the OBQA dev set and on QASC dev (datasets ``obqa`` and
``qasc``), and trains on OBQA train.

Official formats read here:

* **OpenBookQA** "Main" TSV (``openbookqa/{train,dev,test}.tsv``), header
  ``ID  Question Stem  Choices  Complete Question  Answer Key``, with all options in one cell:
  ``"(A) text (B) text (C) text (D) text"`` (:func:`parse_choices`).  Four options is the rule, but
  train row ``12-1145`` has five (two are labelled ``(D)``): such rows are kept as they are and counted
  in the records' :attr:`Records.irregular` report.  The test split is held back; its answer
  keys may come instead from the AI2 leaderboard file ``{split}_question-answers_aristo-leaderboard.jsonl``
  (lines ``{"id": ..., "answerKey": ...}``), which fills empty key cells (and must agree with
  non-empty ones).
* **QASC** JSON lines (``qasc/{split}.jsonl``): ``{"id", "question": {"stem", "choices": [{"text",
  "label"}]}, "answerKey", "fact1", "fact2", "combinedfact", "formatted_question"}`` with eight
  options; ``fact1 & fact2 -> combinedfact`` is a gold two-premise composition.

Both give :class:`Question` records.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from proofbook.core.paths import resolve_data_dir
from proofbook.data.base import (Records, SkipReport, UniqueIds, check_split, dataset_file, iter_tsv, require,
                                 require_label, require_text)
from proofbook.data.jsonparse import iter_jsonl
from proofbook.data.textfile import DataError

OBQA_FOLDER = "openbookqa"
QASC_FOLDER = "qasc"
SPLITS = ("train", "dev", "test")
OBQA_OPTIONS = 4
QASC_OPTIONS = 8
#: the columns of the OpenBookQA TSV that a reader needs (``Complete Question`` is stem + choices)
OBQA_COLUMNS = ("ID", "Question Stem", "Choices")
OBQA_KEY_COLUMN = "Answer Key"


# --- reports and records ---------------------------------------------------------------------

@dataclass(frozen=True)
class Option:
    """One answer option: its label (``"A"``) and text."""

    label: str
    text: str


@dataclass(frozen=True)
class Question:
    """A multiple-choice question with its gold answer label.

    ``facts`` holds gold supporting facts where the dataset has them (QASC ``fact1``, ``fact2``);
    ``combined_fact`` is QASC's composition of the two.
    """

    id: str
    stem: str
    options: list[Option]
    answer_key: str
    source: str
    facts: tuple[str, ...] = ()
    combined_fact: str = ""

    @property
    def labels(self) -> list[str]:
        return [option.label for option in self.options]

    @property
    def answer_index(self) -> int:
        """Position of the gold option in :attr:`options` (the first one with the answer label)."""
        return self.labels.index(self.answer_key)

    @property
    def answer_text(self) -> str:
        return self.options[self.answer_index].text


def _check_answer_key(key: str, options: list[Option], path: Path, line: int, field: str) -> str:
    """The answer key, if it names exactly one of the options."""
    labels = [option.label for option in options]
    require_label(key, dict.fromkeys(labels), path, line, field)
    if labels.count(key) > 1:
        raise DataError(path, line, field, f"ambiguous: {labels.count(key)} options are labelled {key!r}")
    return key


def _note_irregular(report: SkipReport, options: list[Option], expected: int, where: str) -> None:
    if len(options) != expected:
        report.add(f"{len(options)} options", where)
    for label, n in Counter(option.label for option in options).items():
        if n > 1:
            report.add(f"duplicate option label {label!r}", where)


# --- OpenBookQA --------------------------------------------------------------------------------

# an option label "(A)" at the start or after white space, followed by white space or the end
_OPTION_LABEL = re.compile(r"(?:^|(?<=\s))\(([A-Z])\)(?=\s|$)")


def parse_choices(text: str) -> list[Option]:
    """Split OpenBookQA's one-cell choices ``"(A) ... (B) ... (C) ... (D) ..."`` into options.

    Any number of options (at least two) is accepted, in the order written; labels are not checked
    for sequence (the real data has a row labelled A B C D D).  Raises :class:`ValueError` when the
    text does not start with a label or an option is empty.
    """
    text = text.strip()
    marks = list(_OPTION_LABEL.finditer(text))
    if not marks or marks[0].start() != 0:
        raise ValueError(f"does not start with an option label like '(A)': {text[:40]!r}")
    options = []
    for mark, following in zip(marks, marks[1:] + [None]):
        option_text = text[mark.end(): following.start() if following else len(text)].strip()
        if not option_text:
            raise ValueError(f"option ({mark.group(1)}) is empty")
        options.append(Option(mark.group(1), option_text))
    if len(options) < 2:
        raise ValueError(f"found {len(options)} option; a multiple-choice question needs at least two")
    return options


#: an option label: one capital letter (OpenBookQA's ``(A)``, QASC's ``"label": "A"``)
_LABEL = re.compile(r"^[A-Z]$")


def _option_label(value: str, path: Path, line: int, field: str) -> str:
    """``value`` stripped, if it is an option label (one capital letter), else a :class:`DataError`."""
    label = value.strip()
    if not _LABEL.match(label):
        raise DataError(path, line, field, f"unknown label {value!r}; expected an option label 'A'-'Z'")
    return label


def _answer_keys(path: Path) -> dict[str, tuple[int, str]]:
    """``id -> (line, answerKey)`` from an AI2 leaderboard ``question-answers.jsonl`` file."""
    keys: dict[str, tuple[int, str]] = {}
    ids = UniqueIds(path, "id")
    for line, obj in iter_jsonl(path):
        qid = require(obj, "id", path, line)
        ids.check(qid, line)
        keys[qid] = (line, _option_label(require(obj, "answerKey", path, line), path, line, "answerKey"))
    return keys


def parse_answer_keys(path: os.PathLike | str) -> dict[str, str]:
    """Answer keys ``id -> label`` from a leaderboard file (``{"id": ..., "answerKey": ...}`` lines).

    A key must be an option label (one capital letter, ``"A"``); anything else is a :class:`DataError`.
    """
    return {qid: key for qid, (_, key) in _answer_keys(Path(path)).items()}


def parse_obqa_file(path: os.PathLike | str, answers_path: os.PathLike | str | None = None,
                    expected_options: int = OBQA_OPTIONS, source: str = "openbookqa") -> Records:
    """Read any file in the OpenBookQA Main TSV format into :class:`Question` records.

    ``answers_path`` (optional) is a leaderboard answer file whose keys fill empty ``Answer Key``
    cells (or a file without that column); where both give a key they must agree.  Without an answer
    file the header must have the ``Answer Key`` column.  Rows whose number of options differs from
    ``expected_options``, or that repeat a label, are kept and counted in ``.irregular``.
    """
    path = Path(path)
    answers = _answer_keys(Path(answers_path)) if answers_path is not None else {}
    irregular = SkipReport(source=path.name, kept=True)
    questions = Records(skipped=SkipReport(source=path.name), irregular=irregular)
    ids = UniqueIds(path, "ID")
    columns = OBQA_COLUMNS if answers_path is not None else (*OBQA_COLUMNS, OBQA_KEY_COLUMN)
    for line, row in iter_tsv(path, header=True, columns=columns):
        qid = require_text(row["ID"], path, line, "ID").strip()
        ids.check(qid, line)
        stem = require_text(row["Question Stem"], path, line, "Question Stem").strip()
        choices = require_text(row["Choices"], path, line, "Choices")
        try:
            options = parse_choices(choices)
        except ValueError as err:
            raise DataError(path, line, "Choices", str(err)) from None
        key = _obqa_answer_key(row.get(OBQA_KEY_COLUMN, "").strip(), qid, answers, path, line, answers_path)
        _check_answer_key(key, options, path, line, OBQA_KEY_COLUMN)
        _note_irregular(irregular, options, expected_options, f"{qid} (line {line})")
        questions.append(Question(qid, stem, options, key, source))
    return questions


def _obqa_answer_key(key: str, qid: str, answers: dict[str, tuple[int, str]], path: Path, line: int,
                     answers_path: os.PathLike | str | None) -> str:
    """The row's own key, else the leaderboard file's; the two must agree where both exist."""
    if qid in answers:
        answer_line, answer = answers[qid]
        if key and key != answer:
            raise DataError(answers_path, answer_line, "answerKey",
                            f"{answer!r} disagrees with {path.name} line {line} ({OBQA_KEY_COLUMN} {key!r})")
        return key or answer
    if not key:
        where = f"not in {Path(answers_path).name}" if answers_path is not None else "no answer file given"
        raise DataError(path, line, OBQA_KEY_COLUMN, f"empty ({where})")
    return key


def obqa_answers_name(split: str) -> str:
    """Name of the optional leaderboard answer file for ``split`` (``test_question-answers_...``)."""
    return f"{split}_question-answers_aristo-leaderboard.jsonl"


def read_obqa(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """OpenBookQA ``split`` from ``<data_dir>/openbookqa/{split}.tsv`` (+ its answer file if present)."""
    check_split(split, SPLITS, "openbookqa")
    path = dataset_file(data_dir, OBQA_FOLDER, f"{split}.tsv")
    answers = path.parent / obqa_answers_name(split)
    return parse_obqa_file(path, answers if answers.is_file() else None)


# --- QASC --------------------------------------------------------------------------------------

def parse_qasc_file(path: os.PathLike | str, expected_options: int = QASC_OPTIONS,
                    source: str = "qasc") -> Records:
    """Read any file in QASC's JSON-lines format into :class:`Question` records.

    ``fact1``/``fact2`` become :attr:`Question.facts` and ``combinedfact`` :attr:`Question.combined_fact`
    when present (they must then be non-empty text); ``answerKey`` is required.  A choice label must
    be an option label (one capital letter).
    """
    path = Path(path)
    irregular = SkipReport(source=path.name, kept=True)
    questions = Records(skipped=SkipReport(source=path.name), irregular=irregular)
    ids = UniqueIds(path, "id")
    for line, obj in iter_jsonl(path):
        qid = require(obj, "id", path, line)
        ids.check(qid, line)
        question = require(obj, "question", path, line, kind=dict)
        stem = require(question, "stem", path, line, name="question.stem").strip()
        choices = require(question, "choices", path, line, kind=list, name="question.choices")
        options = []
        for i, choice in enumerate(choices):
            name = f"question.choices[{i}]"
            if not isinstance(choice, dict):
                raise DataError(path, line, name, f"expected an object, found {type(choice).__name__}")
            label = _option_label(require(choice, "label", path, line, name=f"{name}.label"), path, line,
                                  f"{name}.label")
            options.append(Option(label, require(choice, "text", path, line, name=f"{name}.text").strip()))
        key = require(obj, "answerKey", path, line).strip()
        _check_answer_key(key, options, path, line, "answerKey")
        facts = tuple(require(obj, name, path, line).strip() for name in ("fact1", "fact2") if name in obj)
        combined = require(obj, "combinedfact", path, line).strip() if "combinedfact" in obj else ""
        _note_irregular(irregular, options, expected_options, f"{qid} (line {line})")
        questions.append(Question(qid, stem, options, key, source, facts, combined))
    return questions


def read_qasc(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """QASC ``split`` from ``<data_dir>/qasc/{split}.jsonl`` (only ``dev`` is in the shared copy)."""
    check_split(split, SPLITS, "qasc")
    return parse_qasc_file(dataset_file(data_dir, QASC_FOLDER, f"{split}.jsonl"))


# --- the book's data table -----------------------------------------------------------------------

def _detail(questions: Records) -> str:
    keys = Counter(q.answer_key for q in questions)
    sizes = Counter(len(q.options) for q in questions)
    parts = [", ".join(f"{n:,} x {size} options" for size, n in sorted(sizes.items())),
             "answers " + " ".join(f"{label} {keys[label]:,}" for label in sorted(keys))]
    if questions.irregular.total:
        parts.append("kept irregular: " + ", ".join(f"{reason} ({n:,})" for reason, n in questions.irregular.counts.items()))
    return "; ".join(parts)


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per OpenBookQA / QASC split file present in ``data_dir`` (for the book's data table)."""
    root = resolve_data_dir(data_dir)
    rows = []
    for dataset, folder, suffix, reader in (("obqa", OBQA_FOLDER, "tsv", read_obqa),
                                            ("qasc", QASC_FOLDER, "jsonl", read_qasc)):
        for split in SPLITS:
            if not (root / folder / f"{split}.{suffix}").is_file():
                continue
            questions = reader(root, split)
            detail = _detail(questions)
            if dataset == "qasc" and questions and all(q.facts for q in questions):
                detail += "; 2 gold facts + combined fact each"
            rows.append({"dataset": dataset, "split": split, "records": len(questions), "detail": detail})
    return rows
