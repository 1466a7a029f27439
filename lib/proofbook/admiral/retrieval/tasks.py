"""The retrieval tasks of AdMIRaL's experiments: claims with gold documents and sentences, and a corpus.

AdMIRaL (Aly & Vlachos 2022, §4) evaluates document retrieval on FEVER, FEVEROUS-S and HoVer over full
Wikipedia.  Here: ``hover`` and ``feverous_s`` retrieve over closed corpora pooled from
the gold pages of all claims in the data directory, and ``feverous_s+distractors`` adds every HoVer and
Fool Me Twice page to the FEVEROUS-S corpus so that retrieval has something to do.

The train/evaluation rule is fixed: a claim is evaluated iff ``int(sha1(key), 16) % 5 >= 3`` (key: the
HoVer ``uid``, ``str(id)`` for FEVEROUS-S); the other 60% train the models.  A claim counts in
retrieval metrics only if all its gold titles are in the corpus ("evaluable"); the rest are counted.
Evaluation claims are kept in a fixed pseudo-random order (``sha1("order:" + key)``): the HoVer file is
grouped by hop count, so only in this order is a prefix ``evaluation[:n]`` -- what a chapter's ``limit``
takes -- a fair sample of 2-, 3- and 4-hop claims.
"""
from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass, field

from proofbook.core.corpus import Corpus
from proofbook.data.base import in_evaluation_part
from proofbook.data.feverous import build_feverous_corpus, read_feverous_claims
from proofbook.data.fm2 import build_fm2_corpus, read_fm2_claims
from proofbook.data.hover import build_hover_corpus, read_hover_claims

DATASETS = ("hover", "feverous_s", "feverous_s+distractors")


@dataclass(frozen=True)
class RetrievalClaim:
    """A claim with its gold evidence: documents (in evidence order) and sentence ids ``(title, index)``."""

    id: str
    claim: str
    gold_titles: tuple[str, ...]
    gold_sentences: tuple[tuple[str, int], ...]
    num_hops: int
    label: str


@dataclass
class RetrievalTask:
    """One dataset's corpus, training claims and evaluation claims (evaluable ones only)."""

    dataset: str
    corpus: Corpus
    train: list[RetrievalClaim]
    evaluation: list[RetrievalClaim]
    not_evaluable: dict[str, int] = field(default_factory=dict)   # part -> claims whose gold pages are missing
    unmatched_sentences: int = 0   # gold sentence ids that do not exist in the corpus page (dropped)

    def summary(self) -> dict:
        """The task's sizes: pages, sentences, claims per part, and the claims and gold sentences dropped."""
        return {"dataset": self.dataset, "pages": len(self.corpus), "sentences": self.corpus.n_sentences(),
                "train_claims": len(self.train), "evaluation_claims": len(self.evaluation),
                "not_evaluable": dict(self.not_evaluable), "unmatched_sentences": self.unmatched_sentences}


def _split(claims: list[RetrievalClaim], keys: list[str], corpus: Corpus, task: RetrievalTask) -> None:
    order = []
    for claim, key in zip(claims, keys):
        part = "evaluation" if in_evaluation_part(key) else "train"
        if not all(title in corpus for title in claim.gold_titles):
            task.not_evaluable[part] = task.not_evaluable.get(part, 0) + 1
            continue
        if part == "evaluation":
            order.append((hashlib.sha1(f"order:{key}".encode()).hexdigest(), len(order), claim))
        else:
            task.train.append(claim)
    task.evaluation.extend(claim for *_, claim in sorted(order, key=lambda item: item[:2]))


def _hover(data_dir) -> tuple[Corpus, list[RetrievalClaim], list[str], int]:

    raw = read_hover_claims(data_dir, "dev")
    corpus = build_hover_corpus(data_dir, raw)
    claims, unmatched = [], 0
    for claim in raw:
        sentences = []
        for title, index in dict.fromkeys(claim.supporting_facts):
            # sentence ids index HotpotQA's sentence split; ours re-splits the paragraph, so an id past
            # the end of our page cannot be matched (counted, dropped)
            if title in corpus and index < len(corpus[title].sentences):
                sentences.append((title, index))
            elif title in corpus:
                unmatched += 1
        claims.append(RetrievalClaim(claim.uid, claim.claim, tuple(claim.gold_titles), tuple(sentences),
                                     claim.num_hops, claim.label))
    return corpus, claims, [c.uid for c in raw], unmatched


def _feverous(data_dir) -> tuple[Corpus, list[RetrievalClaim], list[str], int]:

    raw = read_feverous_claims(data_dir, "dev")
    corpus = build_feverous_corpus(raw)
    claims = []
    for claim in raw:
        sentences = tuple(dict.fromkeys((title, corpus[title].sentences.index(text)) for title, text in claim.evidence))
        claims.append(RetrievalClaim(str(claim.id), claim.claim, tuple(claim.gold_titles), sentences,
                                     len(claim.gold_titles), claim.label))
    return corpus, claims, [str(c.id) for c in raw], 0


def load_task(dataset: str, data_dir: os.PathLike | str | None = None) -> RetrievalTask:
    """The corpus and the train / evaluation claims of ``dataset`` (one of :data:`DATASETS`)."""
    if dataset not in DATASETS:
        raise ValueError(f"unknown retrieval dataset {dataset!r}; expected one of {list(DATASETS)}")
    if dataset == "hover":
        corpus, claims, keys, unmatched = _hover(data_dir)
    else:
        corpus, claims, keys, unmatched = _feverous(data_dir)
        if dataset == "feverous_s+distractors":

            hover_corpus = _hover(data_dir)[0]
            corpus = corpus.merged(hover_corpus, build_fm2_corpus(read_fm2_claims(data_dir, "dev")),
                                   name="feverous_s+distractors")
    corpus.name = dataset
    task = RetrievalTask(dataset, corpus, [], [], unmatched_sentences=unmatched)
    _split(claims, keys, corpus, task)
    return task


def smoke_task(task: RetrievalTask, n_train: int = 24, n_evaluation: int = 12, n_distractors: int = 60,
               seed: int = 0) -> RetrievalTask:
    """A small copy of ``task`` for smoke runs: a few claims, their gold pages and some other pages.

    The corpus keeps the gold pages of the kept claims plus ``n_distractors`` other pages drawn with
    ``seed``, so that every step of the pipeline runs in seconds; numbers from it mean nothing.
    """

    train, evaluation = task.train[:n_train], task.evaluation[:n_evaluation]
    keep = {title for claim in train + evaluation for title in claim.gold_titles}
    others = [title for title in task.corpus.titles if title not in keep]
    keep |= set(random.Random(seed).sample(others, min(n_distractors, len(others))))
    corpus = Corpus(f"{task.dataset}-smoke")
    for doc in task.corpus:
        if doc.title in keep:
            corpus.add(doc.title, doc.sentences)
    return RetrievalTask(task.dataset, corpus, train, evaluation, dict(task.not_evaluable), task.unmatched_sentences)
