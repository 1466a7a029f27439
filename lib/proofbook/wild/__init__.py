"""Claims in the wild (Chen, Kim, Sriram, Durrett & Choi 2023): the five-stage pipeline.

Its modules, in reading order (the data, the five stages, then what runs them):

- :mod:`~proofbook.wild.datasets` -- what the chapters read: every file of the chapter in one object;
- :mod:`~proofbook.wild.decomposition` -- claim decomposition: a claim -> yes/no questions;
- :mod:`~proofbook.wild.search` -- raw-document search, with the paper's time and site filters;
- :mod:`~proofbook.wild.fine_grained` -- fine-grained evidence retrieval: windows, BM25, expansion, merging;
- :mod:`~proofbook.wild.summaries` -- claim-focused summaries;
- :mod:`~proofbook.wild.veracity` -- the six-way veracity classifier;
- :mod:`~proofbook.wild.veracity_metrics` -- accuracy, macro-F1, MAE on label indices, soft accuracy;
- :mod:`~proofbook.wild.pipeline` -- the five stages on one claim, with the time of each;
- :mod:`~proofbook.wild.trained_models` -- the trained veracity classifiers and question generator, in one object;
- :mod:`~proofbook.wild.wild_experiments` -- what the notebooks call: training sets, models, runs, result rows;
- :mod:`~proofbook.wild.tables` -- the chapters' tables, as pandas frames;
- :mod:`~proofbook.wild.claim_showcase` -- the method chapter's showcase: a claim on which every stage has
  something to show.
"""
