"""FEVEROUS-S: sentence-evidence FEVEROUS claims with the text of their gold sentences (ProgramFC's copy).

FEVEROUS (Aly et al. 2021) verifies claims against Wikipedia sentences and tables; FEVEROUS-S keeps the
claims whose evidence is sentences only (about 41%).  AdMIRaL (Aly & Vlachos 2022, §4; §5.1 Table 2,
2-hop recall +16.9) retrieves documents for it.  No full FEVEROUS Wikipedia is reachable, so the corpus
here pools the gold sentences of all claims by page (:func:`build_feverous_corpus`); the results pages
also add HoVer and FM2 pages as distractors.

Official format (folder ``feverous_s_gold_evidence``, ``{split}.json``, one JSON list written on one
line)::

    {"id": 3385, "claim": "...", "label": "supports" | "refutes", "challenge": "Multi-hop Reasoning",
     "evidence": "Page title<TAB>sentence with [[Target_page|link text]] markup\\nPage title<TAB>..."}

``challenge`` takes the values Other, Multi-hop Reasoning, Entity Disambiguation, Numerical Reasoning,
Search terms not in claim, Combining Tables and Text (any non-empty text is accepted).  Evidence
sentences are kept in the file's order (a claim's sentences may repeat; the corpus de-duplicates) with the
link markup rendered to its visible text by :func:`strip_wiki_markup`.

This copy: 1,465 of the 2,962 dev claims (705 supports / 760 refutes), 3,083 evidence lines, 1,262 pages
and 2,525 distinct sentences in the pooled corpus.
"""
from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from proofbook.core.corpus import Corpus
from proofbook.data.base import (Records, SkipReport, UniqueIds, check_split, dataset_file, present_splits, require,
                                 require_label)
from proofbook.data.jsonparse import iter_json_array
from proofbook.data.textfile import DataError

FEVEROUS_FOLDER = "feverous_s_gold_evidence"
FEVEROUS_SPLITS = ("train", "dev", "test")
FEVEROUS_LABELS = ("supports", "refutes")

# [[Target|visible text]]: the text runs to the first "]]" that is not followed by another "]", so that
# "[[Russian|[ˈzapədʲnʲɪk]]]" keeps its bracket; [[Target]] shows the target with spaces for "_".
_PIPED_LINK = re.compile(r"\[\[([^\[\]|]*)\|(.*?)\]\](?!\])")
_PLAIN_LINK = re.compile(r"\[\[([^\[\]|]*)\]\]")


def _visible(match: re.Match) -> str:
    text = match.group(2)
    # FEVEROUS drops one "]" when a link shows an IPA transcription: "[[Russian|[ˈzapədʲnʲɪk]]" -> "[ˈzapədʲnʲɪk]"
    if text.count("[") > text.count("]"):
        text += "]"
    return text


def strip_wiki_markup(text: str) -> str:
    """Render wiki links to their visible text: ``[[A|b]]`` -> ``b``, ``[[A]]`` -> ``A``."""
    text = _PIPED_LINK.sub(_visible, text)
    return _PLAIN_LINK.sub(lambda match: match.group(1).replace("_", " "), text)


@dataclass(frozen=True)
class FeverousClaim:
    """One FEVEROUS-S claim with its gold evidence as ``(page title, sentence)`` pairs."""

    id: int
    claim: str
    label: str
    challenge: str
    evidence: list[tuple[str, str]]
    gold_titles: list[str]


def _evidence(value: str, path: Path, line: int) -> list[tuple[str, str]]:
    pairs = []
    for index, entry in enumerate(value.strip("\n").split("\n")):
        name = f"evidence[{index}]"
        if "\t" not in entry:
            raise DataError(path, line, name, f"expected 'title<TAB>sentence', found {entry[:40]!r}")
        title, sentence = entry.split("\t", 1)
        if not title.strip():
            raise DataError(path, line, name, "empty page title")
        sentence = strip_wiki_markup(sentence).strip()
        if not sentence:
            raise DataError(path, line, name, "empty sentence")
        pairs.append((title.strip(), sentence))
    return pairs


def _feverous_claim(record: Any, path: Path, line: int) -> FeverousClaim:
    if not isinstance(record, dict):
        raise DataError(path, line, None, f"expected a JSON object, found {type(record).__name__}")
    claim_id = require(record, "id", path, line, kind=int)
    claim = require(record, "claim", path, line)
    label = require_label(require(record, "label", path, line), FEVEROUS_LABELS, path, line, "label")
    challenge = require(record, "challenge", path, line)
    evidence = _evidence(require(record, "evidence", path, line), path, line)
    gold_titles = list(dict.fromkeys(title for title, _ in evidence))
    return FeverousClaim(claim_id, claim, label, challenge, evidence, gold_titles)


def parse_feverous_claims(path: os.PathLike | str) -> Records:
    """Read a FEVEROUS-S claims file (one JSON list) from any path; a repeated ``id`` is an error.

    Claims that repeat an evidence sentence are kept as they are and counted in ``.irregular``.
    """
    path = Path(path)
    claims: Records = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    ids = UniqueIds(path, "id")
    for line, record in iter_json_array(path):
        claim = _feverous_claim(record, path, line)
        ids.check(claim.id, line)
        if len(set(claim.evidence)) < len(claim.evidence):
            claims.irregular.add("evidence sentence repeated within a claim", f"id {claim.id}")
        claims.append(claim)
    return claims


def read_feverous_claims(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """The FEVEROUS-S claims of ``split`` (``feverous_s_gold_evidence/{split}.json``)."""
    check_split(split, FEVEROUS_SPLITS, "FEVEROUS-S")
    return parse_feverous_claims(dataset_file(data_dir, FEVEROUS_FOLDER, f"{split}.json"))


def build_feverous_corpus(claims: Iterable[FeverousClaim], name: str = "feverous_s") -> Corpus:
    """Pool the claims' gold sentences by page: sentences in first-seen order, each once."""
    return Corpus.from_sentences((pair for claim in claims for pair in claim.evidence), name)


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per FEVEROUS-S split present (labels, pages per claim, pooled corpus size)."""
    rows = []
    for split, claims in present_splits(read_feverous_claims, data_dir, FEVEROUS_SPLITS):
        labels = Counter(claim.label for claim in claims)
        pages = Counter(len(claim.gold_titles) for claim in claims)
        corpus = build_feverous_corpus(claims)
        detail = (", ".join(f"{label} {count:,}" for label, count in sorted(labels.items()))
                  + "; gold pages per claim " + ", ".join(f"{k}: {v:,}" for k, v in sorted(pages.items()))
                  + f"; pooled corpus {len(corpus):,} pages, {corpus.n_sentences():,} sentences")
        rows.append({"dataset": "feverous_s", "split": split, "records": len(claims), "detail": detail})
    return rows
