"""The command line behind ``python -m proofbook``: the notebook runner, the results check, the book's browser
check, ``explain`` and ``exercises``.

The only layer that may import every paper package; its entry point is :mod:`proofbook.__main__`.  Its
modules, in reading order:

- :mod:`~proofbook.cli.runner` -- ``run`` and ``run-all``: the book's notebooks executed with papermill;
- :mod:`~proofbook.cli.parallel` -- ``run-all --workers N [--ray ADDRESS]``: the notebooks as Ray tasks, several at
  a time;
- :mod:`~proofbook.cli.parameters` -- the typed parameters of a notebook's ``parameters`` cell, checked and
  converted;
- :mod:`~proofbook.cli.locks` -- who may write a results folder now: one ``run-all`` alone, or any number of
  ``run`` on different notebooks;
- :mod:`~proofbook.cli.status` -- ``status``: when each chapter last ran, for how long, and whether its results
  are current;
- :mod:`~proofbook.cli.check` -- ``check``: are the committed results exactly what the code computes?
- :mod:`~proofbook.cli.bookcheck` -- ``check-book``: every page of the built book opened in headless Chromium,
  as a reader would;
- :mod:`~proofbook.cli.explain` -- ``explain``: one claim or question through a paper's method, step by step;
- :mod:`~proofbook.cli.exercises` -- ``exercises``: each chapter's exercises as data, and one of them run and timed.
"""
