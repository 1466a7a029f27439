"""Claims in the wild (Chen, Kim, Sriram, Durrett & Choi 2023): the five-stage pipeline.

:mod:`~proofbook.wild.decomposition` (claim -> yes/no questions),
:mod:`~proofbook.wild.search` (time- and site-filtered search), :mod:`~proofbook.wild.fine_grained`
(windows, BM25, expansion, merging), :mod:`~proofbook.wild.summaries` (claim-focused summaries) and
:mod:`proofbook.wild.veracity` (six-way veracity, metrics in :mod:`~proofbook.wild.veracity_metrics`).
:mod:`~proofbook.wild.pipeline` runs the five stages on one claim; :mod:`~proofbook.wild.datasets` reads every file
of the chapters; :mod:`~proofbook.wild.wild_experiments` (training, runs, rows) and :mod:`~proofbook.wild.tables` (the
chapters' tables) are what the notebooks in ``notebooks/wild/`` call.
"""
