"""AdMIRaL (Aly & Vlachos, 2022): multi-hop document retrieval with natural-logic sufficiency.

Its packages, in reading order:

- :mod:`proofbook.admiral.retrieval` -- BM25 retrieve-and-rerank, autoregressive title generation constrained
  by a prefix tree, the multi-hop loop (:mod:`~proofbook.admiral.retrieval.multihop`), metrics and the
  experiments the retrieval chapters call;
- :mod:`proofbook.admiral.prover` -- natural-logic proofs (the automaton, aligned and generated proofs, the
  operator models) and the sufficiency check that decides when to stop retrieving.
"""
