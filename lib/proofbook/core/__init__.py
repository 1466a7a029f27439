"""The shared core: what every paper's code stands on, and nothing paper-specific.

Its modules, in reading order:

- :mod:`~proofbook.core.paths` -- the repository root and the record of the data files a process read;
- :mod:`~proofbook.core.corpus` -- titled documents split into sentences with stable ``(title, index)`` ids;
- :mod:`~proofbook.core.settings` -- settings that make their own cache keys (every field enters the key);
- :mod:`~proofbook.core.cache` -- the artifact cache (trained models, indexes, predictions keyed by config and data);
- :mod:`~proofbook.core.codecs` -- how a cache entry's value is written into its folder and read back;
- :mod:`~proofbook.core.training` -- the one training loop every model of the book is trained with;
- :mod:`~proofbook.core.results` -- result rows and the results file a notebook writes;
- :mod:`~proofbook.core.provenance` -- the digest of what a results file depends on;
- :mod:`~proofbook.core.intervals` -- bootstrap intervals and paired differences;
- :mod:`~proofbook.core.paper_claims` -- the papers' claims, their rules and the verdict function;
- :mod:`~proofbook.core.examples` -- picking the examples a chapter shows;
- :mod:`~proofbook.core.netguard` -- refusing network access in the tests.

Layers point one way (``make test`` checks it with import-linter contracts, see ``.importlinter``):
``core`` < ``data`` < ``models`` < ``index`` < ``render`` < the paper packages (``admiral``, ``wild``,
``entailer``, which never import one another) < the command line (``cli`` and ``__main__``).
"""
