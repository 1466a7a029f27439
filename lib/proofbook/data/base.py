"""Shared plumbing for the dataset readers: where the data lives, and clear errors on bad input.

Every reader in :mod:`proofbook.data` reads a file in its *official* format from a data directory
laid out like ``../shared/data`` and returns typed records (dataclasses).  Bad input never passes
silently: a malformed line, a missing field, a wrong label, a non-UTF-8 byte or an empty text raises
one :class:`DataError` that names the file, the line and the field.  Rows that are irregular but
valid in the real data are kept or, if a reader must skip them, counted in a :class:`SkipReport`
that the caller can print -- nothing is dropped without a count.
"""
from __future__ import annotations

import csv
import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

#: the repository root (``lib/proofbook/data/base.py`` -> three levels up)
PROJECT_ROOT = Path(__file__).resolve().parents[3]


class DataError(ValueError):
    """A dataset file does not have the official format.

    ``str(err)`` reads ``<file>:<line>: field '<field>': <message>`` so that the reader can open the
    file at the offending line.  ``line`` is 1-based; ``None`` when the problem is the whole file.
    """

    def __init__(self, path: os.PathLike | str, line: int | None, field: str | None, message: str):
        self.path, self.line, self.field, self.message = Path(path), line, field, message
        where = f"{self.path}" + (f":{line}" if line is not None else "")
        what = f" field '{field}':" if field else ""
        super().__init__(f"{where}:{what} {message}")


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


def resolve_data_dir(data_dir: os.PathLike | str | None = None) -> Path:
    """The data directory: the argument, else ``$PROOFBOOK_DATA``, else ``data/`` in the project root."""
    if data_dir is None or str(data_dir) == "":
        data_dir = os.environ.get("PROOFBOOK_DATA") or PROJECT_ROOT / "data"
    path = Path(data_dir).expanduser()
    if not path.is_absolute() and not path.exists() and (PROJECT_ROOT / path).exists():
        path = PROJECT_ROOT / path
    return path


def dataset_file(data_dir: os.PathLike | str | None, folder: str, name: str) -> Path:
    """Path of ``<data_dir>/<folder>/<name>``; a clear :class:`FileNotFoundError` if it is absent."""
    root = resolve_data_dir(data_dir)
    path = root / folder / name
    if not path.is_file():
        hint = "run `make data` (or pass data_dir / set PROOFBOOK_DATA)" if not (root / folder).is_dir() else \
            f"present there: {sorted(p.name for p in (root / folder).iterdir())}"
        raise FileNotFoundError(f"{path}: no such dataset file; {hint}")
    return path


def iter_lines(path: os.PathLike | str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line, decoding UTF-8 strictly, line by line."""
    path = Path(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DataError(path, number, None, f"not valid UTF-8 (byte {raw[err.start]:#04x} at column {err.start + 1})") from None
            yield number, text.rstrip("\r\n")


def read_text(path: os.PathLike | str) -> str:
    """A whole file as text, with the line number of any non-UTF-8 byte."""
    return "\n".join(text for _, text in iter_lines(path))


def iter_jsonl(path: os.PathLike | str) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` from a JSON-lines file; blank lines are ignored."""
    path = Path(path)
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as err:
            raise DataError(path, number, None, f"malformed JSON ({err.msg} at column {err.colno})") from None
        if not isinstance(obj, dict):
            raise DataError(path, number, None, f"expected a JSON object, found {type(obj).__name__}")
        yield number, obj


def read_json(path: os.PathLike | str) -> Any:
    """Parse a whole JSON file; errors carry the line number."""
    path = Path(path)
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(path, err.lineno, None, f"malformed JSON ({err.msg} at column {err.colno})") from None


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def iter_json_array(path: os.PathLike | str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line, element)`` for each element of a file holding one JSON list.

    ``line`` is the 1-based line on which the element starts (always 1 for a list written on one line).
    Malformed JSON, a top level that is not a list, or text after the list raise :class:`DataError`.
    """
    path = Path(path)
    text = read_text(path)
    decoder = json.JSONDecoder()

    def line_of(position: int) -> int:
        return text.count("\n", 0, position) + 1

    def skip(position: int) -> int:
        return _WHITESPACE.match(text, position).end()

    position = skip(0)
    if not text.startswith("[", position):
        raise DataError(path, line_of(position), None, "expected one JSON list of records")
    position = skip(position + 1)
    if text.startswith("]", position):
        position = skip(position + 1)
    else:
        line, counted_to = 1, 0
        while True:
            try:
                element, end = decoder.raw_decode(text, position)
            except json.JSONDecodeError as err:
                raise DataError(path, err.lineno, None, f"malformed JSON ({err.msg} at column {err.colno})") from None
            line += text.count("\n", counted_to, position)
            counted_to = position
            yield line, element
            position = skip(end)
            if text.startswith(",", position):
                position = skip(position + 1)
            elif text.startswith("]", position):
                position = skip(position + 1)
                break
            else:
                raise DataError(path, line_of(position), None, "malformed JSON (expected ',' or ']' after a record)")
    if position < len(text):
        raise DataError(path, line_of(position), None, "malformed JSON (text after the closing ']')")


def iter_tsv(path: os.PathLike | str, header: bool = False, min_columns: int | None = None,
             strip_header: bool = True) -> Iterator[tuple[int, dict[str, str] | list[str]]]:
    """Yield ``(line_number, row)`` from a tab-separated file read with ``csv.QUOTE_NONE``.

    With ``header=True`` rows are dicts keyed by the (stripped) header names; otherwise lists.
    ``min_columns`` raises a :class:`DataError` for a shorter row.  Blank lines are ignored.
    """
    path = Path(path)
    names: list[str] | None = None
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        cells = next(csv.reader([text], delimiter="\t", quoting=csv.QUOTE_NONE))
        if header and names is None:
            names = [c.strip() if strip_header else c for c in cells]
            continue
        if min_columns is not None and len(cells) < min_columns:
            raise DataError(path, number, f"column {len(cells) + 1}",
                            f"expected at least {min_columns} tab-separated columns, found {len(cells)}")
        if names is not None:
            if len(cells) < len(names):
                raise DataError(path, number, names[len(cells)],
                                f"missing: {len(cells)} columns for a header of {len(names)}")
            yield number, dict(zip(names, cells))
        else:
            yield number, cells


class UniqueIds:
    """Remembers the line of each id in a file; a repeated id is a :class:`DataError` naming both lines."""

    def __init__(self, path: os.PathLike | str, field: str = "id"):
        self.path, self.field, self.lines = Path(path), field, {}

    def check(self, key: Any, line: int) -> None:
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
    if not isinstance(value, kind):
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


def in_evaluation_part(key: str | int) -> bool:
    """The project's fixed train/evaluation rule (``results.md``): ``int(sha1(key), 16) % 5 >= 3``.

    HoVer uses the claim ``uid``, FEVEROUS-S ``str(id)``: 40% of the claims are evaluated, the other
    60% train the models, so a held-back copy of the same file splits the same way.
    """
    import hashlib

    return int(hashlib.sha1(str(key).encode("utf-8")).hexdigest(), 16) % 5 >= 3
