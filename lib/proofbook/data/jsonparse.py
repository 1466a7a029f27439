"""The readers' strict JSON: one decoder, and files read as JSON lines, one JSON list or one JSON object.

Every JSON file of the datasets (HoVer, FEVEROUS-S, FM2, ClaimDecomp, EntailmentBank, WorldTree, ...) is
read through these functions.  The decoder :data:`JSON_DECODER` treats a key repeated in one object and
``NaN``/``Infinity`` as errors (Python's ``json`` would keep the last key and accept the constants); every
failure is a :class:`~proofbook.data.textfile.DataError` naming the file and the line, and inside a JSON
list written on one line also the record and the character (:class:`~proofbook.data.textfile.RecordLine`).
Readers import these functions from here.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Iterator

from proofbook.data.textfile import DataError, RecordLine, iter_lines, no_records, read_text

_WHITESPACE = re.compile(r"[ \t\n\r]*")


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
