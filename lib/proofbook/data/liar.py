"""LIAR and LIAR-PLUS: PolitiFact statements in tab-separated files, the veracity classifier's training data.

The claims-in-the-wild chapters (Chen et al. 2023) train their six-way veracity classifier on these.
**LIAR** (Wang 2017; ``liar/{train,valid,test}.tsv``) has 14 columns (:data:`LIAR_COLUMNS`), no header,
and no quoting: cells are split at tabs (as ``csv.QUOTE_NONE`` would), because statements contain quote
characters.  **LIAR-PLUS** (Alhindi et al. 2018; ``liar_plus/{train2,val2,test2}.tsv``)
has 16 columns (:data:`LIAR_PLUS_COLUMNS`: a row index, LIAR's 14, the extracted justification) and was
written by a CSV writer, so it is read with CSV quoting (:func:`iter_quoted_tsv`).  The records, the
parsers and the column layout are here; the readers that take a data directory
(:func:`~proofbook.data.politifact.read_liar`, :func:`~proofbook.data.politifact.read_liar_plus`) are in
:mod:`proofbook.data.politifact`.
"""
from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from proofbook.data.base import Records, SkipReport, UniqueIds, iter_tsv, require_text
from proofbook.data.politifact_text import ClassifierRecord, normalise_label
from proofbook.data.textfile import DataError, iter_lines, no_records

#: LIAR's 14 columns (README of LIAR v1.0); the five counts include the current statement
LIAR_COLUMNS = (
    "id", "label", "statement", "subjects", "speaker", "job", "state", "party",
    "barely_true_count", "false_count", "half_true_count", "mostly_true_count", "pants_fire_count",
    "context",
)
#: the labels counted by ``credit_counts``, in LIAR's column order (not :data:`LABELS` order)
CREDIT_ORDER = ("barely-true", "false", "half-true", "mostly-true", "pants-fire")
#: LIAR-PLUS adds a row index before and the justification after the LIAR columns
LIAR_PLUS_COLUMNS = ("row", *LIAR_COLUMNS, "justification")


@dataclass(frozen=True)
class LiarStatement(ClassifierRecord):
    """A LIAR statement. ``credit_counts`` follow :data:`CREDIT_ORDER` (``None``: all five cells empty)."""

    id: str
    label: str
    statement: str
    subjects: tuple[str, ...]
    speaker: str
    job: str
    state: str
    party: str
    credit_counts: tuple[int, int, int, int, int] | None
    context: str

    @property
    def credit_history(self) -> dict[str, int]:
        return dict(zip(CREDIT_ORDER, self.credit_counts or ()))

    def _speaker_venue_claim(self) -> tuple[str, str, str]:
        return self.speaker, self.context, self.statement


@dataclass(frozen=True)
class LiarPlusStatement(LiarStatement):
    """A LIAR-PLUS row: the LIAR statement, the file's row index and the extracted justification."""

    row: int
    justification: str


def parse_liar(path: os.PathLike | str) -> Records:
    """Parse any file in LIAR's 14-column TSV format (``csv.QUOTE_NONE``; no header)."""
    path = Path(path)
    statements = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    ids = UniqueIds(path, "id")
    for line, cells in iter_tsv(path):
        if len(cells) != len(LIAR_COLUMNS):
            _wrong_width(path, line, cells, LIAR_COLUMNS)
        statements.append(_liar_statement(dict(zip(LIAR_COLUMNS, cells)), path, line, statements.irregular))
        ids.check(statements[-1].id, line)
    return statements


def parse_liar_plus(path: os.PathLike | str) -> Records:
    """Parse any file in LIAR-PLUS's 16-column, CSV-quoted TSV format.

    Irregular rows are kept and counted in ``.irregular``: a row without the justification column
    (15 columns) or with an empty one gets ``justification=""``; extra columns (a tab inside the
    justification) are joined back with a tab; a quoted cell may span lines.
    """
    path = Path(path)
    statements = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    irregular = statements.irregular
    ids = UniqueIds(path, "id")
    for line, cells in iter_quoted_tsv(path, irregular):
        if len(cells) < len(LIAR_PLUS_COLUMNS) - 1:
            _wrong_width(path, line, cells, LIAR_PLUS_COLUMNS)
        if len(cells) == len(LIAR_PLUS_COLUMNS) - 1:
            irregular.add("no justification column", f"line {line}")
        elif len(cells) > len(LIAR_PLUS_COLUMNS):
            irregular.add("tab inside the justification", f"line {line}")
        justification = "\t".join(cells[len(LIAR_PLUS_COLUMNS) - 1:]).strip()
        if len(cells) >= len(LIAR_PLUS_COLUMNS) and not justification:
            irregular.add("empty justification", f"line {line}")
        row = dict(zip(LIAR_PLUS_COLUMNS, cells))
        if not row["row"].strip().isdigit():
            raise DataError(path, line, "row", f"expected a row index, found {row['row']!r}")
        base = _liar_statement(row, path, line, irregular)
        ids.check(base.id, line)
        statements.append(LiarPlusStatement(**vars(base), row=int(row["row"]), justification=justification))
    return statements


def iter_quoted_tsv(path: os.PathLike | str, irregular: SkipReport | None = None) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first_line, cells)`` from a tab-separated file with CSV quoting (``"a ""b"" c"``).

    A quoted cell may run over several lines (counted in ``irregular``); bad quoting is a
    :class:`DataError` at the line where it is found.  Blank lines are ignored.
    """
    path = Path(path)
    reader = csv.reader((text + "\n" for _, text in iter_lines(path)), delimiter="\t", strict=True)
    start, found = 1, False
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            if not found:
                raise no_records(path, "rows") from None
            return
        except csv.Error as err:
            raise DataError(path, reader.line_num, None, f"bad CSV quoting ({err})") from None
        line, start = start, reader.line_num + 1
        if reader.line_num > line and irregular is not None:
            irregular.add("quoted cell over several lines", f"line {line}")
        if any(cell.strip() for cell in cells):
            found = True
            yield line, cells


def _wrong_width(path: Path, line: int, cells: list[str], columns: tuple[str, ...]) -> None:
    if len(cells) < len(columns):
        raise DataError(path, line, columns[len(cells)],
                        f"missing: {len(cells)} tab-separated columns, expected {len(columns)}")
    raise DataError(path, line, None, f"{len(cells)} tab-separated columns, expected {len(columns)} "
                                      "(a tab inside a cell?)")


_COUNT = re.compile(r"^\d+(?:\.0*)?$")


def _liar_statement(row: dict[str, str], path: Path, line: int, irregular: SkipReport) -> LiarStatement:
    counts = [row[name].strip() for name in LIAR_COLUMNS[8:13]]
    if not any(counts):
        irregular.add("no credit history", f"line {line}")
        credit = None
    else:
        for name, value in zip(LIAR_COLUMNS[8:13], counts):
            if not _COUNT.match(value):
                raise DataError(path, line, name, f"expected a count, found {value!r}")
        credit = tuple(int(float(value)) for value in counts)
    return LiarStatement(
        id=require_text(row["id"], path, line, "id").strip(),
        label=normalise_label(row["label"], path, line),
        statement=require_text(row["statement"], path, line, "statement").strip(),
        subjects=tuple(s.strip() for s in row["subjects"].split(",") if s.strip()),
        speaker=row["speaker"].strip(),
        job=row["job"].strip(),
        state=row["state"].strip(),
        party=row["party"].strip(),
        credit_counts=credit,
        context=row["context"].strip(),
    )
