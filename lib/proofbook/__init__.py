"""proofbook: the library behind the book (AdMIRaL, claims in the wild, Entailer).

Data flows one way: dataset files -> :mod:`proofbook.data` readers -> typed records ->
:mod:`proofbook.core.corpus` / :mod:`proofbook.index` -> :mod:`proofbook.models` -> predictions -> metric rows
(:mod:`proofbook.core.results`) -> tables and figures (:mod:`proofbook.render`).  The code is cut in layers: a
shared layer (``core``, ``data``, ``models``, ``index``, ``render``), one package per paper (``admiral``,
``wild``, ``entailer``) and the command line (``cli``).  Notebooks only call into it.

Its packages, in reading order:

- :mod:`proofbook.core` -- what every paper's code stands on: paths, the corpus, the artifact cache, the training
  loop, result rows;
- :mod:`proofbook.data` -- dataset readers: official formats in, typed records out;
- :mod:`proofbook.models` -- loading local checkpoints, the cross-encoder, the seq2seq model, the chat client;
- :mod:`proofbook.index` -- BM25, dense sentence embeddings and their index, prefix trees for constrained decoding;
- :mod:`proofbook.render` -- the chapters' set-up, figures and tables;
- :mod:`proofbook.admiral` -- AdMIRaL: multi-hop document retrieval with natural-logic sufficiency;
- :mod:`proofbook.wild` -- claims in the wild: the five-stage pipeline that checks a claim;
- :mod:`proofbook.entailer` -- Entailer: faithful and truthful chains of reasoning;
- :mod:`proofbook.cli` -- the command line: the notebook runner, the checks, ``explain``;
- :mod:`proofbook.__main__` -- ``python -m proofbook``: the command line's entry point.
"""
import os

from proofbook.core import netguard as _netguard

# Models load only from local folders: never reach for a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
if os.environ.get("PROOFBOOK_NO_NETWORK") == "1":
    _netguard.install()

__version__ = "0.1.0"
