"""The proof generator's settings (AdMIRaL §3.2): its training proofs, model size and training run.

:class:`ProofgenSettings` is read by the generator (:mod:`proofbook.admiral.prover.proofgen`) and by its training
proofs (:mod:`proofbook.admiral.prover.training_proofs`), whose cache entries it keys; :data:`BACKENDS` names the
seq2seq models the generator can be.
"""
from __future__ import annotations

from dataclasses import dataclass

from proofbook.core.settings import ComponentSettings

#: the generator's :class:`~proofbook.models.seq2seq.Seq2Seq` backends (``ProofgenSettings.backend``)
BACKENDS = ("scratch", "copy", "warm-start", "frozen-encoder", "checkpoint")


@dataclass(frozen=True)
class ProofgenSettings(ComponentSettings):
    """How the generator is trained; the defaults are the book's full-size run."""

    seed: int = 0
    max_claims_per_dataset: int = 250
    distractors: int = 1
    max_evidence: int = 5
    fewshot_repeat: int = 2
    verdict_constrained: bool = True  # complete-evidence proofs reach the claim's label (see build_proofs)
    max_fewshot: int | None = None    # at most this many few-shot proofs (None: all 162)
    backend: str = "copy"             # one of BACKENDS: small BART / + a copy pointer / MiniLM encoder-decoder / frozen MiniLM + decoder / a local checkpoint
    checkpoint: str | None = None     # backend "checkpoint": a local pretrained seq2seq folder to fine-tune (ProoFVer: BART-large)
    vocab_size: int | None = 4000     # scratch: a WordPiece vocabulary trained on the proofs (None: MiniLM's)
    d_model: int = 256
    layers: int = 3
    epochs: int = 6
    batch_size: int = 16
    lr: float = 5e-4
    max_input_length: int = 384       # 256 cut 23% of the training inputs and 15% of their evidence spans
    max_target_length: int = 256      # 128 cut 29% of the training proofs (and every proof of a long claim)
    length_pool: int = 20             # batches of similar length (TrainConfig.length_pool); 0: random batches

    @classmethod
    def smoke(cls, seed: int = 0) -> "ProofgenSettings":
        """Tiny sizes for the tests: seconds, not minutes (the generator learns next to nothing)."""
        return cls(seed=seed, max_claims_per_dataset=4, fewshot_repeat=1, max_fewshot=8, epochs=1,
                   max_input_length=64, max_target_length=40)
