"""AdMIRaL's document retrieval: BM25, prefix-tree constrained title generation, reranking, the multi-hop loop.

Its modules, in reading order (BM25 and the prefix trees are shared, in :mod:`proofbook.index`):

- :mod:`~proofbook.admiral.retrieval.tasks` -- the retrieval tasks: claims with gold documents and sentences, and
  a corpus;
- :mod:`~proofbook.admiral.retrieval.metrics` -- the document-retrieval metrics, as this book defines them;
- :mod:`~proofbook.admiral.retrieval.reranker` -- the sentence reranker (§3.1, pipeline steps 2 and 5);
- :mod:`~proofbook.admiral.retrieval.hop_examples` -- the title generator's input and target format, and its
  training examples;
- :mod:`~proofbook.admiral.retrieval.pretraining` -- copy pre-training for the title generators: corpus sentences
  that mention a title -> that title;
- :mod:`~proofbook.admiral.retrieval.autoregressive` -- the autoregressive retriever: a seq2seq model that writes
  the title of the next document;
- :mod:`~proofbook.admiral.retrieval.multihop` -- the multi-hop loop: initial retrieval, then autoregressive hops,
  until the evidence suffices;
- :mod:`~proofbook.admiral.retrieval.retrieval_experiments` -- training and evaluating the retrieval systems of
  ``admiral/02_experiments``;
- :mod:`~proofbook.admiral.retrieval.errors` -- where the retrieval loses a gold document: the stage that dropped it;
- :mod:`~proofbook.admiral.retrieval.efficiency` -- the efficiency claims, measured: index memory, build time,
  latency as the corpus grows;
- :mod:`~proofbook.admiral.retrieval.scaling` -- AdMIRaL and dense retrieval timed as the knowledge base grows;
- :mod:`~proofbook.admiral.retrieval.hop_showcase` -- the method chapter's showcase: a claim on which the
  autoregressive hop adds a gold page.
"""
