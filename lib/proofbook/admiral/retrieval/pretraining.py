"""Copy pre-training for the title generators: corpus sentences that mention a title -> that title.

Why.  AdMIRaL's title generator is GENRE (De Cao et al. 2021): BART-large pre-trained on all of
Wikipedia, then fine-tuned on Wikipedia's hyperlinks (anchor text in context -> title of the linked
page) before AdMIRaL fine-tunes it on claims (Aly & Vlachos 2022, §3).
No such checkpoint exists offline here, and a model trained from scratch on the few hundred training
claims only learns a prior over titles (measured: top-1 0.000 on HoVer hop 1).  What GENRE's
hyperlink step teaches -- *copy the title of an entity mentioned in the input* -- can be taught from
the corpus text alone, with no claim and no label:

* a **title mention** is a sentence of page ``P`` that contains the *surface form* of another page's
  title ``X`` (the title without a trailing "(disambiguation)", case-sensitive, on word boundaries,
  at least 4 characters) -- the closed-corpus stand-in for a hyperlink.  The surface forms are found
  with an Aho-Corasick automaton (``pyahocorasick``), so the time per sentence does not grow with the
  number of titles; scanning left to right, the longest surface form starting at the leftmost position
  wins and matches do not overlap (what one regular expression with an alternative per title, longest
  first, finds -- the tests compare the two on the real corpora);
* hop-0 copy examples: ``sentence -> [ X ]`` (the GENRE step's format: text -> title), plus every
  sentence that names its own page: ``sentence -> [ P ]``;
* hop >= 1 copy examples in the hop format: the first sentence of ``P`` plays the claim, the
  mentioning sentence plus sampled negatives are the input sentences (shuffled), and the target is
  ``< Ei > [ X ]`` -- the pointer of the mentioning sentence, then the mentioned title.

The hop models are first trained on these examples, then on the claims (``experiments``).  This is a
stated departure: the paper starts from GENRE; we start from copy pre-training over the retrieval
corpus.  Because our corpora are pooled from gold pages, the corpus -- and so the mentions -- includes
evaluation claims' pages; that is the same caveat as the pooled corpus itself, and no evaluation claim
text or label is used.
"""
from __future__ import annotations

import random
import re
from collections import defaultdict
from typing import Iterable

import ahocorasick

from proofbook.core.corpus import Corpus, Sentence
from proofbook.admiral.retrieval.hop_examples import RetrievalExample, negative_sampler

_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")
MIN_SURFACE_CHARS = 4


def surface_form(title: str) -> str:
    """How a title is written in running text: without a trailing parenthesis ("Seine (river)" -> "Seine")."""
    return _DISAMBIGUATION.sub("", title).strip()


def title_mentions(corpus: Corpus, titles: Iterable[str] | None = None) -> dict[tuple[str, int], tuple[str, ...]]:
    """Sentence id -> titles (other than its own page) whose surface form occurs in the sentence.

    Matching is case-sensitive on word boundaries; a surface form shared by several titles is
    ambiguous and mapped to all of them.  Deterministic: titles in corpus order.
    """
    by_surface: dict[str, list[str]] = defaultdict(list)
    for title in (corpus.titles if titles is None else titles):
        surface = surface_form(title)
        if len(surface) >= MIN_SURFACE_CHARS:
            by_surface[surface].append(title)
    if not by_surface:
        return {}
    automaton = surface_automaton(by_surface)
    mentions: dict[tuple[str, int], tuple[str, ...]] = {}
    for sentence in corpus.sentences():
        found = dict.fromkeys(t for surface in find_surfaces(automaton, sentence.text) for t in by_surface[surface]
                              if t != sentence.title)
        if found:
            mentions[sentence.id] = tuple(found)
    return mentions


def surface_automaton(surfaces: Iterable[str]):
    """An Aho-Corasick automaton over the surface forms (each stored as its own value)."""

    automaton = ahocorasick.Automaton()
    for surface in surfaces:
        automaton.add_word(surface, surface)
    automaton.make_automaton()
    return automaton


_WORD = re.compile(r"\w")


def find_surfaces(automaton, text: str) -> list[str]:
    """The surface forms in ``text`` on word boundaries, left to right, the longest at each start, no overlaps."""
    longest: dict[int, tuple[int, str]] = {}
    for last, surface in automaton.iter(text):          # ``last``: index of the match's last character
        start, stop = last - len(surface) + 1, last + 1
        if (start > 0 and _WORD.match(text[start - 1])) or (stop < len(text) and _WORD.match(text[stop])):
            continue
        if start not in longest or len(surface) > len(longest[start][1]):
            longest[start] = (stop, surface)
    found, position = [], 0
    for start in sorted(longest):
        if start >= position:
            position, surface = longest[start]
            found.append(surface)
    return found


def own_title_examples(corpus: Corpus) -> list[RetrievalExample]:
    """Hop-0 copy examples ``sentence -> [ own page title ]`` for sentences that name their own page."""
    examples = []
    for sentence in corpus.sentences():
        surface = surface_form(sentence.title)
        if len(surface) >= MIN_SURFACE_CHARS and re.search(rf"(?<!\w){re.escape(surface)}(?!\w)", sentence.text):
            examples.append(RetrievalExample(sentence.text, (), (), sentence.title, (sentence.title,)))
    return examples


def copy_examples(corpus: Corpus, hop: int, *, max_sentences: int = 4, seed: int = 0,
                  mentions: dict[tuple[str, int], tuple[str, ...]] | None = None) -> list[RetrievalExample]:
    """Copy pre-training examples for the model of ``hop`` (see the module docstring), one per mention.

    At hop 0 they are followed by :func:`own_title_examples` (a page's sentences that name it).
    A sentence that mentions several titles gives one example per title, each accepting all of them.
    At hop >= 1 the pseudo-claim is the first sentence of the mentioning page (the next sentence if
    the mention is in the first one; pages of one sentence are skipped there).
    """
    if hop < 0:
        raise ValueError(f"hop must be >= 0, got {hop}")
    mentions = title_mentions(corpus) if mentions is None else mentions
    draw = negative_sampler(corpus)
    examples: list[RetrievalExample] = []
    for sid, titles in mentions.items():
        sentence = corpus.sentence(sid)
        rng = random.Random(f"{seed}:copy:{sid[0]}:{sid[1]}:{hop}")
        for target in titles:
            if hop == 0:
                examples.append(RetrievalExample(sentence.text, (), (), target, titles))
                continue
            claim = _pseudo_claim(corpus, sentence)
            if claim is None:
                continue
            avoid = {sentence.title, *titles}
            negatives = draw(rng, max_sentences - 1, avoid)
            inputs = [sentence] + negatives
            rng.shuffle(inputs)
            examples.append(RetrievalExample(claim, tuple(inputs), (inputs.index(sentence),), target, titles))
    if hop == 0:
        examples += own_title_examples(corpus)
    return examples


def _pseudo_claim(corpus: Corpus, sentence: Sentence) -> str | None:
    page = corpus[sentence.title]
    others = [s for s in page.sentences if s != sentence.text and s.strip()]
    return others[0] if others else None

