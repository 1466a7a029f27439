"""Indexes shared by the three papers: BM25 (two backends and the index file), dense sentence embeddings and
their index, and prefix trees over token sequences (the constraint behind every constrained decoder).

Its modules, in reading order:

- :mod:`~proofbook.index.ranking` -- the ``k`` best of a score vector, in a deterministic order: every index
  ranks with it;
- :mod:`~proofbook.index.bm25` -- BM25 retrieval (AdMIRaL's first step) and the one word rule of every index;
- :mod:`~proofbook.index.bm25_backends` -- BM25's two scoring backends: the reference and the fast one;
- :mod:`~proofbook.index.index_file` -- the BM25 page index stored flat, as a file: what its size is;
- :mod:`~proofbook.index.lucene` -- Lucene BM25 through Pyserini, behind the same interface;
- :mod:`~proofbook.index.dense` -- the dense multi-hop baseline ``dense-mdr``: MDR-style retrieval with a MiniLM
  bi-encoder;
- :mod:`~proofbook.index.vector_search` -- approximate nearest-neighbour search (FAISS) for the dense baseline
  at scale;
- :mod:`~proofbook.index.prefix_tree` -- the prefix tree over token-id sequences, each complete sequence mapped
  to a value;
- :mod:`~proofbook.index.constraints` -- constrained decoding: the title trie, sentence pointers and sequence
  constraints that walk prefix trees.
"""
