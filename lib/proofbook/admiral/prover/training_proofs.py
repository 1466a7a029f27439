"""The proof generator's training proofs (AdMIRaL §3.2, ProoFVer's heuristic proofs).

AdMIRaL (Aly & Vlachos 2022, §3.2) trains its prover on natural-logic proofs in ProoFVer's format
(Krishna, Riedel & Vlachos 2022).  :func:`training_proofs` gathers them: the few-shot gold-like proofs of
QA-NatVer (with their evidence, :func:`fewshot_proofs`), plus proofs built here for the training claims of
HoVer and FEVEROUS-S (:func:`build_proofs` on :func:`evidence_sets`): the claim is chunked and each chunk
aligned to a gold evidence sentence's span (:mod:`proofbook.admiral.prover.alignment`), and the operator
model labels each pair (:mod:`proofbook.admiral.prover.operators`) -- choosing, as ProoFVer's heuristic
proofs do, the model's most probable operator sequence that reaches the claim's gold verdict.  For every
such claim a second, *insufficient* input drops one gold sentence (a distractor takes its place); the steps
that were aligned to the dropped sentence are re-aligned to what is left and get independence ``#`` -- the
paper's way of teaching the prover that missing evidence leaves the claim unproven.  Every input also holds
``distractors`` sentences from other pages, shuffled with the gold ones.

:func:`cached_training_proofs` keeps them in the artifact cache (kind ``natlog-training-proofs``), keyed by
the generator's settings, the training claims and the operator model that labelled the pairs.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from tqdm.auto import tqdm

from proofbook.admiral.prover.natlog import best_operators
from proofbook.data.proofver import OPERATORS, ProofStep, format_proof
from proofbook.admiral.prover.proof_format import clean, proof_input
from proofbook.admiral.prover.proofgen_settings import ProofgenSettings
from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.data.natlog import read_fewshot_processed


@dataclass(frozen=True)
class TrainingProof:
    """One training pair of the generator, with where it came from."""

    claim: str
    evidence: tuple[tuple[str, str], ...]
    target: str
    sufficient: bool          # the input holds every gold sentence (few-shot: always True)
    source: str               # "fewshot", "hover", "feverous_s"
    claim_id: str

    @property
    def input(self) -> str:
        return proof_input(self.claim, self.evidence)


def _rng(seed: int, key: str) -> random.Random:
    return random.Random(int(hashlib.sha1(f"{seed}:{key}".encode()).hexdigest(), 16))


def fewshot_proofs(data_dir=None) -> list[TrainingProof]:
    """QA-NatVer's processed few-shot proofs with gold evidence (FEVER train claims), one per proof variant."""

    out = []
    for example in read_fewshot_processed(data_dir, num_samples=64, use_retr="False"):
        out.append(TrainingProof(example.claim, tuple(example.evidence_sentences), format_proof(example.steps), True,
                                 "fewshot", str(example.claim_id)))
    return out


@dataclass(frozen=True)
class EvidenceSet:
    """A claim with a selection of sentences: all gold ones (``missing`` None) or all but gold sentence ``missing``."""

    claim: str
    claim_id: str
    sentences: tuple                  # proofbook.core.corpus.Sentence, gold and distractors shuffled
    gold: tuple                       # the gold Sentence objects present
    missing: object = None            # the dropped gold Sentence, if any
    source: str = ""
    label: str = ""                   # the claim's dataset label (SUPPORTED, refutes, ...)

    @property
    def sufficient(self) -> bool:
        return self.missing is None

    @property
    def evidence(self) -> tuple[tuple[str, str], ...]:
        return tuple((s.title, s.text) for s in self.sentences)


def seeded_order(claims, seed: int = 0) -> list:
    """``claims`` in an order drawn with ``seed`` (not file order: HoVer's file is grouped by label); every
    consumer of training claims takes consecutive slices of it, so their claims stay disjoint."""
    return sorted(claims, key=lambda c: hashlib.sha1(f"{seed}:order:{c.id}".encode()).hexdigest())


def evidence_sets(tasks, max_claims: int, distractors: int, max_evidence: int, seed: int = 0,
                  claims_per_task: dict | None = None, skip: int = 0) -> list[EvidenceSet]:
    """For each training claim (at most ``max_claims`` per task): a sufficient and an insufficient selection.

    Distractors are sentences of other pages of the same corpus, drawn with ``seed``; the insufficient
    selection drops one gold sentence (drawn) and adds one more distractor in its place.  ``skip`` passes
    over the first claims of the seeded order (the generator trains on the first ``max_claims``; the
    threshold calibration takes the next ones).
    """
    out = []
    for task in tasks:
        claims = (claims_per_task or {}).get(task.dataset) or task.train
        claims = [c for c in seeded_order(claims, seed) if c.gold_sentences][skip:]
        titles = task.corpus.titles
        kept = 0
        for claim in claims:
            if kept >= max_claims:
                break
            gold = [task.corpus.sentence(sid) for sid in claim.gold_sentences][:max_evidence - 1]
            if not gold:
                continue
            kept += 1
            rng = _rng(seed, f"{task.dataset}:{claim.id}")
            pool = [t for t in rng.sample(titles, min(len(titles), 8)) if t not in claim.gold_titles]
            noise = []
            for title in pool:
                doc = task.corpus[title]
                if doc.sentences:
                    noise.append(doc.sentence(rng.randrange(len(doc.sentences))))
                if len(noise) >= distractors + 1:
                    break
            full = gold + noise[:max(0, min(distractors, max_evidence - len(gold)))]
            rng.shuffle(full)
            out.append(EvidenceSet(claim.claim, claim.id, tuple(full), tuple(gold), None, task.dataset, claim.label))
            drop = rng.randrange(len(gold))
            partial = [s for s in full if s != gold[drop]] + noise[distractors:distractors + 1]
            rng.shuffle(partial)
            out.append(EvidenceSet(claim.claim, claim.id, tuple(partial), tuple(g for i, g in enumerate(gold) if i != drop),
                                   gold[drop], task.dataset, claim.label))
    return out


def target_verdict(label: str) -> str | None:
    """The verdict a proof of complete evidence must reach: SUPPORTS for a supported claim, REFUTES for a
    refuted / not supported one (HoVer's NOT_SUPPORTED claims come with their full evidence), else None."""
    label = label.strip().upper().replace(" ", "_")
    if label in ("SUPPORTED", "SUPPORTS"):
        return "SUPPORTS"
    if label in ("REFUTED", "REFUTES", "NOT_SUPPORTED"):
        return "REFUTES"
    return None


def build_proofs(sets: Sequence[EvidenceSet], aligner, operator_model, progress: bool = True,
                 verdict_constrained: bool = True) -> list[TrainingProof]:
    """Chunk, align and label: a sufficient set's proof aligns chunks to its gold sentences and asks the
    operator model; an insufficient set's proof is the same, with the chunks that were aligned to the
    missing sentence re-aligned to the remaining sentences and given ``#``.

    With ``verdict_constrained`` the operators of a complete-evidence proof are the operator model's most
    probable sequence *that reaches the claim's label* (:func:`~proofbook.admiral.prover.natlog.best_operators`), as
    ProoFVer's heuristic training proofs always reach the gold verdict; without it, each pair's argmax.
    """
    out: list[TrainingProof] = []
    full_sets = [s for s in sets if s.sufficient]
    by_claim = {(s.source, s.claim_id): s for s in full_sets}
    batch = 32
    alignments: dict[tuple[str, str], list] = {}
    for first in tqdm(range(0, len(full_sets), batch), desc="align gold evidence", disable=not progress):
        chunk = full_sets[first:first + batch]
        rows = aligner.align_many([s.claim for s in chunk], [[g.text for g in s.gold] for s in chunk])
        for s, row in zip(chunk, rows):
            alignments[(s.source, s.claim_id)] = row
    pairs = [(a.chunk, a.evidence_span) for row in alignments.values() for a in row]
    probabilities = iter(operator_model.predict_proba(pairs)) if pairs else iter(())
    labels = list(operator_model.encoder.labels) if hasattr(operator_model, "encoder") else list(OPERATORS)
    labelled = {}
    for key, row in alignments.items():
        steps = [dict(zip(labels, np.log(np.clip(next(probabilities), 1e-9, 1.0)).tolist())) for _ in row]
        target = target_verdict(by_claim[key].label) if verdict_constrained else None
        labelled[key] = best_operators(steps, target)
    lost: dict[int, list[str]] = {}
    for n, s in enumerate(sets):
        key = (s.source, s.claim_id)
        if not s.sufficient and key in alignments:
            missing_index = by_claim[key].gold.index(s.missing)
            chunks = [a.chunk for a in alignments[key] if a.sentence == missing_index]
            if chunks:   # nothing aligned to the dropped sentence: the variant says nothing, drop it
                lost[n] = chunks
    realigned: dict[int, dict[str, object]] = {}
    order = list(lost)
    for first in tqdm(range(0, len(order), batch), desc="re-align partial evidence", disable=not progress):
        part = order[first:first + batch]
        rows = aligner.align_many([sets[n].claim for n in part], [[x.text for x in sets[n].sentences] for n in part],
                                  chunks=[lost[n] for n in part])
        for n, row in zip(part, rows):
            realigned[n] = {a.chunk: a for a in row}
    for n, s in enumerate(sets):
        key = (s.source, s.claim_id)
        if key not in alignments or (not s.sufficient and n not in realigned):
            continue
        redo = realigned.get(n, {})
        steps = [ProofStep(clean(a.chunk), clean(redo[a.chunk].evidence_span), "#") if a.chunk in redo
                 else ProofStep(clean(a.chunk), clean(a.evidence_span), op) for a, op in zip(alignments[key], labelled[key])]
        out.append(TrainingProof(s.claim, s.evidence, format_proof(steps), s.sufficient, s.source, s.claim_id))
    return out


def training_proofs(tasks, aligner, operator_model, settings: ProofgenSettings, data_dir=None,
                    progress: bool = True) -> list[TrainingProof]:
    """The few-shot proofs (repeated ``fewshot_repeat`` times) plus proofs built for the tasks' training claims."""
    sets = evidence_sets(tasks, settings.max_claims_per_dataset, settings.distractors, settings.max_evidence,
                         settings.seed)
    built = build_proofs(sets, aligner, operator_model, progress=progress, verdict_constrained=settings.verdict_constrained)
    return fewshot_proofs(data_dir)[:settings.max_fewshot] * settings.fewshot_repeat + built


def proofs_key(tasks, settings: ProofgenSettings, operator_key: str) -> dict:
    """The cache config of the training proofs: the generator's settings, the training claims of ``tasks`` and
    ``operator_key`` (the cache key of the operator model that labelled the pairs)."""
    return settings.cache_config(operator_model=operator_key,
                                 tasks=fingerprint([(t.dataset, sorted(c.id for c in t.train), t.corpus.n_sentences())
                                                    for t in tasks]))


def cached_training_proofs(tasks, aligner, operator_model, settings: ProofgenSettings, data_dir=None, cache=None,
                           operator_key: str = "", progress: bool = True) -> list[TrainingProof]:
    """:func:`training_proofs` from the artifact cache (``natlog-training-proofs``; built on a miss).

    The key holds the settings, the tasks' training claims and ``operator_key`` (which operator model
    labelled the pairs)."""

    cache = cache or ArtifactCache()
    return cache.cache_pickle("natlog-training-proofs", proofs_key(tasks, settings, operator_key),
                              lambda: training_proofs(tasks, aligner, operator_model, settings, data_dir, progress))
