"""Shared plumbing for the dataset readers: where the data lives, and clear errors on bad input.

Every reader in :mod:`proofbook.data` reads a file in its *official* format from a data directory
laid out like the official releases and returns typed records (dataclasses).  Every reader follows
one rule: **bad input never passes silently.**  Each of these raises one
:class:`~proofbook.data.textfile.DataError` that names the file, the line and the field:

* an empty file, a file of blank lines only, a JSON list with no element, or a table with a header
  and no row ("no records");
* a UTF-8 byte-order mark at the start of the file, or any byte that is not UTF-8;
* malformed JSON, a JSON object that repeats a key, ``NaN``/``Infinity`` (not JSON), a record that is
  not an object, or text after a JSON list;
* a missing, renamed or repeated header column, a row with fewer or more cells than the header;
* a missing field, an empty text, an unknown label, or a value of the wrong JSON type.  Readers
  never coerce a JSON type: a number written as a string (``"id": "12"`` where the official files
  write ``12``) is an error, not a conversion, and ``true`` is not an integer;
* a duplicated id.

The line is the line of the record *in the file*.  For a JSON list written on one line (HoVer dev,
FEVEROUS-S) the message also gives the record's position in the list and the character where the
record starts (``file.json:1 (record 1500, character 912044): field 'uid': ...``), see
:class:`~proofbook.data.textfile.RecordLine`.

Where the official data holds something irregular but valid (a duplicate id that the release itself
contains, a five-option question), the reader keeps the record and counts it in ``.irregular``; a
reader that must leave a record out counts it in ``.skipped`` (a :class:`SkipReport` the caller can
print).  Each reader's docstring names what it keeps or counts; nothing is dropped without a count.

Where things live: this module holds what the readers share above the line level -- the data files'
paths (:func:`dataset_file`, :func:`check_split`, :func:`present_splits`), the TSV reader
(:func:`iter_tsv`), the field checks (:func:`require`, :func:`require_text`, :func:`require_label`,
:func:`require_records`, :class:`UniqueIds`, :func:`unique_jsonl_records`), the result types
(:class:`Records`, :class:`RecordMap`, :class:`SkipReport`) and the train/evaluation rule
(:func:`in_evaluation_part`).
The error type and the strict UTF-8 line reading are in :mod:`proofbook.data.textfile`, the JSON decoder
and the JSON-lines / JSON-list / JSON-object readers in :mod:`proofbook.data.jsonparse`; readers import
them from there.
"""
from __future__ import annotations

import hashlib
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from proofbook.core.paths import resolve_data_dir
from proofbook.data.jsonparse import iter_jsonl
from proofbook.data.textfile import DataError, iter_lines, no_records


@dataclass
class SkipReport:
    """Counts of rows by reason, with the first few locations of each.

    A reader's ``.skipped`` report counts rows it left out; its ``.irregular`` report (``kept=True``)
    counts rows it kept as they are but that a user should know about (e.g. a five-option question).
    """

    source: str = ""
    counts: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    kept: bool = False

    def add(self, reason: str, where: str) -> None:
        """Count one row under ``reason``, keeping ``where`` if fewer than three examples of it are kept."""
        self.counts[reason] += 1
        self.examples.setdefault(reason, [])
        if len(self.examples[reason]) < 3:
            self.examples[reason].append(where)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __str__(self) -> str:
        if not self.counts:
            return f"{self.source}: nothing {'irregular' if self.kept else 'skipped'}"
        parts = [f"{n} x {reason} (e.g. {', '.join(self.examples[reason])})" for reason, n in self.counts.items()]
        return f"{self.source}: {'kept irregular rows' if self.kept else 'skipped'}: " + "; ".join(parts)


def dataset_file(data_dir: os.PathLike | str | None, folder: str, name: str) -> Path:
    """Path of ``<data_dir>/<folder>/<name>``; a clear :class:`FileNotFoundError` if it is absent."""
    root = resolve_data_dir(data_dir)
    path = root / folder / name
    if not path.is_file():
        hint = "run `make data` (or pass data_dir / set PROOFBOOK_DATA)" if not (root / folder).is_dir() else \
            f"present there: {sorted(p.name for p in (root / folder).iterdir())}"
        raise FileNotFoundError(f"{path}: no such dataset file; {hint}")
    return path


def iter_tsv(path: os.PathLike | str, header: bool = False, min_columns: int | None = None,
             strip_header: bool = True, columns: Sequence[str] = ()) -> Iterator[tuple[int, dict[str, str] | list[str]]]:
    """Yield ``(line_number, row)`` from a tab-separated file with no quoting (cells split at tabs).

    With ``header=True`` rows are dicts keyed by the (stripped) header names; otherwise lists.  The
    header must hold every name in ``columns`` (a missing or renamed column is a :class:`DataError` on
    the header line, naming it) and no name twice; each row must have as many cells as the header.
    ``min_columns`` raises a :class:`DataError` for a shorter row of a file without header.  Blank lines
    are ignored; a file without any row (or with only its header) is a :class:`DataError`.
    """
    path = Path(path)
    names: list[str] | None = None
    found = False
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        cells = text.split("\t")
        if header and names is None:
            names = [c.strip() if strip_header else c for c in cells]
            for name, count in Counter(names).items():
                if count > 1:
                    raise DataError(path, number, name, f"the header names this column {count} times")
            for column in columns:
                if column not in names:
                    raise DataError(path, number, column, f"missing column in the header (found {names})")
            continue
        if min_columns is not None and len(cells) < min_columns:
            raise DataError(path, number, f"column {len(cells) + 1}",
                            f"expected at least {min_columns} tab-separated columns, found {len(cells)}")
        found = True
        if names is not None:
            if len(cells) < len(names):
                raise DataError(path, number, names[len(cells)],
                                f"missing: {len(cells)} columns for a header of {len(names)}")
            if len(cells) > len(names):
                raise DataError(path, number, None, f"{len(cells)} tab-separated columns for a header of "
                                                    f"{len(names)} (a tab inside a cell?)")
            yield number, dict(zip(names, cells))
        else:
            yield number, cells
    if not found:
        raise no_records(path, "rows" + (" after the header" if names is not None else ""))


class UniqueIds:
    """Remembers the line of each id in a file; a repeated id is a :class:`DataError` naming both lines."""

    def __init__(self, path: os.PathLike | str, field: str = "id"):
        self.path, self.field, self.lines = Path(path), field, {}

    def check(self, key: Any, line: int) -> None:
        """Remember that ``key`` is on ``line``; a :class:`DataError` naming both lines if seen before."""
        if key in self.lines:
            raise DataError(self.path, line, self.field, f"duplicate {self.field} {key!r} (first on line {self.lines[key]})")
        self.lines[key] = line


def require(record: dict, key: str, path: os.PathLike | str, line: int | None, kind: type | tuple = str,
            nonempty: bool = True, name: str | None = None) -> Any:
    """``record[key]``, checked: present, of type ``kind`` and (for text/lists) not empty."""
    label = name or key
    if key not in record or record[key] is None:
        raise DataError(path, line, label, "missing")
    value = record[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in kinds):
        want = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise DataError(path, line, label, f"expected {want}, found {type(value).__name__} {str(value)[:40]!r}")
    if nonempty and isinstance(value, (str, list, dict)) and not (value.strip() if isinstance(value, str) else value):
        raise DataError(path, line, label, "empty")
    return value


def require_text(value: str, path: os.PathLike | str, line: int | None, field: str) -> str:
    """A text cell that must not be empty (for TSV columns)."""
    if value is None or not str(value).strip():
        raise DataError(path, line, field, "empty")
    return value


def require_label(value: Any, allowed: Iterable[Any], path: os.PathLike | str, line: int | None, field: str) -> Any:
    """``value`` if it is one of ``allowed``, else a :class:`DataError` listing the allowed labels."""
    allowed = list(allowed)
    if value not in allowed:
        raise DataError(path, line, field, f"unknown label {value!r}; expected one of {allowed}")
    return value


def check_split(split: str, allowed: Sequence[str], dataset: str) -> str:
    """Reject a split name the dataset does not have (a typo would otherwise read nothing)."""
    if split not in allowed:
        raise ValueError(f"{dataset}: unknown split {split!r}; expected one of {list(allowed)}")
    return split


def require_records(records: Any, path: os.PathLike | str, what: str = "records") -> Any:
    """``records`` if it holds at least one record, else the :func:`no_records` error for ``path``."""
    if not records:
        raise no_records(path, what)
    return records


class Records(list):
    """A list of records carrying the reader's reports: ``.skipped`` (left out) and ``.irregular`` (kept)."""

    def __init__(self, items: Iterable = (), skipped: SkipReport | None = None, irregular: SkipReport | None = None):
        super().__init__(items)
        self.skipped = skipped if skipped is not None else SkipReport()
        self.irregular = irregular if irregular is not None else SkipReport(kept=True)


class RecordMap(dict):
    """A dict of records (e.g. by example id) with the same ``.skipped`` and ``.irregular`` reports."""

    def __init__(self, items: Iterable = (), skipped: SkipReport | None = None, irregular: SkipReport | None = None):
        super().__init__(items)
        self.skipped = skipped if skipped is not None else SkipReport()
        self.irregular = irregular if irregular is not None else SkipReport(kept=True)


def unique_jsonl_records(path: os.PathLike | str, parse: Callable[[dict, Path, int], Any],
                         id_field: str = "id") -> Records:
    """:class:`Records` of ``parse(object, path, line)`` for each object of a JSON-lines file, in file order.

    The attribute ``id_field`` of each parsed record must not repeat: a repeated one is a
    :class:`DataError` on that field, naming both lines (see :class:`UniqueIds`).
    """
    path = Path(path)
    records: Records = Records(skipped=SkipReport(str(path)))
    ids = UniqueIds(path, id_field)
    for line, obj in iter_jsonl(path):
        record = parse(obj, path, line)
        ids.check(getattr(record, id_field), line)
        records.append(record)
    return records


def present_splits(read: Callable[[Any, str], Any], data_dir: os.PathLike | str | None,
                   splits: Iterable[str]) -> Iterator[tuple[str, Any]]:
    """``(split, read(data_dir, split))`` for each of ``splits`` whose file is present, in that order.

    A split whose reader raises :class:`FileNotFoundError` is left out (``describe`` lists what is there).
    """
    for split in splits:
        try:
            records = read(data_dir, split)
        except FileNotFoundError:
            continue
        yield split, records


def in_evaluation_part(key: str | int) -> bool:
    """The project's fixed train/evaluation rule: ``int(sha1(key), 16) % 5 >= 3``.

    HoVer uses the claim ``uid``, FEVEROUS-S ``str(id)``: 40% of the claims are evaluated, the other
    60% train the models, so a held-back copy of the same file splits the same way.
    """

    return int(hashlib.sha1(str(key).encode("utf-8")).hexdigest(), 16) % 5 >= 3
