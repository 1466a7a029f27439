"""Two small FEVER-like extras: Climate-FEVER and EX-FEVER (read for the data table; low priority).

Neither is in the three papers.  They are kept as further real-world (Climate-FEVER) and multi-hop
(EX-FEVER) claim sets for the AdMIRaL chapters (Aly & Vlachos 2022, §4 datasets; §5.1 retrieval) should a
notebook want more claims than HoVer and FEVEROUS-S give.

* **Climate-FEVER** (Diggelmann et al. 2020; folder ``climate_fever``, ``climate-fever.jsonl``, one file,
  no splits): 1,535 claims about climate, labels SUPPORTS / REFUTES / NOT_ENOUGH_INFO / DISPUTED, each
  with five Wikipedia evidence sentences::

      {"claim_id": "0", "claim": "...", "claim_label": "SUPPORTS",
       "evidences": [{"evidence_id": "Global warming:14", "evidence_label": "SUPPORTS",
                      "article": "Global warming", "evidence": "<sentence>", "entropy": 0.0,
                      "votes": ["SUPPORTS", "SUPPORTS", null, null, null]}, ...]}

  The number after the colon of ``evidence_id`` is the sentence's position in its article;
  :func:`build_climate_fever_corpus` orders each article's sentences by it (7,675 claim-evidence pairs
  hold 5,240 distinct sentences from 1,344 articles).  Empty (``null``) votes are dropped.
* **EX-FEVER** (Ma et al. 2023; folder ``ex_fever``, ``{test,mini_test}.csv``, train/dev absent): 2- and
  3-hop claims over HoVer's Wikipedia with an explanation and the gold page titles, but no page text.
  CSV with a header ``claim, explanation, label, golden entity, mention, result entity, discard number``
  (quoted fields may span lines); labels SUPPORT / REFUTE / NOT ENOUGH INFO; ``golden entity`` is a Python
  list literal of titles with ``_`` for spaces (``['Miguel_(singer)', ...]``), read with
  :func:`ast.literal_eval` and given with spaces as in HoVer (distinct, in list order; 16 test rows repeat
  a title).  A record's ``row`` is its 1-based data row (the file has no ids).  Every ``mini_test`` claim
  is also in ``test``.
"""
from __future__ import annotations

import ast
import csv
import io
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from proofbook.core.corpus import Corpus
from proofbook.data.base import (Records, SkipReport, UniqueIds, check_split, dataset_file, require, require_label,
                                 require_text)
from proofbook.data.jsonparse import iter_jsonl
from proofbook.data.textfile import DataError, no_records, read_text

CLIMATE_FOLDER, CLIMATE_FILE = "climate_fever", "climate-fever.jsonl"
CLIMATE_CLAIM_LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO", "DISPUTED")
CLIMATE_EVIDENCE_LABELS = ("SUPPORTS", "REFUTES", "NOT_ENOUGH_INFO")

EX_FEVER_FOLDER = "ex_fever"
EX_FEVER_SPLITS = ("train", "dev", "test", "mini_test")
EX_FEVER_LABELS = ("SUPPORT", "REFUTE", "NOT ENOUGH INFO")
EX_FEVER_COLUMNS = ("claim", "explanation", "label", "golden entity")


# --------------------------------------------------------------------------------------------------
# Climate-FEVER
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClimateEvidence:
    """One evidence sentence of a Climate-FEVER claim, with its annotators' votes (``null`` dropped)."""

    evidence_id: str
    article: str
    sentence: str
    label: str
    entropy: float
    votes: list[str]

    @property
    def position(self) -> int | None:
        """The sentence's position in its article (the number after the last ``:`` of the id)."""
        tail = self.evidence_id.rsplit(":", 1)[-1]
        return int(tail) if tail.isdigit() else None


@dataclass(frozen=True)
class ClimateClaim:
    """One Climate-FEVER claim with its label (:data:`CLIMATE_CLAIM_LABELS`) and evidence sentences."""
    claim_id: str
    claim: str
    label: str
    evidences: list[ClimateEvidence]


def _climate_evidence(entry: Any, path: Path, line: int, name: str) -> ClimateEvidence:
    if not isinstance(entry, dict):
        raise DataError(path, line, name, f"expected an object, found {type(entry).__name__}")
    label = require_label(require(entry, "evidence_label", path, line, name=f"{name}.evidence_label"),
                          CLIMATE_EVIDENCE_LABELS, path, line, f"{name}.evidence_label")
    entropy = require(entry, "entropy", path, line, kind=(int, float), name=f"{name}.entropy")
    votes = require(entry, "votes", path, line, kind=list, nonempty=False, name=f"{name}.votes")
    for vote in votes:
        if vote is not None:
            require_label(vote, CLIMATE_EVIDENCE_LABELS, path, line, f"{name}.votes")
    return ClimateEvidence(
        evidence_id=require(entry, "evidence_id", path, line, name=f"{name}.evidence_id"),
        article=require(entry, "article", path, line, name=f"{name}.article"),
        sentence=require(entry, "evidence", path, line, name=f"{name}.evidence"),
        label=label,
        entropy=float(entropy),
        votes=[vote for vote in votes if vote is not None],
    )


def parse_climate_fever(path: os.PathLike | str) -> Records:
    """Read ``climate-fever.jsonl`` (or a file in its format) from any path."""
    path = Path(path)
    claims: Records = Records(skipped=SkipReport(str(path)))
    ids = UniqueIds(path, "claim_id")
    for line, record in iter_jsonl(path):
        claim_id = require(record, "claim_id", path, line, kind=str)
        ids.check(claim_id, line)
        evidences = require(record, "evidences", path, line, kind=list)
        claims.append(ClimateClaim(
            claim_id=claim_id,
            claim=require(record, "claim", path, line),
            label=require_label(require(record, "claim_label", path, line), CLIMATE_CLAIM_LABELS, path, line,
                                "claim_label"),
            evidences=[_climate_evidence(entry, path, line, f"evidences[{index}]") for index, entry in enumerate(evidences)],
        ))
    return claims


def read_climate_fever(data_dir: os.PathLike | str | None = None) -> Records:
    """All Climate-FEVER claims (the dataset has a single file)."""
    return parse_climate_fever(dataset_file(data_dir, CLIMATE_FOLDER, CLIMATE_FILE))


def build_climate_fever_corpus(claims: Records | list[ClimateClaim], name: str = "climate_fever") -> Corpus:
    """One page per article: its evidence sentences, each once, in article order (by ``position``)."""
    pages: dict[str, dict[str, tuple[int, str]]] = {}
    for claim in claims:
        for evidence in claim.evidences:
            order = evidence.position if evidence.position is not None else -1
            pages.setdefault(evidence.article, {}).setdefault(evidence.evidence_id, (order, evidence.sentence))
    corpus = Corpus(name)
    for article, sentences in pages.items():
        corpus.add(article, [text for _, text in sorted(sentences.values(), key=lambda item: item[0])])
    return corpus


# --------------------------------------------------------------------------------------------------
# EX-FEVER
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExFeverClaim:
    """One EX-FEVER claim; ``gold_titles`` are Wikipedia titles with spaces (no page text exists here)."""

    row: int
    claim: str
    explanation: str
    label: str
    gold_titles: list[str]


def _iter_csv(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """``(first line, row)`` of each data row of a CSV file with a header; quoted fields may span lines."""
    reader = csv.reader(io.StringIO(read_text(path), newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise DataError(path, 1, None, "empty file: expected a CSV header")
        header = [name.strip() for name in header]
        for column in EX_FEVER_COLUMNS:
            if column not in header:
                raise DataError(path, 1, column, f"missing column in the header {header}")
        end, found = reader.line_num, False
        for cells in reader:
            start, end = end + 1, reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            found = True
            if len(cells) != len(header):
                missing = header[len(cells)] if len(cells) < len(header) else None
                raise DataError(path, start, missing, f"{len(cells)} columns for a header of {len(header)}")
            yield start, dict(zip(header, cells))
    except csv.Error as err:
        raise DataError(path, reader.line_num, None, f"malformed CSV ({err})") from None
    if not found:
        raise no_records(path, "rows after the header")


def _gold_titles(cell: str, path: Path, line: int) -> list[str]:
    """The titles of a ``golden entity`` cell, with spaces for ``_``, in list order."""
    field = "golden entity"
    try:
        value = ast.literal_eval(require_text(cell, path, line, field))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # TypeError: "{[1]}"
        raise DataError(path, line, field, f"not a Python list literal: {cell[:40]!r}") from None
    if not isinstance(value, list) or not value or not all(isinstance(t, str) and t.replace("_", " ").strip() for t in value):
        raise DataError(path, line, field, f"expected a non-empty list of titles, found {cell[:40]!r}")
    return [title.replace("_", " ").strip() for title in value]


def parse_ex_fever(path: os.PathLike | str) -> Records:
    """Read an EX-FEVER CSV file from any path; rows repeating a gold title are counted in ``.irregular``."""
    path = Path(path)
    claims: Records = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    for row, (line, cells) in enumerate(_iter_csv(path), start=1):
        titles = _gold_titles(cells["golden entity"], path, line)
        if len(set(titles)) < len(titles):
            claims.irregular.add("gold title repeated in 'golden entity' (kept once)", f"line {line}")
        claims.append(ExFeverClaim(
            row=row,
            claim=require_text(cells["claim"], path, line, "claim").strip(),
            explanation=require_text(cells["explanation"], path, line, "explanation").strip(),
            label=require_label(cells["label"].strip(), EX_FEVER_LABELS, path, line, "label"),
            gold_titles=list(dict.fromkeys(titles)),
        ))
    return claims


def read_ex_fever(data_dir: os.PathLike | str | None = None, split: str = "test") -> Records:
    """The EX-FEVER claims of ``split`` (``ex_fever/{split}.csv``)."""
    check_split(split, EX_FEVER_SPLITS, "EX-FEVER")
    return parse_ex_fever(dataset_file(data_dir, EX_FEVER_FOLDER, f"{split}.csv"))


# --------------------------------------------------------------------------------------------------
# The book's data table
# --------------------------------------------------------------------------------------------------

def _labels(counter: Counter) -> str:
    return ", ".join(f"{label} {count:,}" for label, count in sorted(counter.items()))


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """Rows for Climate-FEVER and each EX-FEVER split present."""
    rows = []
    try:
        climate = read_climate_fever(data_dir)
    except FileNotFoundError:
        climate = None
    if climate is not None:
        corpus = build_climate_fever_corpus(climate)
        rows.append({"dataset": "climate_fever", "split": "all", "records": len(climate),
                     "detail": f"{_labels(Counter(c.label for c in climate))}; "
                               f"{sum(len(c.evidences) for c in climate):,} claim-evidence pairs, "
                               f"{corpus.n_sentences():,} distinct sentences from {len(corpus):,} articles"})
    for split in EX_FEVER_SPLITS:
        try:
            claims = read_ex_fever(data_dir, split)
        except FileNotFoundError:
            continue
        hops = Counter(len(claim.gold_titles) for claim in claims)
        rows.append({"dataset": "ex_fever", "split": split, "records": len(claims),
                     "detail": f"{_labels(Counter(c.label for c in claims))}; gold pages per claim "
                               + ", ".join(f"{k}: {v:,}" for k, v in sorted(hops.items())) + " (titles only)"})
    return rows
