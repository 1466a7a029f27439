"""AdMIRaL's document retrieval: BM25, prefix-tree constrained title generation, reranking, the multi-hop loop."""
