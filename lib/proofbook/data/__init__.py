"""Dataset readers: official formats in, typed records out (see :mod:`proofbook.data.base`).

Every reader follows the rule stated in :mod:`proofbook.data.base`: bad input raises one
:class:`~proofbook.data.base.DataError` naming the file, the line and the field; irregular rows of the
official data are kept and counted.

One module per family of datasets, each with readers that take ``data_dir`` and ``split``, parsers that
take any file path in the official format, and ``describe(data_dir)`` for the book's table
(:mod:`proofbook.data.catalog` collects them):

- AdMIRaL: :mod:`~proofbook.data.hover` (claims + the closed corpus built from the gold paragraphs),
  :mod:`~proofbook.data.feverous` (FEVEROUS-S), :mod:`~proofbook.data.fm2` (Fool Me Twice),
  :mod:`~proofbook.data.fever_symmetric`, :mod:`~proofbook.data.natlog` (QA-NatVer / ProoFVer proofs),
  :mod:`~proofbook.data.nli` (SICK, SciTail, MED, WiCE, FraCaS), :mod:`~proofbook.data.misc_fever`
  (Climate-FEVER, EX-FEVER).
- Claims in the wild: :mod:`~proofbook.data.politifact` (ClaimDecomp + its search cache, LIAR, LIAR-PLUS).
- Entailer: :mod:`~proofbook.data.science_qa` (OpenBookQA, QASC), :mod:`~proofbook.data.entailmentbank`
  (EntailmentBank + WorldTree).

``make data`` (:mod:`proofbook.data.fetch`) fills the data directory.
"""
