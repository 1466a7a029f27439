"""proofbook: the library behind the book (AdMIRaL, claims in the wild, Entailer).

Data flows one way: dataset files -> :mod:`proofbook.data` readers -> typed records ->
:mod:`proofbook.core.corpus` / :mod:`proofbook.index` -> :mod:`proofbook.models` -> predictions -> metric rows
(:mod:`proofbook.core.results`) -> tables and figures (:mod:`proofbook.render`).  The code is cut in layers: a
shared layer (``core``, ``data``, ``models``, ``index``, ``render``), one package per paper (``admiral``,
``wild``, ``entailer``) and the command line (``cli``).  Notebooks only call into it.
"""
import os

from proofbook.core import netguard as _netguard

# Models load only from local folders: never reach for a model hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
if os.environ.get("PROOFBOOK_NO_NETWORK") == "1":
    _netguard.install()

__version__ = "0.1.0"
