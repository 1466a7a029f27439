"""Veracity classifier and metrics: MAE/soft accuracy, near-duplicate removal, selection split, training."""
from dataclasses import asdict
from types import SimpleNamespace

import numpy as np
import pytest

from proofbook.wild.veracity_metrics import confusion_matrix, mae, mae_by_label, soft_accuracy, veracity_metrics
from proofbook.wild.veracity import (VeracityClassifier, VeracityExample, VeracitySettings, claimdecomp_examples,
                                     constant_predictions, liar_examples, remove_near_duplicates, selection_split)
from proofbook.data.politifact_text import LABELS
from proofbook.core.cache import ArtifactCache

pytestmark = pytest.mark.unit


def test_metrics_on_label_indices():
    gold, predicted = [0, 1, 2, 3, 4, 5], [0, 2, 2, 5, 4, 0]
    assert mae(gold, predicted) == pytest.approx((0 + 1 + 0 + 2 + 0 + 5) / 6)
    assert soft_accuracy(gold, predicted) == pytest.approx(4 / 6)
    metrics = veracity_metrics(gold, predicted)
    assert metrics["accuracy"] == pytest.approx(0.5) and set(metrics) == {"accuracy", "macro_f1", "mae", "soft_accuracy"}
    assert confusion_matrix(gold, predicted)[5, 0] == 1 and confusion_matrix(gold, predicted).sum() == 6
    assert mae_by_label([3, 3, 0], [1, 3, 0]) == {0: (0.0, 1), 3: (1.0, 2)}
    with pytest.raises(ValueError):
        mae([1], [])


def test_baseline_and_label_order():
    assert LABELS == ("pants-fire", "false", "barely-true", "half-true", "mostly-true", "true")
    assert constant_predictions([None, None]) == [3, 3]


def test_inputs_normalise_venue_and_person():
    liar = SimpleNamespace(id="1.json", statement="Taxes doubled.", speaker="jane-doe", context="a mailer",
                           label="false", justification="Records show they rose 5%.")
    cd = SimpleNamespace(example_id=5, claim="Taxes doubled.", person="Jane Doe",
                         venue="stated on May 1, 2019 in a mailer:", label="true",
                         justification=["Para one.", "Para  two."])
    [a] = liar_examples([liar], evidence="justification")
    [b] = claimdecomp_examples([cd], evidence="justification")
    assert a.text == b.text == "Jane Doe a mailer Taxes doubled."
    assert a.evidence == "Records show they rose 5%." and b.evidence == "Para one. Para two."
    assert claimdecomp_examples([cd], evidence={5: "web"})[0].evidence == "web"
    assert liar_examples([liar])[0].evidence == ""


def example(i, statement=None, label="false"):
    return VeracityExample(f"x:{i}", statement or f"Claim number {i}.", f"P claim number {i}", "", label)


def test_near_duplicates_removed_by_statement_key():
    train = [example(1, "Bush's tax cut \u201cworked\u201d"), example(2, "Something else"), example(3)]
    kept, removed = remove_near_duplicates(train, ["bushs tax cut worked", "unrelated"])
    assert removed == 1 and [e.claim_id for e in kept] == ["x:2", "x:3"]


def test_selection_split_is_deterministic_and_by_statement():
    examples = [example(i) for i in range(500)] + [example(1000, "Claim number 3.")]
    train, selection = selection_split(examples, 0.1)
    assert 25 <= len(selection) <= 80 and len(train) + len(selection) == 501
    assert selection_split(examples, 0.1) == (train, selection)
    side = {e.claim_id: (e in selection) for e in examples}
    assert side["x:3"] == side["x:1000"]
    with pytest.raises(ValueError):
        selection_split(examples, 1.5)


def test_tiny_training_selects_by_mae_and_caches(tmp_path):
    labels = list(LABELS)
    examples = [VeracityExample(f"x:{i}", f"statement {i}", f"speaker {i % 3} says statement {i}", "evidence",
                                labels[i % 6]) for i in range(60)]
    # lr and epochs large enough that the selection MAE moves between evaluations (not one value throughout)
    settings = VeracitySettings(max_length=24, epochs=2, batch_size=8, limit=24, evaluations_per_epoch=2, lr=2e-3)
    cache = ArtifactCache(tmp_path)
    classifier = VeracityClassifier.cached("wild-veracity-test", examples, settings, cache, progress=False)
    result = classifier.train_result
    metrics = [h.metric for h in result.history]
    assert len(metrics) >= 2 and None not in metrics          # evaluated twice an epoch and at the end
    assert result.best_metric == min(metrics)                 # MAE: lower is better
    # not vacuous: a worse evaluation exists, and the last one is worse, so the best weights had to be restored
    assert max(metrics) > result.best_metric and metrics[-1] > result.best_metric, metrics
    assert result.best_step == next(h.step for h in result.history if h.metric == result.best_metric)
    selection = selection_split(examples, settings.selection_fraction)[1][:max(8, settings.limit // 4)]
    assert classifier.summary["counts"] == {"train": 24, "selection": len(selection)}
    gold = [e.label_index for e in selection]
    assert mae(gold, classifier.predict(selection)) == pytest.approx(result.best_metric)   # best weights restored
    assert classifier.summary["best_selection_mae"] == result.best_metric
    predicted = classifier.predict(examples[:5])
    again = VeracityClassifier.cached("wild-veracity-test", examples, settings, cache, progress=False)
    assert cache.stats["hits"] == 1 and again.predict(examples[:5]) == predicted
    assert again.summary["counts"]["train"] == 24
    assert again.summary["best_selection_mae"] == result.best_metric
    assert mae(gold, again.predict(selection)) == pytest.approx(result.best_metric)
    assert set(again.evaluate(examples[:6])) == {"accuracy", "macro_f1", "mae", "soft_accuracy"}
    assert np.allclose(again.predict_proba(examples[:2]).sum(axis=1), 1, atol=1e-5)


def test_strip_verdict_removes_ratings_and_definitions():
    from proofbook.wild.veracity import strip_verdict

    text = ("The bill passed in 2019. The statement contains an element of truth but ignores critical facts that "
            "would give a different impression. We rate it Mostly False. https://www.sharethefacts.co/share/x")
    assert strip_verdict(text) == "The bill passed in 2019."
    assert strip_verdict("Taxes rose 5%. That is why we give them our lowest rating, Pants On Fire!") == "Taxes rose 5%."
    assert strip_verdict("It is true that taxes rose.") == "It is true that taxes rose."


def test_the_test_time_justification_has_its_verdict_removed_as_in_training():
    from types import SimpleNamespace

    from proofbook.wild.veracity import claimdecomp_examples
    from proofbook.wild.wild_experiments import test_justification

    claim = SimpleNamespace(example_id="7", claim="c", person="p", venue="v", label=2,
                            justification=["The bill  passed in 2019.", "We rate it Half True."])
    assert test_justification(claim) == "The bill passed in 2019."
    [trained] = claimdecomp_examples([claim], "justification")
    assert trained.evidence == test_justification(claim)


@pytest.mark.unit
def test_cache_key_names_a_checkpoint_inside_the_cache_by_its_place_not_its_path(tmp_path):
    from proofbook.wild.veracity import VeracitySettings, cache_settings
    from proofbook.core.cache import ArtifactCache

    keys = []
    for checkout in ("one", "two"):
        cache = ArtifactCache(tmp_path / checkout / ".cache")
        folder = cache.path_for("wild-veracity-claim-only", "abc123")
        config = asdict(cache_settings(VeracitySettings(checkpoint=str(folder)), cache))
        assert config["checkpoint"] == "cache:wild-veracity-claim-only/abc123"
        keys.append(cache.key_for("wild-veracity-evidence", config))
    assert keys[0] == keys[1]
    own = str(tmp_path / "my-checkpoint")
    assert cache_settings(VeracitySettings(checkpoint=own), cache).checkpoint == own
    assert cache_settings(VeracitySettings(), cache).checkpoint == "minilm"
