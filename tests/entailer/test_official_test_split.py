"""The Entailer chapters accept the official EntailmentBank test split, which repeats one id.

The official v2 test files (``dataset__task_{1,2,3}__test.jsonl``, held back from the shared data) repeat
``Mercury_SC_405304`` on two consecutive lines with two different trees.  The reader keeps both (counted in
``.irregular``); everything downstream works on lists of trees, so both are evaluated.  The test split is
built here from the real dev files (copied into ``tmp_path`` under the test names, one id repeated).
"""
import json
from pathlib import Path

import numpy as np
import pytest

from proofbook.data.entailmentbank import dataset_name, describe, one_step_entailments, read_entailmentbank
from proofbook.entailer import datasets
from proofbook.entailer import hypotheses as hyp
from proofbook.entailer.search import SearchConfig

pytestmark = pytest.mark.data

#: the 0-based line of the real dev file whose next line gets its id
FIRST = 10


@pytest.fixture
def data_dir(real_data_dir, tmp_path) -> Path:
    """A data directory whose ``entailmentbank`` folder holds the dev files and, under the test names, the same
    files with line FIRST+2's id replaced by line FIRST+1's (two consecutive lines, two different trees)."""
    source = real_data_dir / "entailmentbank"
    if not all((source / dataset_name(task, "dev")).is_file() for task in (1, 2, 3)):
        pytest.skip(f"the EntailmentBank dev files are absent from {source}")
    folder = tmp_path / "entailmentbank"
    folder.mkdir()
    for task in (1, 2, 3):
        text = (source / dataset_name(task, "dev")).read_text(encoding="utf-8")
        (folder / dataset_name(task, "dev")).write_text(text, encoding="utf-8")
        lines = text.splitlines()
        first, second = (json.loads(line) for line in lines[FIRST:FIRST + 2])
        assert first["id"] != second["id"] and first["hypothesis"] != second["hypothesis"]
        second["id"] = first["id"]
        lines[FIRST + 1] = json.dumps(second)
        (folder / dataset_name(task, "test")).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return tmp_path


def test_the_test_split_is_an_evaluation_split_and_reads_for_every_task(data_dir):
    assert datasets.evaluation_splits(data_dir, "entailmentbank") == ["dev", "test"]
    assert datasets.evaluation_splits(data_dir, "entailmentbank", "test") == ["test"]
    assert data_dir / "entailmentbank" / dataset_name(1, "test") in datasets.evaluation_files(data_dir)
    for task in (1, 2, 3):
        dev, test = read_entailmentbank(data_dir, "dev", task), read_entailmentbank(data_dir, "test", task)
        assert len(test) == len(dev) == 187
        repeated = dev[FIRST].id
        assert [t.hypothesis for t in test if t.id == repeated] == [dev[FIRST].hypothesis, dev[FIRST + 1].hypothesis]
        assert test.irregular.counts == {"duplicate id": 1}
        assert test.irregular.examples["duplicate id"] == [f"{repeated} (lines {FIRST + 1}, {FIRST + 2})"]
    rows = {(r["dataset"], r["split"]): r for r in describe(data_dir)}
    for task in (1, 2, 3):
        row = rows[(f"entailmentbank task {task}", "test")]
        assert row["records"] == 187 and "duplicate id x1 (kept)" in row["detail"]


def test_evaluation_statements_hold_both_trees_of_the_repeated_id(data_dir):
    statements = datasets.evaluation_statements(data_dir)
    trees = [t for split in ("dev", "test") for t in read_entailmentbank(data_dir, split, 1)]
    assert len(statements) == sum(1 + len(t.intermediates) for t in trees)
    test = read_entailmentbank(data_dir, "test", 1)
    for tree in (test[FIRST], test[FIRST + 1]):
        assert tree.hypothesis in statements


def test_the_hypothesis_writers_score_both_trees(data_dir):
    dev, test = read_entailmentbank(data_dir, "dev", 1), read_entailmentbank(data_dir, "test", 1)
    [on_dev], [on_test] = hyp.compare_writers([hyp.RuleWriter()], dev), hyp.compare_writers([hyp.RuleWriter()], test)
    assert on_test.n == on_dev.n == sum(1 for t in test if t.question and t.answer)
    assert on_test.per_question_f1 == on_dev.per_question_f1


class OracleModel:
    """Proposes each conclusion's gold premises (the first step with that conclusion), scores everything 0.9."""

    def __init__(self, steps):
        self.gold = {}
        for e in steps:
            self.gold.setdefault(e.conclusion, list(e.premises))

    def generate_premises(self, hypotheses, k, sample, temperature, top_p, seed):
        return [[self.gold[h]] if h in self.gold else [] for h in hypotheses]

    def truth_scores(self, statements):
        return [0.9 for _ in statements]

    def entailment_scores(self, proofs):
        return [0.9 for _ in proofs]


class OracleComponents:
    def __init__(self, model):
        self.model = model

    def behaviours(self, source):
        return self.model


class ExactEmbedder:
    """One-hot vectors per distinct text: cosine 1 for the same text, 0 otherwise."""

    def __init__(self):
        self.index = {}

    def encode(self, texts, progress=False):
        ids = [self.index.setdefault(t, len(self.index)) for t in texts]
        out = np.zeros((len(texts), 10_000), dtype=np.float32)
        out[np.arange(len(texts)), ids] = 1.0
        return out


def test_premise_recall_counts_both_trees_of_the_repeated_id(data_dir):
    from proofbook.entailer.entailer_experiments import premise_recall

    dev, test = read_entailmentbank(data_dir, "dev", 1), read_entailmentbank(data_dir, "test", 1)
    steps = [e for t in test for e in one_step_entailments(t)]
    components = OracleComponents(OracleModel(steps))
    config = SearchConfig.greedy()
    recall, total, _ = premise_recall(components, test, "generated", config, ExactEmbedder(), progress=False)
    assert total == sum(len(e.premises) for e in steps)
    assert sum(len(e.premises) for t in test[FIRST:FIRST + 2] for e in one_step_entailments(t)) > 0
    assert (recall, total) == premise_recall(components, dev, "generated", config, ExactEmbedder(), progress=False)[:2]
    assert recall > 0.9
