"""Sentence-pair entailment (NLI) sets: SICK, SciTail, MED (+ its 2-hop natural-logic variant), WiCE, FraCaS.

These train and test the book's cross-encoder entailment scorers and natural-logic operator models:

* Entailer (Tafjord et al. 2022) trains its entailment scorer P |- H on EntailmentBank; the book adds
  SciTail and SICK as extra entailment data.
* AdMIRaL's natural-logic sufficiency check (Aly & Vlachos 2022, paper §3.2) needs operator
  (relation) classification; MED and its relation-annotated 2-hop variant are the closest gold data
  for monotonicity and operator composition, FraCaS (sections 1-80) a tiny sanity set.
* WiCE oracle chunks are real-world claims against cited web evidence, used for the claims-in-the-wild
  entailment step.

Official formats read here (folders under the data directory):

* ``sick/SICK.txt`` -- TSV with header ``pair_ID, sentence_A, sentence_B, entailment_label,
  relatedness_score, entailment_AB, entailment_BA, sentence_A_original, sentence_B_original,
  sentence_A_dataset, sentence_B_dataset, SemEval_set``; the split is the ``SemEval_set`` column
  (TRAIN / TRIAL / TEST); CRLF line ends -> :func:`read_sick`.
* ``scitail/{dev,test}.jsonl`` -- ``{"id", "sentence1": premise, "sentence2": hypothesis,
  "gold_label": "E"|"N"}`` (aristo-leaderboard answer files) -> :func:`read_scitail`.
* ``med_monotonicity/MED.tsv`` -- MNLI-style TSV (``index, promptID, pairID, genre, *_parse, sentence1,
  sentence2, label1..5, gold_label``; parse and label columns are empty); ``genre`` joins tags with
  ``:``: crowd/paper, the monotonicity (upward/downward/non monotone), phenomena and source datasets ->
  :func:`read_med`, :func:`parse_med_genre`.
* ``med_monotonicity/med_2hop.tsv`` (Feng et al., Neural Natural Logic) -- header names padded with
  spaces; per row a MED pair edited in two places with the lexical relation of each edit and the
  relation after projection (``formula``: ``['ent_f*', 'ent_r']->['ent_r', 'ent_r']``, the ``*`` marks
  the keyword substitution) -> :func:`read_med_2hop`.
* ``wice_oracle_chunks/{dev,test}.jsonl`` -- ``{"label", "claim", "evidence": [sentences], "meta": {"id",
  "claim_title", "claim_section", "chunk_idx", "oracle_idx"}}``; about three rows (annotators' oracle
  chunks) per claim -> :func:`read_wice`.
* ``fracas_monalog/fracas_1_80.raw.txt`` -- one sentence per line (premises and hypotheses of FraCaS
  problems 1-80, no labels) -> :func:`read_fracas_sentences`.

Where things live: this module holds the SICK, SciTail, MED, WiCE and FraCaS records and parsers,
every reader that takes a data directory (MED 2-hop's too) and :func:`describe`.  The label vocabularies
(:data:`~proofbook.data.nli_labels.NLI_LABELS`, :data:`~proofbook.data.nli_labels.MED_LABELS`,
:data:`~proofbook.data.nli_labels.MED_2HOP_RELATIONS`) are in :mod:`proofbook.data.nli_labels`, the MED
2-hop record and parsers in :mod:`proofbook.data.med_2hop`.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from proofbook.core.paths import resolve_data_dir
from proofbook.data.base import (Records, SkipReport, UniqueIds, check_split, dataset_file, iter_tsv, require,
                                 require_label, require_records, require_text)
from proofbook.data.jsonparse import iter_jsonl
from proofbook.data.med_2hop import parse_med_2hop
from proofbook.data.nli_labels import ENTAILMENT, MED_LABELS, NEUTRAL, NLI_LABELS
from proofbook.data.textfile import DataError, iter_lines

SICK_FOLDER, SICK_FILE = "sick", "SICK.txt"
SCITAIL_FOLDER = "scitail"
MED_FOLDER, MED_FILE, MED_2HOP_FILE = "med_monotonicity", "MED.tsv", "med_2hop.tsv"
WICE_FOLDER = "wice_oracle_chunks"
FRACAS_FOLDER, FRACAS_FILE = "fracas_monalog", "fracas_1_80.raw.txt"

SICK_SPLITS = {"train": "TRAIN", "trial": "TRIAL", "test": "TEST"}
SCITAIL_SPLITS = ("train", "dev", "test")
SCITAIL_LABELS = {"E": ENTAILMENT, "N": NEUTRAL}
MED_MONOTONICITY = ("upward_monotone", "downward_monotone", "non_monotone")
WICE_SPLITS = ("dev", "test")
WICE_LABELS = ("supported", "partially_supported", "not_supported")


def _split_name(split: str, allowed, dataset: str) -> str:
    return check_split(str(split).lower(), list(allowed), dataset)


def _format_counts(counts: Counter) -> str:
    return ", ".join(f"{key} {n:,}" for key, n in counts.most_common())


def _read_jsonl_split(parse: Callable[[Path], Records], data_dir: os.PathLike | str | None, split: str,
                      allowed, dataset: str, folder: str) -> Records:
    """``parse`` of ``<folder>/{split}.jsonl``, the split checked (any case) against ``allowed``."""
    split = _split_name(split, allowed, dataset)
    return parse(dataset_file(data_dir, folder, f"{split}.jsonl"))


# --- the shared pair record ------------------------------------------------------------------

@dataclass(frozen=True)
class NliPair:
    """A premise/hypothesis pair with a three-way label.

    ``label`` is one of :data:`NLI_LABELS`; ``raw_label`` is the label as written in the file;
    ``source`` the dataset (``sick``, ``scitail``, ``med``); ``genre`` MED's colon-joined tags (empty
    elsewhere; see :func:`parse_med_genre`); ``meta`` the dataset's other columns, as text.
    """

    id: str
    premise: str
    hypothesis: str
    label: str
    source: str
    raw_label: str = ""
    genre: str = ""
    meta: dict[str, str] = field(default_factory=dict, compare=False, hash=False)


# --- SICK -------------------------------------------------------------------------------------

_SICK_META = ("relatedness_score", "entailment_AB", "entailment_BA", "sentence_A_dataset", "sentence_B_dataset")
#: the columns SICK.txt must have (its header has more; the rest are kept in ``meta`` where named above)
SICK_COLUMNS = ("pair_ID", "sentence_A", "sentence_B", "entailment_label", "relatedness_score", "SemEval_set")


def parse_sick(path: os.PathLike | str, split: str | None = None) -> Records:
    """Read ``SICK.txt``; ``split`` (train / trial / test, any case) keeps one ``SemEval_set``, None all.

    Returns :class:`Records` of :class:`NliPair`; ``meta`` holds ``split`` (lower case), the relatedness
    score and the directional labels.
    """
    path = Path(path)
    wanted = SICK_SPLITS[_split_name(split, SICK_SPLITS, "sick")] if split is not None else None
    records = Records(skipped=SkipReport(source=str(path)))
    ids = UniqueIds(path, "pair_ID")
    for number, row in iter_tsv(path, header=True, columns=SICK_COLUMNS):
        semeval_set = require_label(row["SemEval_set"].strip(), SICK_SPLITS.values(), path, number, "SemEval_set")
        pair_id = require_text(row["pair_ID"], path, number, "pair_ID").strip()
        ids.check(pair_id, number)
        premise = require_text(row["sentence_A"], path, number, "sentence_A")
        hypothesis = require_text(row["sentence_B"], path, number, "sentence_B")
        label = require_label(row["entailment_label"], NLI_LABELS, path, number, "entailment_label")
        score = row["relatedness_score"]
        try:
            float(score)
        except ValueError:
            raise DataError(path, number, "relatedness_score", f"expected a number, found {score[:40]!r}") from None
        meta = {key: row[key] for key in _SICK_META if key in row}
        meta["split"] = semeval_set.lower()
        if wanted is not None and semeval_set != wanted:
            continue
        records.append(NliPair(pair_id, premise, hypothesis, label, "sick", raw_label=label, meta=meta))
    return records


def read_sick(data_dir: os.PathLike | str | None = None, split: str = "train") -> Records:
    """SICK pairs of one SemEval-2014 split: ``train`` 4,439, ``trial`` 495, ``test`` 4,906."""
    _split_name(split, SICK_SPLITS, "sick")
    return parse_sick(dataset_file(data_dir, SICK_FOLDER, SICK_FILE), split)


# --- SciTail ----------------------------------------------------------------------------------

def parse_scitail(path: os.PathLike | str) -> Records:
    """Read a SciTail answers file (JSON lines, ``gold_label`` E/N) -> :class:`Records` of :class:`NliPair`."""
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    ids = UniqueIds(path, "id")
    for number, obj in iter_jsonl(path):
        pair_id = require(obj, "id", path, number, str)
        ids.check(pair_id, number)
        premise = require(obj, "sentence1", path, number, str)
        hypothesis = require(obj, "sentence2", path, number, str)
        raw = require_label(require(obj, "gold_label", path, number, str), SCITAIL_LABELS, path, number, "gold_label")
        records.append(NliPair(pair_id, premise, hypothesis, SCITAIL_LABELS[raw], "scitail", raw_label=raw))
    return records


def read_scitail(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """SciTail ``{split}.jsonl``: ``dev`` 1,304 and ``test`` 2,126 in this copy (no train file)."""
    return _read_jsonl_split(parse_scitail, data_dir, split, SCITAIL_SPLITS, "scitail", SCITAIL_FOLDER)


# --- MED --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class MedGenre:
    """MED's ``genre`` tags: ``origin`` (crowd / paper), ``monotonicity`` (upward_monotone, ...; ``""``
    if no tag names one) and the other tags (phenomena such as ``npi``, source datasets such as ``GLUE``)."""

    origin: str
    monotonicity: str
    tags: tuple[str, ...]


def parse_med_genre(genre: str) -> MedGenre:
    """``"paper:FraCaS_GQ:upward_monotone"`` -> ``MedGenre("paper", "upward_monotone", ("FraCaS_GQ",))``."""
    tags = [tag.strip() for tag in genre.split(":") if tag.strip()]
    origin = tags.pop(0) if tags else ""
    monotone = [tag for tag in tags if tag in MED_MONOTONICITY]
    rest = tuple(tag for tag in tags if tag not in MED_MONOTONICITY)
    return MedGenre(origin, monotone[0] if monotone else "", rest)


def parse_med(path: os.PathLike | str) -> Records:
    """Read ``MED.tsv`` (MNLI-style) -> :class:`Records` of :class:`NliPair` with ``genre`` set."""
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    ids = UniqueIds(path, "pairID")
    for number, row in iter_tsv(path, header=True, columns=("pairID", "genre", "sentence1", "sentence2", "gold_label")):
        pair_id = require_text(row["pairID"], path, number, "pairID").strip()
        ids.check(pair_id, number)
        genre = require_text(row["genre"], path, number, "genre").strip()
        premise = require_text(row["sentence1"], path, number, "sentence1")
        hypothesis = require_text(row["sentence2"], path, number, "sentence2")
        raw = require_label(row["gold_label"].strip(), MED_LABELS, path, number, "gold_label")
        meta = {"index": row.get("index", ""), "promptID": row.get("promptID", "")}
        records.append(NliPair(pair_id, premise, hypothesis, MED_LABELS[raw], "med", raw_label=raw, genre=genre, meta=meta))
    return records


def read_med(data_dir: os.PathLike | str | None = None) -> Records:
    """MED, the Monotonicity Entailment Dataset: 5,382 pairs (entailment 2,705 / neutral 2,677)."""
    return parse_med(dataset_file(data_dir, MED_FOLDER, MED_FILE))


# --- MED 2-hop (Neural Natural Logic) ---------------------------------------------------------

def read_med_2hop(data_dir: os.PathLike | str | None = None) -> Records:
    """The 6,396 relation-annotated 2-hop rows derived from MED (``med_2hop.tsv``)."""
    return parse_med_2hop(dataset_file(data_dir, MED_FOLDER, MED_2HOP_FILE))


# --- WiCE oracle chunks -----------------------------------------------------------------------

@dataclass(frozen=True)
class WiceRow:
    """One oracle chunk for a WiCE claim: the claim, the chunk's sentences and the claim's label.

    ``meta`` is the file's ``meta`` object (``id``, ``claim_title``, ``claim_section``, ``chunk_idx``
    and, except for not_supported claims, ``oracle_idx``).  Evidence sentences are kept exactly as in
    the file, empty strings included, so that ``evidence[i]`` is sentence ``chunk_idx[i]``.
    """

    claim: str
    evidence: tuple[str, ...]
    label: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    line: int = 0

    @property
    def id(self) -> str:
        return str(self.meta.get("id", ""))

    @property
    def chunk_idx(self) -> tuple[int, ...]:
        return tuple(self.meta.get("chunk_idx", ()))

    @property
    def oracle_idx(self) -> tuple[int, ...]:
        """Indices of the annotator's supporting sentences (empty for not_supported claims)."""
        return tuple(self.meta.get("oracle_idx", ()))


def _wice_indices(meta: dict, key: str, path: Path, line: int) -> list[int]:
    """``meta[key]``: a non-empty list of sentence indices (integers; ``true`` is not one)."""
    indices = require(meta, key, path, line, list, name=f"meta.{key}")
    for position, index in enumerate(indices):
        if isinstance(index, bool) or not isinstance(index, int):
            raise DataError(path, line, f"meta.{key}[{position}]", f"expected int, found {type(index).__name__}")
    return indices


def parse_wice(path: os.PathLike | str) -> Records:
    """Read a WiCE oracle-chunk file (claim level) -> :class:`Records` of :class:`WiceRow`.

    A claim (``meta.id``) has one row per oracle chunk.  The official files repeat a few rows with the
    same ``meta.id`` and ``meta.chunk_idx`` (13 in dev, 13 in test); they are kept and counted in
    ``.irregular``.  ``meta`` must hold ``id`` (a string), ``chunk_idx`` (one integer per evidence
    sentence) and, unless the label is ``not_supported``, ``oracle_idx`` (a non-empty list of integers;
    not always a subset of ``chunk_idx`` in the official files); ``claim_title`` and ``claim_section``
    (in every official row) must be strings where present.
    """
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)), irregular=SkipReport(source=str(path), kept=True))
    first_line: dict[tuple, int] = {}
    for number, obj in iter_jsonl(path):
        label = require_label(require(obj, "label", path, number, str), WICE_LABELS, path, number, "label")
        claim = require(obj, "claim", path, number, str)
        evidence = require(obj, "evidence", path, number, list)
        for position, sentence in enumerate(evidence):
            if not isinstance(sentence, str):
                raise DataError(path, number, f"evidence[{position}]", f"expected a string, found {type(sentence).__name__}")
        meta = require(obj, "meta", path, number, dict)
        row_id = require(meta, "id", path, number, str, name="meta.id")
        for key in ("claim_title", "claim_section"):
            if key in meta:
                require(meta, key, path, number, str, nonempty=False, name=f"meta.{key}")
        chunk_idx = _wice_indices(meta, "chunk_idx", path, number)
        if len(chunk_idx) != len(evidence):
            raise DataError(path, number, "meta.chunk_idx", f"{len(chunk_idx)} indices for {len(evidence)} evidence sentences")
        if "oracle_idx" in meta or label != "not_supported":
            _wice_indices(meta, "oracle_idx", path, number)
        key = (row_id, tuple(chunk_idx))
        if key in first_line:
            records.irregular.add("row repeated (same meta.id and chunk_idx)", f"line {number} = line {first_line[key]}")
        first_line.setdefault(key, number)
        records.append(WiceRow(claim, tuple(evidence), label, meta, number))
    return records


def read_wice(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """WiCE oracle chunks, claim level: ``dev`` 1,043 rows / 349 claims, ``test`` 1,070 / 358."""
    return _read_jsonl_split(parse_wice, data_dir, split, WICE_SPLITS, "wice", WICE_FOLDER)


# --- FraCaS raw sentences ---------------------------------------------------------------------

@dataclass(frozen=True)
class FracasSentence:
    """One line of ``fracas_1_80.raw.txt`` (``line`` is 1-based)."""

    line: int
    text: str


def parse_fracas_sentences(path: os.PathLike | str) -> Records:
    """One sentence per line; blank lines are skipped and counted in ``.skipped``."""
    path = Path(path)
    records = Records(skipped=SkipReport(source=str(path)))
    for number, text in iter_lines(path):
        if not text.strip():
            records.skipped.add("blank line", f"line {number}")
            continue
        records.append(FracasSentence(number, text.strip()))
    return require_records(records, path, "sentences")


def read_fracas_sentences(data_dir: os.PathLike | str | None = None) -> Records:
    """The 204 FraCaS sentences (problems 1-80, generalized quantifiers) of MonaLog's raw file."""
    return parse_fracas_sentences(dataset_file(data_dir, FRACAS_FOLDER, FRACAS_FILE))


# --- the book's introduction table --------------------------------------------------------------

def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per NLI file/split present in ``data_dir`` (absent ones are skipped)."""
    root = resolve_data_dir(data_dir)
    rows: list[dict] = []

    def present(folder: str, name: str) -> bool:
        return (root / folder / name).is_file()

    if present(SICK_FOLDER, SICK_FILE):
        pairs = parse_sick(root / SICK_FOLDER / SICK_FILE)
        for split, name in SICK_SPLITS.items():
            part = [p for p in pairs if p.meta["split"] == split]
            if part:
                rows.append({"dataset": "sick", "split": split, "records": len(part),
                             "detail": _format_counts(Counter(p.label for p in part))})
    for split in SCITAIL_SPLITS:
        if present(SCITAIL_FOLDER, f"{split}.jsonl"):
            pairs = read_scitail(root, split)
            rows.append({"dataset": "scitail", "split": split, "records": len(pairs),
                         "detail": _format_counts(Counter(p.label for p in pairs))})
    if present(MED_FOLDER, MED_FILE):
        pairs = read_med(root)
        genres = [parse_med_genre(p.genre) for p in pairs]
        rows.append({"dataset": "med", "split": "all", "records": len(pairs),
                     "detail": f"{_format_counts(Counter(p.label for p in pairs))}; "
                               f"{_format_counts(Counter(g.monotonicity for g in genres))}"})
    if present(MED_FOLDER, MED_2HOP_FILE):
        hops = read_med_2hop(root)
        unprojected = sum(1 for h in hops if h.projected_relations is None)
        rows.append({"dataset": "med-2hop", "split": "all", "records": len(hops),
                     "detail": f"{len({h.original_id for h in hops}):,} MED pairs; "
                               f"{_format_counts(Counter(h.new_label or 'no label' for h in hops))}; "
                               f"{sum(h.consistent for h in hops):,} consistent"
                               + (f"; {unprojected} without projected relations" if unprojected else "")})
    for split in WICE_SPLITS:
        if present(WICE_FOLDER, f"{split}.jsonl"):
            chunks = read_wice(root, split)
            claims = {}
            for row in chunks:
                claims.setdefault(row.id, row.label)
            rows.append({"dataset": "wice-oracle", "split": split, "records": len(chunks),
                         "detail": f"{len(claims):,} claims: {_format_counts(Counter(claims.values()))}"})
    if present(FRACAS_FOLDER, FRACAS_FILE):
        sentences = read_fracas_sentences(root)
        rows.append({"dataset": "fracas", "split": "1-80", "records": len(sentences),
                     "detail": "raw sentences (premises and hypotheses), no labels"})
    return rows
