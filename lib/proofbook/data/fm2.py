"""Fool Me Twice (FM2): FEVER-style claims written in a game, each about one Wikipedia page.

FM2 (Eisenschlos et al. 2021) has SUPPORTS/REFUTES claims with gold evidence sentences from a single page.
It has no multi-hop claims and is not in the AdMIRaL paper: this project uses its pages as a further
closed corpus and as distractor pages for the AdMIRaL reproduction (Aly & Vlachos 2022, §5.1 retrieval on
FEVEROUS-S, §5.2 efficiency on growing corpora; datasets ``feverous_s+distractors``,
``hover-x2``/``hover-x4``).

Official format (folder ``fool_me_twice``, ``{split}.jsonl``, one JSON object a line)::

    {"id": "01EICaMMy6uOPHdoEGAf", "text": "<claim>", "label": "SUPPORTS" | "REFUTES",
     "wikipedia_page": "Gandhi (film)", "category": "Popular Culture",
     "gold_evidence": [{"section_header": "Production", "text": "<sentence>"}, ...],
     "retrieved_evidence": [{"section_header": "...", "text": "<sentence>"}, ...],
     "correct_votes": 1, "total_votes": 1, "total_likes": 0}

``retrieved_evidence`` (usually ten sentences) carries no page title.  It is kept on each record but
left out of the corpus: :func:`build_fm2_corpus` gives each ``wikipedia_page`` only the gold sentences
pooled over its claims, in first-seen order, each once.  (Every gold sentence of this copy also occurs
among its claim's retrieved sentences, but nothing in the file says which page a retrieved sentence comes
from.)  The game's vote counts and section headers are not kept.

This copy: ``dev.jsonl`` complete (1,169 claims: 596 SUPPORTS / 573 REFUTES; 209 pages, 1,210 distinct
gold sentences); ``test.jsonl`` is held back; ``train.jsonl`` is absent.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from proofbook.core.corpus import Corpus
from proofbook.data.base import (Records, check_split, dataset_file, present_splits, require, require_label,
                                 unique_jsonl_records)
from proofbook.data.textfile import DataError

FM2_FOLDER = "fool_me_twice"
FM2_SPLITS = ("train", "dev", "test")
FM2_LABELS = ("SUPPORTS", "REFUTES")


@dataclass(frozen=True)
class Fm2Claim:
    """One FM2 claim; evidence lists hold sentence texts (gold: from ``wikipedia_page``)."""

    id: str
    claim: str
    label: str
    wikipedia_page: str
    category: str
    gold_evidence: list[str]
    retrieved_evidence: list[str]


def _sentences(record: dict, key: str, path: Path, line: int, nonempty: bool) -> list[str]:
    entries = require(record, key, path, line, kind=list, nonempty=nonempty)
    texts = []
    for index, entry in enumerate(entries):
        name = f"{key}[{index}]"
        if not isinstance(entry, dict):
            raise DataError(path, line, name, f"expected an object with 'text', found {type(entry).__name__}")
        texts.append(require(entry, "text", path, line, name=f"{name}.text"))
    return texts


def _fm2_claim(record: dict, path: Path, line: int) -> Fm2Claim:
    return Fm2Claim(
        id=require(record, "id", path, line),
        claim=require(record, "text", path, line),
        label=require_label(require(record, "label", path, line), FM2_LABELS, path, line, "label"),
        wikipedia_page=require(record, "wikipedia_page", path, line),
        category=require(record, "category", path, line),
        gold_evidence=_sentences(record, "gold_evidence", path, line, nonempty=True),
        retrieved_evidence=_sentences(record, "retrieved_evidence", path, line, nonempty=False),
    )


def parse_fm2_claims(path: os.PathLike | str) -> Records:
    """Read an FM2 JSON-lines file from any path; a repeated ``id`` is an error."""
    return unique_jsonl_records(path, _fm2_claim)


def read_fm2_claims(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """The FM2 claims of ``split`` (``fool_me_twice/{split}.jsonl``)."""
    check_split(split, FM2_SPLITS, "Fool Me Twice")
    return parse_fm2_claims(dataset_file(data_dir, FM2_FOLDER, f"{split}.jsonl"))


def build_fm2_corpus(claims: Iterable[Fm2Claim], name: str = "fm2") -> Corpus:
    """One page per ``wikipedia_page``: its claims' gold sentences, first-seen order, each once.

    Retrieved evidence is not added (it has no page title).
    """
    return Corpus.from_sentences(((claim.wikipedia_page, sentence) for claim in claims
                                  for sentence in claim.gold_evidence), name)


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per FM2 split present."""
    rows = []
    for split, claims in present_splits(read_fm2_claims, data_dir, FM2_SPLITS):
        labels = Counter(claim.label for claim in claims)
        corpus = build_fm2_corpus(claims)
        detail = (", ".join(f"{label} {count:,}" for label, count in sorted(labels.items()))
                  + f"; {len(corpus):,} pages, {corpus.n_sentences():,} gold sentences")
        rows.append({"dataset": "fm2", "split": split, "records": len(claims), "detail": detail})
    return rows
