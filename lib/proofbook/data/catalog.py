"""One view of every dataset the book reads: counts for the introduction's table and its figure.

Each reader module exposes ``describe(data_dir)`` (one row per file or split present); this module
collects them in book order and adds the few summaries the introduction shows.  Files that are absent
(held-back test splits, a partial data directory) are left out, never an error.
"""
from __future__ import annotations

import json
import os
import random
from collections import Counter
from importlib import import_module
from pathlib import Path

from proofbook.core.paths import record_read, resolve_data_dir
from proofbook.core.results import load_results
from proofbook.data import entailmentbank, fever_symmetric, feverous, fm2, hover, politifact, science_qa
from proofbook.data.fetch import load_sources
from proofbook.data.hover import build_hover_corpus, read_hover_claims

#: reader modules in the order of the book's papers: AdMIRaL, claims in the wild, Entailer
READER_MODULES = ("hover", "feverous", "fm2", "fever_symmetric", "natlog", "nli", "misc_fever",
                  "politifact", "science_qa", "entailmentbank")


def describe_all(data_dir: os.PathLike | str | None = None) -> list[dict]:
    """Rows ``{dataset, split, records, detail}`` for every dataset file present in ``data_dir``."""
    data_dir = resolve_data_dir(data_dir)
    rows = []
    for name in READER_MODULES:
        rows.extend(import_module(f"proofbook.data.{name}").describe(data_dir))
    return rows


def hover_corpus_summary(data_dir: os.PathLike | str | None = None) -> dict:
    """How the closed HoVer corpus was built from the dev claims present (see :mod:`proofbook.data.hover`)."""

    claims = read_hover_claims(data_dir, "dev")
    corpus = build_hover_corpus(data_dir, claims)
    stats = corpus.stats
    return {"claims": len(claims), "pages": len(corpus), "sentences": corpus.n_sentences(),
            "paragraphs": stats.paragraphs, "match_rate": stats.match_rate, "opened_with_title": stats.opened_rate,
            "ties": stats.ties, "conflicts": stats.conflicts, "evaluable_claims": len(corpus.evaluable_claims(claims))}


def hover_hops(data_dir: os.PathLike | str | None = None) -> dict[int, int]:
    """HoVer dev claims by number of hops (documents needed)."""

    return dict(sorted(Counter(claim.num_hops for claim in read_hover_claims(data_dir, "dev")).items()))


def _texts(data_dir) -> dict[str, list[str]]:

    readers = {
        "hover": lambda: [c.claim for c in hover.read_hover_claims(data_dir, "dev")],
        "feverous_s": lambda: [c.claim for c in feverous.read_feverous_claims(data_dir, "dev")],
        "fm2": lambda: [c.claim for c in fm2.read_fm2_claims(data_dir, "dev")],
        "fever_symmetric": lambda: [p.claim for p in fever_symmetric.read_fever_symmetric(data_dir, "dev")],
        "claimdecomp": lambda: [c.claim for c in politifact.read_claimdecomp(data_dir, "dev")],
        "liar": lambda: [s.statement for s in politifact.read_liar(data_dir, "train")],
        "obqa": lambda: [q.stem for q in science_qa.read_obqa(data_dir, "dev")],
        "qasc": lambda: [q.stem for q in science_qa.read_qasc(data_dir, "dev")],
        "entailmentbank": lambda: [t.hypothesis for t in entailmentbank.read_entailmentbank(data_dir, "dev", 1)],
    }
    texts = {}
    for name, read in readers.items():
        try:
            texts[name] = read()
        except FileNotFoundError:
            continue
    return texts


def claim_lengths(data_dir: os.PathLike | str | None = None, limit: int | None = None, seed: int = 0) -> dict[str, list[int]]:
    """Words per claim (or question / hypothesis) for each dataset present; ``limit`` samples that many."""
    lengths = {}
    for name, texts in _texts(resolve_data_dir(data_dir)).items():
        if limit is not None and len(texts) > limit:
            texts = random.Random(seed).sample(texts, limit)
        lengths[name] = [len(text.split()) for text in texts]
    return lengths


def sources_table(data_dir: os.PathLike | str | None = None, results_dir: os.PathLike | str | None = None) -> list[dict]:
    """One row per dataset folder of the catalog (``sources.json``): where it comes from (repository and
    commit), its licence as its release states it, its files, how many of them (and how many bytes) are in
    ``data_dir``, and the chapters whose results files say they read it (their ``input_digest``)."""

    data_dir = resolve_data_dir(data_dir)
    readers: dict[str, set[str]] = {}
    if results_dir is not None and Path(results_dir).is_dir():
        for path in sorted(Path(results_dir).rglob("*.json")):
            if path.parent.name == "reference":       # the reference pages' own results
                continue
            try:                            # a broken results file is an error naming it, never skipped
                data = load_results(path)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}: not a JSON results file: {err}") from None
            record_read(path)
            for name in data.get("input_digest", {}).get("data", {}):
                readers.setdefault(name.split("/", 1)[0], set()).add(data.get("notebook", path.stem))
    rows = []
    for folder, entry in load_sources().items():
        files = entry.get("files", [])
        present = [data_dir / folder / f["name"] for f in files if (data_dir / folder / f["name"]).is_file()]
        origins = sorted({f"{f['repo']}@{f['commit'][:7]}" for f in files if "repo" in f and "commit" in f})
        rows.append({"dataset folder": folder, "source": "; ".join(origins) or "(see SOURCE.md)",
                     "licence": entry.get("licence", ""), "files": len(files), "present": len(present),
                     "bytes present": sum(p.stat().st_size for p in present),
                     "read by": ", ".join(sorted(readers.get(folder, ()))) or "none"})
    return rows


def one_example_each(data_dir: os.PathLike | str | None = None, seed: int = 0) -> dict[str, list[str]]:
    """One real example per paper, as lines to print, drawn with ``seed`` from the dev splits present: a HoVer
    claim (AdMIRaL) with its label and the pages and sentence numbers its annotators needed; a ClaimDecomp claim
    (claims in the wild) with its speaker, venue and PolitiFact label; an OpenBookQA question (Entailer) with its
    options and answer.  A dataset whose files are absent is left out."""
    data_dir = resolve_data_dir(data_dir)
    rng = random.Random(seed)

    def hover_lines() -> list[str]:
        claim = rng.choice([c for c in hover.read_hover_claims(data_dir, "dev") if c.is_labelled])
        pages = [f"  {title} (sentence {sentence})" for title, sentence in claim.supporting_facts]
        return [f"HoVer claim {claim.uid} ({claim.num_hops} hops): {claim.claim}", f"label: {claim.label}",
                "gold pages:", *pages]

    def claimdecomp_lines() -> list[str]:
        claim = rng.choice(list(politifact.read_claimdecomp(data_dir, "dev")))
        return [f"ClaimDecomp claim {claim.example_id}: {claim.person} {claim.venue} {claim.claim}",
                f"PolitiFact's label: {claim.label}"]

    def obqa_lines() -> list[str]:
        question = rng.choice(list(science_qa.read_obqa(data_dir, "dev")))
        return [f"OpenBookQA question {question.id}: {question.stem}",
                *[f"  ({o.label}) {o.text}" for o in question.options], f"answer: ({question.answer_key})"]

    examples = {}
    for paper, lines in (("AdMIRaL", hover_lines), ("Claims in the wild", claimdecomp_lines), ("Entailer", obqa_lines)):
        try:
            examples[paper] = lines()
        except FileNotFoundError:
            continue
    return examples
