"""MED 2-hop (``med_monotonicity/med_2hop.tsv``): MED pairs rewritten by two edits, with natural-logic relations.

Feng et al. (Neural Natural Logic) rewrote pairs of MED (the Monotonicity Entailment Dataset) in two
places and annotated the lexical relation of each edit and the relation after projection through the
sentence's monotonicity, in a ``formula`` such as ``['ent_f*', 'ent_r']->['ent_r', 'ent_r']``.  The book
uses them as gold data for operator composition in AdMIRaL's natural-logic proofs (Aly & Vlachos 2022,
§3.2).  Here are the row record (:class:`Med2HopRow`), the formula parser (:func:`parse_med_2hop_formula`)
and the file parser (:func:`parse_med_2hop`); the reader that takes a data directory
(:func:`~proofbook.data.nli.read_med_2hop`) is in :mod:`proofbook.data.nli`.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from proofbook.data.base import Records, SkipReport, iter_tsv, require_label, require_text
from proofbook.data.nli_labels import MED_2HOP_RELATIONS, MED_LABELS
from proofbook.data.textfile import DataError


@dataclass(frozen=True)
class Med2HopRow:
    """One row of ``med_2hop.tsv``: a MED pair rewritten by two edits, with natural-logic relations.

    ``sent1``/``sent2`` keep the ``*word*`` marker of the substituted keyword; ``relation`` is the
    lexical relation of that substitution (``relation 1to2``: ent_f / ent_r / alt).
    ``edit_relations`` are the lexical relations of the edits in order (``formula`` left of ``->``;
    ``keyword_edit`` is the index of the edit marked ``*``, None when no edit is marked);
    ``projected_relations`` the relations after projection through the sentence's monotonicity
    (right of ``->``; None in rows where the file has ``None``).  ``start_ends`` gives, per edit, the
    token positions in sent1 and in sent2.  Labels are upper case
    (:data:`~proofbook.data.nli_labels.NLI_LABELS`); ``new_label`` is the 2-hop pair's label, None where
    the file says ``None``.
    """

    original_id: int
    sent1: str
    sent2: str
    keyword: str
    relation: str
    pattern: str
    original_label: str
    original_genre: str
    consistent: bool
    edit_relations: tuple[str, ...]
    keyword_edit: int | None
    projected_relations: tuple[str, ...] | None
    formula: str
    start_ends: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    new_label: str | None
    line: int

    @property
    def edit_operators(self) -> tuple[str, ...]:
        """:attr:`edit_relations` as ProoFVer operators (``ent_f`` -> ``<`` ...)."""
        return tuple(MED_2HOP_RELATIONS[r] for r in self.edit_relations)

    @property
    def projected_operators(self) -> tuple[str, ...] | None:
        if self.projected_relations is None:
            return None
        return tuple(MED_2HOP_RELATIONS[r] for r in self.projected_relations)


MED_2HOP_COLUMNS = ("original_id", "sent1", "sent2", "keyword_before", "relation 1to2", "pattern", "original_label",
                    "original_genre", "consistent", "formula", "start_ends", "new_label")


def _literal(text: str, path: Path, line: int, name: str) -> Any:
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # TypeError: "{[1]}"
        raise DataError(path, line, name, f"not a Python literal: {text[:60]!r}") from None


def _relations(value: Any, path: Path, line: int, side: str) -> list[str]:
    if not (isinstance(value, list) and all(isinstance(x, str) for x in value)):
        raise DataError(path, line, "formula", f"{side} of '->' must be a list of relation names, found {str(value)[:40]!r}")
    for name in value:
        require_label(name.rstrip("*"), MED_2HOP_RELATIONS, path, line, "formula")
    return value


def parse_med_2hop_formula(text: str, path: os.PathLike | str = "<string>", line: int | None = None
                           ) -> tuple[tuple[str, ...], int | None, tuple[str, ...] | None]:
    """``"['ent_f*', 'ent_r']->['ent_r', 'ent_r']"`` -> ``(("ent_f", "ent_r"), 0, ("ent_r", "ent_r"))``.

    ``['']->None`` (a formula the annotation tool could not build) gives ``((), None, None)``.
    """
    path = Path(path)
    if text.count("->") != 1:
        raise DataError(path, line, "formula", f"expected '<edit relations>-><projected relations>', found {text[:60]!r}")
    left, right = (_literal(part, path, line, "formula") for part in text.split("->"))
    if left == [""] and right is None:
        return (), None, None
    left = _relations(left, path, line, "left")
    starred = [i for i, name in enumerate(left) if name.endswith("*")]
    if len(starred) > 1:
        raise DataError(path, line, "formula", f"more than one edit marked '*': {text[:60]!r}")
    projected = None if right is None else tuple(_relations(right, path, line, "right"))
    if projected is not None and len(projected) != len(left):
        raise DataError(path, line, "formula", f"{len(left)} edit relations but {len(projected)} projected ones")
    return tuple(name.rstrip("*") for name in left), (starred[0] if starred else None), projected


def _start_ends(text: str, path: Path, line: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    value = _literal(text, path, line, "start_ends")

    def positions(x: Any) -> bool:
        return isinstance(x, list) and all(isinstance(i, int) for i in x)

    if not (isinstance(value, list) and all(isinstance(p, tuple) and len(p) == 2 and all(positions(x) for x in p) for p in value)):
        raise DataError(path, line, "start_ends", f"expected [([int, ...], [int, ...]), ...], found {text[:60]!r}")
    return tuple((tuple(a), tuple(b)) for a, b in value)


def _upper_label(value: str, path: Path, line: int, name: str, allow_none: bool = False) -> str | None:
    value = value.strip()
    if allow_none and value == "None":
        return None
    return MED_LABELS[require_label(value, MED_LABELS, path, line, name)]


def parse_med_2hop(path: os.PathLike | str) -> Records:
    """Read ``med_2hop.tsv`` (header names stripped of their padding) -> :class:`Records` of :class:`Med2HopRow`.

    The file has no row id: ``original_id`` names the MED pair a row rewrites, and one pair is rewritten
    into several rows (911 ids repeat in the official file), so a repeated ``original_id`` is expected.
    """
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    for number, row in iter_tsv(path, header=True, strip_header=True, columns=MED_2HOP_COLUMNS):
        original_id = row["original_id"].strip()
        if not original_id.isdigit():
            raise DataError(path, number, "original_id", f"expected an integer MED pair id, found {original_id[:40]!r}")
        relation = require_label(row["relation 1to2"].strip(), MED_2HOP_RELATIONS, path, number, "relation 1to2")
        consistent = require_label(row["consistent"].strip(), ("True", "False"), path, number, "consistent") == "True"
        edits, keyword_edit, projected = parse_med_2hop_formula(row["formula"], path, number)
        records.append(Med2HopRow(
            original_id=int(original_id),
            sent1=require_text(row["sent1"], path, number, "sent1"),
            sent2=require_text(row["sent2"], path, number, "sent2"),
            keyword=require_text(row["keyword_before"], path, number, "keyword_before").strip(),
            relation=relation,
            pattern=require_text(row["pattern"], path, number, "pattern"),
            original_label=_upper_label(row["original_label"], path, number, "original_label"),
            original_genre=require_text(row["original_genre"], path, number, "original_genre").strip(),
            consistent=consistent,
            edit_relations=edits,
            keyword_edit=keyword_edit,
            projected_relations=projected,
            formula=row["formula"].strip(),
            start_ends=_start_ends(row["start_ends"], path, number),
            new_label=_upper_label(row["new_label"], path, number, "new_label", allow_none=True),
            line=number,
        ))
    return records
