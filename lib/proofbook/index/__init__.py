"""Indexes shared by the three papers: BM25 (two backends and the index file), dense sentence embeddings and
their index, and prefix trees over token sequences (the constraint behind every constrained decoder)."""
