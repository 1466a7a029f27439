"""Shared plumbing for the dataset readers: where the data lives, and clear errors on bad input.

Every reader in :mod:`proofbook.data` reads a file in its *official* format from a data directory
laid out like the official releases and returns typed records (dataclasses).  Every reader follows
one rule: **bad input never passes silently.**  Each of these raises one :class:`DataError` that names
the file, the line and the field:

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
:class:`RecordLine`.

Where the official data holds something irregular but valid (a duplicate id that the release itself
contains, a five-option question), the reader keeps the record and counts it in ``.irregular``; a
reader that must leave a record out counts it in ``.skipped`` (a :class:`SkipReport` the caller can
print).  Each reader's docstring names what it keeps or counts; nothing is dropped without a count.
"""
from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from proofbook.core.paths import record_read, resolve_data_dir


class RecordLine(int):
    """A 1-based line number that also knows which record of a JSON list starts on it, and where.

    It is an ``int`` (the line), so readers compare and store it like any line number; printed, it
    adds the record's 1-based position in the list and the 1-based character offset in the file at
    which the record starts -- the only useful location in a JSON list written on one line.
    """

    record: int
    offset: int

    def __new__(cls, line: int, record: int, offset: int) -> "RecordLine":
        value = super().__new__(cls, line)
        value.record, value.offset = record, offset
        return value

    def __str__(self) -> str:
        return f"{int(self)} (record {self.record}, character {self.offset})"

    __repr__ = __str__


class DataError(ValueError):
    """A dataset file does not have the official format.

    ``str(err)`` reads ``<file>:<line>: field '<field>': <message>`` so that the reader can open the
    file at the offending line.  ``line`` is 1-based (a :class:`RecordLine` inside a JSON list adds the
    record and its character offset); ``None`` when the problem is the whole file.
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


def dataset_file(data_dir: os.PathLike | str | None, folder: str, name: str) -> Path:
    """Path of ``<data_dir>/<folder>/<name>``; a clear :class:`FileNotFoundError` if it is absent."""
    root = resolve_data_dir(data_dir)
    path = root / folder / name
    if not path.is_file():
        hint = "run `make data` (or pass data_dir / set PROOFBOOK_DATA)" if not (root / folder).is_dir() else \
            f"present there: {sorted(p.name for p in (root / folder).iterdir())}"
        raise FileNotFoundError(f"{path}: no such dataset file; {hint}")
    return path


_BOM = b"\xef\xbb\xbf"
_WHITESPACE = re.compile(r"[ \t\n\r]*")




def iter_lines(path: os.PathLike | str) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for each line, decoding UTF-8 strictly, line by line.

    A byte-order mark at the start of the file is a :class:`DataError` (the official files have none,
    and it would otherwise end up inside the first id or header name).
    """
    path = Path(path)
    record_read(path)
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(_BOM):
                raise DataError(path, 1, None, "the file starts with a UTF-8 byte-order mark; save it as UTF-8 "
                                               "without BOM")
            if b"\x00" in raw:
                raise DataError(path, number, None, f"a NUL byte at column {raw.index(0) + 1} (not a text file?)")
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise DataError(path, number, None, f"not valid UTF-8 (byte {raw[err.start]:#04x} at column {err.start + 1})") from None
            yield number, text.rstrip("\r\n")


def read_text(path: os.PathLike | str) -> str:
    """A whole file as text, with the line number of any non-UTF-8 byte."""
    return "\n".join(text for _, text in iter_lines(path))


def no_records(path: os.PathLike | str, what: str = "records") -> DataError:
    """The error for a file that holds no record (empty, blank lines only, an empty list, a lone header)."""
    return DataError(path, None, None, f"no {what}: the file is empty or holds no record")


class _JsonFault(ValueError):
    """A JSON text that parses but is not valid for a dataset: a repeated key, or NaN/Infinity."""

    def __init__(self, field: str | None, message: str):
        self.field = field
        super().__init__(message)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise _JsonFault(key, f"the key {key!r} appears twice in one JSON object")
        obj[key] = value
    return obj


def _not_json_constant(name: str) -> Any:
    raise _JsonFault(None, f"{name} is not valid JSON")


#: the one JSON decoder of the readers: repeated keys and NaN/Infinity are errors, not last-one-wins
JSON_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys, parse_constant=_not_json_constant)


def _decode(text: str, path: Path, line: int | None, position: int = 0) -> tuple[Any, int]:
    """``JSON_DECODER.raw_decode(text, position)`` with every failure as a :class:`DataError`.

    ``line`` is where ``text`` sits in the file: ``None`` when ``text`` is the whole file (the error's
    own line is used), an ``int`` for one line of a JSON-lines file, a :class:`RecordLine` for an element
    of a JSON list (the error keeps its record and gets the line where the fault is).
    """
    try:
        return JSON_DECODER.raw_decode(text, position)
    except json.JSONDecodeError as err:
        if line is None:
            where, at = err.lineno, f"column {err.colno}"
        elif isinstance(line, RecordLine):
            where, at = RecordLine(err.lineno, line.record, line.offset), f"character {err.pos + 1}"
        else:
            where, at = line, f"column {err.pos + 1}"
        raise DataError(path, where, None, f"malformed JSON ({err.msg.removesuffix(' at')}, {at})") from None
    except _JsonFault as err:
        raise DataError(path, line, err.field, str(err)) from None


def loads(text: str, path: os.PathLike | str, line: int | None) -> Any:
    """The one JSON value on ``line`` of a JSON-lines file (``text``); errors name ``path`` and ``line``."""
    path = Path(path)
    start = _WHITESPACE.match(text).end()
    value, end = _decode(text, path, line, start)
    end = _WHITESPACE.match(text, end).end()
    if end != len(text):
        raise DataError(path, line, None, f"malformed JSON (extra data at column {end + 1})")
    return value


def iter_jsonl(path: os.PathLike | str) -> Iterator[tuple[int, dict]]:
    """Yield ``(line_number, object)`` from a JSON-lines file; blank lines are ignored.

    A file with no object at all is a :class:`DataError` (see :func:`no_records`).
    """
    path = Path(path)
    found = False
    for number, text in iter_lines(path):
        if not text.strip():
            continue
        obj = loads(text, path, number)
        if not isinstance(obj, dict):
            raise DataError(path, number, None, f"expected a JSON object, found {type(obj).__name__}")
        found = True
        yield number, obj
    if not found:
        raise no_records(path)


def read_json(path: os.PathLike | str) -> Any:
    """Parse a whole JSON file; errors carry the line number."""
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise no_records(path)
    value, end = _decode(text, path, None, _WHITESPACE.match(text).end())
    if text[end:].strip():
        raise DataError(path, text.count("\n", 0, end) + 1, None, "malformed JSON (text after the value)")
    return value


def _past_separator(text: str, position: int, closer: str) -> tuple[int, bool | None]:
    """After an element of a JSON list or object: the position past ``,`` (more follow: ``True``) or past
    ``closer`` (the last one: ``False``); for anything else the position where it stands and ``None``."""
    position = _WHITESPACE.match(text, position).end()
    if text.startswith(",", position) or text.startswith(closer, position):
        return _WHITESPACE.match(text, position + 1).end(), text[position] == ","
    return position, None


def iter_json_array(path: os.PathLike | str) -> Iterator[tuple[RecordLine, Any]]:
    """Yield ``(line, element)`` for each element of a file holding one JSON list.

    ``line`` is a :class:`RecordLine`: the 1-based line on which the element starts (always 1 for a
    list written on one line), its 1-based position in the list and the character where it starts.
    Malformed JSON, a top level that is not a list, an empty list, or text after the list raise
    :class:`DataError`.
    """
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise no_records(path)

    def line_of(position: int) -> int:
        return text.count("\n", 0, position) + 1

    def skip(position: int) -> int:
        return _WHITESPACE.match(text, position).end()

    position = skip(0)
    if not text.startswith("[", position):
        raise DataError(path, line_of(position), None, "expected one JSON list of records")
    position = skip(position + 1)
    if text.startswith("]", position):
        raise no_records(path)
    line, counted_to, record = 1, 0, 0
    while True:
        line += text.count("\n", counted_to, position)
        counted_to = position
        record += 1
        here = RecordLine(line, record, position + 1)
        element, end = _decode(text, path, here, position)
        yield here, element
        position, more = _past_separator(text, end, "]")
        if more is None:
            raise DataError(path, RecordLine(line_of(position), record, position + 1), None,
                            "malformed JSON (expected ',' or ']' after a record)")
        if not more:
            break
    if position < len(text):
        raise DataError(path, line_of(position), None, "malformed JSON (text after the closing ']')")


def iter_json_object(path: os.PathLike | str, what: str = "entries") -> Iterator[tuple[int, str, Any]]:
    """Yield ``(line, key, value)`` for each entry of a file holding one JSON object, in file order.

    ``line`` is the line on which the entry's key starts, so a bad entry, a repeated key or
    ``NaN``/``Infinity`` names its line (a whole-file :func:`read_json` cannot say
    where a repeated key is).  Malformed JSON, a top level that is not an object, an empty object and
    text after the object each raise a :class:`DataError`.
    """
    path = Path(path)
    text = read_text(path)
    if not text.strip():
        raise no_records(path, what)

    def line_of(position: int) -> int:
        return text.count("\n", 0, position) + 1

    def column_of(position: int) -> int:
        return position - text.rfind("\n", 0, position)

    def skip(position: int) -> int:
        return _WHITESPACE.match(text, position).end()

    def decode(position: int) -> tuple[Any, int]:
        try:
            return JSON_DECODER.raw_decode(text, position)
        except json.JSONDecodeError as err:
            raise DataError(path, err.lineno, None,
                            f"malformed JSON ({err.msg.removesuffix(' at')}, column {err.colno})") from None
        except ValueError as err:      # a repeated key inside a value, NaN/Infinity
            raise DataError(path, line_of(position), getattr(err, "field", None), str(err)) from None

    def malformed(position: int, what: str) -> DataError:
        return DataError(path, line_of(position), None, f"malformed JSON ({what}, column {column_of(position)})")

    position = skip(0)
    if not text.startswith("{", position):
        value, _ = decode(position)
        raise DataError(path, line_of(position), None,
                        f"expected a JSON object of keys to values, found {type(value).__name__}")
    position = skip(position + 1)
    if text.startswith("}", position):
        raise no_records(path, what)
    line, counted_to = 1, 0        # the line of each entry, counted on from the previous one
    while True:
        if not text.startswith('"', position):
            raise malformed(position, "expected a key in double quotes")
        line += text.count("\n", counted_to, position)
        counted_to = position
        key, position = decode(position)
        position = skip(position)
        if not text.startswith(":", position):
            raise malformed(position, "expected ':' after the key")
        value, position = decode(skip(position + 1))
        yield line, key, value
        position, more = _past_separator(text, position, "}")
        if more is None:
            raise malformed(position, "expected ',' or '}' after an entry")
        if not more:
            break
    if position < len(text):
        raise DataError(path, line_of(position), None, "malformed JSON (text after the closing '}')")


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


def in_evaluation_part(key: str | int) -> bool:
    """The project's fixed train/evaluation rule: ``int(sha1(key), 16) % 5 >= 3``.

    HoVer uses the claim ``uid``, FEVEROUS-S ``str(id)``: 40% of the claims are evaluated, the other
    60% train the models, so a held-back copy of the same file splits the same way.
    """
    import hashlib

    return int(hashlib.sha1(str(key).encode("utf-8")).hexdigest(), 16) % 5 >= 3
