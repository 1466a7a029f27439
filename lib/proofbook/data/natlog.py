"""Natural-logic proofs in ProoFVer format, from QA-NatVer (Aly et al. 2023; folder ``natlog_proofs_qanatver``).

A ProoFVer proof (Krishna, Riedel & Vlachos 2022) explains a verdict as a sequence of triples
``{ claim span } [ evidence span ] OP`` that covers the claim in order; each operator is one of
MacCartney's natural-logic relations and a finite automaton turns the operator sequence into
SUPPORTS / REFUTES / NOT ENOUGH INFO.  AdMIRaL (Aly & Vlachos 2022, §3.2) uses
such proofs to decide whether retrieved evidence is *sufficient*; the book trains and evaluates its
proof generator and operator model on the files read here.  The automaton and a fuller ``Proof`` class
live in :mod:`proofbook.admiral.prover.natlog`; this module only parses the data.

Official formats (all from ``Raldir/QA-NatVer``):

* ``train_with_ids_fewshot.target`` -- lines ``<FEVER claim id>\\t^ { span } [ span ] OP ...``, the
  few-shot ProoFVer targets (the leading ``^`` is a start marker); claims are separated by blank lines
  and a claim may have several alternative proofs (one per line) -> :func:`read_fewshot_targets`.
* ``processed_train-fewshot_<settings>.jsonl`` -- the same claims after QA-NatVer's chunking and
  alignment, one JSON object per proof variant: ``id`` (the FEVER claim id times 10**11 plus the variant
  number), ``claim``, ``verdict``, ``evidence`` (``[ Title ] sentence`` joined by ``</s>``), ``proof``
  (``[[claim_span, evidence_span, op], ...]``), ``claim_parsed``, ``claim_parsed_hierarchy``,
  ``alignment``.  The settings (number of sampled claims, retrieval mode, number of evidence sentences,
  ...) are spelled out in the file name -> :func:`fewshot_processed_files`, :func:`read_fewshot_processed`.
* ``silver_predicted_proofs_fever_dev_output_logs.csv`` -- QA-NatVer's ``output_logs.csv``: tab-separated,
  no header, one line per claim span ``id, claim span, QA answer, gold answer, gold op, evidence span,
  predicted op``, a blank line after each claim.  These are *model predictions* (BART0, 32-shot), not
  gold: the "gold" columns are placeholders (the gold op is always ``=``) -> :func:`read_silver_proofs`.

Operators: ``=`` equivalence, ``<`` forward entailment, ``>`` reverse entailment, ``!`` negation,
``|`` alternation, ``#`` independence (:data:`~proofbook.data.proofver.OPERATORS`).

Where things live: this module holds the ``.target`` and silver-proof records and parsers, every
reader that takes a data directory (the processed few-shot files' too) and :func:`describe`.  The proof
notation (:data:`~proofbook.data.proofver.OPERATORS`, :data:`~proofbook.data.proofver.VERDICTS`,
:class:`~proofbook.data.proofver.ProofStep`, :func:`~proofbook.data.proofver.parse_proof_string`,
:func:`~proofbook.data.proofver.format_proof`) is in :mod:`proofbook.data.proofver`, the processed
few-shot records and parser in :mod:`proofbook.data.natlog_processed`.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from proofbook.core.paths import resolve_data_dir
from proofbook.data.base import Records, SkipReport, dataset_file, require_label, require_records, require_text
from proofbook.data.natlog_processed import FewshotSetting, parse_fewshot_processed, parse_fewshot_setting
from proofbook.data.proofver import OPERATORS, OperatorSequence, ProofStep, operator_counts, parse_proof_string
from proofbook.data.textfile import DataError, iter_lines

FOLDER = "natlog_proofs_qanatver"
FEWSHOT_TARGET_FILE = "train_with_ids_fewshot.target"
FEWSHOT_PROCESSED_GLOB = "processed_train-fewshot_*.jsonl"
SILVER_FILE = "silver_predicted_proofs_fever_dev_output_logs.csv"

#: answers of QA-NatVer's yes/no question for an operator
QA_ANSWERS = ("Yes", "No")


def _format_counts(counts: Counter) -> str:
    return ", ".join(f"{key} {n:,}" for key, n in counts.most_common())


# --- few-shot targets (.target) ----------------------------------------------------------------

@dataclass(frozen=True)
class FewshotTarget(OperatorSequence):
    """One line of ``train_with_ids_fewshot.target``: a proof of FEVER train claim ``claim_id``.

    ``variant`` numbers the alternative proofs of the same claim (0, 1, ...) in file order; the
    processed few-shot files give each variant the id ``claim_id * 10**11 + variant``.
    """

    claim_id: int
    variant: int
    steps: tuple[ProofStep, ...]
    line: int


def _parse_claim_id(value: str, path: Path, line: int, field_name: str = "id") -> int:
    value = require_text(value, path, line, field_name).strip()
    if not value.isdigit():
        raise DataError(path, line, field_name, f"expected an integer FEVER claim id, found {value[:40]!r}")
    return int(value)


def parse_fewshot_targets(path: os.PathLike | str) -> Records:
    """Read a ProoFVer ``.target`` file (``<id>\\t<proof>`` lines; blank lines separate claims).

    Returns :class:`Records` of :class:`FewshotTarget`.  The alternative proofs of one claim are the
    lines of one block, and a second claim id inside a block is a :class:`DataError` on field ``id``.
    A claim id that comes back in a later block is kept, its variants numbered on, and counted in
    ``.irregular``: the official file does this once (claim 110631).
    """
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)), irregular=SkipReport(source=str(path), kept=True))
    variants: Counter = Counter()
    first_line: dict[int, int] = {}
    block_id: int | None = None
    for number, text in iter_lines(path):
        if not text.strip():
            block_id = None
            continue
        cells = text.split("\t")
        if len(cells) != 2:
            field_name = "proof" if len(cells) < 2 else "line"
            raise DataError(path, number, field_name, f"expected '<id>\\t<proof>', found {len(cells)} tab-separated column(s)")
        claim_id = _parse_claim_id(cells[0], path, number)
        if block_id is None and claim_id in first_line:
            records.irregular.add("claim id back in a later block", f"{claim_id} (lines {first_line[claim_id]}, {number})")
        if block_id is not None and claim_id != block_id:
            raise DataError(path, number, "id", f"claim id {claim_id} inside the proofs of claim {block_id} "
                                                f"(line {first_line[block_id]}); expected a blank line between claims")
        block_id = claim_id
        first_line.setdefault(claim_id, number)
        steps = parse_proof_string(cells[1], path, number)
        records.append(FewshotTarget(claim_id, variants[claim_id], tuple(steps), number))
        variants[claim_id] += 1
    return require_records(records, path, "proofs")


def read_fewshot_targets(data_dir: os.PathLike | str | None = None) -> Records:
    """The few-shot ProoFVer targets ``train_with_ids_fewshot.target`` (68 claims, 172 proofs)."""
    return parse_fewshot_targets(dataset_file(data_dir, FOLDER, FEWSHOT_TARGET_FILE))


# --- processed few-shot files (.jsonl) ----------------------------------------------------------

def fewshot_processed_files(data_dir: os.PathLike | str | None = None) -> list[FewshotSetting]:
    """Every ``processed_train-fewshot_*.jsonl`` in the folder with its settings, sorted by
    (num_samples, use_retr, retr_evidence).  The folder itself must exist."""
    folder = resolve_data_dir(data_dir) / FOLDER
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such dataset folder; run `make data` (or pass data_dir / set PROOFBOOK_DATA)")
    settings = [parse_fewshot_setting(p) for p in folder.glob(FEWSHOT_PROCESSED_GLOB)]
    return sorted(settings, key=lambda s: (s.num_samples, s.use_retr, s.retr_evidence, s.path.name))


def read_fewshot_processed(data_dir: os.PathLike | str | None = None, num_samples: int = 64,
                           use_retr: str = "False", retr_evidence: int | None = None) -> Records:
    """The processed few-shot file with these settings (``retr_evidence=None``: any, if unique).

    In this copy: ``(32, "Only", 5)``, ``(64, "False", 2)`` and ``(64, "Only", 5)``.
    """
    settings = fewshot_processed_files(data_dir)
    chosen = [s for s in settings if s.num_samples == num_samples and s.use_retr == str(use_retr)
              and (retr_evidence is None or s.retr_evidence == retr_evidence)]
    if len(chosen) != 1:
        present = [(s.num_samples, s.use_retr, s.retr_evidence) for s in settings]
        want = (num_samples, str(use_retr), retr_evidence)
        problem = "no" if not chosen else "more than one"
        raise FileNotFoundError(f"{resolve_data_dir(data_dir) / FOLDER}: {problem} processed few-shot file with "
                                f"(num_samples, use_retr, retr_evidence) = {want}; present: {present}")
    return parse_fewshot_processed(chosen[0].path)


# --- silver predicted proofs (output_logs.csv) --------------------------------------------------

@dataclass(frozen=True)
class SilverStep(ProofStep):
    """A predicted :class:`ProofStep` with QA-NatVer's bookkeeping columns.

    ``qa_answer`` is the model's yes/no answer for the chosen operator (``No`` when no operator question
    was answered yes, which makes the step independence ``#``); ``gold_answer`` and ``gold_operator``
    are placeholder columns (no gold proofs exist for these claims: always ``Yes`` and ``=`` here).
    """

    qa_answer: str = "Yes"
    gold_answer: str = "Yes"
    gold_operator: str = "="


@dataclass(frozen=True)
class SilverProof(OperatorSequence):
    """The predicted proof of one FEVER claim: its steps in claim order; ``line`` is the first line."""

    claim_id: int
    steps: tuple[SilverStep, ...]
    line: int


SILVER_COLUMNS = ("id", "claim span", "QA answer", "gold answer", "gold operator", "evidence span", "operator")


def _silver_step(cells: list[str], path: Path, line: int) -> SilverStep:
    if len(cells) != len(SILVER_COLUMNS):
        field_name = SILVER_COLUMNS[len(cells)] if len(cells) < len(SILVER_COLUMNS) else "line"
        raise DataError(path, line, field_name, f"expected {len(SILVER_COLUMNS)} tab-separated columns "
                                                f"({', '.join(SILVER_COLUMNS)}), found {len(cells)}")
    _, claim_span, qa_answer, gold_answer, gold_operator, evidence_span, operator = cells
    require_text(claim_span, path, line, "claim span")
    require_text(evidence_span, path, line, "evidence span")
    require_label(qa_answer, QA_ANSWERS, path, line, "QA answer")
    require_label(gold_answer, QA_ANSWERS, path, line, "gold answer")
    require_label(gold_operator, OPERATORS, path, line, "gold operator")
    require_label(operator, OPERATORS, path, line, "operator")
    return SilverStep(claim_span.strip(), evidence_span.strip(), operator, qa_answer, gold_answer, gold_operator)


def parse_silver_proofs(path: os.PathLike | str) -> Records:
    """Read a QA-NatVer ``output_logs.csv`` -> :class:`Records` of :class:`SilverProof`, one per claim.

    Lines of one claim are consecutive and a blank line ends the claim.  Two claim ids in one block,
    or a claim id seen in an earlier block, raise a :class:`DataError` on field ``id``.
    """
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    first_line: dict[int, int] = {}
    block: list[SilverStep] = []
    block_id: int | None = None
    block_line = 0

    def close_block() -> None:
        if block_id is not None:
            records.append(SilverProof(block_id, tuple(block), block_line))

    for number, text in iter_lines(path):
        if not text.strip():
            close_block()
            block, block_id = [], None
            continue
        cells = text.split("\t")
        claim_id = _parse_claim_id(cells[0], path, number)
        if block_id is None:
            if claim_id in first_line:
                raise DataError(path, number, "id", f"claim id {claim_id} already had a proof at line {first_line[claim_id]}")
            block_id, block_line = claim_id, number
            first_line[claim_id] = number
        elif claim_id != block_id:
            raise DataError(path, number, "id", f"claim id {claim_id} inside the proof of claim {block_id} "
                                                f"(line {block_line}); expected a blank line between claims")
        block.append(_silver_step(cells, path, number))
    close_block()
    return require_records(records, path, "proofs")


def read_silver_proofs(data_dir: os.PathLike | str | None = None) -> Records:
    """QA-NatVer's predicted proofs for 19,998 FEVER claims (``silver_predicted_proofs_...csv``)."""
    return parse_silver_proofs(dataset_file(data_dir, FOLDER, SILVER_FILE))


# --- the book's introduction table --------------------------------------------------------------

def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per natural-logic proof file present in ``data_dir`` (absent files are skipped)."""
    folder = resolve_data_dir(data_dir) / FOLDER
    rows: list[dict] = []
    if not folder.is_dir():
        return rows
    if (folder / FEWSHOT_TARGET_FILE).is_file():
        targets = read_fewshot_targets(data_dir)
        claims = len({t.claim_id for t in targets})
        rows.append({"dataset": "qanatver-fewshot-targets", "split": "train", "records": len(targets),
                     "detail": f"{claims:,} FEVER train claims; ops {_format_counts(operator_counts(t.steps for t in targets))}"})
    for setting in fewshot_processed_files(data_dir):
        examples = parse_fewshot_processed(setting.path)
        verdicts = Counter(e.verdict for e in examples)
        claims = len({e.claim_id for e in examples})
        rows.append({"dataset": f"qanatver-fewshot-{setting.num_samples}-retr-{setting.use_retr}-{setting.retr_evidence}ev",
                     "split": "train", "records": len(examples),
                     "detail": f"{claims:,} claims ({setting.name}); {_format_counts(verdicts)}"})
    if (folder / SILVER_FILE).is_file():
        proofs = read_silver_proofs(data_dir)
        steps = sum(len(p.steps) for p in proofs)
        rows.append({"dataset": "qanatver-silver-proofs", "split": "fever-dev", "records": len(proofs),
                     "detail": f"predicted (not gold), {steps:,} steps; ops {_format_counts(operator_counts(p.steps for p in proofs))}"})
    return rows
