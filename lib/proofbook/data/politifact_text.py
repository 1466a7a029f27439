"""PolitiFact text conventions shared by the ClaimDecomp, LIAR and LIAR-PLUS readers.

These serve the claims-in-the-wild chapters (Chen et al. 2023, *Complex claim verification with evidence
retrieved in the wild*): PolitiFact's six-point Truth-O-Meter in the paper's index order (:data:`LABELS`,
:func:`normalise_label`), the venue and date of ``"stated on March 24, 2015 in a mailer:"``
(:func:`split_venue`), a speaker slug as words (:func:`person_text`), the classifier input
``"{person} {venue} {claim}"`` (:func:`classifier_input`), the key that finds a claim in LIAR's
quote-less copy (:func:`statement_key`), and the splitting of a ``", "``-joined list of questions
(:func:`split_question_list`).  :class:`ClassifierRecord` gives the ClaimDecomp and LIAR records their
``label_index``, ``venue_text`` and ``classifier_input``.  Those records and their parsers are in
:mod:`proofbook.data.politifact` (ClaimDecomp) and :mod:`proofbook.data.liar` (LIAR, LIAR-PLUS).
"""
from __future__ import annotations

import calendar
import os
import re
from collections import Counter
from datetime import date
from typing import Any, Iterable

from proofbook.data.textfile import DataError

#: PolitiFact's Truth-O-Meter in the paper's index order (MAE and soft accuracy use these indices)
LABELS = ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")


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


# --- lists of questions ---------------------------------------------------------------------

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


# --- the records' derived fields -------------------------------------------------------------

class ClassifierRecord:
    """``label_index``, ``venue_text`` and ``classifier_input`` of a PolitiFact record (ClaimDecomp, LIAR).

    A record keeps one of :data:`LABELS` in ``label`` and names its speaker, venue and claim fields by
    :meth:`_speaker_venue_claim` (ClaimDecomp's ``person``/``venue``/``claim``, LIAR's
    ``speaker``/``context``/``statement``).
    """

    def _speaker_venue_claim(self) -> tuple[str, str, str]:
        raise NotImplementedError

    @property
    def label_index(self) -> int:
        return LABELS.index(self.label)

    @property
    def venue_text(self) -> str:
        return venue_text(self._speaker_venue_claim()[1])

    @property
    def classifier_input(self) -> str:
        return classifier_input(*self._speaker_venue_claim())
