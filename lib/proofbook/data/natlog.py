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
``|`` alternation, ``#`` independence (:data:`OPERATORS`).
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofbook.data.base import (DataError, Records, SkipReport, UniqueIds, dataset_file, iter_jsonl, iter_lines,
                                 require, require_label, require_records, require_text, resolve_data_dir)

FOLDER = "natlog_proofs_qanatver"
FEWSHOT_TARGET_FILE = "train_with_ids_fewshot.target"
FEWSHOT_PROCESSED_GLOB = "processed_train-fewshot_*.jsonl"
SILVER_FILE = "silver_predicted_proofs_fever_dev_output_logs.csv"

#: the six natural-logic operators of ProoFVer, symbol -> name (in the papers' order)
OPERATORS: dict[str, str] = {
    "=": "equivalence",
    "<": "forward entailment",
    ">": "reverse entailment",
    "!": "negation",
    "|": "alternation",
    "#": "independence",
}
#: FEVER verdicts, the states of the natural-logic automaton
VERDICTS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
#: answers of QA-NatVer's yes/no question for an operator
QA_ANSWERS = ("Yes", "No")
#: a processed few-shot ``id`` is ``claim_id * VARIANT_BASE + variant``
VARIANT_BASE = 10 ** 11

_START_MARKER = "^"
# One triple: "{ claim span } [ evidence span ] OP".  The spans are matched lazily and the operator
# must be one of the six followed by a space, "{" or the end, so a span that itself holds "}", "[" or
# "]" still parses as long as the rest of the string does.  A span never holds "{", the start of a
# triple: otherwise a triple that lost its operator (or its evidence span) would silently swallow the
# next one into its span ("{ a } [ b ] { c } [ d ] =" read as one step with evidence "b ] { c } [ d").
# _LOOSE_STEP (any operator token) only serves to tell an unknown operator from a string that is not
# a triple at all.
_STEP = re.compile(r"\s*\{(?P<claim>[^{]*?)\}\s*\[(?P<evidence>[^{]*?)\]\s*(?P<op>[=<>!|#])(?=\s|\{|$)")
_LOOSE_STEP = re.compile(r"\s*\{(?P<claim>[^{]*?)\}\s*\[(?P<evidence>[^{]*?)\]\s*(?P<op>[^\s{]+)")


# --- proof steps -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ProofStep:
    """One triple of a proof: a claim span, the evidence span aligned to it, and their operator."""

    claim_span: str
    evidence_span: str
    operator: str

    @property
    def operator_name(self) -> str:
        return OPERATORS[self.operator]

    def __str__(self) -> str:
        return f"{{ {self.claim_span} }} [ {self.evidence_span} ] {self.operator}"


def format_proof(steps: list[ProofStep] | tuple[ProofStep, ...]) -> str:
    """The ProoFVer target string of ``steps`` (without the ``^`` marker)."""
    return " ".join(str(step) for step in steps)


def parse_proof_string(text: str, path: os.PathLike | str | None = None, line: int | None = None) -> list[ProofStep]:
    """Parse ``{ claim span } [ evidence span ] OP ...`` (an optional leading ``^`` is dropped).

    Spaces around spans and between triples are free (``{ x}`` and ``{ x }`` both parse).  An empty
    proof, text that is not a sequence of triples, an empty span or an operator outside
    :data:`OPERATORS` raises a :class:`DataError` on field ``proof``, naming ``path``/``line`` when
    they are given (``<string>`` otherwise).
    """
    where = path if path is not None else "<string>"
    body = text.strip()
    if body.startswith(_START_MARKER):
        body = body[len(_START_MARKER):].strip()
    if not body:
        raise DataError(where, line, "proof", "empty proof")
    steps: list[ProofStep] = []
    position = 0
    while position < len(body):
        match = _STEP.match(body, position)
        number = len(steps) + 1
        if match is None:
            loose = _LOOSE_STEP.match(body, position)
            if loose is not None and loose["op"] not in OPERATORS:
                raise DataError(where, line, "proof", f"unknown operator {loose['op']!r} in step {number}; "
                                                      f"expected one of {list(OPERATORS)}")
            raise DataError(where, line, "proof", f"cannot parse a '{{ claim span }} [ evidence span ] OP' triple "
                                                  f"at column {position + 1}: {body[position:position + 40]!r}")
        claim, evidence, op = match["claim"].strip(), match["evidence"].strip(), match["op"]
        if not claim:
            raise DataError(where, line, "proof", f"empty claim span in step {number}")
        if not evidence:
            raise DataError(where, line, "proof", f"empty evidence span in step {number}")
        steps.append(ProofStep(claim, evidence, op))
        position = match.end()
        while position < len(body) and body[position].isspace():
            position += 1
    return steps


def operator_counts(steps_per_proof) -> Counter:
    """How often each operator occurs in an iterable of step sequences."""
    return Counter(step.operator for steps in steps_per_proof for step in steps)


def _format_counts(counts: Counter) -> str:
    return ", ".join(f"{key} {n:,}" for key, n in counts.most_common())


# --- few-shot targets (.target) ----------------------------------------------------------------

@dataclass(frozen=True)
class FewshotTarget:
    """One line of ``train_with_ids_fewshot.target``: a proof of FEVER train claim ``claim_id``.

    ``variant`` numbers the alternative proofs of the same claim (0, 1, ...) in file order; the
    processed few-shot files give each variant the id ``claim_id * 10**11 + variant``.
    """

    claim_id: int
    variant: int
    steps: tuple[ProofStep, ...]
    line: int

    @property
    def operators(self) -> tuple[str, ...]:
        return tuple(step.operator for step in self.steps)


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

@dataclass(frozen=True)
class FewshotSetting:
    """The settings spelled out in a ``processed_train-fewshot_*.jsonl`` file name.

    ``use_retr`` is ``"False"`` (gold evidence) or ``"Only"`` (retrieved evidence only);
    ``retr_evidence`` is the number of evidence sentences; ``options`` holds every setting as text,
    including the ones without their own attribute (``alignment_mode``, ``max_chunks``, ...).
    """

    path: Path
    num_samples: int
    seed: int
    use_retr: str
    retr_evidence: int
    options: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        return f"num_samples={self.num_samples}, use_retr={self.use_retr}, retr_evidence={self.retr_evidence}"


_SETTING_HEAD = re.compile(r"processed_train-fewshot_num_samples_(?P<num_samples>\d+)_seed_(?P<seed>\d+)"
                           r"_use_retr_(?P<use_retr>[^_]+)_retr_evidence_(?P<retr_evidence>\d+)(?P<rest>.*)\.jsonl")
# the further settings, in the order QA-NatVer writes them into the name
_SETTING_KEYS = ("dp", "alignment_mode", "max_chunks", "alignment_model", "few_shot", "matching_method", "loose_matching")
_SETTING_SPLIT = re.compile("_(" + "|".join(_SETTING_KEYS) + ")_")


def parse_fewshot_setting(path: os.PathLike | str) -> FewshotSetting:
    """The :class:`FewshotSetting` of one processed few-shot file, from its name alone."""
    path = Path(path)
    match = _SETTING_HEAD.fullmatch(path.name)
    if match is None:
        raise DataError(path, None, "file name", "expected 'processed_train-fewshot_num_samples_<n>_seed_<s>_use_retr_<r>"
                                                 "_retr_evidence_<k>..._.jsonl'")
    options = {key: match[key] for key in ("num_samples", "seed", "use_retr", "retr_evidence")}
    parts = _SETTING_SPLIT.split(match["rest"])
    # parts = [text before the first key, key, value, key, value, ...]
    if parts[0]:
        options["unnamed"] = parts[0].strip("_")
    for key, value in zip(parts[1::2], parts[2::2]):
        options[key] = value
    return FewshotSetting(path, int(match["num_samples"]), int(match["seed"]), match["use_retr"],
                          int(match["retr_evidence"]), options)


def fewshot_processed_files(data_dir: os.PathLike | str | None = None) -> list[FewshotSetting]:
    """Every ``processed_train-fewshot_*.jsonl`` in the folder with its settings, sorted by
    (num_samples, use_retr, retr_evidence).  The folder itself must exist."""
    folder = resolve_data_dir(data_dir) / FOLDER
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such dataset folder; run `make data` (or pass data_dir / set PROOFBOOK_DATA)")
    settings = [parse_fewshot_setting(p) for p in folder.glob(FEWSHOT_PROCESSED_GLOB)]
    return sorted(settings, key=lambda s: (s.num_samples, s.use_retr, s.retr_evidence, s.path.name))


@dataclass(frozen=True)
class FewshotExample:
    """One row of a processed few-shot file: a claim, its evidence and one gold-like proof variant.

    ``evidence`` is the text as in the file; :attr:`evidence_sentences` splits it into
    ``(title, sentence)`` pairs.  ``claim_parsed`` (chunks), ``claim_parsed_hierarchy`` (which chunks
    form alternative parses) and ``alignment`` (chunk -> aligned evidence text) are kept as they are.
    """

    id: int
    claim: str
    verdict: str
    evidence: str
    steps: tuple[ProofStep, ...]
    claim_parsed: tuple[str, ...]
    claim_parsed_hierarchy: tuple[tuple[int, ...], ...]
    alignment: tuple[tuple[str, str], ...]
    line: int

    @property
    def claim_id(self) -> int:
        """The FEVER claim id (``id // 10**11``)."""
        return self.id // VARIANT_BASE

    @property
    def variant(self) -> int:
        """Which proof variant of the claim this row is (``id % 10**11``)."""
        return self.id % VARIANT_BASE

    @property
    def evidence_sentences(self) -> list[tuple[str, str]]:
        return split_evidence(self.evidence)


_EVIDENCE_SEPARATOR = "</s>"
_TITLED_SENTENCE = re.compile(r"\[\s*(?P<title>.*?)\s*\]\s*(?P<text>.*)", re.S)


def split_evidence(text: str) -> list[tuple[str, str]]:
    """``"[ T1 ] s1 </s> [ T2 ] s2"`` -> ``[("T1", "s1"), ("T2", "s2")]`` (title ``""`` if none)."""
    pieces = []
    for chunk in text.split(_EVIDENCE_SEPARATOR):
        chunk = chunk.strip()
        if not chunk:
            continue
        match = _TITLED_SENTENCE.fullmatch(chunk)
        pieces.append((match["title"], match["text"].strip()) if match else ("", chunk))
    return pieces


def _proof_steps_from_json(value: Any, path: Path, line: int) -> tuple[ProofStep, ...]:
    steps = []
    for number, triple in enumerate(value, start=1):
        if not (isinstance(triple, list) and len(triple) == 3 and all(isinstance(x, str) for x in triple)):
            raise DataError(path, line, "proof", f"step {number}: expected [claim_span, evidence_span, op], found {str(triple)[:60]!r}")
        claim, evidence, op = (x.strip() for x in triple)
        if op not in OPERATORS:
            raise DataError(path, line, "proof", f"unknown operator {op!r} in step {number}; expected one of {list(OPERATORS)}")
        if not claim or not evidence:
            raise DataError(path, line, "proof", f"empty {'claim' if not claim else 'evidence'} span in step {number}")
        steps.append(ProofStep(claim, evidence, op))
    return tuple(steps)


def _int_lists(value: Any, path: Path, line: int, name: str, size: int) -> tuple[tuple[int, ...], ...]:
    """A list of non-empty lists of chunk indices (``0 <= i < size``; ``true`` is not an integer)."""
    for number, group in enumerate(value):
        if not (isinstance(group, list) and group
                and all(isinstance(i, int) and not isinstance(i, bool) for i in group)):
            raise DataError(path, line, name, f"group {number}: expected a non-empty list of integers, found {str(group)[:40]!r}")
        for index in group:
            if not 0 <= index < size:
                raise DataError(path, line, name, f"group {number}: chunk index {index} out of range "
                                                  f"(claim_parsed has {size} chunks)")
    return tuple(tuple(group) for group in value)


def _text_pairs(value: Any, path: Path, line: int, name: str) -> tuple[tuple[str, str], ...]:
    for number, pair in enumerate(value):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise DataError(path, line, name, f"pair {number}: expected [claim text, evidence text], found {str(pair)[:60]!r}")
        if not (pair[0].strip() and pair[1].strip()):
            raise DataError(path, line, name, f"pair {number}: empty {'claim' if not pair[0].strip() else 'evidence'} text")
    return tuple((a, b) for a, b in value)


def parse_fewshot_processed(path: os.PathLike | str) -> Records:
    """Read one ``processed_train-fewshot_*.jsonl`` file -> :class:`Records` of :class:`FewshotExample`.

    Every field is checked: ``claim_parsed`` holds non-empty chunks, ``claim_parsed_hierarchy`` non-empty
    groups of indices into ``claim_parsed``, ``alignment`` (may be an empty list) pairs of non-empty texts.
    """
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    ids = UniqueIds(path, "id")
    for number, obj in iter_jsonl(path):
        row_id = require(obj, "id", path, number, int)
        if row_id < 0:
            raise DataError(path, number, "id", f"expected a non-negative integer, found {row_id!r}")
        ids.check(row_id, number)
        claim = require(obj, "claim", path, number, str)
        verdict = require_label(require(obj, "verdict", path, number, str), VERDICTS, path, number, "verdict")
        evidence = require(obj, "evidence", path, number, str)
        steps = _proof_steps_from_json(require(obj, "proof", path, number, list), path, number)
        claim_parsed = require(obj, "claim_parsed", path, number, list)
        for position, chunk in enumerate(claim_parsed):
            if not isinstance(chunk, str):
                raise DataError(path, number, "claim_parsed", f"chunk {position}: expected a string, found {type(chunk).__name__}")
            if not chunk.strip():
                raise DataError(path, number, "claim_parsed", f"chunk {position}: empty")
        hierarchy = _int_lists(require(obj, "claim_parsed_hierarchy", path, number, list), path, number,
                               "claim_parsed_hierarchy", len(claim_parsed))
        alignment = _text_pairs(require(obj, "alignment", path, number, list, nonempty=False), path, number, "alignment")
        records.append(FewshotExample(row_id, claim, verdict, evidence, steps, tuple(claim_parsed), hierarchy,
                                      alignment, number))
    return records


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
class SilverProof:
    """The predicted proof of one FEVER claim: its steps in claim order; ``line`` is the first line."""

    claim_id: int
    steps: tuple[SilverStep, ...]
    line: int

    @property
    def operators(self) -> tuple[str, ...]:
        return tuple(step.operator for step in self.steps)


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
