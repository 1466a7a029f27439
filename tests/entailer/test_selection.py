"""Model selection of the judges on OBQA train: the held-out split, tiny runs, the paired comparison."""
import json
from dataclasses import replace

import numpy as np
import pytest

from proofbook.entailer import selection
from proofbook.entailer.training_data import QUESTION_SOURCE, StatementGroups
from proofbook.entailer.settings import Settings


@pytest.mark.unit
def test_compare_is_paired_and_refuses_other_splits():
    a = {"checkpoint": "big", "correct": [True, True, False, True], "group_accuracy": 0.75}
    b = {"checkpoint": "small", "correct": [True, False, False, False], "group_accuracy": 0.25}
    out = selection.compare(a, b)
    assert out["difference"] == pytest.approx(0.5) and out["only_a"] == 2 and out["only_b"] == 0 and out["n"] == 4
    assert out["ci95"][0] <= 0.5 <= out["ci95"][1]
    with pytest.raises(ValueError, match="not the same split"):
        selection.compare(a, {**b, "correct": [True]})


@pytest.mark.data
def test_selection_on_real_obqa_train(real_data_dir, tmp_path):
    settings = Settings.smoke()
    train, held = selection.selection_groups(real_data_dir, settings, held_questions=5)
    assert len(held) == 5 and set(held.sources) == {QUESTION_SOURCE}
    assert sum(s == QUESTION_SOURCE for s in train.sources) == settings.truth_questions
    assert not {g[0][0] for g in held.groups} & {g[0][0] for g in train.groups}      # no question in both
    with pytest.raises(ValueError, match="cannot hold out"):
        selection.selection_groups(real_data_dir, replace(settings, truth_questions=10 ** 6), held_questions=10 ** 6)
    out = tmp_path / "minilm.json"
    selection.main(["--data-dir", str(real_data_dir), "--questions", "8", "--statements", "4", "--held", "5", "--out", str(out)])
    result = json.loads(out.read_text())
    assert result["train_questions"] == 8 and result["held_questions"] == 5 and len(result["correct"]) == 5
    assert result["group_accuracy"] == pytest.approx(sum(result["correct"]) / 5)


class _Pool:
    """Two candidate sets for a statement with an "x", none for any other."""
    def sets(self, texts):
        return [[("a fact",), ("b fact", "c fact")] if "x" in t else [] for t in texts]


class _Scorer:
    """s_e 0.9 when the premises hold "c fact" and the statement is "true", else 0.3."""
    def predict_proba(self, pairs, progress=False):
        return np.array([[0.0, 0.9 if "c fact" in p and "true" in h else 0.3] for p, h in pairs])


@pytest.mark.unit
def test_best_set_ranked_first_takes_each_statements_best_set():
    groups = StatementGroups([[("x true", True), ("x false", False)], [("y true", True), ("x false", False)]],
                             [QUESTION_SOURCE, QUESTION_SOURCE])
    best, ranked = selection.best_set_ranked_first(_Scorer(), _Pool(), groups)
    assert best == pytest.approx([0.9, 0.3, 0.0, 0.3])          # an empty pool scores 0
    assert ranked == [True, False]


@pytest.mark.data
def test_entailment_selection_on_real_obqa_train(real_data_dir):
    result = selection.entailment_selection(real_data_dir, Settings.smoke(), held_questions=5, progress=False)
    assert result["held_questions"] == 5 and len(result["correct"]) == 5 and result["train_pairs"] > 0
    assert result["group_accuracy"] == pytest.approx(sum(result["correct"]) / 5)
    assert 0 <= result["held_out_accuracy"] <= 1
