"""The bottom layer of the dataset readers: the error they raise, and a file read strictly as UTF-8 lines.

:class:`DataError` is the one exception of :mod:`proofbook.data` for input that does not have a dataset's
official format; it names the file, the line and the field.  :class:`RecordLine` is the line number of a
record inside a JSON list (HoVer dev, FEVEROUS-S), which also gives the record's position and character.
:func:`iter_lines` and :func:`read_text` decode a file strictly as UTF-8, line by line, so a bad byte names
its line.  Readers import them from here; the JSON readers built on them are in
:mod:`proofbook.data.jsonparse`, the checks shared above the line level in :mod:`proofbook.data.base`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from proofbook.core.paths import record_read


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


_BOM = b"\xef\xbb\xbf"


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
