"""Matching HoVer's untitled gold paragraphs to page titles: the score and the best one-to-one assignment.

ProgramFC's gold-paragraph file for HoVer (Jiang et al. 2020) gives each SUPPORTED dev claim the intro
paragraphs of its gold pages without their titles; :func:`proofbook.data.hover.build_hover_corpus` titles
them with :func:`align_paragraphs`, so that AdMIRaL's document recall (Aly & Vlachos 2022, §5.1) can be
measured on a closed corpus.  Here are the title-paragraph score (:func:`match_score`: title words found
anywhere, among the opening words, an exact opening, the tennis draw-page rule), the words it compares
(:func:`words`), and the search over permutations with its tie-breaks.  The rules are set out in the
docstring of :mod:`proofbook.data.hover`, which builds the corpus with them.
"""
from __future__ import annotations

import difflib
import html
import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from proofbook.core.corpus import split_sentences

#: the opening words of a paragraph: as many as the title has, plus this many
HEAD_SLACK = 4
#: weight of title words found among the opening words (the whole paragraph counts once)
HEAD_WEIGHT = 2.0
#: bonus for a paragraph that starts with the title's words exactly (a draw page's opening earns
#: HEAD_WEIGHT + OPENING_BONUS instead, see is_draw_page)
OPENING_BONUS = 1.0
#: two words of at least this length are a near-spelling above this similarity ratio
NEAR_MIN_LENGTH, NEAR_RATIO = 5, 0.8

_DISAMBIGUATION = re.compile(r"\s*\(([^()]*)\)\s*$")
_WORD = re.compile(r"[^\W_]+")
_DRAW_TITLE = re.compile(r"\s[–-]\s.*\b(singles|doubles)\b", re.IGNORECASE)
_DRAW_OPENING = re.compile(r"defending champion|\bdefeated\b|\bin the final\b|\bwon the (title|tournament)\b",
                           re.IGNORECASE)
_EPSILON = 1e-9


def strip_disambiguation(title: str) -> str:
    """``"Life Goes On (Fergie song)"`` -> ``"Life Goes On"`` (unchanged if nothing would remain)."""
    stripped = _DISAMBIGUATION.sub("", title).strip()
    return stripped or title


def words(text: str) -> list[str]:
    """Lower-cased, accent-folded words of a text (HTML entities unescaped); a plural ``s`` is dropped
    from words over 3 letters."""
    folded = unicodedata.normalize("NFKD", html.unescape(text))
    folded = "".join(char for char in folded if not unicodedata.combining(char)).lower()
    return [word[:-1] if len(word) > 3 and word.endswith("s") else word for word in _WORD.findall(folded)]


def _near(word: str, candidates: Iterable[str]) -> bool:
    if len(word) < NEAR_MIN_LENGTH:
        return False
    return any(len(other) >= NEAR_MIN_LENGTH and other[0] == word[0]
               and difflib.SequenceMatcher(None, word, other).ratio() >= NEAR_RATIO for other in candidates)


def opens_with_title(title: str, paragraph: str) -> bool:
    """Whether every word of the title (disambiguation dropped) is among the paragraph's opening words.

    ("The Whitechapel murders were ...", "Nicole Mary Kidman ..." open with their titles.)  A place
    title qualified after a comma ("Emery, Ohio") also opens "Emery is a ghost town in ...".
    """
    opening = words(paragraph)
    for name in (strip_disambiguation(title), strip_disambiguation(title).split(",")[0]):
        title_words = words(name)
        if title_words and set(title_words) <= set(opening[:len(title_words) + HEAD_SLACK]):
            return True
    return False


def is_draw_page(title: str) -> bool:
    """A tennis draw page (``"2011 US Open – Mixed Doubles"``), whose intro opens with the champions."""
    return bool(_DRAW_TITLE.search(title))


def match_score(title: str, paragraph: str, paragraph_words: list[str] | None = None) -> float:
    """How well ``paragraph`` fits page ``title`` (see the module docstring for the terms)."""
    title_words = words(strip_disambiguation(title))
    wanted = set(title_words)
    paragraph_words = words(paragraph) if paragraph_words is None else paragraph_words
    if not wanted:
        return 0.0
    head = paragraph_words[:len(title_words) + HEAD_SLACK]
    in_head = {word for word in wanted if word in head or _near(word, head)}
    anywhere = in_head | (wanted & set(paragraph_words))
    score = len(anywhere) / len(wanted) + HEAD_WEIGHT * len(in_head) / len(wanted)
    if paragraph_words[:len(title_words)] == title_words:
        score += OPENING_BONUS
    elif is_draw_page(title) and _DRAW_OPENING.search(_first_sentence(paragraph)):
        score += HEAD_WEIGHT + OPENING_BONUS  # the champions' opening stands for the title's
    return score


def _first_sentence(paragraph: str) -> str:
    sentences = split_sentences(paragraph)
    return sentences[0] if sentences else ""


def disambiguation_score(title: str, paragraph_words: Sequence[str]) -> float:
    """Share of the disambiguation words (``"(2005 film)"`` -> 2005, film) found in the paragraph."""
    match = _DISAMBIGUATION.search(title)
    wanted = set(words(match.group(1))) if match else set()
    return len(wanted & set(paragraph_words)) / len(wanted) if wanted else 0.0


@dataclass(frozen=True)
class ParagraphAlignment:
    """The title given to each paragraph of one gold-file line, in the file's paragraph order."""

    titles: tuple[str, ...]
    scores: tuple[float, ...]
    opened_with_title: tuple[bool, ...]
    tie: bool
    tie_broken_by_order: bool

    @property
    def matched(self) -> int:
        """Paragraphs that share at least one word with their assigned title."""
        return sum(score > 0 for score in self.scores)


def _best_permutations(matrix: list[list[float]]) -> tuple[float, list[tuple[int, ...]]]:
    """All title orders (``order[p]`` = title of paragraph p) with the highest total score."""
    n = len(matrix)
    best, winners = float("-inf"), []
    for order in itertools.permutations(range(n)):
        total = sum(matrix[paragraph][title] for paragraph, title in enumerate(order))
        if total > best + _EPSILON:
            best, winners = total, [order]
        elif total > best - _EPSILON:
            winners.append(order)
    return best, winners


def align_paragraphs(titles: Sequence[str], paragraphs: Sequence[str],
                     known: Mapping[str, str] | None = None) -> ParagraphAlignment:
    """Give each paragraph one of ``titles`` (distinct, as many as paragraphs) by the best permutation.

    Among several best permutations (a tie) the one is kept that agrees most with ``known`` (paragraph
    text -> title, fixed by other claims without a tie), then the one whose disambiguation words are
    found most, then the first in lexicographic order (``tie_broken_by_order``).
    """
    if len(titles) != len(paragraphs):
        raise ValueError(f"{len(paragraphs)} paragraphs for {len(titles)} titles")
    paragraph_words = [words(paragraph) for paragraph in paragraphs]
    scores = [[match_score(title, paragraph, tokens) for title in titles]
              for paragraph, tokens in zip(paragraphs, paragraph_words)]
    _, winners = _best_permutations(scores)
    tie = len(winners) > 1
    if tie:
        known = known or {}
        agreement = [[float(known.get(paragraph) == title) for title in titles] for paragraph in paragraphs]
        disambiguation = [[disambiguation_score(title, tokens) for title in titles] for tokens in paragraph_words]
        for secondary in (agreement, disambiguation):
            winners = _best_among(winners, secondary)
    order = winners[0]  # permutations() yields lexicographic order: the first is the deterministic pick
    return ParagraphAlignment(
        titles=tuple(titles[t] for t in order),
        scores=tuple(scores[p][t] for p, t in enumerate(order)),
        opened_with_title=tuple(opens_with_title(titles[t], paragraphs[p]) for p, t in enumerate(order)),
        tie=tie,
        tie_broken_by_order=len(winners) > 1,
    )


def _best_among(orders: list[tuple[int, ...]], matrix: list[list[float]]) -> list[tuple[int, ...]]:
    totals = [sum(matrix[paragraph][title] for paragraph, title in enumerate(order)) for order in orders]
    top = max(totals)
    return [order for order, total in zip(orders, totals) if total > top - _EPSILON]
