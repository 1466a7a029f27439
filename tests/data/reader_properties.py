"""The machinery of the readers' property-based tests (see ``test_reader_properties*.py``).

A :class:`ReaderSpec` says how to write generated records in a reader's official format, which fields
a record has and of what kind, and how a parsed record compares with what was written.  Two
properties are then checked for every reader, on files that hypothesis generates:

* **round trip** -- a valid file parses into exactly the records written, with nothing counted as
  skipped or irregular;
* **no silent accept** -- every single corruption of a valid file (a dropped field, a retyped one, an
  emptied text, an unknown label, bytes that are not UTF-8, a byte-order mark, a duplicated id, a
  file cut inside its last record, an empty file, a renamed header column) raises
  :class:`~proofbook.data.textfile.DataError` naming the file (and, for a fault inside a record, its line
  and field) or is counted in ``.skipped`` / ``.irregular``.  Any other exception (a raw
  ``KeyError``, ``JSONDecodeError``, ``csv.Error``) fails the test.

The example counts are small and the profile is derandomised, so the suite is quick and the same on
every run.
"""
from __future__ import annotations

import csv
import tempfile
import io
import json
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from proofbook.data.textfile import DataError

settings.register_profile("readers", derandomize=True, max_examples=12, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                                 HealthCheck.data_too_large])
READERS = settings.get_profile("readers")

# --- text strategies ---------------------------------------------------------------------------

#: letters and digits of several scripts, spaces and everyday punctuation: no tab, newline, quote or
#: bracket, so a generated text never collides with a format's own syntax
SAFE_ALPHABET = string.ascii_letters + string.digits + " .,;:'-?!%&é中ü"


def words(min_size: int = 1, max_size: int = 24, alphabet: str = SAFE_ALPHABET) -> st.SearchStrategy[str]:
    """Non-empty text with no leading or trailing space (readers may strip it)."""
    return st.text(alphabet, min_size=min_size, max_size=max_size).map(lambda s: " ".join(s.split())).filter(bool)


def identifiers(prefix: str = "") -> st.SearchStrategy[str]:
    return st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=8).map(lambda s: prefix + s)


def unique_by(key: str | Callable[[Any], Any], element: st.SearchStrategy, min_size: int = 2,
              max_size: int = 5) -> st.SearchStrategy[list]:
    """Lists of 2-5 records whose ``key`` differs (ids are unique in a valid file)."""
    get = key if callable(key) else (lambda record: record[key])
    return st.lists(element, min_size=min_size, max_size=max_size, unique_by=get)


# --- formats -------------------------------------------------------------------------------------

class Format:
    """How records are written; ``line_of(i)`` is the file line of record ``i`` (0-based)."""

    name = "format"
    header: Sequence[str] = ()

    def dump(self, records: list) -> str:
        raise NotImplementedError

    def line_of(self, index: int, records: list) -> int | None:
        return index + 1

    def record_span(self, records: list) -> tuple[int, int]:
        """The character span ``(start, end)`` of the last record in ``dump(records)``."""
        before = self.dump(records[:-1]) if len(records) > 1 else self.prefix()
        whole = self.dump(records)
        tail = self.last_text(records)
        start = whole.index(tail, len(before) - 1 if before else 0)
        return start, start + len(tail)

    def prefix(self) -> str:
        return ""

    def last_text(self, records: list) -> str:
        raise NotImplementedError

    def cut_points(self, records: list) -> tuple[int, int]:
        """Where a cut leaves the last record broken: any character in ``[low, high)``."""
        start, end = self.record_span(records)
        return start + 1, end - 1


class JsonLines(Format):
    name = "jsonl"

    def dump(self, records):
        return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)

    def last_text(self, records):
        return json.dumps(records[-1], ensure_ascii=False)


class JsonList(Format):
    """One JSON list written on one line (HoVer, FEVEROUS-S): every record is on line 1."""

    name = "json-list"

    def dump(self, records):
        return json.dumps(records, ensure_ascii=False)

    def line_of(self, index, records):
        return 1

    def record_span(self, records):
        whole = self.dump(records)
        tail = json.dumps(records[-1], ensure_ascii=False)
        start = whole.rindex(tail)
        return start, start + len(tail)


class Tsv(Format):
    """Tab-separated rows (dicts keyed by ``columns``), with or without a header line."""

    name = "tsv"

    def __init__(self, columns: Sequence[str], header: bool = True):
        self.columns, self.has_header = tuple(columns), header
        self.header = self.columns if header else ()

    def row(self, record: dict) -> str:
        return "\t".join(str(record[c]) for c in self.columns if c in record)

    def prefix(self):
        return "\t".join(self.header) + "\n" if self.has_header else ""

    def dump(self, records):
        return self.prefix() + "".join(self.row(r) + "\n" for r in records)

    def line_of(self, index, records):
        return index + 1 + int(self.has_header)

    def last_text(self, records):
        return self.row(records[-1])

    def cut_points(self, records):
        start, end = self.record_span(records)
        last_tab = self.dump(records).rindex("\t", start, end)
        return start + 1, last_tab + 1      # the cut removes at least the last cell


class QuotedTsv(Tsv):
    """Tab-separated with CSV quoting (LIAR-PLUS), no header."""

    name = "quoted-tsv"

    def row(self, record):
        out = io.StringIO()
        csv.writer(out, delimiter="\t", lineterminator="").writerow([record[c] for c in self.columns if c in record])
        return out.getvalue()


class Csv(Tsv):
    """Comma-separated with a header and CSV quoting (EX-FEVER)."""

    name = "csv"

    def row(self, record):
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow([record[c] for c in self.columns if c in record])
        return out.getvalue()

    def prefix(self):
        return ",".join(self.header) + "\n"

    def cut_points(self, records):
        start, end = self.record_span(records)
        return start + 1, self.dump(records).rindex(",", start, end) + 1


# --- the spec of one reader ----------------------------------------------------------------------

#: the kinds of field a spec names, and how each is corrupted
KINDS = ("id", "text", "label", "int", "float", "list", "object", "bool-text")


@dataclass
class Field:
    """One field of a record: ``path`` ("question.stem", "choices.0.text"), kind, and (labels) the allowed values."""

    path: str
    kind: str
    required: bool = True

    def __post_init__(self):
        assert self.kind in KINDS, self.kind

    @property
    def parts(self) -> list[str | int]:
        return [int(p) if p.isdigit() else p for p in self.path.split(".")]

    def get(self, record):
        for part in self.parts:
            record = record[part]
        return record

    def container(self, record):
        for part in self.parts[:-1]:
            record = record[part]
        return record, self.parts[-1]


@dataclass
class ReaderSpec:
    """A reader under test: ``parse(path)``, its format, a strategy of valid record lists, its fields.

    ``expect(records)`` turns generated records into what ``summary(parsed)`` must return for the
    round trip.  ``id_field`` is the field that must be unique (``None``: no id).  ``counted_ok`` lists
    corruptions that the reader may count instead of refusing (documented irregular rows).
    """

    name: str
    parse: Callable[[Path], Any]
    fmt: Format
    records: st.SearchStrategy[list]
    fields: list[Field]
    expect: Callable[[list], Any]
    summary: Callable[[Any], Any]
    id_field: str | None = None
    filename: str = "data.txt"
    setup: Callable[[Path, list], None] | None = None       # writes companion files (e.g. a claims file)
    check_lines: bool = True
    counted_ok: tuple[str, ...] = ()
    json_typed: bool = True                                  # fields are JSON values (False: text cells)
    extra: dict = field(default_factory=dict)


def counts(parsed) -> int:
    return sum(getattr(parsed, name).total for name in ("skipped", "irregular") if hasattr(parsed, name))


def write(spec: ReaderSpec, folder: Path, records: list, content: str | bytes | None = None) -> Path:
    path = folder / spec.filename
    path.parent.mkdir(parents=True, exist_ok=True)
    if spec.setup is not None:
        spec.setup(folder, records)
    data = spec.fmt.dump(records) if content is None else content
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def round_trip(spec: ReaderSpec, folder: Path, records: list) -> None:
    path = write(spec, folder, records)
    parsed = spec.parse(path)
    assert spec.summary(parsed) == spec.expect(records)
    assert counts(parsed) == 0, f"{spec.name}: a valid generated file counted as irregular: {parsed.irregular}"


# --- corruptions ----------------------------------------------------------------------------------

@dataclass
class Corruption:
    """One fault put into a valid file: its name, the new content, and where the error must point."""

    name: str
    content: bytes | str
    line: int | None = None          # the file line the DataError must name (None: any)
    field: str | None = None         # a name the DataError's field must contain (None: any)


def _wrong_type(kind: str, value: Any, json_typed: bool) -> Any:
    if not json_typed:
        return {"int": "x7", "float": "not-a-number", "label": "7", "bool-text": "maybe"}.get(kind, value)
    return {"id": 7 if isinstance(value, str) else str(value), "text": 7, "label": 7, "int": str(value),
            "float": str(value), "list": "text", "object": ["text"], "bool-text": 7}[kind]


def field_corruptions(spec: ReaderSpec, records: list, draw) -> list[Corruption]:
    """Drop, retype, empty, unknown label and duplicate id, each on one record chosen by ``draw``."""
    out = []
    index = draw(st.integers(0, len(records) - 1))
    line = spec.fmt.line_of(index, records) if spec.check_lines else None
    for f in spec.fields:
        name = next(str(part) for part in reversed(f.parts) if not isinstance(part, int))  # what the error must name

        def changed(edit):
            copy = json.loads(json.dumps(records))
            holder, key = f.container(copy[index])
            edit(holder, key)
            return copy

        if f.required:
            # a row that loses a cell is short by one: the error may name the last column
            dropped = changed(lambda holder, key: holder.pop(key))
            out.append(Corruption(f"drop {f.path}", spec.fmt.dump(dropped), line,
                                  None if isinstance(spec.fmt, Tsv) else name))
        wrong = _wrong_type(f.kind, f.get(records[index]), spec.json_typed)
        if wrong != f.get(records[index]) and (spec.json_typed or f.kind in ("int", "float", "label", "bool-text")):
            out.append(Corruption(f"retype {f.path}", spec.fmt.dump(changed(lambda h, k: h.__setitem__(k, wrong))),
                                  line, name))
        if f.kind in ("text", "id", "label") and f.required:
            out.append(Corruption(f"empty {f.path}", spec.fmt.dump(changed(lambda h, k: h.__setitem__(k, "  "))),
                                  line, name))
        if f.kind == "label":
            out.append(Corruption(f"unknown label {f.path}",
                                  spec.fmt.dump(changed(lambda h, k: h.__setitem__(k, "NO SUCH LABEL"))), line, name))
    if spec.id_field is not None and len(records) >= 2:
        id_field = Field(spec.id_field, "id")
        copy = json.loads(json.dumps(records))
        other = draw(st.integers(0, len(records) - 2))
        holder, key = id_field.container(copy[-1])
        holder[key] = id_field.get(copy[other])
        out.append(Corruption("duplicate id", spec.fmt.dump(copy),
                              spec.fmt.line_of(len(records) - 1, records) if spec.check_lines else None,
                              str(id_field.parts[-1])))
    return out


def byte_corruptions(spec: ReaderSpec, records: list, draw) -> list[Corruption]:
    """Bytes that are not UTF-8, a byte-order mark, a cut inside the last record, an empty file."""
    text = spec.fmt.dump(records)
    data = text.encode("utf-8")
    position = draw(st.integers(0, len(data)))
    bad = data[:position] + b"\xff" + data[position:]
    bad_line = data[:position].count(b"\n") + 1
    out = [Corruption("bytes that are not UTF-8", bad, bad_line),
           Corruption("byte-order mark", b"\xef\xbb\xbf" + data, 1),
           Corruption("empty file", b""),
           Corruption("blank lines only", b"\n\n")]
    low, high = spec.fmt.cut_points(records)
    if low < high:
        cut = draw(st.integers(low, high - 1))
        out.append(Corruption("cut inside the last record", text[:cut]))
    if spec.fmt.header:
        out.append(Corruption("header only", spec.fmt.prefix()))
        column = draw(st.sampled_from([f.path for f in spec.fields if f.required and "." not in f.path]))
        header = [c + "_renamed" if c == column else c for c in spec.fmt.header]
        separator = "," if isinstance(spec.fmt, Csv) else "\t"
        renamed = separator.join(header) + "\n" + text[len(spec.fmt.prefix()):]
        out.append(Corruption(f"renamed column {column}", renamed, 1, column))
    return out


def refused_or_counted(spec: ReaderSpec, folder: Path, records: list, corruption: Corruption) -> None:
    """The corrupted file raises a DataError that names it (and the line and field), or is counted."""
    path = write(spec, folder, records, corruption.content)
    try:
        parsed = spec.parse(path)
    except DataError as err:
        assert err.path == path, f"{spec.name}, {corruption.name}: the error names {err.path}, not the file"
        if corruption.line is not None:
            assert err.line == corruption.line, f"{spec.name}, {corruption.name}: line {err.line}, expected {corruption.line} ({err})"
        if corruption.field is not None:
            assert err.field and corruption.field in err.field, \
                f"{spec.name}, {corruption.name}: field {err.field!r}, expected one naming {corruption.field!r} ({err})"
        return
    assert counts(parsed) > 0, f"{spec.name}: {corruption.name} passed silently ({len(parsed)} records, nothing counted)"
    assert corruption.name in spec.counted_ok, \
        f"{spec.name}: {corruption.name} was only counted ({parsed.irregular}; {parsed.skipped}), not refused"


def check_corruptions(spec: ReaderSpec, folder: Path, records: list, draw) -> None:
    for corruption in field_corruptions(spec, records, draw) + byte_corruptions(spec, records, draw):
        refused_or_counted(spec, folder, records, corruption)


def property_tests(specs: Sequence[ReaderSpec]):
    """The two tests of a module's readers; bind them to ``test_*`` names at module level to collect them."""
    @pytest.mark.parametrize("spec", specs, ids=lambda spec: spec.name)
    def test_valid_files_round_trip(spec):
        @READERS
        @given(records=spec.records)
        def check(records):
            with tempfile.TemporaryDirectory() as folder:
                round_trip(spec, Path(folder), records)
        check()

    @pytest.mark.parametrize("spec", specs, ids=lambda spec: spec.name)
    def test_every_corruption_is_refused_or_counted(spec):
        @READERS
        @given(records=spec.records, data=st.data())
        def check(records, data):
            with tempfile.TemporaryDirectory() as folder:
                check_corruptions(spec, Path(folder), records, data.draw)
        check()

    return test_valid_files_round_trip, test_every_corruption_is_refused_or_counted
