"""PolitiFact claims: ClaimDecomp, LIAR and LIAR-PLUS, the data of "claims in the wild".

Chen, Kim, Sriram, Durrett & Choi (2023), *Complex claim verification with evidence retrieved in the
wild*, decompose a PolitiFact claim into yes/no subquestions, search the web for
each, summarise the documents and judge the claim with a six-way classifier fed
``"{person} {venue} {claim} [SEP] {summaries}"``.  The three datasets read here share PolitiFact's
six-point "Truth-O-Meter", kept in the paper's index order :data:`~proofbook.data.politifact_text.LABELS`
(3-way variant: index // 2).

Official formats read here:

* **ClaimDecomp** (Chen et al. 2022; ``claimdecomp/{train,dev,test}.jsonl``), one JSON object a line:
  ``{"example_id", "label", "url", "claim", "person", "venue", "justification": [str],
  "full_article": [str], "annotations": [{"questions", "answers", "question_source", "statements",
  "statements_negate"}]}`` -- two annotators per claim, each with a list of yes/no questions.  The
  venue reads ``"stated on March 24, 2015 in a mailer:"``
  (:func:`~proofbook.data.politifact_text.split_venue`, :func:`~proofbook.data.politifact_text.claim_date`).
  The paper's evaluation set (``test``) and the oracle condition (gold ``justification``).
* **ClaimDecomp fine-tuning chats** (``claimdecomp/finetune_{train,val}.jsonl``): ``{"messages":
  [system, user, assistant]}``; the user turn is ``"{person} {venue}\\n{claim}"`` and the assistant
  turn is every annotator's question joined with ``", "``
  (:func:`~proofbook.data.politifact_text.split_question_list`).  ``train`` holds the 800 train claims
  (no label), ``val`` the 200 dev claims in ``dev.jsonl`` order.  Trains the question generator (claim
  decomposition).
* **Cached web search** (``claimdecomp/derived_web_search_cache/``): ``websites_{gpt,mixtral}_icl.jsonl``
  line *i* is a bare JSON list of ``{"question", "url", "title", "snippet"}`` for line *i* of
  ``test.jsonl`` (no id); ``subquestions_{icl_gpt,icl_mixtral}.jsonl`` hold ``{"example_id", "claim",
  "questions": "<one per line>"}`` (the Mixtral text has preambles such as ``"For the claim about
  X:"``, numbering and bullets) and ``subquestions_gpt_finetune.jsonl`` holds ``{"example_id",
  "prompt", "subquestions": ["<q1>, <q2>, ..."]}``.  Stands in for the paper's Bing search.
* **LIAR** (Wang 2017; ``liar/{train,valid,test}.tsv``): 14 tab-separated columns, no header, read
  with ``csv.QUOTE_NONE`` (statements contain quote characters): id (``"2635.json"``), label,
  statement, subjects (comma-separated), speaker (a slug such as ``"dwayne-bohac"``), job, state,
  party, five credit-history counts (:data:`~proofbook.data.liar.CREDIT_ORDER`), context (the venue,
  e.g. ``"a mailer"``).
  Training data for the veracity classifier.
* **LIAR-PLUS** (Alhindi et al. 2018; ``liar_plus/{train2,val2,test2}.tsv``): 16 columns: a row
  index, the 14 LIAR columns, then the extracted justification.  Unlike LIAR, this file was written
  by a CSV writer: a cell holding a quote character is wrapped in ``"..."`` with inner quotes doubled,
  so it is read with CSV quoting (:func:`~proofbook.data.liar.iter_quoted_tsv`).  Its statements are
  LIAR's as a quoting CSV reader saw them: where LIAR's statement starts with ``"`` the quote characters
  differ (69 of the 1,284 ``val2`` rows; nothing else differs).  The ``.jsonl`` copy drops the venue and
  puts the state in ``party``, so only the ``.tsv`` is read.

The venue is normalised across datasets by :func:`~proofbook.data.politifact_text.venue_text`:
ClaimDecomp's ``"stated on March 24, 2015 in a mailer:"`` becomes ``"a mailer"`` (the date is kept apart
by :func:`~proofbook.data.politifact_text.claim_date`), LIAR's ``"a mailer"`` stays as it is; so the
classifier sees one form, ``"{person} {venue} {claim}"``
(:func:`~proofbook.data.politifact_text.classifier_input`), whichever dataset a claim came from.

LIAR's copy of a statement has lost its quote characters and every non-ASCII character
(``"Bush's"`` -> ``"Bushs"``), so ClaimDecomp claims that PolitiFact also published in LIAR are found
with :func:`~proofbook.data.politifact_text.statement_key` (lower-cased, quotes and non-ASCII dropped,
whitespace collapsed), not by plain string equality -- see
:func:`~proofbook.data.politifact_text.liar_overlap`: 39 of the 200 dev and 26 of the 95 test claims of
this copy are LIAR train statements, all with the same label (the data README's stricter,
punctuation-blind matching finds 22 and 22).  Remove them from classifier training data.

Where things live: this module holds the ClaimDecomp records and parsers, every reader that takes a
data directory (ClaimDecomp, LIAR, LIAR-PLUS, the search cache) and :func:`describe`.  The LIAR and
LIAR-PLUS records, parsers and column layout are in :mod:`proofbook.data.liar`; the search-cache record
and the search-cache and cached-subquestion parsers in :mod:`proofbook.data.politifact_search`; the
labels, venue, date, speaker, classifier-input, statement-key and question-list functions in
:mod:`proofbook.data.politifact_text`.  Import each name from the module that defines it.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from proofbook.core.paths import resolve_data_dir
from proofbook.data.base import (RecordMap, Records, SkipReport, UniqueIds, check_split, dataset_file, require,
                                 require_text)
from proofbook.data.jsonparse import iter_jsonl
from proofbook.data.liar import parse_liar, parse_liar_plus
from proofbook.data.politifact_search import parse_cached_subquestions, parse_search_cache, record_example_id
from proofbook.data.politifact_text import (ClassifierRecord, claim_date, clean_question, label_counts, liar_overlap,
                                            normalise_label, split_question_list, venue_text)
from proofbook.data.textfile import DataError

CLAIMDECOMP_FOLDER = "claimdecomp"
CACHE_FOLDER = "claimdecomp/derived_web_search_cache"
LIAR_FOLDER = "liar"
LIAR_PLUS_FOLDER = "liar_plus"

CLAIMDECOMP_SPLITS = ("train", "dev", "test")
FINETUNE_PARTS = ("train", "val")
LIAR_SPLITS = ("train", "valid", "test")
LIAR_PLUS_SPLITS = ("train2", "val2", "test2")

#: the search cache files, by the generator of the questions that were searched
SEARCH_CACHE_FILES = {"gpt": "websites_gpt_icl.jsonl", "mixtral": "websites_mixtral_icl.jsonl"}
#: the cached LLM subquestions, by generator
SUBQUESTION_FILES = {
    "icl_gpt": "subquestions_icl_gpt.jsonl",
    "icl_mixtral": "subquestions_icl_mixtral.jsonl",
    "gpt_finetune": "subquestions_gpt_finetune.jsonl",
}


# --- records ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClaimDecompClaim(ClassifierRecord):
    """A ClaimDecomp claim with its label, PolitiFact justification, article and annotated questions.

    ``subquestions`` are all annotators' ``questions`` in order (:func:`clean_question`, empty ones
    left out), the list the fine-tuning chats join with ``", "``; ``annotations`` is the raw list of annotator dicts.
    """

    example_id: int
    claim: str
    label: str
    person: str
    venue: str
    url: str
    justification: list[str]
    full_article: list[str]
    subquestions: list[str]
    annotations: list[dict]

    @property
    def date(self) -> date | None:
        return claim_date(self.venue)

    def _speaker_venue_claim(self) -> tuple[str, str, str]:
        return self.person, self.venue, self.claim


@dataclass(frozen=True)
class ClaimDecompFinetuneExample:
    """One fine-tuning chat: the claim as the user turn, the annotated questions as the answer.

    There is no id in the file; ``line`` is the 1-based line (``val`` line *i* is ``dev.jsonl`` record *i*).
    """

    line: int
    person: str
    venue: str
    claim: str
    subquestions: list[str]

    @property
    def date(self) -> date | None:
        return claim_date(self.venue)

    @property
    def venue_text(self) -> str:
        return venue_text(self.venue)


# --- ClaimDecomp -------------------------------------------------------------------------------

def read_claimdecomp(data_dir: os.PathLike | str | None = None, split: str = "dev") -> Records:
    """ClaimDecomp ``{split}.jsonl`` from ``<data_dir>/claimdecomp`` (``dev``, ``test``; ``train`` if present)."""
    check_split(split, CLAIMDECOMP_SPLITS, "ClaimDecomp")
    return parse_claimdecomp(dataset_file(data_dir, CLAIMDECOMP_FOLDER, f"{split}.jsonl"))


def parse_claimdecomp(path: os.PathLike | str) -> Records:
    """Parse any file in ClaimDecomp's JSON-lines format.

    A claim without justification or article paragraphs is kept (counted in ``.irregular``); an empty
    annotated question is left out of ``subquestions`` (counted in ``.skipped``).
    """
    path = Path(path)
    skipped, irregular = SkipReport(str(path)), SkipReport(str(path), kept=True)
    claims, ids = Records(skipped=skipped, irregular=irregular), UniqueIds(path, "example_id")
    for line, record in iter_jsonl(path):
        example_id = record_example_id(record, path, line)
        ids.check(example_id, line)
        paragraphs = {name: _text_list(record, name, path, line) for name in ("justification", "full_article")}
        for name, texts in paragraphs.items():
            if not texts:
                irregular.add(f"no {name}", f"line {line}")
        claims.append(ClaimDecompClaim(
            example_id=example_id,
            claim=require(record, "claim", path, line),
            label=normalise_label(require(record, "label", path, line), path, line),
            person=require(record, "person", path, line, nonempty=False),
            venue=require(record, "venue", path, line, nonempty=False),
            url=require(record, "url", path, line, nonempty=False),
            justification=paragraphs["justification"],
            full_article=paragraphs["full_article"],
            subquestions=_annotated_questions(record, path, line, skipped),
            annotations=require(record, "annotations", path, line, list, nonempty=False),
        ))
    return claims


def _text_list(record: dict, key: str, path: Path, line: int) -> list[str]:
    texts = require(record, key, path, line, list, nonempty=False)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise DataError(path, line, f"{key}[{index}]", f"expected str, found {type(text).__name__}")
    return texts


def _annotated_questions(record: dict, path: Path, line: int, skipped: SkipReport) -> list[str]:
    questions = []
    for a, annotation in enumerate(require(record, "annotations", path, line, list, nonempty=False)):
        if not isinstance(annotation, dict):
            raise DataError(path, line, f"annotations[{a}]", f"expected an object, found {type(annotation).__name__}")
        for q, question in enumerate(require(annotation, "questions", path, line, list, nonempty=False,
                                             name=f"annotations[{a}].questions")):
            if not isinstance(question, str):
                raise DataError(path, line, f"annotations[{a}].questions[{q}]",
                                f"expected str, found {type(question).__name__}")
            if clean_question(question):
                questions.append(clean_question(question))
            else:
                skipped.add("empty annotated question", f"line {line}")
    return questions


# --- ClaimDecomp fine-tuning chats -------------------------------------------------------------

# the user turn: "<person> stated on <date> in <venue>:\n<claim>" (the claim may span lines)
_USER_TURN = re.compile(r"^(?P<person>[^\n]+?)\s+(?P<venue>stated on\b[^\n]*?:?)[ \t]*\n(?P<claim>.+)$", re.DOTALL)


def read_claimdecomp_finetune(data_dir: os.PathLike | str | None = None,
                              part: str = "train") -> Records:
    """ClaimDecomp ``finetune_{part}.jsonl`` (``train``: 800 train claims; ``val``: the 200 dev claims)."""
    check_split(part, FINETUNE_PARTS, "ClaimDecomp fine-tuning chats")
    return parse_claimdecomp_finetune(dataset_file(data_dir, CLAIMDECOMP_FOLDER, f"finetune_{part}.jsonl"))


def parse_claimdecomp_finetune(path: os.PathLike | str) -> Records:
    """Parse any file of ClaimDecomp fine-tuning chats (``{"messages": [system, user, assistant]}``).

    A role other than :data:`CHAT_ROLES`, a role given twice, or a chat without its user or assistant
    turn is a :class:`DataError` naming the message.
    """
    path = Path(path)
    examples = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    for line, record in iter_jsonl(path):
        turns = _chat_turns(record, path, line)
        user = _USER_TURN.match(turns["user"].strip())
        if not user:
            raise DataError(path, line, "messages.user",
                            "expected '<person> stated on <date> in <venue>:' then a new line and the claim")
        questions = split_question_list(turns["assistant"])
        if not questions:
            raise DataError(path, line, "messages.assistant", "no question found")
        claim = require_text(user["claim"].strip(), path, line, "messages.user (claim)")
        examples.append(ClaimDecompFinetuneExample(line, user["person"].strip(), user["venue"].strip(),
                                                   claim, questions))
    return examples


#: the roles of a fine-tuning chat (each at most once; ``user`` and ``assistant`` are required)
CHAT_ROLES = ("system", "user", "assistant")


def _chat_turns(record: dict, path: Path, line: int) -> dict[str, str]:
    messages = require(record, "messages", path, line, list)
    turns: dict[str, str] = {}
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise DataError(path, line, f"messages[{index}]", f"expected an object, found {type(message).__name__}")
        role = require(message, "role", path, line, name=f"messages[{index}].role")
        if role not in CHAT_ROLES:
            raise DataError(path, line, f"messages[{index}].role",
                            f"unknown role {role!r}; expected one of {list(CHAT_ROLES)}")
        if role in turns:
            raise DataError(path, line, f"messages[{index}].role", f"a second {role!r} turn")
        turns[role] = require(message, "content", path, line, name=f"messages[{index}].content")
    for role in ("user", "assistant"):
        if role not in turns:
            raise DataError(path, line, f"messages.{role}", "missing")
    return turns


# --- the cached web search (test claims) ------------------------------------------------------

def read_search_cache(data_dir: os.PathLike | str | None = None, source: str = "gpt",
                      split: str = "test") -> RecordMap:
    """``example_id -> [SearchResult]`` from ``websites_{source}_icl.jsonl``, zipped with ``{split}.jsonl``.

    ``source`` names the generator of the searched questions (``gpt`` or ``mixtral``).
    """
    if source not in SEARCH_CACHE_FILES:
        raise ValueError(f"unknown search-cache source {source!r}; expected one of {list(SEARCH_CACHE_FILES)}")
    check_split(split, CLAIMDECOMP_SPLITS, "ClaimDecomp")
    claims = dataset_file(data_dir, CLAIMDECOMP_FOLDER, f"{split}.jsonl")
    unique = UniqueIds(claims, "example_id")
    ids = []
    for line, record in iter_jsonl(claims):
        ids.append(record_example_id(record, claims, line))
        unique.check(ids[-1], line)
    return parse_search_cache(dataset_file(data_dir, CACHE_FOLDER, SEARCH_CACHE_FILES[source]), ids)


def read_cached_subquestions(data_dir: os.PathLike | str | None = None, source: str = "icl_gpt") -> RecordMap:
    """``example_id -> [question]`` from ``subquestions_{source}.jsonl`` (``icl_gpt``, ``icl_mixtral``, ``gpt_finetune``)."""
    if source not in SUBQUESTION_FILES:
        raise ValueError(f"unknown subquestion source {source!r}; expected one of {list(SUBQUESTION_FILES)}")
    return parse_cached_subquestions(dataset_file(data_dir, CACHE_FOLDER, SUBQUESTION_FILES[source]))


# --- LIAR and LIAR-PLUS --------------------------------------------------------------------------

def read_liar(data_dir: os.PathLike | str | None = None, split: str = "train") -> Records:
    """LIAR ``{split}.tsv`` from ``<data_dir>/liar`` (``train``, ``valid``, ``test``)."""
    check_split(split, LIAR_SPLITS, "LIAR")
    return parse_liar(dataset_file(data_dir, LIAR_FOLDER, f"{split}.tsv"))


def read_liar_plus(data_dir: os.PathLike | str | None = None, split: str = "val2") -> Records:
    """LIAR-PLUS ``{split}.tsv`` from ``<data_dir>/liar_plus`` (``val2``, ``test2``; ``train2`` if present)."""
    check_split(split, LIAR_PLUS_SPLITS, "LIAR-PLUS")
    return parse_liar_plus(dataset_file(data_dir, LIAR_PLUS_FOLDER, f"{split}.tsv"))


# --- the book's data table -------------------------------------------------------------------------

def describe(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per ClaimDecomp / search-cache / LIAR / LIAR-PLUS file present in ``data_dir``."""
    root = resolve_data_dir(data_dir)
    rows: list[dict] = []
    liar_train = read_liar(root, "train") if (root / LIAR_FOLDER / "train.tsv").is_file() else None

    for split in CLAIMDECOMP_SPLITS:
        if (root / CLAIMDECOMP_FOLDER / f"{split}.jsonl").is_file():
            claims = read_claimdecomp(root, split)
            detail = label_counts(c.label for c in claims)
            if liar_train is not None:
                overlap = liar_overlap([c.claim for c in claims], [s.statement for s in liar_train])
                detail += f"; {len(overlap)} claims also in LIAR train"
            rows.append(_row("claimdecomp", split, claims, detail))
    for part in FINETUNE_PARTS:
        if (root / CLAIMDECOMP_FOLDER / f"finetune_{part}.jsonl").is_file():
            chats = read_claimdecomp_finetune(root, part)
            rows.append(_row("claimdecomp-finetune", part, chats,
                             f"{sum(len(c.subquestions) for c in chats):,} annotated questions, no labels"))
    if (root / CLAIMDECOMP_FOLDER / "test.jsonl").is_file():
        for source, name in SEARCH_CACHE_FILES.items():
            if (root / CACHE_FOLDER / name).is_file():
                cache = read_search_cache(root, source)
                rows.append(_row("claimdecomp-cache", Path(name).stem, cache,
                                 f"{sum(map(len, cache.values())):,} search results (title + snippet)"))
    for source, name in SUBQUESTION_FILES.items():
        if (root / CACHE_FOLDER / name).is_file():
            cached = read_cached_subquestions(root, source)
            detail = f"{sum(map(len, cached.values())):,} questions"
            if cached.skipped.total:
                detail += f"; {cached.skipped.total} preamble/repeated lines dropped"
            rows.append(_row("claimdecomp-cache", Path(name).stem, cached, detail))

    for dataset, folder, splits, reader in (("liar", LIAR_FOLDER, LIAR_SPLITS, read_liar),
                                            ("liar_plus", LIAR_PLUS_FOLDER, LIAR_PLUS_SPLITS, read_liar_plus)):
        for split in splits:
            if not (root / folder / f"{split}.tsv").is_file():
                continue
            statements = liar_train if (dataset, split) == ("liar", "train") else reader(root, split)
            detail = label_counts(s.label for s in statements)
            empty = statements.irregular.counts["empty justification"] + statements.irregular.counts["no justification column"]
            if dataset == "liar_plus" and empty:
                detail += f"; {empty} without justification"
            rows.append(_row(dataset, split, statements, detail))
    return rows


def _row(dataset: str, split: str, records: Any, detail: str) -> dict:
    return {"dataset": dataset, "split": split, "records": len(records), "detail": detail}
