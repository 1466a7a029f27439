"""The trained natural-logic prover and the settings it is trained with (AdMIRaL §3.2-3.4).

:class:`SufficiencySettings` holds every setting of the sufficiency chapters' systems, with a smoke size;
:class:`Prover` holds the trained pieces and builds each system's decision (:meth:`Prover.deciders`).

:func:`proofbook.admiral.prover.sufficiency_experiments.train_prover` trains a :class:`Prover`, and the
calibrations of :mod:`proofbook.admiral.prover.calibration` choose its thresholds;
:func:`calibration_source` says which training task's calibration selections stand for a dataset.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from proofbook.admiral.prover.aligned_proofs import AlignedProver, AlignedSettings, chosen_score
from proofbook.admiral.prover.operators import OperatorSettings
from proofbook.admiral.prover.proofgen_settings import ProofgenSettings
from proofbook.admiral.prover.stopping import fixed_rule
from proofbook.admiral.prover.sufficiency import (REFERENCE_THRESHOLD, AlignedSufficiency, ClassifierSettings,
                                                  ClassifierSufficiency, LexicalSufficiency, NatlogSufficiency)


@dataclass(frozen=True)
class SufficiencySettings:
    """Everything the sufficiency chapter trains and decodes with; defaults = the book's full-size run."""

    seed: int = 0
    iterations: int = 3                  # the limit on iterations per claim
    beam: int = 5                        # proof beams per decision (the reference uses 25; see the chapter)
    threshold: float = REFERENCE_THRESHOLD
    calibration_claims: int = 30         # per dataset; 0 = keep ``threshold`` (see calibrate_threshold)
    loop_calibration_claims: int = 40    # per dataset: training claims whose loop traces recalibrate the aligned rule; 0 = off
    verdict_beam: int = 1                # FEVER-Symmetric verdicts: the best proof of a greedy decode
    operators: object = None
    proofgen: object = None
    aligned: object = None
    classifier: ClassifierSettings = ClassifierSettings()

    def __post_init__(self) -> None:
        if self.operators is None:
            object.__setattr__(self, "operators", OperatorSettings(seed=self.seed))
        if self.proofgen is None:
            object.__setattr__(self, "proofgen", ProofgenSettings(seed=self.seed))
        if self.aligned is None:
            object.__setattr__(self, "aligned", AlignedSettings(seed=self.seed))

    @classmethod
    def smoke(cls, seed: int = 0) -> "SufficiencySettings":
        """Tiny sizes for the tests (every component's ``smoke`` settings): seconds, not minutes."""

        return cls(seed=seed, beam=2, calibration_claims=2, loop_calibration_claims=3, operators=OperatorSettings.smoke(seed),
                   proofgen=ProofgenSettings.smoke(seed), aligned=AlignedSettings.smoke(seed),
                   classifier=ClassifierSettings.smoke(seed))


@dataclass
class Prover:
    """The trained pieces of the natural-logic prover and the sufficiency systems built on them."""

    operator_model: object
    operator_data: object
    aligner: object
    generator: object
    training_proofs: list
    classifier: ClassifierSufficiency
    seconds: dict[str, float]
    threshold: float = REFERENCE_THRESHOLD
    calibration: list = field(default_factory=list)   # calibrate_threshold's table rows
    classifier_calibration: dict = field(default_factory=dict)   # calibrate_classifier's result
    context_model: object = None                       # the aligned builder's operator model
    context_data: object = None
    aligned_calibration: dict = field(default_factory=dict)      # calibrate_aligned's result (+ AUC per score)
    loop_calibration: dict = field(default_factory=dict)         # dataset -> calibrate_on_loop's result (calibrate_loop)

    def generated(self, settings: SufficiencySettings) -> NatlogSufficiency:
        """The reference rule on generated proofs, with the (calibrated) threshold."""
        return NatlogSufficiency(self.generator, beam=settings.beam, threshold=self.threshold)

    def aligned_prover(self, settings: SufficiencySettings):
        """The aligned proof builder (:class:`~proofbook.admiral.prover.aligned_proofs.AlignedProver`): the aligner
        and the context operator model."""

        return AlignedProver(self.aligner, self.context_model, rerank=settings.aligned.rerank)

    def aligned(self, settings: SufficiencySettings, dataset: str | None = None) -> AlignedSufficiency:
        """The aligned builder's rule with its calibrated score and threshold: the threshold chosen on
        ``dataset``'s loop decision points (:func:`~proofbook.admiral.prover.sufficiency_experiments.calibrate_loop`)
        where there is one, else on ``dataset``'s training-claim selections
        (:func:`~proofbook.admiral.prover.calibration.calibrate_aligned`), else on all of them."""
        threshold = self.selection_threshold(settings, dataset)
        score = self.aligned_calibration.get("score") or chosen_score(settings.aligned.score, {})
        loop = self.loop_calibration.get(dataset) if dataset else None
        if loop:
            threshold, score = loop["threshold"], loop["score"]
        return AlignedSufficiency(self.aligned_prover(settings), score, threshold)

    def selection_threshold(self, settings: SufficiencySettings, dataset: str | None = None) -> float:
        """The aligned rule's threshold chosen on ``dataset``'s training-claim selections
        (:func:`~proofbook.admiral.prover.calibration.calibrate_aligned`), else on all of them, else
        ``settings.aligned.threshold`` (no calibration)."""
        found = self.aligned_calibration
        return found.get("by_source", {}).get(calibration_source(dataset), found).get("threshold",
                                                                                      settings.aligned.threshold)

    def deciders(self, settings: SufficiencySettings, dataset: str | None = None) -> dict:
        """System name (as in the results files) -> what
        :func:`~proofbook.admiral.prover.stopping.simulate_stopping` calls on ``dataset``."""
        return {
            "suff-natlog": self.generated(settings).decide_many,
            "suff-aligned": self.aligned(settings, dataset).decide_many,
            "suff-lexical": LexicalSufficiency(self.aligner).decide_many,
            "suff-classifier": self.classifier.decide_many,
            "suff-always": fixed_rule(1),
            "suff-never": fixed_rule(settings.iterations + 1),
            "fixed-2": fixed_rule(2),
            "oracle": "oracle",
        }


def calibration_source(dataset: str | None) -> str | None:
    """The training task whose calibration selections stand for ``dataset`` (``feverous_s+distractors`` ->
    ``feverous_s``)."""
    return dataset.split("+")[0] if dataset else None
