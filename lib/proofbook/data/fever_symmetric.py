"""Symmetric FEVER: FEVER claim-evidence pairs paired with minimally edited counterparts.

Schuster et al. (2019) took FEVER claim/evidence pairs and wrote, for each, a claim with the opposite
label and an evidence sentence with the opposite label, so that claim-only cues cannot help.  This project
evaluates the natural-logic verdicts of AdMIRaL's proof system on it (Aly & Vlachos 2022, §3.2 natural-logic
proofs and the verdict automaton; dataset ``fever_symmetric``, metric ``verdict_acc``).  The
claims come from FEVER, so the natural-logic models must not be trained on them:
:func:`fever_symmetric_claim_ids` gives the FEVER claim ids to drop.

Official format (folder ``fever_symmetric``, ``symmetric_v0.2_fever_symmetric_{split}.jsonl``, splits dev
and test; one JSON object a line)::

    {"id": "1005840000002", "claim": "...", "evidence": "<one sentence, FEVER tokenisation>",
     "sentence1": <= evidence, "sentence2": <= claim, "gold_label": <= label,
     "label": "SUPPORTS" | "REFUTES", "evid": [[sentence, score]]}

The v0.1 files (``..._v0.1_fever_symmetric_{full,generated}.jsonl``) name the evidence
``evidence_sentence``; :func:`parse_symmetric_pairs` reads them too.

Ids: a FEVER claim id (at most six digits here, e.g. ``"100584"``) marks the original pair; the three
generated pairs of the same claim carry ``<FEVER id> * 10**7 + k`` with k = 2, 3, 4 (``"1005840000002"``).
So the FEVER claim id is ``int(id) // 10**7`` for ids of 10**7 and more, else ``int(id)``; every FEVER id
here comes with all four pairs (v0.2 dev: 177 claims x 4 = 708 pairs, test: 178 x 4 = 712).
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from proofbook.data.base import (Records, check_split, dataset_file, present_splits, require, require_label,
                                 unique_jsonl_records)
from proofbook.data.textfile import DataError

SYMMETRIC_FOLDER = "fever_symmetric"
SYMMETRIC_SPLITS = ("dev", "test")
SYMMETRIC_LABELS = ("SUPPORTS", "REFUTES")
#: a generated pair's id is the FEVER claim id times this, plus its variant number (2-4)
GENERATED_ID_BASE = 10 ** 7
GENERATED_VARIANTS = (2, 3, 4)


def symmetric_file(split: str) -> str:
    """The file name of FEVER-Symmetric's ``split`` (v0.2) in :data:`SYMMETRIC_FOLDER`."""
    return f"symmetric_v0.2_fever_symmetric_{split}.jsonl"


def fever_claim_id(pair_id: str | int) -> tuple[int, int]:
    """``(FEVER claim id, variant)`` of a pair id; variant 1 is the original FEVER pair.

    Raises :class:`ValueError` for an id that is neither a FEVER id nor a generated pair's id.
    """
    text = str(pair_id).strip()
    if not text.isdigit():
        raise ValueError(f"not a numeric id: {pair_id!r}")
    number = int(text)
    if number < GENERATED_ID_BASE:
        return number, 1
    claim_id, variant = divmod(number, GENERATED_ID_BASE)
    if variant not in GENERATED_VARIANTS:
        raise ValueError(f"{pair_id!r} ends in {variant:07d}, not in a generated variant {GENERATED_VARIANTS}")
    return claim_id, variant


@dataclass(frozen=True)
class SymmetricPair:
    """One claim-evidence pair; ``id`` is the file's id string (see :func:`fever_claim_id`)."""

    id: str
    claim: str
    evidence: str
    label: str

    @property
    def fever_id(self) -> int:
        """The FEVER claim id this pair comes from."""
        return fever_claim_id(self.id)[0]

    @property
    def variant(self) -> int:
        """1 for the original FEVER pair, 2-4 for the generated ones."""
        return fever_claim_id(self.id)[1]


def _pair(record: dict, path: Path, line: int) -> SymmetricPair:
    pair_id = require(record, "id", path, line, kind=str)
    try:
        fever_claim_id(pair_id)
    except ValueError as err:
        raise DataError(path, line, "id", str(err)) from None
    claim = require(record, "claim", path, line)
    key = "evidence" if "evidence" in record or "evidence_sentence" not in record else "evidence_sentence"
    evidence = require(record, key, path, line)
    label = require_label(require(record, "label", path, line), SYMMETRIC_LABELS, path, line, "label")
    return SymmetricPair(str(pair_id).strip(), claim, evidence, label)


def parse_symmetric_pairs(path: os.PathLike | str) -> Records:
    """Read a Symmetric FEVER file (v0.2, or v0.1 with ``evidence_sentence``) from any path."""
    return unique_jsonl_records(path, _pair)


def read_fever_symmetric(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """The v0.2 pairs of ``split`` (dev or test)."""
    check_split(split, SYMMETRIC_SPLITS, "Symmetric FEVER")
    return parse_symmetric_pairs(dataset_file(data_dir, SYMMETRIC_FOLDER, symmetric_file(split)))


def fever_symmetric_claim_ids(data_dir: os.PathLike | str | None = None) -> set[int]:
    """FEVER claim ids of every pair in the v0.2 dev and test files present (drop them from training)."""
    ids: set[int] = set()
    for _, pairs in present_splits(read_fever_symmetric, data_dir, SYMMETRIC_SPLITS):
        ids.update(pair.fever_id for pair in pairs)
    return ids


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per v0.2 split present."""
    rows = []
    for split, pairs in present_splits(read_fever_symmetric, data_dir, SYMMETRIC_SPLITS):
        labels = Counter(pair.label for pair in pairs)
        claims = len({pair.fever_id for pair in pairs})
        detail = ", ".join(f"{label} {count:,}" for label, count in sorted(labels.items()))
        detail += f"; {claims:,} FEVER claims, {sum(pair.variant > 1 for pair in pairs):,} generated pairs"
        rows.append({"dataset": "fever_symmetric", "split": split, "records": len(pairs), "detail": detail})
    return rows
