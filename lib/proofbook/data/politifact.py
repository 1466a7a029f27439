"""PolitiFact claims: ClaimDecomp, LIAR and LIAR-PLUS, the data of "claims in the wild".

Chen, Kim, Sriram, Durrett & Choi (2023), *Complex claim verification with evidence retrieved in the
wild*, decompose a PolitiFact claim into yes/no subquestions, search the web for
each, summarise the documents and judge the claim with a six-way classifier fed
``"{person} {venue} {claim} [SEP] {summaries}"``.  The three datasets read here share PolitiFact's
six-point "Truth-O-Meter", kept in the paper's index order :data:`LABELS` (3-way variant: index // 2).

Official formats read here:

* **ClaimDecomp** (Chen et al. 2022; ``claimdecomp/{train,dev,test}.jsonl``), one JSON object a line:
  ``{"example_id", "label", "url", "claim", "person", "venue", "justification": [str],
  "full_article": [str], "annotations": [{"questions", "answers", "question_source", "statements",
  "statements_negate"}]}`` -- two annotators per claim, each with a list of yes/no questions.  The
  venue reads ``"stated on March 24, 2015 in a mailer:"`` (:func:`split_venue`, :func:`claim_date`).
  The paper's evaluation set (``test``) and the oracle condition (gold ``justification``).
* **ClaimDecomp fine-tuning chats** (``claimdecomp/finetune_{train,val}.jsonl``): ``{"messages":
  [system, user, assistant]}``; the user turn is ``"{person} {venue}\\n{claim}"`` and the assistant
  turn is every annotator's question joined with ``", "`` (:func:`split_question_list`).  ``train``
  holds the 800 train claims (no label), ``val`` the 200 dev claims in ``dev.jsonl`` order.  Trains the
  question generator (claim decomposition).
* **Cached web search** (``claimdecomp/derived_web_search_cache/``): ``websites_{gpt,mixtral}_icl.jsonl``
  line *i* is a bare JSON list of ``{"question", "url", "title", "snippet"}`` for line *i* of
  ``test.jsonl`` (no id); ``subquestions_{icl_gpt,icl_mixtral}.jsonl`` hold ``{"example_id", "claim",
  "questions": "<one per line>"}`` (the Mixtral text has preambles such as ``"For the claim about
  X:"``, numbering and bullets) and ``subquestions_gpt_finetune.jsonl`` holds ``{"example_id",
  "prompt", "subquestions": ["<q1>, <q2>, ..."]}``.  Stands in for the paper's Bing search.
* **LIAR** (Wang 2017; ``liar/{train,valid,test}.tsv``): 14 tab-separated columns, no header, read
  with ``csv.QUOTE_NONE`` (statements contain quote characters): id (``"2635.json"``), label,
  statement, subjects (comma-separated), speaker (a slug such as ``"dwayne-bohac"``), job, state,
  party, five credit-history counts (:data:`CREDIT_ORDER`), context (the venue, e.g. ``"a mailer"``).
  Training data for the veracity classifier.
* **LIAR-PLUS** (Alhindi et al. 2018; ``liar_plus/{train2,val2,test2}.tsv``): 16 columns: a row
  index, the 14 LIAR columns, then the extracted justification.  Unlike LIAR, this file was written
  by a CSV writer: a cell holding a quote character is wrapped in ``"..."`` with inner quotes doubled,
  so it is read with CSV quoting (:func:`iter_quoted_tsv`).  Its statements are LIAR's as a quoting
  CSV reader saw them: where LIAR's statement starts with ``"`` the quote characters differ (69 of the
  1,284 ``val2`` rows; nothing else differs).  The ``.jsonl`` copy drops the venue and puts the state
  in ``party``, so only the ``.tsv`` is read.

The venue is normalised across datasets by :func:`venue_text`: ClaimDecomp's
``"stated on March 24, 2015 in a mailer:"`` becomes ``"a mailer"`` (the date is kept apart by
:func:`claim_date`), LIAR's ``"a mailer"`` stays as it is; so the classifier sees one form,
``"{person} {venue} {claim}"`` (:func:`classifier_input`), whichever dataset a claim came from.

LIAR's copy of a statement has lost its quote characters and every non-ASCII character
(``"Bush's"`` -> ``"Bushs"``), so ClaimDecomp claims that PolitiFact also published in LIAR are found
with :func:`statement_key` (lower-cased, quotes and non-ASCII dropped, whitespace collapsed), not by
plain string equality -- see :func:`liar_overlap`: 39 of the 200 dev and 26 of the 95 test claims of
this copy are LIAR train statements, all with the same label (the data README's stricter,
punctuation-blind matching finds 22 and 22).  Remove them from classifier training data.
"""
from __future__ import annotations

import calendar
import csv
import os
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Iterable, Iterator

from proofbook.data.base import (DataError, RecordMap, Records, SkipReport, UniqueIds, check_split, dataset_file,
                                 iter_jsonl, iter_lines, iter_tsv, loads, no_records, require, require_records,
                                 require_text, resolve_data_dir)

#: PolitiFact's Truth-O-Meter in the paper's index order (MAE and soft accuracy use these indices)
LABELS = ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")

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

#: LIAR's 14 columns (README of LIAR v1.0); the five counts include the current statement
LIAR_COLUMNS = (
    "id", "label", "statement", "subjects", "speaker", "job", "state", "party",
    "barely_true_count", "false_count", "half_true_count", "mostly_true_count", "pants_fire_count",
    "context",
)
#: the labels counted by ``credit_counts``, in LIAR's column order (not :data:`LABELS` order)
CREDIT_ORDER = ("barely-true", "false", "half-true", "mostly-true", "pants-fire")
#: LIAR-PLUS adds a row index before and the justification after the LIAR columns
LIAR_PLUS_COLUMNS = ("row", *LIAR_COLUMNS, "justification")


# --- labels ----------------------------------------------------------------------------------

_LABEL_SPELLINGS = {
    **{label: label for label in LABELS},
    "pants on fire": "pants-fire", "pants-on-fire": "pants-fire", "pants on fire!": "pants-fire",
    "pants fire": "pants-fire", "barely true": "barely-true", "half true": "half-true",
    "mostly true": "mostly-true", "mostly false": "barely-true",
}


def normalise_label(raw: Any, path: os.PathLike | str | None = None, line: int | None = None,
                    field: str = "label") -> str:
    """One of :data:`LABELS` for a PolitiFact label as spelled by any of the datasets.

    Case, surrounding spaces and hyphen-vs-space are ignored (``"Pants on Fire!"`` -> ``"pants-fire"``;
    PolitiFact's newer "Mostly False" is its old "Barely True").  An unknown label raises a
    :class:`DataError` naming ``field``.
    """
    key = " ".join(str(raw).strip().lower().split()) if isinstance(raw, str) else None
    if key in _LABEL_SPELLINGS:
        return _LABEL_SPELLINGS[key]
    if key is not None and key.replace("-", " ") in _LABEL_SPELLINGS:
        return _LABEL_SPELLINGS[key.replace("-", " ")]
    raise DataError(path or "<label>", line, field, f"unknown label {raw!r}; expected one of {list(LABELS)}")


def label_index(label: str) -> int:
    """The paper's index of a label (0 = pants-fire ... 5 = true); other spellings are normalised."""
    try:
        return LABELS.index(normalise_label(label))
    except DataError:
        raise ValueError(f"unknown PolitiFact label {label!r}; expected one of {list(LABELS)}") from None


def three_way_index(label: str) -> int:
    """The paper's 3-way variant: 0 = false (pants-fire, false), 1 = mixed, 2 = true."""
    return label_index(label) // 2


def label_counts(labels: Iterable[str]) -> str:
    """``"pants-fire 16, false 34, ..."`` in :data:`LABELS` order (absent labels left out)."""
    counts = Counter(labels)
    return ", ".join(f"{label} {counts[label]:,}" for label in LABELS if counts[label])


# --- venues, dates, speakers and the classifier input ----------------------------------------

_MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_STATED_ON = re.compile(r"^stated\s+on\b\s*", re.IGNORECASE)
_DATE = re.compile(r"^(?P<month>[A-Za-z]+)\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})\b")
_LEADING_IN = re.compile(r"^(?:in\s+)+", re.IGNORECASE)


def split_venue(venue: str) -> tuple[str, date | None]:
    """``(venue_text, claim_date)`` for a ClaimDecomp or LIAR venue.

    ``"stated on March 24, 2015 in a mailer:"`` -> ``("a mailer", date(2015, 3, 24))``;
    ``"stated on December 17, 2014:"`` -> ``("", date(2014, 12, 17))``; a LIAR context such as
    ``"a mailer"`` is returned as it is, without a date.  A date that cannot be read gives ``None``
    (the reference code crashes on it).  A doubled ``"in in"`` is reduced to one, a trailing colon dropped.
    """
    text = " ".join(str(venue).split())
    stated = _STATED_ON.match(text)
    if not stated:
        return text.rstrip(":").strip(), None
    rest, when = text[stated.end():], None
    found = _DATE.match(rest)
    if found:
        when = make_date(found["year"], found["month"], found["day"])
        rest = rest[found.end():].lstrip(" ,")
    elif (place := re.search(r"\bin\s+", rest, re.IGNORECASE)):
        rest = rest[place.start():]
    else:
        rest = ""
    return _LEADING_IN.sub("", rest).rstrip(":").strip(), when


def make_date(year: str, month: str, day: str) -> date | None:
    """The date of a year, an English month name and a day as PolitiFact writes them; None if it is no date."""
    number = _MONTHS.get(month.lower())
    if number is None:
        return None
    try:
        return date(int(year), number, int(day))
    except ValueError:
        return None


def claim_date(venue: str) -> date | None:
    """The date a claim was made, read from ``"stated on <Month> <day>, <year> in ..."``; else ``None``."""
    return split_venue(venue)[1]


def venue_text(venue: str) -> str:
    """The venue in the one form the classifier sees: ``"a mailer"`` for both LIAR and ClaimDecomp."""
    return split_venue(venue)[0]


def person_text(person: str) -> str:
    """A speaker as words: LIAR's slug ``"dwayne-bohac"`` -> ``"Dwayne Bohac"``; names are kept.

    Only an all-lower-case hyphenated slug without spaces is rewritten; ClaimDecomp's
    ``"Donald Trump"`` or ``"Facebook posts"`` pass unchanged.
    """
    person = " ".join(person.split())
    if person and " " not in person and person == person.lower() and "-" in person:
        return " ".join(part.capitalize() for part in person.split("-") if part)
    return person


def classifier_input(person: str, venue: str, claim: str) -> str:
    """``"{person} {venue} {claim}"`` with the person and venue normalised, empty parts left out."""
    parts = (person_text(person), venue_text(venue), " ".join(claim.split()))
    return " ".join(part for part in parts if part)


_LIAR_STRIPPED = re.compile(r"[^\x00-\x7f]|[\"'`]")


def statement_key(text: str) -> str:
    """A claim reduced to what LIAR's copy keeps: lower case, no quotes, no non-ASCII, one space."""
    return " ".join(_LIAR_STRIPPED.sub("", text.lower()).split())


def liar_overlap(claims: Iterable[str], liar_statements: Iterable[str]) -> list[int]:
    """Positions of ``claims`` whose :func:`statement_key` is that of some LIAR statement."""
    keys = {statement_key(s) for s in liar_statements}
    return [i for i, claim in enumerate(claims) if statement_key(claim) in keys]


# --- records ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class ClaimDecompClaim:
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
    def label_index(self) -> int:
        return LABELS.index(self.label)

    @property
    def date(self) -> date | None:
        return claim_date(self.venue)

    @property
    def venue_text(self) -> str:
        return venue_text(self.venue)

    @property
    def classifier_input(self) -> str:
        return classifier_input(self.person, self.venue, self.claim)


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


@dataclass(frozen=True)
class SearchResult:
    """One cached web-search hit (title and snippet only; no page text)."""

    question: str
    url: str
    title: str
    snippet: str


@dataclass(frozen=True)
class LiarStatement:
    """A LIAR statement. ``credit_counts`` follow :data:`CREDIT_ORDER` (``None``: all five cells empty)."""

    id: str
    label: str
    statement: str
    subjects: tuple[str, ...]
    speaker: str
    job: str
    state: str
    party: str
    credit_counts: tuple[int, int, int, int, int] | None
    context: str

    @property
    def label_index(self) -> int:
        return LABELS.index(self.label)

    @property
    def credit_history(self) -> dict[str, int]:
        return dict(zip(CREDIT_ORDER, self.credit_counts or ()))

    @property
    def venue_text(self) -> str:
        return venue_text(self.context)

    @property
    def classifier_input(self) -> str:
        return classifier_input(self.speaker, self.context, self.statement)


@dataclass(frozen=True)
class LiarPlusStatement(LiarStatement):
    """A LIAR-PLUS row: the LIAR statement, the file's row index and the extracted justification."""

    row: int
    justification: str


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
        example_id = _example_id(record, path, line)
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


def _example_id(record: dict, path: Path, line: int) -> int:
    """The integer ``example_id`` (the official files write a JSON number; a string is an error)."""
    return require(record, "example_id", path, line, int)


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
# where ", " separates two questions of a joined list: after a closing ?.!/quote and before a
# capital (or a stray "?"), or before a question word
_QUESTION_WORDS = (r"(?:Is|Are|Was|Were|Am|Did|Does|Do|Has|Have|Had|Can|Could|Will|Would|Should|Shall|"
                   r"May|Might|Must|What|How|Why|When|Where|Who|Which)\b")
_LIST_BOUNDARY = re.compile(
    r"(?<=[?.!\"'\u201d\u2019/`])\s*,\s+(?=[?\"\u201c]?[A-Z])"   # "...?, Next" / '..."?, Next'
    r"|\s*,\s+(?=" + _QUESTION_WORDS + r")"                       # "... %, Was ..."
    r"|(?<=\?)[ \t]*\n\s*(?=[A-Z])"                               # "...?\nNext"
    r"|(?<=\?)(?=[A-Z][a-z])"                                     # "...?Next"
)


def split_question_list(text: str) -> list[str]:
    """The questions of a ``", "``-joined list (fine-tuning answers, ``subquestions_gpt_finetune``).

    Questions may themselves hold commas (``'Did Reagan say, immigrants "..."'``), so a comma splits
    only before a capital after closing punctuation, or before a question word.  On ``finetune_val``
    this gives back the annotated questions of every dev claim exactly.
    """
    return [q for q in (clean_question(part) for part in _LIST_BOUNDARY.split(text)) if q]


_NUMBERING = re.compile(r"^(?:[*\-\u2022]+\s*|\(?\d{1,2}[.)]\s+|Q\d{1,2}[.:)]\s*)")


def clean_question(text: str) -> str:
    """A question without surrounding space, list numbering (``"1. "``, ``"2) "``) or bullets."""
    text = " ".join(text.split()).lstrip(" ,;?")
    while (found := _NUMBERING.match(text)):
        text = text[found.end():].lstrip()
    return text.strip()


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
        ids.append(_example_id(record, claims, line))
        unique.check(ids[-1], line)
    return parse_search_cache(dataset_file(data_dir, CACHE_FOLDER, SEARCH_CACHE_FILES[source]), ids)


def parse_search_cache(path: os.PathLike | str, example_ids: list[int]) -> RecordMap:
    """Parse a ``websites_*.jsonl`` file whose line *i* belongs to ``example_ids[i]``.

    A line count that differs from ``len(example_ids)`` is a :class:`DataError` (the pairing would be
    wrong), and so is an empty file, a blank line or an id given twice in ``example_ids`` (named as
    field ``example_id`` on the second line).  An empty title or snippet, and a hit repeated for the
    same question (same URL), are kept (counted in ``.irregular``).
    """
    path = Path(path)
    irregular = SkipReport(str(path), kept=True)
    lists = [(line, _result_list(text, path, line, irregular)) for line, text in iter_lines(path)]
    require_records(lists, path, "lines")
    if len(lists) != len(example_ids):
        raise DataError(path, None, None, f"{len(lists)} lines for {len(example_ids)} claims: "
                                          "line i must belong to claim i of the claims file")
    cache = RecordMap(skipped=SkipReport(str(path)), irregular=irregular)
    for example_id, (line, results) in zip(example_ids, lists):
        if example_id in cache:
            raise DataError(path, line, "example_id",
                            f"a second line for example_id {example_id} (the id is given twice)")
        cache[example_id] = results
    return cache


def _result_list(text: str, path: Path, line: int, irregular: SkipReport) -> list[SearchResult]:
    if not text.strip():
        raise DataError(path, line, None, "a blank line: line i must hold the JSON list of results of claim i")
    hits = loads(text, path, line)
    if not isinstance(hits, list):
        raise DataError(path, line, None, f"expected a JSON list of results, found {type(hits).__name__}")
    if not hits:
        irregular.add("no search hit for the claim", f"line {line}")
    results = []
    for index, hit in enumerate(hits):
        if not isinstance(hit, dict):
            raise DataError(path, line, f"[{index}]", f"expected an object, found {type(hit).__name__}")
        fields = {key: require(hit, key, path, line, nonempty=key in ("question", "url"), name=f"[{index}].{key}")
                  for key in ("question", "url", "title", "snippet")}
        for key in ("title", "snippet"):
            if not fields[key].strip():
                irregular.add(f"empty {key}", f"line {line}")
        if any(r.question == fields["question"] and r.url == fields["url"] for r in results):
            irregular.add("hit repeated for the same question", f"line {line}")
        results.append(SearchResult(**fields))
    return results


def read_cached_subquestions(data_dir: os.PathLike | str | None = None, source: str = "icl_gpt") -> RecordMap:
    """``example_id -> [question]`` from ``subquestions_{source}.jsonl`` (``icl_gpt``, ``icl_mixtral``, ``gpt_finetune``)."""
    if source not in SUBQUESTION_FILES:
        raise ValueError(f"unknown subquestion source {source!r}; expected one of {list(SUBQUESTION_FILES)}")
    return parse_cached_subquestions(dataset_file(data_dir, CACHE_FOLDER, SUBQUESTION_FILES[source]))


_PREAMBLE = re.compile(r"^(?:claim|questions?)\s*:|:$", re.IGNORECASE)


def parse_cached_subquestions(path: os.PathLike | str) -> RecordMap:
    """Parse a cached-subquestion file; either schema is recognised line by line.

    ``{"example_id", "questions": "<one a line>"}`` (ICL) or ``{"example_id", "subquestions":
    ["<q1>, <q2>, ..."]}`` (fine-tuned GPT).  Numbering and bullets are removed; lines that are no
    question -- a preamble ending in ``:`` or an echoed ``Claim:``/``Questions:`` line -- and repeated
    questions are dropped and counted in ``.skipped``.  An empty ``questions`` text, an empty
    ``subquestions`` list or an empty text in it is a :class:`DataError`; a record whose lines are all
    preambles is kept with no question and counted in ``.irregular`` (``"no question"``).
    """
    path = Path(path)
    skipped = SkipReport(str(path))
    questions = RecordMap(skipped=skipped, irregular=SkipReport(str(path), kept=True))
    for line, record in iter_jsonl(path):
        example_id = _example_id(record, path, line)
        if example_id in questions:
            raise DataError(path, line, "example_id", f"duplicate id {example_id}")
        kept: list[str] = []
        for candidate in _raw_questions(record, path, line):
            if _PREAMBLE.search(candidate):
                skipped.add("preamble line", f"line {line}")
            elif candidate in kept:
                skipped.add("repeated question", f"line {line}")
            else:
                kept.append(candidate)
        if not kept:
            questions.irregular.add("no question", f"line {line}")
        questions[example_id] = kept
    return questions


def _raw_questions(record: dict, path: Path, line: int) -> Iterator[str]:
    if "subquestions" in record:
        texts = require(record, "subquestions", path, line, list)
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise DataError(path, line, f"subquestions[{index}]", f"expected str, found {type(text).__name__}")
            if not text.strip():
                raise DataError(path, line, f"subquestions[{index}]", "empty")
            yield from split_question_list(text)
    elif "questions" in record:
        text = require(record, "questions", path, line)
        for part in text.split("\n"):
            if clean_question(part):
                yield clean_question(part)
    else:
        # the fine-tuned file gives the "prompt", the ICL files the "claim": name the field of that schema
        name = "subquestions" if "prompt" in record else "questions"
        raise DataError(path, line, name, "missing (neither 'questions' nor 'subquestions')")


# --- LIAR and LIAR-PLUS --------------------------------------------------------------------------

def read_liar(data_dir: os.PathLike | str | None = None, split: str = "train") -> Records:
    """LIAR ``{split}.tsv`` from ``<data_dir>/liar`` (``train``, ``valid``, ``test``)."""
    check_split(split, LIAR_SPLITS, "LIAR")
    return parse_liar(dataset_file(data_dir, LIAR_FOLDER, f"{split}.tsv"))


def parse_liar(path: os.PathLike | str) -> Records:
    """Parse any file in LIAR's 14-column TSV format (``csv.QUOTE_NONE``; no header)."""
    path = Path(path)
    statements = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    ids = UniqueIds(path, "id")
    for line, cells in iter_tsv(path):
        if len(cells) != len(LIAR_COLUMNS):
            _wrong_width(path, line, cells, LIAR_COLUMNS)
        statements.append(_liar_statement(dict(zip(LIAR_COLUMNS, cells)), path, line, statements.irregular))
        ids.check(statements[-1].id, line)
    return statements


def read_liar_plus(data_dir: os.PathLike | str | None = None, split: str = "val2") -> Records:
    """LIAR-PLUS ``{split}.tsv`` from ``<data_dir>/liar_plus`` (``val2``, ``test2``; ``train2`` if present)."""
    check_split(split, LIAR_PLUS_SPLITS, "LIAR-PLUS")
    return parse_liar_plus(dataset_file(data_dir, LIAR_PLUS_FOLDER, f"{split}.tsv"))


def parse_liar_plus(path: os.PathLike | str) -> Records:
    """Parse any file in LIAR-PLUS's 16-column, CSV-quoted TSV format.

    Irregular rows are kept and counted in ``.irregular``: a row without the justification column
    (15 columns) or with an empty one gets ``justification=""``; extra columns (a tab inside the
    justification) are joined back with a tab; a quoted cell may span lines.
    """
    path = Path(path)
    statements = Records(skipped=SkipReport(str(path)), irregular=SkipReport(str(path), kept=True))
    irregular = statements.irregular
    ids = UniqueIds(path, "id")
    for line, cells in iter_quoted_tsv(path, irregular):
        if len(cells) < len(LIAR_PLUS_COLUMNS) - 1:
            _wrong_width(path, line, cells, LIAR_PLUS_COLUMNS)
        if len(cells) == len(LIAR_PLUS_COLUMNS) - 1:
            irregular.add("no justification column", f"line {line}")
        elif len(cells) > len(LIAR_PLUS_COLUMNS):
            irregular.add("tab inside the justification", f"line {line}")
        justification = "\t".join(cells[len(LIAR_PLUS_COLUMNS) - 1:]).strip()
        if len(cells) >= len(LIAR_PLUS_COLUMNS) and not justification:
            irregular.add("empty justification", f"line {line}")
        row = dict(zip(LIAR_PLUS_COLUMNS, cells))
        if not row["row"].strip().isdigit():
            raise DataError(path, line, "row", f"expected a row index, found {row['row']!r}")
        base = _liar_statement(row, path, line, irregular)
        ids.check(base.id, line)
        statements.append(LiarPlusStatement(**vars(base), row=int(row["row"]), justification=justification))
    return statements


def iter_quoted_tsv(path: os.PathLike | str, irregular: SkipReport | None = None) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(first_line, cells)`` from a tab-separated file with CSV quoting (``"a ""b"" c"``).

    A quoted cell may run over several lines (counted in ``irregular``); bad quoting is a
    :class:`DataError` at the line where it is found.  Blank lines are ignored.
    """
    path = Path(path)
    reader = csv.reader((text + "\n" for _, text in iter_lines(path)), delimiter="\t", strict=True)
    start, found = 1, False
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            if not found:
                raise no_records(path, "rows") from None
            return
        except csv.Error as err:
            raise DataError(path, reader.line_num, None, f"bad CSV quoting ({err})") from None
        line, start = start, reader.line_num + 1
        if reader.line_num > line and irregular is not None:
            irregular.add("quoted cell over several lines", f"line {line}")
        if any(cell.strip() for cell in cells):
            found = True
            yield line, cells


def _wrong_width(path: Path, line: int, cells: list[str], columns: tuple[str, ...]) -> None:
    if len(cells) < len(columns):
        raise DataError(path, line, columns[len(cells)],
                        f"missing: {len(cells)} tab-separated columns, expected {len(columns)}")
    raise DataError(path, line, None, f"{len(cells)} tab-separated columns, expected {len(columns)} "
                                      "(a tab inside a cell?)")


_COUNT = re.compile(r"^\d+(?:\.0*)?$")


def _liar_statement(row: dict[str, str], path: Path, line: int, irregular: SkipReport) -> LiarStatement:
    counts = [row[name].strip() for name in LIAR_COLUMNS[8:13]]
    if not any(counts):
        irregular.add("no credit history", f"line {line}")
        credit = None
    else:
        for name, value in zip(LIAR_COLUMNS[8:13], counts):
            if not _COUNT.match(value):
                raise DataError(path, line, name, f"expected a count, found {value!r}")
        credit = tuple(int(float(value)) for value in counts)
    return LiarStatement(
        id=require_text(row["id"], path, line, "id").strip(),
        label=normalise_label(row["label"], path, line),
        statement=require_text(row["statement"], path, line, "statement").strip(),
        subjects=tuple(s.strip() for s in row["subjects"].split(",") if s.strip()),
        speaker=row["speaker"].strip(),
        job=row["job"].strip(),
        state=row["state"].strip(),
        party=row["party"].strip(),
        credit_counts=credit,
        context=row["context"].strip(),
    )


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
