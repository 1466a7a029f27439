"""The operator model's data rules, metrics and a tiny training run (proofbook.admiral.prover.operators)."""
import pytest

from proofbook.admiral.prover.operators import (LABELS, OperatorData, OperatorExample, OperatorModel, OperatorSettings,
                                                confusion_matrix, is_heldout, operator_data, per_operator_scores,
                                                train_operator_model)


@pytest.mark.unit
def test_per_operator_scores_and_confusion():
    gold = ["=", "=", "<", "|", "#", "!"]
    pred = ["=", "<", "<", "|", "=", "!"]
    rows = {r["operator"]: r for r in per_operator_scores(gold, pred)}
    assert rows["="]["precision"] == pytest.approx(1 / 2) and rows["="]["recall"] == pytest.approx(1 / 2)
    assert rows["<"]["precision"] == pytest.approx(1 / 2) and rows["<"]["recall"] == 1.0
    assert rows["#"]["recall"] == 0.0 and rows[">"]["support"] == 0 and rows[">"]["f1"] == 0.0
    matrix = confusion_matrix(gold, pred)
    assert matrix.sum() == 6 and matrix[LABELS.index("#"), LABELS.index("=")] == 1
    with pytest.raises(ValueError, match="2 gold operators but 1 predictions"):
        per_operator_scores(["=", "<"], ["="])


@pytest.mark.unit
def test_heldout_rule_is_fixed():
    import hashlib

    # sha1("heldout:<id>") % 10 == 0, recomputed here: a changed salt, hash or modulus moves these ids
    assert [i for i in range(40) if is_heldout(i)] == [0, 10, 22, 27]
    assert sum(is_heldout(i) for i in range(2000)) == 192
    assert [is_heldout(i) for i in range(2000)] == [
        int(hashlib.sha1(f"heldout:{i}".encode()).hexdigest(), 16) % 10 == 0 for i in range(2000)]


@pytest.mark.unit
def test_tiny_training_run_predicts_operators(tmp_path):
    pairs = [("is a rapper", "is a rapper", "="), ("is a performer", "is a rapper", "<"), ("is a rapper", "is a performer", ">"),
             ("is alive", "is not alive", "!"), ("in 2012", "in 2015", "|"), ("is a vegan", "was born in Hawaii", "#")]
    train = [OperatorExample(c, e, op, "fewshot", i) for i, (c, e, op) in enumerate(pairs * 2)]
    settings = OperatorSettings.smoke()
    model = train_operator_model(OperatorData(train, train[:6], 0), settings)
    import numpy as np

    inputs = [(c, e) for c, e, _ in pairs]
    predicted = model.predict(inputs)
    proba = model.predict_proba(inputs)
    assert proba.shape == (6, len(LABELS)) and np.allclose(proba.sum(axis=1), 1, atol=1e-5)
    assert predicted == [LABELS[i] for i in proba.argmax(axis=1)]
    # training moved the weights: an untrained model with the same seed is reproducible but scores differently
    fresh = OperatorModel.new(settings.max_length, seed=settings.seed).predict_proba(inputs)
    assert np.allclose(fresh, OperatorModel.new(settings.max_length, seed=settings.seed).predict_proba(inputs))
    assert not np.allclose(proba, fresh, atol=1e-4)
    loaded = OperatorModel.load(model.save(tmp_path / "ops"))
    assert loaded.predict([(c, e) for c, e, _ in pairs]) == predicted


@pytest.mark.data
def test_operator_data_leaves_out_fever_symmetric_and_heldout(real_data_dir):
    from proofbook.data.fever_symmetric import fever_symmetric_claim_ids

    data = operator_data(real_data_dir, OperatorSettings.smoke())
    symmetric = fever_symmetric_claim_ids(real_data_dir)
    assert data.excluded_claims > 0
    assert not ({x.claim_id for x in data.train + data.heldout} & symmetric)
    assert not ({x.claim_id for x in data.train} & {x.claim_id for x in data.heldout})
    assert all(not is_heldout(x.claim_id) for x in data.train) and all(is_heldout(x.claim_id) for x in data.heldout)
    assert {x.source for x in data.train} == {"silver", "fewshot"}
    assert set(data.counts["train"]) == set(LABELS)
