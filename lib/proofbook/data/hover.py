"""HoVer: many-hop claims over Wikipedia, and the closed corpus built from their gold paragraphs.

HoVer (Jiang et al. 2020) asks whether a claim is SUPPORTED or NOT_SUPPORTED by the introductions of
2-4 Wikipedia pages.  AdMIRaL (Aly & Vlachos 2022, §4 datasets, §5.1 Table 2 recall, §5.2 efficiency) reports
document recall on HoVer by number of hops; this module supplies the claims and, because no copy of the
2017 Wikipedia dump is reachable, the *closed* corpus those numbers are measured on here.

Official formats (folder ``hover_multihop``):

* ``hover_{split}_release_v1.1.json`` -- one JSON list.  Labelled splits hold
  ``{"uid", "claim", "supporting_facts": [[title, sentence_id], ...], "label", "num_hops", "hpqa_id"}``;
  the test split holds only ``uid`` and ``claim``.  The dev file is written on one line, the test file
  pretty-printed; :func:`~proofbook.data.jsonparse.iter_json_array` names the line where each record
  starts in either case.
* ``gold_negate_8-shot_2-retrieved-evidence_dev_gpt-3.5-turbo.jsonl`` (from ProgramFC) -- one line per
  SUPPORTED dev claim: ``original`` (the HoVer claim, exact string), ``mutated`` (an LLM-written refuted
  variant, unused here) and ``gold_evidence``: the intro paragraph of each gold page, newline-separated,
  *without titles* and *not* in ``supporting_facts`` order.

The corpus (:func:`build_hover_corpus`): each paragraph is given one of its claim's distinct gold titles
by the best one-to-one assignment (over all permutations; a claim has at most four) of a title-paragraph
score, :func:`~proofbook.data.hover_match.match_score`:

* title words are compared after folding case and accents, unescaping HTML (``&amp;``) and dropping a
  trailing disambiguation such as ``(Fergie song)``; the page keeps its full title;
* score = share of title words found anywhere in the paragraph + 2 x share found among its opening
  words (the title's length + 4) + 1 if the paragraph starts with the title's words exactly;
  a near-spelling (``Dohchay`` / ``Dochay``) counts among the opening words;
* tennis draw pages (``2007 Brasil Open – Doubles``) never open with their title but with the champions
  ("... were the defending champions", "X defeated Y in the final"): for a draw-page title such an
  opening earns what opening words equal to the title would (+2 +1); without this rule the draw
  paragraph goes to the player page it names.

Ties (several assignments with the best score) are broken deterministically, in this order: by agreement
with the paragraph -> title pairs of claims that had no tie (the same paragraph often serves several
claims), by the share of the disambiguation words (``film``, ``album``) found in the paragraph, and last
by order -- the first best permutation in lexicographic order, i.e. the i-th distinct title in
``supporting_facts`` takes the earliest paragraph it can.  Ties, and those left to order, are counted in
:class:`HoverMatchStats`.  A paragraph "opens with its title" when all the title's words are among its
opening words (``The Whitechapel murders were ...``, ``Nicole Mary Kidman ...``).  When two claims give one
title different paragraphs, the first claim's paragraph (dev-file order) is kept and the rest are counted
as conflicts.  Claims with the same text (HoVer dev has a few, under different uids) share one line of the
gold file and hence the same paragraphs.

On this copy (1,950 of the 4,000 dev claims; 972 lines of the gold file match one) the corpus has
2,254 pages and 7,455 sentences; 99.8% of the 2,923 paragraphs share a word with their assigned title
(the rest are non-intro paragraphs such as "The mall contains shops ...", placed by elimination), 92%
open with it; 2 ties (1 broken by order: two draw pages whose paragraphs name only the champions),
0 conflicts; 1,396 dev claims are evaluable (all 978 SUPPORTED, 418 of 972 NOT_SUPPORTED).  Retrieval
over this corpus is not comparable with the paper's full-Wikipedia numbers.

Where things live: this module holds the claim and gold-paragraph records, their parsers and readers,
the corpus (:func:`build_hover_corpus`, :class:`HoverMatchStats`) and :func:`describe`; the score and
the assignment (:func:`~proofbook.data.hover_match.match_score`,
:func:`~proofbook.data.hover_match.align_paragraphs` and the words they compare) are in
:mod:`proofbook.data.hover_match`.
"""
from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from proofbook.core.corpus import Corpus, split_sentences
from proofbook.data.base import (Records, SkipReport, UniqueIds, check_split, dataset_file, present_splits, require,
                                 require_label)
from proofbook.data.hover_match import align_paragraphs
from proofbook.data.jsonparse import iter_json_array, iter_jsonl
from proofbook.data.textfile import DataError

HOVER_FOLDER = "hover_multihop"
HOVER_SPLITS = ("train", "dev", "test")
HOVER_LABELS = ("SUPPORTED", "NOT_SUPPORTED")
GOLD_PARAGRAPHS_FILE = "gold_negate_8-shot_2-retrieved-evidence_dev_gpt-3.5-turbo.jsonl"
#: splits published without labels, evidence or hop counts
UNLABELLED_SPLITS = ("test",)


def hover_claims_file(split: str) -> str:
    """The official file name of a HoVer split."""
    return f"hover_{split}_release_v1.1.json"


def _require_object(element: Any, path: Path, line: int) -> dict:
    if not isinstance(element, dict):
        raise DataError(path, line, None, f"expected a JSON object, found {type(element).__name__}")
    return element


# --------------------------------------------------------------------------------------------------
# Claims
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HoverClaim:
    """One HoVer claim.  ``label``, ``num_hops`` and ``hpqa_id`` are ``None`` (and ``supporting_facts``
    empty) only in an unlabelled split (test)."""

    uid: str
    claim: str
    supporting_facts: list[tuple[str, int]]
    label: str | None
    num_hops: int | None
    hpqa_id: str | None

    @property
    def gold_titles(self) -> list[str]:
        """The distinct titles of ``supporting_facts``, in their order there."""
        return list(dict.fromkeys(title for title, _ in self.supporting_facts))

    @property
    def is_labelled(self) -> bool:
        return self.label is not None


def _supporting_facts(value: Any, path: Path, line: int) -> list[tuple[str, int]]:
    if not isinstance(value, list) or not value:
        raise DataError(path, line, "supporting_facts", "expected a non-empty list of [title, sentence_id]")
    facts = []
    for index, fact in enumerate(value):
        name = f"supporting_facts[{index}]"
        if not (isinstance(fact, list) and len(fact) == 2):
            raise DataError(path, line, name, f"expected [title, sentence_id], found {str(fact)[:40]!r}")
        title, sentence_id = fact
        if not isinstance(title, str) or not title.strip():
            raise DataError(path, line, name, "the title is missing or empty")
        if isinstance(sentence_id, bool) or not isinstance(sentence_id, int) or sentence_id < 0:
            raise DataError(path, line, name, f"the sentence id must be an integer >= 0, found {sentence_id!r}")
        facts.append((title, sentence_id))
    return facts


def _hover_claim(record: dict, path: Path, line: int, labelled: bool) -> HoverClaim:
    uid = require(record, "uid", path, line)
    claim = require(record, "claim", path, line)
    present = {key: record.get(key) is not None for key in ("supporting_facts", "label", "num_hops", "hpqa_id")}
    if not labelled and not any(present.values()):
        return HoverClaim(uid, claim, [], None, None, None)
    facts = _supporting_facts(record.get("supporting_facts"), path, line) if labelled or present["supporting_facts"] else []
    label = None
    if labelled or present["label"]:
        label = require_label(require(record, "label", path, line), HOVER_LABELS, path, line, "label")
    num_hops = None
    if labelled or present["num_hops"]:
        num_hops = require(record, "num_hops", path, line, kind=int)
        if isinstance(num_hops, bool) or num_hops < 1:
            raise DataError(path, line, "num_hops", f"expected a positive integer, found {num_hops!r}")
    hpqa_id = require(record, "hpqa_id", path, line) if labelled or present["hpqa_id"] else None
    return HoverClaim(uid, claim, facts, label, num_hops, hpqa_id)


def parse_hover_claims(path: os.PathLike | str, labelled: bool = True) -> Records:
    """Read a HoVer claims file (one JSON list) from any path.

    ``labelled=False`` accepts records with only ``uid`` and ``claim`` (the test split); fields that are
    present are still checked.  A duplicate ``uid`` is an error (the evaluation split is keyed on it); a
    claim text repeated under another uid (HoVer dev has a few) is kept and counted in ``.irregular``.
    """
    path = Path(path)
    claims: Records = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    uids = UniqueIds(path, "uid")
    first_uid: dict[str, str] = {}
    for line, element in iter_json_array(path):
        claim = _hover_claim(_require_object(element, path, line), path, line, labelled)
        uids.check(claim.uid, line)
        if claim.claim in first_uid:
            claims.irregular.add("claim text repeated under another uid", f"uid {claim.uid} = {first_uid[claim.claim]}")
        first_uid.setdefault(claim.claim, claim.uid)
        claims.append(claim)
    return claims


def read_hover_claims(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """The HoVer claims of ``split`` (``hover_{split}_release_v1.1.json``); only ``test`` may be unlabelled."""
    check_split(split, HOVER_SPLITS, "HoVer")
    path = dataset_file(data_dir, HOVER_FOLDER, hover_claims_file(split))
    return parse_hover_claims(path, labelled=split not in UNLABELLED_SPLITS)


# --------------------------------------------------------------------------------------------------
# Gold paragraphs
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HoverGoldParagraphs:
    """One line of the gold-paragraph file: a SUPPORTED dev claim and its gold pages' intro paragraphs."""

    original: str
    mutated: str
    paragraphs: list[str]
    line: int


def parse_gold_paragraphs(path: os.PathLike | str) -> Records:
    """Read a gold-paragraph file (JSON lines: ``original``, ``mutated``, ``gold_evidence``) from any path.

    ``original`` (the claim text) is the key that pairs a line with its HoVer claim, so a repeated
    ``original`` is a :class:`DataError` naming both lines.
    """
    path = Path(path)
    records: Records = Records(skipped=SkipReport(str(path)))
    originals = UniqueIds(path, "original")
    for line, record in iter_jsonl(path):
        original = require(record, "original", path, line)
        mutated = require(record, "mutated", path, line, nonempty=False)
        evidence = require(record, "gold_evidence", path, line)
        paragraphs = [paragraph.strip() for paragraph in evidence.strip().split("\n")]
        for index, paragraph in enumerate(paragraphs):
            if not paragraph:
                raise DataError(path, line, "gold_evidence", f"paragraph {index + 1} is empty")
        originals.check(original, line)
        records.append(HoverGoldParagraphs(original, mutated, paragraphs, line))
    return records


def read_gold_paragraphs(data_dir: os.PathLike | str | None = None) -> Records:
    """The gold paragraphs of HoVer's SUPPORTED dev claims (ProgramFC's file)."""
    return parse_gold_paragraphs(dataset_file(data_dir, HOVER_FOLDER, GOLD_PARAGRAPHS_FILE))


# --------------------------------------------------------------------------------------------------
# The closed corpus
# --------------------------------------------------------------------------------------------------

@dataclass
class HoverMatchStats:
    """How the gold paragraphs were matched to titles (paragraph counts are per distinct claim text)."""

    claims: int = 0                     # claims given
    claims_with_paragraphs: int = 0     # ... whose text is an `original` of the gold file
    duplicate_claims: int = 0           # ... of those, same text and titles as an earlier claim (reused)
    gold_lines: int = 0                 # lines of the gold file
    gold_lines_used: int = 0            # ... matched by some claim
    paragraphs: int = 0                 # paragraphs assigned a title
    matched: int = 0                    # ... sharing at least one word with it
    opened_with_title: int = 0          # ... starting with the title's words
    ties: int = 0                       # claims with several best assignments
    ties_broken_by_order: int = 0       # ... still tied after the disambiguation words
    conflicts: int = 0                  # later, different paragraphs for a title already in the corpus
    count_mismatches: int = 0           # claims skipped: #paragraphs != #distinct gold titles

    @property
    def match_rate(self) -> float:
        return self.matched / self.paragraphs if self.paragraphs else 0.0

    @property
    def opened_rate(self) -> float:
        return self.opened_with_title / self.paragraphs if self.paragraphs else 0.0

    def __str__(self) -> str:
        return (f"{self.paragraphs:,} paragraphs from {self.gold_lines_used:,} of {self.gold_lines:,} gold lines: "
                f"{self.match_rate:.1%} matched, {self.opened_rate:.1%} open with their title, "
                f"{self.ties} ties ({self.ties_broken_by_order} broken by order), {self.conflicts} conflicts, "
                f"{self.count_mismatches} count mismatches")


@dataclass
class HoverCorpus(Corpus):
    """The closed HoVer corpus: a :class:`Corpus` plus how it was matched.

    ``paragraph_titles`` maps a claim uid to the title given to each of its gold paragraphs (file order).
    """

    stats: HoverMatchStats = field(default_factory=HoverMatchStats)
    skipped: SkipReport = field(default_factory=SkipReport)
    paragraph_titles: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def evaluable(self, claim: HoverClaim) -> bool:
        """All the claim's gold titles have a page here (an unlabelled claim is never evaluable)."""
        titles = claim.gold_titles
        return bool(titles) and all(title in self.documents for title in titles)

    def evaluable_claims(self, claims: Iterable[HoverClaim]) -> list[HoverClaim]:
        """The claims that are :meth:`evaluable` here, in their order."""
        return [claim for claim in claims if self.evaluable(claim)]


def align_hover_corpus(claims: Iterable[HoverClaim], gold: Iterable[HoverGoldParagraphs],
                       name: str = "hover") -> HoverCorpus:
    """Build the closed corpus from claims and gold-file records already read (no file access).

    Two passes: every distinct (claim text, gold titles) is aligned once; tied ones are then aligned
    again with the paragraph -> title pairs of the untied ones as the first tie-break.  Pages are added
    in claim order, so on a conflict the earliest claim's paragraph is kept.
    """
    gold = list(gold)
    by_text = {record.original: record for record in gold}
    corpus = HoverCorpus(name=name, skipped=SkipReport("HoVer gold paragraphs"))
    stats = corpus.stats
    stats.gold_lines = len(gold)
    claims = list(claims)
    groups: dict[tuple[str, tuple[str, ...]], HoverGoldParagraphs] = {}
    for claim in claims:
        stats.claims += 1
        record, titles = by_text.get(claim.claim), tuple(claim.gold_titles)
        if record is None or not titles:
            continue
        stats.claims_with_paragraphs += 1
        key = (claim.claim, titles)
        if key in groups:
            stats.duplicate_claims += 1
            continue
        if len(titles) != len(record.paragraphs):
            stats.count_mismatches += 1
            corpus.skipped.add(f"{len(record.paragraphs)} paragraphs for {len(titles)} distinct gold titles",
                               f"uid {claim.uid} / gold line {record.line}")
            continue
        groups[key] = record

    alignments = {key: align_paragraphs(key[1], record.paragraphs) for key, record in groups.items()}
    known: dict[str, str] = {}
    for key, alignment in alignments.items():
        if not alignment.tie:
            for paragraph, title in zip(groups[key].paragraphs, alignment.titles):
                known.setdefault(paragraph, title)
    for key, alignment in alignments.items():
        if alignment.tie:
            alignments[key] = align_paragraphs(key[1], groups[key].paragraphs, known)

    for claim in claims:
        key = (claim.claim, tuple(claim.gold_titles))
        if key not in alignments:
            continue
        alignment = alignments[key]
        corpus.paragraph_titles[claim.uid] = alignment.titles
        for title, paragraph in zip(alignment.titles, groups[key].paragraphs):
            corpus.add(title, split_sentences(paragraph))
    for alignment in alignments.values():
        stats.paragraphs += len(alignment.titles)
        stats.matched += alignment.matched
        stats.opened_with_title += sum(alignment.opened_with_title)
        stats.ties += alignment.tie
        stats.ties_broken_by_order += alignment.tie_broken_by_order
    stats.gold_lines_used = len({record.original for record in groups.values()})
    stats.conflicts = sum(corpus.conflicts.values())
    return corpus


def build_hover_corpus(data_dir: os.PathLike | str | None = None,
                       claims: Iterable[HoverClaim] | None = None) -> HoverCorpus:
    """The closed HoVer corpus: gold paragraphs titled by matching them to the claims' gold titles.

    ``claims`` defaults to every dev claim in ``data_dir``; only claims whose text is an ``original`` of
    the gold-paragraph file contribute pages (the SUPPORTED ones present).
    """
    if claims is None:
        claims = read_hover_claims(data_dir, "dev")
    return align_hover_corpus(claims, read_gold_paragraphs(data_dir))


# --------------------------------------------------------------------------------------------------
# The book's data table
# --------------------------------------------------------------------------------------------------

def _counts(counter: Counter) -> str:
    return ", ".join(f"{key}: {value:,}" for key, value in sorted(counter.items()))


def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per HoVer split present, plus one for the closed corpus when it can be built."""
    rows: list[dict] = []
    dev: Records | None = None
    for split, claims in present_splits(read_hover_claims, data_dir, HOVER_SPLITS):
        if split == "dev":
            dev = claims
        if any(claim.is_labelled for claim in claims):
            labels = Counter(claim.label for claim in claims)
            hops = Counter(claim.num_hops for claim in claims)
            detail = f"{_counts(labels)}; hops {_counts(hops)}"
        else:
            detail = "unlabelled (uid and claim only)"
        rows.append({"dataset": "hover", "split": split, "records": len(claims), "detail": detail})
    if dev is not None:
        try:
            corpus = build_hover_corpus(data_dir, dev)
        except FileNotFoundError:
            return rows
        evaluable = len(corpus.evaluable_claims(dev))
        stats = corpus.stats
        rows.append({"dataset": "hover", "split": "corpus", "records": len(corpus),
                     "detail": f"{len(corpus):,} pages, {corpus.n_sentences():,} sentences; "
                               f"{stats.match_rate:.1%} of {stats.paragraphs:,} paragraphs matched "
                               f"({stats.opened_rate:.0%} open with their title, {stats.ties} ties, "
                               f"{stats.conflicts} conflicts); {evaluable:,} of {len(dev):,} dev claims evaluable"})
    return rows
