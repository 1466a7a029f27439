"""The calibrations' text for the sufficiency chapter (proofbook.admiral.prover.calibration.calibration_glue)."""
from types import SimpleNamespace

import pytest

from proofbook.admiral.prover.calibration import calibration_glue
from proofbook.admiral.prover.sufficiency import REFERENCE_THRESHOLD
from tests.notebook_glue import shown_not_glued_by_name

pytestmark = pytest.mark.unit

SETTINGS = SimpleNamespace(aligned=SimpleNamespace(threshold=0.5, score="auto"))


def row(threshold, accuracy, complete, incomplete):
    return {"threshold": threshold, "accuracy": accuracy, "said_sufficient_complete": complete,
            "said_sufficient_incomplete": incomplete}


def test_calibration_glue_reads_the_rows_nearest_the_reference_and_the_chosen_threshold():
    table = [row(REFERENCE_THRESHOLD - 0.01, 0.5, 0.9, 0.85), row(-0.5, 0.7, 0.6, 0.2), row(-0.2, 0.6, 0.3, 0.1)]
    aligned = {"threshold": 0.41, "accuracy": 0.8, "said_sufficient_complete": 0.9, "said_sufficient_incomplete": 0.3,
               "auc/weakest": 0.7, "auc/proven": 0.65, "auc/mean": 0.75, "score": "mean",
               "by_source": {"hover": {"threshold": 0.4, "accuracy": 0.81},
                             "feverous_s": {"threshold": 0.45, "accuracy": 0.79}}}
    prover = SimpleNamespace(threshold=-0.5, calibration=table, aligned_calibration=aligned,
                             classifier_calibration={"threshold": 0.35, "accuracy": 0.7, "reference_accuracy": 0.6})
    shown = calibration_glue(prover, SETTINGS)
    assert (shown["threshold"], shown["reference_accuracy"], shown["calibrated_accuracy"]) == ("-0.500", "0.500", "0.700")
    assert (shown["said_complete"], shown["said_incomplete"], shown["largest_gap"]) == ("0.60", "0.20", "0.40")
    assert shown["classifier_threshold"] == "0.350" and shown["aligned_auc_mean"] == "0.75"
    assert (shown["aligned_score"], shown["aligned_threshold_hover"], shown["aligned_accuracy_hover"]) == ("mean", "0.400", "0.81")
    assert shown_not_glued_by_name("admiral/06_sufficiency") <= set(shown)    # every name the chapter shows


def test_without_calibrations_the_settings_stand_and_the_aligned_numbers_say_so():
    prover = SimpleNamespace(threshold=REFERENCE_THRESHOLD, calibration=[], aligned_calibration={},
                             classifier_calibration={})
    shown = calibration_glue(prover, SETTINGS)
    assert shown["aligned_threshold"] == "0.500" and shown["aligned_score"] == "auto"
    assert shown["aligned_accuracy"] == "n/a (no calibration in this run)"
    assert not {"reference_accuracy", "classifier_threshold", "aligned_threshold_hover"} & set(shown)
