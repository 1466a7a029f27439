"""Entailer (Tafjord, Dalvi Mishra & Clark, EMNLP 2022): faithful and truthful chains of reasoning.

Modules (each module's docstring states the paper's method and its departures from it):

* :mod:`.formats` -- the official text formats of the three behaviours (``$proof$``, ``$valid$``, ``$implied$``);
* :mod:`.hypotheses` -- question + answer option -> declarative hypothesis (rules, or a trained writer);
* :mod:`.training_data` -- the model interface (premise generator, truth scorer, entailment scorer): models
  trained here, or a local ``allenai/entailer-large`` folder; the scorers' training data;
* :mod:`.search` -- backward chaining, answer selection, Entailer+Direct;
* :mod:`.trees` -- entailment trees with every node's scores, as text and HTML;
* :mod:`.memory` -- a teachable belief memory that overrides the truth scorer (the paper's future work);
* :mod:`.datasets` -- the evaluation splits and questions a chapter reads, the cleaned training sets;
* :mod:`.components` -- the settings and the behaviours trained with the artifact cache;
* :mod:`.entailer_experiments` -- what the notebooks call: the systems, their runs and result rows, premise recall;
* :mod:`.analysis` -- the error categories of wrong answers and the belief memory demonstration.
"""
