"""A teachable belief memory: user corrections that override Entailer's truth scorer.

The Entailer paper (Tafjord et al. 2022, §7 "future work") proposes that a user who
sees a faulty belief in a tree can correct it, that the correction is stored in a memory, and that later
proofs use the corrected belief instead of the model's.  The paper does not evaluate this; none of the
reference implementations has it.  This module implements it:

* **Store.**  Corrections are rows ``(statement, truth, note, created)`` in a SQLite database file
  (one table ``beliefs``, keyed by the normalised statement: lower case, single spaces, no final
  full stop).  Teaching the same statement again replaces the earlier correction; ``forget`` removes
  it.  The file persists across processes; ``":memory:"`` keeps a memory for one session only.
* **Match.**  A later statement matches a stored belief *exactly* (same normalised text) or, when an
  embedder is given, by *similarity*: the cosine of their MiniLM sentence embeddings
  (:class:`proofbook.index.dense.SentenceEmbedder`, mean pooling + L2) is at least ``threshold``
  (0.9 by default; the best-matching belief wins).  Exact matches take precedence.
* **Override.**  :func:`proofbook.entailer.search.prove` asks the memory before the truth scorer:
  a matched statement gets s_d = 1 (taught true) or 0 (taught false) and is not expanded further; the
  tree marks it ``memory``.

Paraphrase matching can over-reach: a negated statement ("X is not a metal") can be close to its
positive form in embedding space.  A high threshold keeps this rare; the match and its similarity are
returned with every belief so a reader can see why it applied.
"""
from __future__ import annotations

import contextlib
import os
import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

import numpy as np

SCHEMA = ("CREATE TABLE IF NOT EXISTS beliefs (key TEXT PRIMARY KEY, statement TEXT NOT NULL, "
          "truth INTEGER NOT NULL, note TEXT NOT NULL DEFAULT '', created TEXT NOT NULL)")
DEFAULT_THRESHOLD = 0.9
Embed = Callable[[Sequence[str]], np.ndarray]


def normalise(statement: str) -> str:
    """Lower case, single spaces, no final full stop: the exact-match key."""
    return re.sub(r"[.\s]+$", "", " ".join(str(statement).split()).lower())


@dataclass(frozen=True)
class Belief:
    """A stored correction, and how it matched a statement (``exact`` or ``similar`` + cosine)."""

    statement: str
    truth: bool
    note: str = ""
    match: str = "exact"
    similarity: float = 1.0


class BeliefMemory:
    """User corrections in a SQLite file, looked up exactly or by embedding similarity.

    ``embed`` maps texts to unit vectors (e.g. ``SentenceEmbedder("minilm").encode``); without it only
    exact matches count.
    """

    def __init__(self, path: os.PathLike | str = ":memory:", embed: Embed | None = None,
                 threshold: float = DEFAULT_THRESHOLD):
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.path = str(path)
        self.embed, self.threshold = embed, threshold
        if self.path != ":memory:":
            parent = Path(self.path).expanduser().parent
            if not parent.is_dir():
                raise FileNotFoundError(f"belief memory {self.path}: folder {parent} does not exist")
        self._shared = sqlite3.connect(":memory:") if self.path == ":memory:" else None
        try:
            with self._connect() as db:
                db.execute(SCHEMA)
        except sqlite3.DatabaseError as err:
            raise ValueError(f"belief memory {self.path}: not a SQLite database ({err})") from None
        self._vectors: dict[str, np.ndarray] = {}

    def __repr__(self) -> str:
        return f"BeliefMemory({self.path!r}, {len(self)} beliefs, threshold={self.threshold})"

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A connection inside a transaction (committed on success); file connections are closed."""
        db = self._shared if self._shared is not None else sqlite3.connect(self.path)
        try:
            with db:
                yield db
        finally:
            if db is not self._shared:
                db.close()

    def teach(self, statement: str, truth: bool, note: str = "") -> Belief:
        """Store (or replace) the correction "``statement`` is ``truth``"."""
        key = normalise(statement)
        if not key:
            raise ValueError("cannot teach an empty statement")
        if not isinstance(truth, (bool, np.bool_)):
            raise ValueError(f"truth must be True or False, got {truth!r}")
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO beliefs VALUES (?, ?, ?, ?, ?)",
                       (key, " ".join(statement.split()), int(bool(truth)), note, time.strftime("%Y-%m-%dT%H:%M:%S")))
        return Belief(" ".join(statement.split()), bool(truth), note)

    def forget(self, statement: str) -> bool:
        """Remove the correction of ``statement``; True if there was one."""
        with self._connect() as db:
            return db.execute("DELETE FROM beliefs WHERE key = ?", (normalise(statement),)).rowcount > 0

    def beliefs(self) -> list[Belief]:
        """Every stored correction, oldest first."""
        with self._connect() as db:
            rows = db.execute("SELECT statement, truth, note FROM beliefs ORDER BY created, rowid").fetchall()
        return [Belief(s, bool(t), n) for s, t, n in rows]

    def __len__(self) -> int:
        with self._connect() as db:
            return db.execute("SELECT COUNT(*) FROM beliefs").fetchone()[0]

    def _vectors_of(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, np.asarray(self.embed(missing), dtype=np.float32)):
                self._vectors[text] = vector / max(float(np.linalg.norm(vector)), 1e-12)
        return np.stack([self._vectors[t] for t in texts])

    def lookup(self, statements: Sequence[str]) -> list[Belief | None]:
        """The correction that applies to each statement (exact first, then most similar), or None."""
        stored = self.beliefs()
        if not stored:
            return [None] * len(statements)
        by_key = {normalise(b.statement): b for b in stored}
        found: list[Belief | None] = [by_key.get(normalise(s)) for s in statements]
        rest = [i for i, belief in enumerate(found) if belief is None]
        if rest and self.embed is not None:
            memory = self._vectors_of([b.statement for b in stored])
            queries = self._vectors_of([statements[i] for i in rest])
            similarity = queries @ memory.T
            for row, i in enumerate(rest):
                best = int(similarity[row].argmax())
                if similarity[row, best] >= self.threshold:
                    b = stored[best]
                    found[i] = Belief(b.statement, b.truth, b.note, "similar", float(similarity[row, best]))
        return found
