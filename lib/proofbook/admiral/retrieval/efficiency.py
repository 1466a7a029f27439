"""AdMIRaL's efficiency claims, measured: index memory, index build time, latency as the corpus grows.

The paper (Aly & Vlachos 2022, §5.3) reports that AdMIRaL's index -- a
BM25 inverted index plus a prefix tree of titles -- needs 5-10x less memory than dense indexes (MDR,
Baleen), builds in minutes instead of hours, and that its latency barely grows when the knowledge base
doubles (2.87 s -> 2.88 s per claim on HoVer), because retrieval costs O(n_dyn + |D|) rather than a
dense O(n |D|).  The claim is about Wikipedia-size knowledge bases; we have a few thousand real pages, so
larger knowledge bases are simulated.

**Grown corpora** (:func:`grown_corpora`, datasets ``hover-x1``, ``hover-x2``, ... ``hover-250k``): the
pooled HoVer corpus, then the pages of the other corpora we have (FEVEROUS-S, Fool Me Twice,
Climate-FEVER articles), then **filler pages** up to the size asked for.  The sizes are nested: every
corpus is a prefix of the next one, so a larger knowledge base holds every page of a smaller one.

**Filler pages** (:func:`filler_pages`) are made to grow what AdMIRaL's costs depend on as real pages
would, without pretending to be Wikipedia:

* *titles* (:func:`filler_titles`) are drawn from the real titles' own statistics: the number of words
  of a title, its words (at their frequencies among title words, case kept) and, at the real titles'
  rate, a disambiguator in parentheses (``"(film)"``, ``"(1945)"``, drawn from the real ones) attached
  to a title that already exists -- so ``X`` and ``X (film)`` share their words in the title prefix tree
  and in the mention automaton, as on Wikipedia;
* *text*: each filler page copies the shape of a randomly chosen real page (its number of sentences and
  each sentence's number of tokens) and fills it with words drawn independently at the real corpus's
  word frequencies.  So BM25's vocabulary, posting lists and page lengths grow as with real pages, but a
  filler page answers no claim; whether it still distracts is measured (recall@5 at every size).

Everything is drawn from ``numpy.random.default_rng(seed)`` and ``random.Random(seed)``: the same seed
gives the same pages.
"""
from __future__ import annotations

import random
import re
import time
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from proofbook.core.corpus import Corpus
from proofbook.data.misc_fever import read_climate_fever
from proofbook.index.bm25 import DocumentIndex, tokenize
from proofbook.index.constraints import TitleTrie

_DISAMBIGUATED = re.compile(r"^(.*\S) \(([^()]+)\)$")


@dataclass(frozen=True)
class TitleStatistics:
    """What :func:`filler_titles` draws from: the real titles' lengths, words and disambiguators."""

    lengths: tuple[int, ...]          # words per title (without its disambiguator), one entry per real title
    words: tuple[str, ...]            # distinct title words, most frequent first
    weights: tuple[int, ...]          # their counts
    disambiguators: tuple[str, ...]   # the text inside "(...)" of each disambiguated real title
    disambiguated_share: float        # share of real titles that carry one

    @classmethod
    def of(cls, titles: Sequence[str]) -> "TitleStatistics":
        """The statistics of ``titles`` (a ValueError if there are none)."""
        if not titles:
            raise ValueError("filler titles need at least one real title to draw from")
        lengths, words, disambiguators = [], Counter(), []
        for title in titles:
            match = _DISAMBIGUATED.match(title)
            if match:
                disambiguators.append(match.group(2))
            tokens = _base(title).split()
            lengths.append(len(tokens))
            words.update(tokens)
        common = words.most_common()
        return cls(tuple(lengths), tuple(w for w, _ in common), tuple(n for _, n in common), tuple(disambiguators),
                   len(disambiguators) / len(titles))


def filler_titles(real_titles: Sequence[str], n: int, seed: int = 0, max_tries: int = 20) -> list[str]:
    """``n`` new titles drawn from the statistics of ``real_titles`` (see the module docstring).

    A disambiguated title ``"X (d)"`` takes an ``X`` already present (a real or an earlier filler title's
    base, with equal chance per title); any other title is a fresh draw of words.  A draw that repeats an
    existing title is drawn again (up to ``max_tries`` times), then numbered (``"X (2)"``), so every title is
    new and unique.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    stats = TitleStatistics.of(real_titles)
    rng = random.Random(seed)
    taken = set(real_titles)
    bases = [_base(title) for title in real_titles]
    out: list[str] = []
    while len(out) < n:
        title = None
        for _ in range(max_tries):
            if stats.disambiguators and rng.random() < stats.disambiguated_share:
                candidate = f"{rng.choice(bases)} ({rng.choice(stats.disambiguators)})"
            else:
                length = max(1, rng.choice(stats.lengths))
                candidate = " ".join(rng.choices(stats.words, stats.weights, k=length))
            if candidate not in taken:
                title = candidate
                break
        if title is None:
            number = 2
            while f"{candidate} ({number})" in taken:
                number += 1
            title = f"{candidate} ({number})"
        taken.add(title)
        out.append(title)
        bases.append(_base(title))
    return out


def _base(title: str) -> str:
    """A title without its disambiguator: ``"Extras (TV series)"`` -> ``"Extras"``."""
    match = _DISAMBIGUATED.match(title)
    return match.group(1) if match else title


def filler_pages(corpus: Corpus, n_pages: int, seed: int = 0, taken: Sequence[str] = ()) -> Corpus:
    """``n_pages`` synthetic pages in the image of ``corpus`` (see the module docstring); seeded.

    ``taken``: more titles the new ones must differ from (e.g. the other corpora's pages already added).
    """
    if n_pages < 0:
        raise ValueError(f"n_pages must be >= 0, got {n_pages}")
    if len(corpus) == 0:
        raise ValueError(f"corpus {corpus.name!r} has no pages to draw filler pages from")
    counts = Counter(token for doc in corpus for token in tokenize(doc.text))
    if not counts:
        raise ValueError(f"corpus {corpus.name!r} has no word tokens to draw filler text from")
    words, weights = zip(*counts.most_common())
    shapes = [[len(tokenize(sentence)) for sentence in doc.sentences] for doc in corpus]
    shapes = [[max(1, n) for n in shape] for shape in shapes if shape]
    rng = np.random.default_rng(seed)
    chosen = rng.integers(len(shapes), size=n_pages)
    lengths = [shapes[i] for i in chosen.tolist()]
    total = sum(sum(shape) for shape in lengths)
    probabilities = np.asarray(weights, dtype=float) / sum(weights)
    drawn = [words[i] for i in rng.choice(len(words), size=total, p=probabilities).tolist()]
    titles = filler_titles(corpus.titles + [t for t in taken if t not in corpus], n_pages, seed)
    filler, position = Corpus("filler"), 0
    for title, shape in zip(titles, lengths):
        sentences = []
        for size in shape:
            sentences.append(" ".join(drawn[position:position + size]).capitalize() + ".")
            position += size
        filler.add(title, sentences)
    return filler


def grown_corpora(base: Corpus, sizes: Mapping[str, int], others: Sequence[Corpus], seed: int = 0
                  ) -> tuple[dict[str, Corpus], list[dict]]:
    """Nested corpora of the given page counts: ``base``, then ``others``' new pages, then filler pages.

    Returns ``({name: corpus}, growth rows)``; each row gives the dataset's pages and how many came from
    the other corpora and from filler.  A size below ``len(base)`` is a ValueError.
    """
    if not sizes:
        raise ValueError("no corpus sizes asked for")
    small = {name: size for name, size in sizes.items() if size < len(base)}
    if small:
        raise ValueError(f"sizes below the base corpus's {len(base)} pages: {small}")
    largest = max(sizes.values())
    extra: list[tuple[str, list[str]]] = []
    seen = set(base.titles)
    for other in others:
        for doc in other:
            if len(base) + len(extra) >= largest:
                break
            if doc.title not in seen:
                seen.add(doc.title)
                extra.append((doc.title, doc.sentences))
    n_real = len(extra)
    n_filler = largest - len(base) - n_real
    if n_filler > 0:
        extra += [(doc.title, doc.sentences) for doc in filler_pages(base, n_filler, seed, taken=[t for t, _ in extra])]
    corpora, growth = {}, []
    for name, size in sorted(sizes.items(), key=lambda item: item[1]):
        corpus = Corpus(name, dict(base.documents))
        for title, sentences in extra[:size - len(base)]:
            corpus.add(title, sentences)
        corpora[name] = corpus
        added = size - len(base)
        growth.append({"dataset": name, "pages": len(corpus), "from_other_corpora": min(added, n_real),
                       "filler_pages": max(0, added - n_real)})
    return corpora, growth


def climate_fever_corpus(data_dir=None) -> Corpus:
    """Climate-FEVER's evidence sentences pooled by article (real Wikipedia text for growing corpora)."""

    pairs = [(e.article, e.sentence) for claim in read_climate_fever(data_dir) for e in claim.evidences]
    return Corpus.from_sentences(pairs, "climate_fever")


def admiral_index(corpus: Corpus, tokenizer) -> dict:
    """Build AdMIRaL's index (BM25 over pages + title prefix tree); its sizes and build seconds.

    ``index_bytes`` is the index stored: the BM25 file of :mod:`proofbook.index.index_file` (postings,
    vocabulary, titles) plus the prefix tree stored flat (:meth:`TitleTrie.compact_bytes`), the way the
    dense baseline's size is its float32 matrix.  ``bm25_bytes_ram`` is the BM25 index as held in memory
    (its arrays and vocabulary), ``index_bytes_python`` the whole index as live Python objects (dicts of
    strings and nodes), which CPython makes several times larger.  ``index_build_s`` covers both parts;
    ``bm25_build_s`` and ``trie_build_s`` each part.
    """
    start = time.perf_counter()
    bm25 = DocumentIndex(corpus)
    middle = time.perf_counter()
    trie = TitleTrie.from_titles(corpus.titles, tokenizer)
    end = time.perf_counter()
    bm25_file, trie_flat = len(bm25.to_bytes()), trie.compact_bytes()
    return {"bm25": bm25, "trie": trie, "index_build_s": end - start, "bm25_build_s": middle - start,
            "trie_build_s": end - middle, "index_bytes": bm25_file + trie_flat, "bm25_bytes": bm25_file,
            "trie_bytes": trie_flat, "bm25_bytes_ram": bm25.nbytes, "index_bytes_python": bm25.nbytes + trie.approx_bytes()}
