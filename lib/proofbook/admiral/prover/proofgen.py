"""The proof generator: a seq2seq model writing ProoFVer proofs, decoded under claim/evidence constraints.

AdMIRaL (Aly & Vlachos 2022, §3.2) generates a natural-logic proof for the claim and the selected
sentences and reads sufficiency off the proofs (:mod:`proofbook.admiral.prover.sufficiency`).  As in ProoFVer
(Krishna, Riedel & Vlachos 2022), :class:`ProofGenerator` reads ``claim </s> Title ; evidence1 </s> ...`` and
writes ``{ claim span } [ evidence span ] OP ...``, decoded under the constraints of
:mod:`proofbook.admiral.prover.proof_format` (claim spans from the claim, evidence spans from the evidence, one
of the six operators); it is trained on the proofs of :mod:`proofbook.admiral.prover.training_proofs` (QA-NatVer's
few-shot proofs and proofs built for HoVer and FEVEROUS-S training claims, each also with one gold sentence
missing) and cached by :func:`cached_generator`.

Departures, stated: by default the claim spans are the claim's chunks in order (one triple each), which
enforces "in claim order" token by token -- with the free n-gram trie (``claim_spans="ngrams"``) a small
model repeats frequent n-grams out of order and such beams can only be dropped after decoding (measured:
all beams of our CPU-trained generator); spans are lower-cased by the uncased tokenizer; the
model is :class:`proofbook.models.seq2seq.Seq2Seq`, not BART-large: by default (``backend="copy"``) a small
BART trained from scratch with a copy pointer (:class:`proofbook.models.pointer.CopyBart`, See et al. 2017);
also the plain small BART (``"scratch"``), MiniLM warm-started, or a frozen MiniLM encoder with a small decoder.
The paper's path, fine-tuning a pretrained seq2seq model such as BART-large, is ``backend="checkpoint"`` with
``checkpoint`` a local folder: the model hubs cannot be reached here, so it is tested on a tiny local BART only.

What the small model does not learn (development measurements on the 120 calibration selections of
:func:`proofbook.admiral.prover.calibration.calibrate_threshold`, 30 HoVer + 30 FEVEROUS-S claims, each complete and
missing one gold sentence; throwaway scripts, not part of the book's runs):

* the plain scratch generator with inputs cut at 256 tokens and proofs at 128 (which cut 23% of the
  training inputs, 15% of the evidence spans its targets copy, and 29% of the target proofs) ends 11% of its
  beams in NOT ENOUGH INFO on complete selections and 11% on incomplete ones, and the reference rule's
  "sufficient" shares on the two kinds never differ by more than 0.03 at any threshold: it does not see which
  claim spans the evidence covers.  With 384 / 256 tokens the largest gap is 0.07; its training loss stays
  near 3.6 nats per token;
* the copy generator (the default; 384 / 256 tokens, length-pooled batches, 6 epochs, 450-630 s of training)
  ends its training near 1.3 nats per token and copies content spans ("paul rudd", "who would be king"), and
  its scores sit near the reference scale (chosen threshold -1.17 against the reference -0.9).  But 93 of its
  295 beams on complete selections and 92 of 295 on incomplete ones end in NOT ENOUGH INFO, 97% of the steps
  of its best proofs are ``=`` although a fifth of the training steps are ``#``, and the rule's shares differ by
  at most 0.10: it copies spans without judging whether they cover the claim's.  Relabelling each of its steps
  with the operator model's most probable operator instead sends about 94% of the beams of both kinds to NOT
  ENOUGH INFO (mostly ``|`` and ``#`` on its span pairs), a gap of at most 0.02;
* a frozen MiniLM encoder with a small trained decoder (``backend="frozen-encoder"``, 3 layers, d_model 256,
  5 epochs, MiniLM's vocabulary; 900 s of training on a shared CPU) ends 15% and 25% of its beams in NOT ENOUGH INFO, a gap of
  at most 0.13 in the rule's shares -- a weak signal on 60 + 60 selections.  In a full run of the two
  chapters (6 epochs) it raised `suff-natlog`'s HoVer suff_f1 from 0.08 to 0.21, but its threshold, calibrated
  on accuracy, stopped earlier (1.69 iterations, recall@5 0.59) and the chapters took 1339 s instead of 999 s;
* both the plain scratch and the frozen-encoder generators write evidence spans that are mostly function words
  ("is", "and", "in the") where the training proofs hold content spans: neither learns to copy from the
  evidence in a few hundred steps -- the reason for the copy pointer.

With the plain scratch generator and 5 epochs instead of 6 (a minute less), a full run of the two chapters
ended `suff-natlog` at HoVer recall@5 0.62 instead of 0.63 and FEVEROUS-S 0.94 instead of 0.95, with
FEVER-Symmetric verdicts unchanged.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Sequence

from proofbook.admiral.prover.natlog import Proof, ProofError
from proofbook.admiral.prover.proof_format import Evidence, proof_constraint, proof_input
from proofbook.admiral.prover.proofgen_settings import BACKENDS, ProofgenSettings
from proofbook.admiral.prover.training_proofs import TrainingProof, cached_training_proofs, proofs_key
from proofbook.core.cache import ArtifactCache, file_fingerprint, fingerprint
from proofbook.core.codecs import object_codec
from proofbook.core.training import TrainConfig
from proofbook.models.loading import WORDPIECE_VERSION, train_wordpiece
from proofbook.models.seq2seq import Seq2Seq

# --- the generator ------------------------------------------------------------------------------

class ProofGenerator:
    """A :class:`~proofbook.models.seq2seq.Seq2Seq` that writes proofs, with constrained decoding."""

    def __init__(self, seq2seq):
        self.seq2seq = seq2seq

    def __repr__(self) -> str:
        return f"ProofGenerator({self.seq2seq!r})"

    @classmethod
    def new(cls, settings: ProofgenSettings = ProofgenSettings(), texts: Sequence[str] = ()) -> "ProofGenerator":
        """An untrained generator; a scratch model with ``settings.vocab_size`` learns its vocabulary from
        ``texts`` (the training inputs and proofs)."""

        lengths = dict(max_input_length=settings.max_input_length, max_target_length=settings.max_target_length)
        if settings.backend == "checkpoint":
            if not settings.checkpoint:
                raise ValueError("backend 'checkpoint' needs ProofgenSettings.checkpoint: a local seq2seq folder "
                                 "(e.g. facebook/bart-large, downloaded beforehand)")
            return cls(Seq2Seq.from_checkpoint(settings.checkpoint, **lengths))
        kwargs = dict(seed=settings.seed, **lengths)
        if settings.backend == "warm-start":
            return cls(Seq2Seq.warm_start("minilm", **kwargs))
        if settings.backend == "frozen-encoder":
            return cls(Seq2Seq.frozen_encoder("minilm", d_model=settings.d_model, layers=settings.layers, **kwargs))
        if settings.backend not in ("scratch", "copy"):
            raise ValueError(f"unknown backend {settings.backend!r}; expected one of {BACKENDS}")
        tokenizer = "minilm"
        if settings.vocab_size:
            if not texts:
                raise ValueError("a scratch generator with its own vocabulary needs the training texts")
            tokenizer = train_wordpiece(texts, settings.vocab_size)
        return cls(Seq2Seq.from_scratch(tokenizer, d_model=settings.d_model, layers=settings.layers,
                                        copy=settings.backend == "copy", **kwargs))

    def fit(self, proofs: Sequence[TrainingProof], settings: ProofgenSettings, dev: Sequence[TrainingProof] = ()):
        """Train on the proofs' ``(input, target)`` texts, with early stopping (patience 2) on ``dev``
        where given; returns the training result."""

        config = TrainConfig(epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr, warmup_ratio=0.1,
                             seed=settings.seed, patience=2 if dev else None, length_pool=settings.length_pool)
        return self.seq2seq.fit([(p.input, p.target) for p in proofs], config,
                                dev_pairs=[(p.input, p.target) for p in dev] or None)

    def constraint(self, claim: str, evidence: Evidence, claim_spans: str = "chunks"):
        """The decoding constraint of a proof of ``claim`` from ``evidence``
        (:func:`~proofbook.admiral.prover.proof_format.proof_constraint`)."""
        return proof_constraint(self.seq2seq.tokenizer, claim, evidence, self.seq2seq.eos_token_id,
                                claim_spans=claim_spans)

    def generate(self, claims: Sequence[str], evidence: Sequence[Evidence], beam: int = 5, num_return: int | None = None,
                 constrained: bool = True, batch_size: int = 8, claim_spans: str = "chunks") -> list[list[Proof]]:
        """Proofs per claim, best first; beams that do not read as a proof of the claim are dropped
        (:attr:`dropped` counts them)."""
        if len(claims) != len(evidence):
            raise ValueError(f"generate: {len(claims)} claims but {len(evidence)} evidence lists")
        inputs = [proof_input(c, e) for c, e in zip(claims, evidence)]
        constraints = [self.constraint(c, e, claim_spans) for c, e in zip(claims, evidence)] if constrained else None
        outputs = self.seq2seq.generate(inputs, beam=beam, num_return=num_return or beam, constraints=constraints,
                                        batch_size=batch_size)
        self.dropped = 0
        results = []
        for claim, ev, beams in zip(claims, evidence, outputs):
            proofs = []
            for generated in beams:
                try:
                    proofs.append(Proof.parse(generated.text, claim=claim, evidence=tuple(ev), score=generated.score))
                except ProofError:
                    self.dropped += 1
            results.append(proofs)
        return results

    def save(self, folder):
        """Write the seq2seq model into ``folder`` (usable with ``object_codec``); returns the folder."""
        return self.seq2seq.save(folder)

    @classmethod
    def load(cls, folder, device: str | None = None) -> "ProofGenerator":
        """A generator written by :meth:`save`."""

        return cls(Seq2Seq.load(folder, device=device))


def cached_generator(tasks, aligner, operator_model, settings: ProofgenSettings, data_dir=None, cache=None,
                     operator_key: str = "", progress: bool = True):
    """Train (or load) the generator on :func:`cached_training_proofs`; returns ``(generator, proofs, seconds)``."""

    cache = cache or ArtifactCache()
    start = time.perf_counter()
    proofs = cached_training_proofs(tasks, aligner, operator_model, settings, data_dir, cache, operator_key, progress)

    def build():
        texts = [text for p in proofs for text in (p.input, p.target)]
        texts += [f"{doc.title} ; {doc.text}" for task in tasks for doc in task.corpus]   # words of any evidence
        generator = ProofGenerator.new(settings, texts)
        generator.fit(proofs, settings)
        return generator

    key = {**proofs_key(tasks, settings, operator_key), "proofs": fingerprint([dataclasses.astuple(p) for p in proofs]),
           "wordpiece": WORDPIECE_VERSION if settings.vocab_size else None,
           **({"checkpoint_files": file_fingerprint(settings.checkpoint)} if settings.checkpoint else {})}
    generator = cache.get_or_build("natlog-proof-generator", key, build, *object_codec(ProofGenerator))
    return generator, proofs, time.perf_counter() - start
