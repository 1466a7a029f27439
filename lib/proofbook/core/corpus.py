"""The corpus: titled documents split into sentences with stable ids.

One structure serves every paper: AdMIRaL retrieves over the
pages pooled from HoVer, FEVEROUS-S and Fool Me Twice (Aly & Vlachos 2022, §3-4), Entailer can
retrieve WorldTree facts, and the claims-in-the-wild pipeline searches local pages.  A sentence id is
``(title, index)`` -- the same pointer AdMIRaL's encoder input refers to as ``[ Title ] sentence``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator


@dataclass(frozen=True)
class Sentence:
    """One sentence of a page; ``(title, index)`` is its stable id."""

    title: str
    index: int
    text: str

    @property
    def id(self) -> tuple[str, int]:
        return (self.title, self.index)


@dataclass
class Document:
    """A titled page as a list of sentences."""

    title: str
    sentences: list[str]

    @property
    def text(self) -> str:
        return " ".join(self.sentences)

    def sentence(self, index: int) -> Sentence:
        """The page's sentence at ``index``, with its id ``(title, index)``."""
        return Sentence(self.title, index, self.sentences[index])


@dataclass
class Corpus:
    """Titled documents, in insertion order, looked up by title.

    ``add`` keeps the first text of a title and counts later, different texts in ``conflicts``
    (pooled corpora see the same page from several claims), so nothing is replaced silently.
    """

    name: str = "corpus"
    documents: dict[str, Document] = field(default_factory=dict)
    conflicts: dict[str, int] = field(default_factory=dict)

    def add(self, title: str, sentences: Iterable[str]) -> Document:
        """Add a page (blank sentences dropped) and return it; a title already here keeps its first text."""
        sentences = [s for s in sentences if s.strip()]
        if title in self.documents:
            if self.documents[title].sentences != sentences:
                self.conflicts[title] = self.conflicts.get(title, 0) + 1
            return self.documents[title]
        doc = Document(title, sentences)
        self.documents[title] = doc
        return doc

    def __len__(self) -> int:
        return len(self.documents)

    def __contains__(self, title: object) -> bool:
        return title in self.documents

    def __getitem__(self, title: str) -> Document:
        return self.documents[title]

    def __iter__(self) -> Iterator[Document]:
        return iter(self.documents.values())

    @property
    def titles(self) -> list[str]:
        return list(self.documents)

    def sentences(self) -> Iterator[Sentence]:
        """Every sentence of every page, pages in insertion order, sentences in page order."""
        for doc in self.documents.values():
            for index, text in enumerate(doc.sentences):
                yield Sentence(doc.title, index, text)

    def sentence(self, sentence_id: tuple[str, int]) -> Sentence:
        """The sentence with id ``(title, index)`` (a KeyError for an unknown title)."""
        title, index = sentence_id
        return self.documents[title].sentence(index)

    def n_sentences(self) -> int:
        """The number of sentences over all pages."""
        return sum(len(d.sentences) for d in self.documents.values())

    @classmethod
    def from_sentences(cls, pairs: Iterable[tuple[str, str]], name: str = "corpus") -> "Corpus":
        """Pool ``(title, sentence)`` pairs into pages: titles and sentences in first-seen order, each once."""
        pages: dict[str, dict[str, None]] = {}
        for title, sentence in pairs:
            pages.setdefault(title, {})[sentence] = None
        corpus = cls(name)
        for title, sentences in pages.items():
            corpus.add(title, list(sentences))
        return corpus

    def merged(self, *others: "Corpus", name: str | None = None) -> "Corpus":
        """A new corpus with this one's pages first, then pages of ``others`` not already present."""
        out = Corpus(name or "+".join([self.name, *(o.name for o in others)]))
        for corpus in (self, *others):
            for doc in corpus:
                out.add(doc.title, doc.sentences)
        return out


# A sentence ends at . ! or ? (optionally followed by a closing quote or bracket) before whitespace
# and an upper-case letter, digit or opening quote -- unless the word before is a known abbreviation
# or a single initial ("J. R. R. Tolkien").
_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "no", "vs", "etc", "inc", "ltd", "co",
    "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s",
    "u.k", "e.g", "i.e", "gen", "gov", "sen", "rep", "col", "lt", "capt", "sgt", "rev", "fr", "ca", "approx",
}
_BOUNDARY = re.compile(r"""([.!?]["')\]]*)\s+(?=["'(\[]?[A-Z0-9])""")


def split_sentences(text: str) -> list[str]:
    """Split a paragraph into sentences with a small rule-based splitter (no model, no download)."""
    text = " ".join(text.split())
    if not text:
        return []
    sentences, start = [], 0
    for match in _BOUNDARY.finditer(text):
        end = match.end(1)
        words = text[start:end].rstrip(".!?\"')]").split()
        last = words[-1].lower() if words else ""
        if last.strip("(\"'") in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
            continue
        sentences.append(text[start:end].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences
