"""The trained models of claims in the wild: the veracity classifiers (Chen et al. 2023, §3.5) and the question
generator (§3.1), in one :class:`Models`.

:func:`proofbook.wild.wild_experiments.train_models` trains them; the experiments and the pipeline
(:func:`proofbook.wild.pipeline.replay_pipeline`) take them.
"""
from __future__ import annotations

from dataclasses import dataclass

from proofbook.wild.decomposition import TrainedQuestionGenerator
from proofbook.wild.veracity import VeracityClassifier


@dataclass
class Models:
    """What :func:`~proofbook.wild.wild_experiments.train_models` returns: the claim-only, evidence and
    claim-only-matched classifiers, the question generator (``None`` when not trained) and the seconds each took."""
    claim_only: VeracityClassifier
    evidence: VeracityClassifier
    generator: TrainedQuestionGenerator | None
    seconds: dict[str, float]
    claim_only_matched: VeracityClassifier | None = None
