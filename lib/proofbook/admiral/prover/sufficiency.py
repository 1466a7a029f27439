"""Sufficiency: does the selected evidence suffice to verify the claim?  The check that stops AdMIRaL's loop.

AdMIRaL (Aly & Vlachos 2022, §3.2) stops retrieving when a natural-logic
proof of the claim from the selected sentences reaches a verdict: evidence is insufficient when a claim
span gets independence (``#``) -- and cover / reverse entailment do not conclusively decide either, so the
automaton sends them to NOT ENOUGH INFO too.  The reference rule (:class:`NatlogSufficiency`): generate
proofs with beam search, keep those whose length-normalised log-probability is above a threshold (-0.9
in the reference code), and call the evidence sufficient iff at least one proof is kept and every kept
proof ends in SUPPORTS or REFUTES.

Each decision here is a callable ``(claim, sentences) -> bool``: exactly the ``sufficiency`` hook of
:class:`proofbook.admiral.retrieval.multihop.Admiral`, plus a batched ``decide_many`` used by
:func:`proofbook.admiral.prover.stopping.simulate_stopping`.  The systems of the paper's Table 6 (as named in ``admiral/06_sufficiency``):

* ``suff-natlog`` -- :class:`NatlogSufficiency`, the paper's rule on generated proofs (the proof generator,
  constrained beam, the rule above);
* ``suff-aligned`` -- the stand-in :class:`AlignedSufficiency`: proofs built by aligning claim chunks to evidence
  spans and predicting each pair's operator in context (:mod:`proofbook.admiral.prover.aligned_proofs`,
  QA-NatVer's design for small models); sufficient iff the proof's sufficiency score reaches a threshold
  calibrated on training claims (:func:`proofbook.admiral.prover.calibration.calibrate_aligned`, one per dataset);
* ``suff-lexical`` -- :class:`LexicalSufficiency`: one proof from the same chunking and alignment with
  WordNet operators; sufficient iff its verdict is not NOT ENOUGH INFO;
* ``suff-classifier`` -- :class:`ClassifierSufficiency`: a MiniLM cross-encoder on (claim, the selected
  sentences) trained on sufficient / insufficient selections of the training claims (the paper uses a
  BART classifier), its probability threshold chosen on the same calibration selections as the natural-logic
  rule's (:func:`proofbook.admiral.prover.calibration.calibrate_classifier`);
* ``suff-always`` / ``suff-never`` / ``fixed-2`` -- stop after iteration 1 / run to the limit / stop after
  iteration 2; ``oracle`` -- stop as soon as the selected sentences hold a full gold evidence set.

An empty selection is insufficient, with the reason (:data:`NO_EVIDENCE`) recorded in the :class:`Decision`.
Whether a builder's score sees missing evidence at all is measured apart from the loop:
:func:`proofbook.admiral.prover.sufficiency_experiments.calibration_auc_rows` on complete vs one-gold-sentence-removed selections of evaluation claims.

The truth at a decision point (:func:`proofbook.admiral.prover.stopping.selection_is_sufficient`): HoVer -- the selected sentences contain
every gold sentence; FEVEROUS-S, whose pages hold only gold sentences -- the selected sentences' pages
cover every gold page (page recall).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

from proofbook.admiral.prover.aligned_proofs import reached_verdict
from proofbook.admiral.prover.lexical import lexical_proof
from proofbook.admiral.prover.natlog import NEI, Proof
from proofbook.admiral.prover.training_proofs import evidence_sets
from proofbook.core.cache import ArtifactCache, fingerprint
from proofbook.core.codecs import object_codec
from proofbook.core.corpus import Sentence
from proofbook.core.settings import ComponentSettings
from proofbook.core.training import BATCHING_VERSION, TrainConfig
from proofbook.models.cross_encoder import HEAD_INIT_VERSION, CrossEncoder

REFERENCE_THRESHOLD = -0.9
NO_EVIDENCE = "no sentence selected"
SYSTEMS = ("suff-natlog", "suff-aligned", "suff-lexical", "suff-classifier", "suff-always", "suff-never", "fixed-2", "oracle")


def evidence_pairs(sentences: Sequence[Sentence]) -> list[tuple[str, str]]:
    """The ``(title, text)`` pairs a prover reads, of selected sentences."""
    return [(s.title, s.text) for s in sentences]


@dataclass
class Decision:
    """One sufficiency decision with the proofs behind it (for the book's error analysis)."""

    sufficient: bool
    proofs: list[Proof] = field(default_factory=list)
    kept: list[Proof] = field(default_factory=list)
    seconds: float = 0.0
    score: float | None = None        # the builder's sufficiency score, where it has one
    reason: str = ""                  # why, where no proof was attempted (e.g. nothing selected)


def reference_rule(proofs: Sequence[Proof], threshold: float = REFERENCE_THRESHOLD) -> tuple[bool, list[Proof]]:
    """Keep proofs scoring above ``threshold``; sufficient iff any is kept and none of the kept ends in NEI."""
    kept = [p for p in proofs if p.score is not None and p.score > threshold]
    return bool(kept) and all(p.verdict != NEI for p in kept), kept


class _Hook:
    """Shared plumbing: ``__call__`` is the Admiral hook, ``decide_many`` the batched form."""

    def __call__(self, claim: str, sentences: Sequence[Sentence]) -> bool:
        return self.decide_many([claim], [list(sentences)])[0].sufficient

    def decide(self, claim: str, sentences: Sequence[Sentence]) -> Decision:
        return self.decide_many([claim], [list(sentences)])[0]

    def decide_many(self, claims: Sequence[str], selections: Sequence[Sequence[Sentence]]) -> list[Decision]:
        raise NotImplementedError


class NatlogSufficiency(_Hook):
    """The reference decision rule on proofs from :class:`~proofbook.admiral.prover.proofgen.ProofGenerator`."""

    def __init__(self, generator, beam: int = 5, threshold: float = REFERENCE_THRESHOLD, constrained: bool = True,
                 batch_size: int = 8):
        self.generator, self.beam, self.threshold = generator, beam, threshold
        self.constrained, self.batch_size = constrained, batch_size

    def decide_many(self, claims, selections) -> list[Decision]:
        """One :class:`Decision` per (claim, selection): the reference rule on the beam of generated proofs;
        an empty selection is insufficient (:data:`NO_EVIDENCE`)."""
        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]          # no sentence: nothing can be proven
        if todo:
            start = time.perf_counter()
            proofs = self.generator.generate([claims[i] for i in todo], [evidence_pairs(selections[i]) for i in todo],
                                             beam=self.beam, constrained=self.constrained, batch_size=self.batch_size)
            each = (time.perf_counter() - start) / len(todo)
            for i, found in zip(todo, proofs):
                sufficient, kept = reference_rule(found, self.threshold)
                out[i] = Decision(sufficient, found, kept, each)
        return out


class AlignedSufficiency(_Hook):
    """``suff-aligned``: natural-logic sufficiency on aligned proofs (:mod:`proofbook.admiral.prover.aligned_proofs`):
    sufficient iff the builder's sufficiency score reaches ``threshold``; the proof kept is the most probable one reaching the decided verdict."""

    def __init__(self, prover, score: str = "proven", threshold: float = 0.5):
        self.prover, self.score, self.threshold = prover, score, threshold

    def scores(self, claims: Sequence[str], selections: Sequence[Sequence[Sentence]]) -> list[float]:
        """The sufficiency score of each (claim, non-empty selection)."""
        found = self.prover.prove_many(list(claims), [evidence_pairs(s) for s in selections])
        return [f.score(self.score) for f in found]

    def decide_many(self, claims, selections) -> list[Decision]:
        """One :class:`Decision` per (claim, selection): sufficient iff the score reaches ``threshold``; the
        proof shown reaches SUPPORTS or REFUTES (the likelier) if so, else NEI; no sentence: insufficient."""

        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]
        if todo:
            start = time.perf_counter()
            found = self.prover.prove_many([claims[i] for i in todo], [evidence_pairs(selections[i]) for i in todo])
            each = (time.perf_counter() - start) / len(todo)
            for i, f in zip(todo, found):
                score = f.score(self.score)
                sufficient = score >= self.threshold
                proof = f.shown(reached_verdict(f) if sufficient else NEI)
                out[i] = Decision(sufficient, [proof], [proof], each, score)
        return out


class LexicalSufficiency(_Hook):
    """One lexical proof (chunking, MiniLM alignment, WordNet operators); sufficient iff its verdict is not NEI."""

    def __init__(self, aligner):
        self.aligner = aligner

    def decide_many(self, claims, selections) -> list[Decision]:
        """One :class:`Decision` per (claim, selection): sufficient iff the lexical proof's verdict is not
        NEI; an empty selection is insufficient."""

        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]
        if todo:
            start = time.perf_counter()
            rows = self.aligner.align_many([claims[i] for i in todo], [[s.text for s in selections[i]] for i in todo])
            each = (time.perf_counter() - start) / len(todo)
            for i, row in zip(todo, rows):
                proof = lexical_proof(claims[i], [(a.chunk, a.evidence_span) for a in row], evidence_pairs(selections[i]))
                out[i] = Decision(proof.verdict != NEI, [proof], [proof], each)
        return out


CLASSIFIER_LABELS = ("insufficient", "sufficient")


def classifier_passage(sentences: Sequence[Sentence]) -> str:
    """The classifier's evidence text: ``Title ; sentence`` for each sentence, joined with ``</s>``."""
    return " </s> ".join(f"{s.title} ; {s.text}" for s in sentences)


class ClassifierSufficiency(_Hook):
    """A cross-encoder over (claim, ``Title ; sentence </s> ...``) -> insufficient / sufficient."""

    def __init__(self, encoder, threshold: float = 0.5):
        if list(encoder.labels) != list(CLASSIFIER_LABELS):
            raise ValueError(f"a sufficiency classifier needs labels {list(CLASSIFIER_LABELS)}, got {encoder.labels}")
        self.encoder, self.threshold = encoder, threshold

    def probabilities(self, claims: Sequence[str], selections: Sequence[Sequence[Sentence]]) -> list[float]:
        """P(sufficient) of each (claim, selected sentences)."""
        pairs = [(claim, classifier_passage(sentences)) for claim, sentences in zip(claims, selections)]
        return [float(p[1]) for p in self.encoder.predict_proba(pairs, progress=False)] if pairs else []

    def decide_many(self, claims, selections) -> list[Decision]:
        """One :class:`Decision` per (claim, selection): sufficient iff P(sufficient) reaches ``threshold``
        (no proofs); an empty selection is insufficient."""
        out: list[Decision] = [Decision(False, reason=NO_EVIDENCE) for _ in claims]
        todo = [i for i, s in enumerate(selections) if s]
        if todo:
            start = time.perf_counter()
            probs = self.probabilities([claims[i] for i in todo], [selections[i] for i in todo])
            each = (time.perf_counter() - start) / len(todo)
            for i, p in zip(todo, probs):
                out[i] = Decision(bool(p >= self.threshold), seconds=each)
        return out

    def save(self, folder):
        """Write the cross-encoder into ``folder`` (usable with ``object_codec``); returns the folder."""
        return self.encoder.save(folder)

    @classmethod
    def load(cls, folder, device: str | None = None) -> "ClassifierSufficiency":
        """A classifier written by :meth:`save`, at the default threshold (a calibrated one is not saved)."""

        return cls(CrossEncoder.load(folder, device=device))


@dataclass(frozen=True)
class ClassifierSettings(ComponentSettings):
    """How the sufficiency classifier is trained (every field keys its cache entry)."""

    CODE_VERSION = {"head": HEAD_INIT_VERSION, "batching": BATCHING_VERSION}

    seed: int = 0
    max_claims_per_dataset: int = 200
    distractors: int = 1
    max_evidence: int = 5
    max_length: int = 384             # claim + five titled sentences; 128 cut most of the evidence away
    epochs: int = 1
    batch_size: int = 16
    lr: float = 5e-5

    @classmethod
    def smoke(cls, seed: int = 0) -> "ClassifierSettings":
        """Tiny sizes for the tests: seconds, not minutes (the classifier learns next to nothing)."""
        return cls(seed=seed, max_claims_per_dataset=4, max_length=48)


def train_classifier(tasks, settings: ClassifierSettings = ClassifierSettings(), cache=None) -> tuple[ClassifierSufficiency, float]:
    """Train (or load) the sufficiency classifier on the tasks' training claims; returns it and the seconds."""

    cache = cache or ArtifactCache()
    sets = evidence_sets(tasks, settings.max_claims_per_dataset, settings.distractors, settings.max_evidence,
                         settings.seed)

    def build() -> ClassifierSufficiency:
        encoder = CrossEncoder("minilm", labels=CLASSIFIER_LABELS, max_length=settings.max_length,
                               seed=settings.seed)
        encoder.fit([(s.claim, classifier_passage(s.sentences)) for s in sets],
                    [CLASSIFIER_LABELS[s.sufficient] for s in sets],
                    config=TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr,
                                       seed=settings.seed))
        return ClassifierSufficiency(encoder)

    key = settings.cache_config(sets=fingerprint([(s.claim_id, [x.id for x in s.sentences], s.sufficient) for s in sets]))
    start = time.perf_counter()
    model = cache.get_or_build("natlog-sufficiency-classifier", key, build, *object_codec(ClassifierSufficiency))
    return model, time.perf_counter() - start


# --- the truth and the stopping simulation ------------------------------------------------------


# --- the experiment of admiral/06_sufficiency -----------------------------------------------------


# --- does a builder's score see missing evidence? ------------------------------------------------


