"""Rendering shared by the book's chapters: their set-up, the figures and the tables they show.

Renderers read plain attributes of the objects they show and import no paper package.  Its modules, in
reading order:

- :mod:`~proofbook.render.chapter` -- the set-up every chapter of the book starts with, in one call;
- :mod:`~proofbook.render.figures` -- the plotting style and ``save_figure``: one place where figures are saved, and the ROC curves;
- :mod:`~proofbook.render.calibration` -- reliability diagrams and the expected calibration error of a score;
- :mod:`~proofbook.render.mechanisms` -- pictures of the methods themselves: AdMIRaL's loop, a prefix tree's slice,
  the natural-logic automaton, an entailment tree;
- :mod:`~proofbook.render.tables` -- a table a reader can filter and sort in the HTML book, offline;
- :mod:`~proofbook.render.retrieval` -- tables of what AdMIRaL's retrieval did for one claim;
- :mod:`~proofbook.render.report` -- the reproduction report's summary of verdicts and its figure: each claim's
  value in this run, for the paper's method and the stand-in, against the paper's number;
- :mod:`~proofbook.render.architecture` -- the library's layers, read from its code: which package imports which.
"""
