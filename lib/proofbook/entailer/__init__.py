"""Entailer (Tafjord, Dalvi Mishra & Clark, EMNLP 2022): faithful and truthful chains of reasoning.

Its modules, in reading order (each module's docstring states the paper's method and its departures from it):

- :mod:`~proofbook.entailer.formats` -- the official text formats of the three behaviours (``$proof$``,
  ``$valid$``, ``$implied$``);
- :mod:`~proofbook.entailer.hypotheses` -- question + answer option -> declarative hypothesis (rules, or a trained
  writer);
- :mod:`~proofbook.entailer.search_config` -- what the search is given: the interfaces of the behaviour model and
  of the memory, and its settings;
- :mod:`~proofbook.entailer.behaviours` -- the two implementations of the three behaviours (models trained here,
  or a local ``allenai/entailer-large`` folder), and the facts they read;
- :mod:`~proofbook.entailer.training_data` -- the data that trains the behaviours here: premise-generation pairs
  and the scorers' labelled examples;
- :mod:`~proofbook.entailer.memory` -- a teachable belief memory that overrides the truth scorer (the paper's
  future work);
- :mod:`~proofbook.entailer.proposals` -- where candidate premise sets come from: generated, retrieved from a fact
  corpus, or both;
- :mod:`~proofbook.entailer.trees` -- entailment trees with every node's scores, as text and HTML;
- :mod:`~proofbook.entailer.search` -- backward chaining, answer selection, Entailer+Direct;
- :mod:`~proofbook.entailer.datasets` -- the evaluation splits and questions a chapter reads, the cleaned training
  sets;
- :mod:`~proofbook.entailer.settings` -- the sizes of every model and training run, and the search settings;
- :mod:`~proofbook.entailer.components` -- the behaviours trained with the artifact cache;
- :mod:`~proofbook.entailer.selection` -- choosing the truth and entailment scorers on training data only (a
  model-selection split of OpenBookQA train);
- :mod:`~proofbook.entailer.entailer_experiments` -- what the notebooks call: the systems, their runs and result
  rows, premise recall;
- :mod:`~proofbook.entailer.analysis` -- the error categories of wrong answers and the belief memory demonstration;
- :mod:`~proofbook.entailer.tree_showcase` -- the method chapter's showcase: a question whose tree grows to depth
  two or more.
"""
