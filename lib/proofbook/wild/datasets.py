"""What the claims-in-the-wild chapters read (Chen et al. 2023, §3): every file of the chapter in one object.

:func:`load_data` reads, from ``data_dir``, ClaimDecomp dev/test with their annotated questions and
justifications, the fine-tuning chats, the search cache and the cached questions, LIAR and LIAR-PLUS ``val2``
into a :class:`WildData`; :func:`data_summary` counts them for the chapter's table and :func:`snippet_words`
measures the search snippets.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from proofbook.core.paths import resolve_data_dir
from proofbook.data import politifact as pf
from proofbook.data.politifact_text import label_counts
from proofbook.wild.search import Page


@dataclass
class WildData:
    """Everything read from ``data_dir``; ``evaluation`` maps ``(dataset, split)`` to its claims."""

    root: Path
    claimdecomp: dict[str, list]
    liar: dict[str, list]
    liar_plus_val2: list
    finetune_train: list
    search_cache: dict
    cached_questions: dict
    evaluation: dict[tuple[str, str], list] = field(default_factory=dict)

    def files(self) -> list[Path]:
        """The data files that enter cache keys."""
        names = [f"claimdecomp/{s}.jsonl" for s in self.claimdecomp] + [f"liar/{s}.tsv" for s in self.liar]
        names += ["liar_plus/val2.tsv", "claimdecomp/finetune_train.jsonl",
                  f"{pf.CACHE_FOLDER}/{pf.SEARCH_CACHE_FILES['gpt']}", f"{pf.CACHE_FOLDER}/{pf.SUBQUESTION_FILES['icl_gpt']}"]
        return [self.root / n for n in names if (self.root / n).is_file()]


def load_data(data_dir: os.PathLike | str | None = None, split: str | None = None, limit: int | None = None) -> WildData:
    """Read the chapter's files; choose the evaluation claims by ``split`` (None: every labelled split) and ``limit``.

    Evaluation splits: ClaimDecomp ``test`` and ``dev``; LIAR ``valid`` and ``test`` when present.
    """
    root = resolve_data_dir(data_dir)
    claimdecomp = {s: list(pf.read_claimdecomp(root, s)) for s in ("dev", "test")
                   if (root / pf.CLAIMDECOMP_FOLDER / f"{s}.jsonl").is_file()}
    liar = {s: list(pf.read_liar(root, s)) for s in pf.LIAR_SPLITS if (root / pf.LIAR_FOLDER / f"{s}.tsv").is_file()}
    if "test" not in claimdecomp or "train" not in liar:
        raise FileNotFoundError(f"{root}: the chapter needs claimdecomp/test.jsonl and liar/train.tsv")
    data = WildData(root, claimdecomp, liar, list(pf.read_liar_plus(root, "val2")),
                    list(pf.read_claimdecomp_finetune(root, "train")), pf.read_search_cache(root, "gpt"),
                    pf.read_cached_subquestions(root, "icl_gpt"))
    known = {("claimdecomp", "test"), ("claimdecomp", "dev"), ("liar", "valid"), ("liar", "test")}
    if split is not None and split not in {s for _, s in known}:
        raise ValueError(f"split {split!r}: expected one of test, dev, valid (or None for all)")
    for dataset, name in sorted(known):
        records = (claimdecomp if dataset == "claimdecomp" else liar).get(name)
        if records is not None and split in (None, name):
            data.evaluation[(dataset, name)] = records[:limit] if limit else records
    return data


def data_summary(data: WildData) -> list[dict]:
    """One row per file read, for the notebooks' data table."""
    rows = [{"data": f"claimdecomp {s}", "claims": len(c), "labels": label_counts(x.label for x in c)}
            for s, c in data.claimdecomp.items()]
    rows += [{"data": f"liar {s}", "claims": len(c), "labels": label_counts(x.label for x in c)} for s, c in data.liar.items()]
    rows.append({"data": "liar_plus val2", "claims": len(data.liar_plus_val2),
                 "labels": label_counts(x.label for x in data.liar_plus_val2)})
    rows.append({"data": "claimdecomp finetune_train", "claims": len(data.finetune_train),
                 "labels": f"{sum(len(e.subquestions) for e in data.finetune_train):,} annotated questions, no labels"})
    rows.append({"data": "search cache (websites_gpt_icl)", "claims": len(data.search_cache),
                 "labels": f"{sum(map(len, data.search_cache.values())):,} results (title + snippet)"})
    return rows


def snippet_words(data: WildData) -> float:
    """Mean number of words of a cached result as fine-grained retrieval sees it (title + snippet)."""
    lengths = [len(Page(r.url, r.title, r.snippet).document.split()) for rs in data.search_cache.values() for r in rs]
    return float(np.mean(lengths)) if lengths else 0.0
