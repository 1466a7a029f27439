"""The retrieval tasks: corpora, the fixed train/evaluation rule, evaluable claims."""
import pytest

from proofbook.data.base import in_evaluation_part
from proofbook.admiral.retrieval.tasks import load_task


@pytest.mark.unit
def test_unknown_dataset_is_refused():
    with pytest.raises(ValueError, match="unknown retrieval dataset 'fever'"):
        load_task("fever")


@pytest.mark.data
@pytest.mark.parametrize("dataset", ["hover", "feverous_s", "feverous_s+distractors"])
def test_tasks_on_real_data(real_data_dir, dataset):
    task = load_task(dataset, real_data_dir)
    assert task.train and task.evaluation
    assert all(in_evaluation_part(c.id) for c in task.evaluation)
    assert not any(in_evaluation_part(c.id) for c in task.train)
    for claim in task.train + task.evaluation:
        assert all(title in task.corpus for title in claim.gold_titles)
        for title, index in claim.gold_sentences:
            assert title in claim.gold_titles and index < len(task.corpus[title].sentences)
    if dataset == "feverous_s+distractors":
        assert len(task.corpus) > len(load_task("feverous_s", real_data_dir).corpus)
    if dataset == "hover":
        assert {c.num_hops for c in task.evaluation} == {2, 3, 4}
