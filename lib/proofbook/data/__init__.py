"""Dataset readers: official formats in, typed records out, one module per family of datasets.

Every reader follows the rule stated in :mod:`proofbook.data.base`: bad input raises one
:class:`~proofbook.data.textfile.DataError` naming the file, the line and the field; irregular rows of the
official data are kept and counted.

A family module has readers that take ``data_dir`` and ``split``, parsers that take any file path in the
official format, and ``describe(data_dir)`` for the book's table.  A format or notation that needs a
module of its own sits beside its family's module.  No module re-exports another's names: import each
name from the module that defines it.  The modules, in reading order:

Shared by every reader

- :mod:`~proofbook.data.textfile` -- :class:`~proofbook.data.textfile.DataError`, record line numbers,
  files read strictly as UTF-8 lines.
- :mod:`~proofbook.data.jsonparse` -- the strict JSON decoder; JSON-lines, JSON-list and JSON-object files.
- :mod:`~proofbook.data.base` -- the readers' rule; data paths and splits, the TSV reader, field checks,
  ``Records`` and their skip reports.

AdMIRaL

- :mod:`~proofbook.data.hover` -- HoVer claims, ProgramFC's gold paragraphs and the closed corpus built from them.
- :mod:`~proofbook.data.hover_match` -- the title-paragraph score and assignment that title the gold paragraphs.
- :mod:`~proofbook.data.feverous` -- FEVEROUS-S claims and the corpus of their gold sentences.
- :mod:`~proofbook.data.fm2` -- Fool Me Twice claims and the corpus of their gold sentences.
- :mod:`~proofbook.data.fever_symmetric` -- Symmetric FEVER pairs and the FEVER claim ids they come from.
- :mod:`~proofbook.data.natlog` -- QA-NatVer's proofs: few-shot targets, processed few-shot files, silver proofs.
- :mod:`~proofbook.data.proofver` -- ProoFVer's proof notation: operators, verdicts, steps, proof strings.
- :mod:`~proofbook.data.natlog_processed` -- the records and parser of QA-NatVer's processed few-shot files.
- :mod:`~proofbook.data.nli` -- sentence-pair entailment sets: SICK, SciTail, MED, WiCE, FraCaS.
- :mod:`~proofbook.data.nli_labels` -- the label vocabularies of the NLI sets, MED and MED 2-hop.
- :mod:`~proofbook.data.med_2hop` -- the record and parser of MED 2-hop (two edits with their relations).
- :mod:`~proofbook.data.misc_fever` -- Climate-FEVER and EX-FEVER.

Claims in the wild

- :mod:`~proofbook.data.politifact` -- ClaimDecomp and every PolitiFact reader that takes a data directory.
- :mod:`~proofbook.data.liar` -- the LIAR and LIAR-PLUS records, parsers and column layout.
- :mod:`~proofbook.data.politifact_search` -- ClaimDecomp's cached web search and cached LLM subquestions.
- :mod:`~proofbook.data.politifact_text` -- Truth-O-Meter labels, venues, dates, classifier input, statement keys.

Entailer

- :mod:`~proofbook.data.science_qa` -- OpenBookQA and QASC multiple-choice questions.
- :mod:`~proofbook.data.entailmentbank` -- EntailmentBank trees, their one-step entailments, WorldTree facts.
- :mod:`~proofbook.data.entailment_text` -- EntailmentBank's context, proof and slot notations.

The book

- :mod:`~proofbook.data.catalog` -- every family's ``describe`` in book order, for the introduction's table.
- :mod:`~proofbook.data.fetch` -- ``make data``: fills the data directory from a mirror or the official sources.
"""
