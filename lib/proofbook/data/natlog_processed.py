"""QA-NatVer's processed few-shot files: ``processed_train-fewshot_<settings>.jsonl`` in ``natlog_proofs_qanatver``.

QA-NatVer (Aly et al. 2023) chunks and aligns its few-shot FEVER train claims before training; each
line of these files is one proof variant of a claim (:class:`FewshotExample`) with the claim's chunks,
their alternative parses, the chunk-to-evidence alignment and the ProoFVer proof as JSON triples.  The
settings of a file (number of sampled claims, retrieval mode, number of evidence sentences, ...) are
spelled out in its name (:func:`parse_fewshot_setting`).  The book trains the natural-logic proof
generator of AdMIRaL (Aly & Vlachos 2022, §3.2) on them.  The readers that take a data directory
(:func:`~proofbook.data.natlog.fewshot_processed_files`,
:func:`~proofbook.data.natlog.read_fewshot_processed`) are in :mod:`proofbook.data.natlog`.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from proofbook.data.base import Records, SkipReport, UniqueIds, require, require_label
from proofbook.data.jsonparse import iter_jsonl
from proofbook.data.proofver import OPERATORS, VERDICTS, ProofStep
from proofbook.data.textfile import DataError

#: a processed few-shot ``id`` is ``claim_id * VARIANT_BASE + variant``
VARIANT_BASE = 10 ** 11


@dataclass(frozen=True)
class FewshotSetting:
    """The settings spelled out in a ``processed_train-fewshot_*.jsonl`` file name.

    ``use_retr`` is ``"False"`` (gold evidence) or ``"Only"`` (retrieved evidence only);
    ``retr_evidence`` is the number of evidence sentences; ``options`` holds every setting as text,
    including the ones without their own attribute (``alignment_mode``, ``max_chunks``, ...).
    """

    path: Path
    num_samples: int
    seed: int
    use_retr: str
    retr_evidence: int
    options: dict[str, str] = field(default_factory=dict, compare=False, hash=False)

    @property
    def name(self) -> str:
        return f"num_samples={self.num_samples}, use_retr={self.use_retr}, retr_evidence={self.retr_evidence}"


_SETTING_HEAD = re.compile(r"processed_train-fewshot_num_samples_(?P<num_samples>\d+)_seed_(?P<seed>\d+)"
                           r"_use_retr_(?P<use_retr>[^_]+)_retr_evidence_(?P<retr_evidence>\d+)(?P<rest>.*)\.jsonl")
# the further settings, in the order QA-NatVer writes them into the name
_SETTING_KEYS = ("dp", "alignment_mode", "max_chunks", "alignment_model", "few_shot", "matching_method", "loose_matching")
_SETTING_SPLIT = re.compile("_(" + "|".join(_SETTING_KEYS) + ")_")


def parse_fewshot_setting(path: os.PathLike | str) -> FewshotSetting:
    """The :class:`FewshotSetting` of one processed few-shot file, from its name alone."""
    path = Path(path)
    match = _SETTING_HEAD.fullmatch(path.name)
    if match is None:
        raise DataError(path, None, "file name", "expected 'processed_train-fewshot_num_samples_<n>_seed_<s>_use_retr_<r>"
                                                 "_retr_evidence_<k>..._.jsonl'")
    options = {key: match[key] for key in ("num_samples", "seed", "use_retr", "retr_evidence")}
    parts = _SETTING_SPLIT.split(match["rest"])
    # parts = [text before the first key, key, value, key, value, ...]
    if parts[0]:
        options["unnamed"] = parts[0].strip("_")
    for key, value in zip(parts[1::2], parts[2::2]):
        options[key] = value
    return FewshotSetting(path, int(match["num_samples"]), int(match["seed"]), match["use_retr"],
                          int(match["retr_evidence"]), options)


@dataclass(frozen=True)
class FewshotExample:
    """One row of a processed few-shot file: a claim, its evidence and one gold-like proof variant.

    ``evidence`` is the text as in the file; :attr:`evidence_sentences` splits it into
    ``(title, sentence)`` pairs.  ``claim_parsed`` (chunks), ``claim_parsed_hierarchy`` (which chunks
    form alternative parses) and ``alignment`` (chunk -> aligned evidence text) are kept as they are.
    """

    id: int
    claim: str
    verdict: str
    evidence: str
    steps: tuple[ProofStep, ...]
    claim_parsed: tuple[str, ...]
    claim_parsed_hierarchy: tuple[tuple[int, ...], ...]
    alignment: tuple[tuple[str, str], ...]
    line: int

    @property
    def claim_id(self) -> int:
        """The FEVER claim id (``id // 10**11``)."""
        return self.id // VARIANT_BASE

    @property
    def variant(self) -> int:
        """Which proof variant of the claim this row is (``id % 10**11``)."""
        return self.id % VARIANT_BASE

    @property
    def evidence_sentences(self) -> list[tuple[str, str]]:
        return split_evidence(self.evidence)


_EVIDENCE_SEPARATOR = "</s>"
_TITLED_SENTENCE = re.compile(r"\[\s*(?P<title>.*?)\s*\]\s*(?P<text>.*)", re.S)


def split_evidence(text: str) -> list[tuple[str, str]]:
    """``"[ T1 ] s1 </s> [ T2 ] s2"`` -> ``[("T1", "s1"), ("T2", "s2")]`` (title ``""`` if none)."""
    pieces = []
    for chunk in text.split(_EVIDENCE_SEPARATOR):
        chunk = chunk.strip()
        if not chunk:
            continue
        match = _TITLED_SENTENCE.fullmatch(chunk)
        pieces.append((match["title"], match["text"].strip()) if match else ("", chunk))
    return pieces


def _proof_steps_from_json(value: Any, path: Path, line: int) -> tuple[ProofStep, ...]:
    steps = []
    for number, triple in enumerate(value, start=1):
        if not (isinstance(triple, list) and len(triple) == 3 and all(isinstance(x, str) for x in triple)):
            raise DataError(path, line, "proof", f"step {number}: expected [claim_span, evidence_span, op], found {str(triple)[:60]!r}")
        claim, evidence, op = (x.strip() for x in triple)
        if op not in OPERATORS:
            raise DataError(path, line, "proof", f"unknown operator {op!r} in step {number}; expected one of {list(OPERATORS)}")
        if not claim or not evidence:
            raise DataError(path, line, "proof", f"empty {'claim' if not claim else 'evidence'} span in step {number}")
        steps.append(ProofStep(claim, evidence, op))
    return tuple(steps)


def _int_lists(value: Any, path: Path, line: int, name: str, size: int) -> tuple[tuple[int, ...], ...]:
    """A list of non-empty lists of chunk indices (``0 <= i < size``; ``true`` is not an integer)."""
    for number, group in enumerate(value):
        if not (isinstance(group, list) and group
                and all(isinstance(i, int) and not isinstance(i, bool) for i in group)):
            raise DataError(path, line, name, f"group {number}: expected a non-empty list of integers, found {str(group)[:40]!r}")
        for index in group:
            if not 0 <= index < size:
                raise DataError(path, line, name, f"group {number}: chunk index {index} out of range "
                                                  f"(claim_parsed has {size} chunks)")
    return tuple(tuple(group) for group in value)


def _text_pairs(value: Any, path: Path, line: int, name: str) -> tuple[tuple[str, str], ...]:
    for number, pair in enumerate(value):
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise DataError(path, line, name, f"pair {number}: expected [claim text, evidence text], found {str(pair)[:60]!r}")
        if not (pair[0].strip() and pair[1].strip()):
            raise DataError(path, line, name, f"pair {number}: empty {'claim' if not pair[0].strip() else 'evidence'} text")
    return tuple((a, b) for a, b in value)


def parse_fewshot_processed(path: os.PathLike | str) -> Records:
    """Read one ``processed_train-fewshot_*.jsonl`` file -> :class:`Records` of :class:`FewshotExample`.

    Every field is checked: ``claim_parsed`` holds non-empty chunks, ``claim_parsed_hierarchy`` non-empty
    groups of indices into ``claim_parsed``, ``alignment`` (may be an empty list) pairs of non-empty texts.
    """
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    ids = UniqueIds(path, "id")
    for number, obj in iter_jsonl(path):
        row_id = require(obj, "id", path, number, int)
        if row_id < 0:
            raise DataError(path, number, "id", f"expected a non-negative integer, found {row_id!r}")
        ids.check(row_id, number)
        claim = require(obj, "claim", path, number, str)
        verdict = require_label(require(obj, "verdict", path, number, str), VERDICTS, path, number, "verdict")
        evidence = require(obj, "evidence", path, number, str)
        steps = _proof_steps_from_json(require(obj, "proof", path, number, list), path, number)
        claim_parsed = require(obj, "claim_parsed", path, number, list)
        for position, chunk in enumerate(claim_parsed):
            if not isinstance(chunk, str):
                raise DataError(path, number, "claim_parsed", f"chunk {position}: expected a string, found {type(chunk).__name__}")
            if not chunk.strip():
                raise DataError(path, number, "claim_parsed", f"chunk {position}: empty")
        hierarchy = _int_lists(require(obj, "claim_parsed_hierarchy", path, number, list), path, number,
                               "claim_parsed_hierarchy", len(claim_parsed))
        alignment = _text_pairs(require(obj, "alignment", path, number, list, nonempty=False), path, number, "alignment")
        records.append(FewshotExample(row_id, claim, verdict, evidence, steps, tuple(claim_parsed), hierarchy,
                                      alignment, number))
    return records
