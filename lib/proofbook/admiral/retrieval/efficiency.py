"""AdMIRaL's efficiency claims, measured: index memory, index build time, latency as the corpus grows.

The paper (Aly & Vlachos 2022, §5.3) reports that AdMIRaL's index -- a
BM25 inverted index plus a prefix tree of titles -- needs 5-10x less memory than dense indexes (MDR,
Baleen), builds in minutes instead of hours, and that its latency barely grows when the knowledge base
doubles (2.87 s -> 2.88 s per claim on HoVer), because retrieval costs O(n_dyn + |D|) rather than a
dense O(n |D|).

Here the corpus is the pooled HoVer corpus grown x1, x2 and x4 (datasets ``hover-x1/x2/x4``):
first with the pages of the other corpora (FEVEROUS-S, Fool Me Twice, Climate-FEVER articles), then,
where those run out, with **synthetic filler pages** -- sentences of words drawn from the HoVer corpus's
own vocabulary at its word frequencies, under titles ``Filler page N`` -- which add size, not meaning.
"""
from __future__ import annotations

import random
import time
from collections import Counter
from typing import Sequence

from proofbook.core.corpus import Corpus
from proofbook.data.misc_fever import read_climate_fever
from proofbook.index.bm25 import DocumentIndex, tokenize
from proofbook.index.prefix_tree import TitleTrie


def filler_pages(corpus: Corpus, n_pages: int, seed: int = 0, sentences_per_page: int = 4,
                 words_per_sentence: int = 20) -> Corpus:
    """``n_pages`` synthetic pages whose words follow ``corpus``'s word frequencies (seeded)."""
    counts = Counter(token for doc in corpus for token in tokenize(doc.text))
    words, weights = zip(*counts.most_common())
    rng = random.Random(seed)
    filler = Corpus("filler")
    for number in range(n_pages):
        sentences = [" ".join(rng.choices(words, weights, k=words_per_sentence)).capitalize() + "."
                     for _ in range(sentences_per_page)]
        filler.add(f"Filler page {number + 1}", sentences)
    return filler


def grown_corpus(base: Corpus, factor: int, others: Sequence[Corpus], seed: int = 0) -> tuple[Corpus, dict]:
    """``base`` grown to ``factor`` times its pages: other corpora's pages first, then filler pages."""
    target = factor * len(base)
    grown = base.merged(name=f"{base.name}-x{factor}")
    added_real = 0
    for other in others:
        for doc in other:
            if len(grown) >= target:
                break
            if doc.title not in grown:
                grown.add(doc.title, doc.sentences)
                added_real += 1
    n_filler = max(0, target - len(grown))
    if n_filler:
        grown = grown.merged(filler_pages(base, n_filler, seed), name=grown.name)
    return grown, {"pages": len(grown), "from_other_corpora": added_real, "filler_pages": n_filler}


def climate_fever_corpus(data_dir=None) -> Corpus:
    """Climate-FEVER's evidence sentences pooled by article (real Wikipedia text for growing corpora)."""

    pairs = [(e.article, e.sentence) for claim in read_climate_fever(data_dir) for e in claim.evidences]
    return Corpus.from_sentences(pairs, "climate_fever")


def admiral_index(corpus: Corpus, tokenizer) -> dict:
    """Build AdMIRaL's index (BM25 over pages + title prefix tree); its size and build seconds.

    ``index_bytes`` is the index stored: the BM25 file of :mod:`proofbook.index.index_file` (postings,
    vocabulary, titles) plus the prefix tree stored flat (:meth:`TitleTrie.compact_bytes`), the way the
    dense baseline's size is its float32 matrix.  ``index_bytes_python`` is the same index as live Python
    objects (dicts of strings and nodes), which CPython makes several times larger.
    """
    start = time.perf_counter()
    bm25 = DocumentIndex(corpus)
    trie = TitleTrie.from_titles(corpus.titles, tokenizer)
    seconds = time.perf_counter() - start
    bm25_file, trie_flat = len(bm25.to_bytes()), trie.compact_bytes()
    return {"bm25": bm25, "trie": trie, "index_build_s": seconds,
            "index_bytes": bm25_file + trie_flat, "bm25_bytes": bm25_file, "trie_bytes": trie_flat,
            "index_bytes_python": bm25.nbytes + trie.approx_bytes()}
