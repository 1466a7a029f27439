"""The retrieval experiments chapter (admiral/02) runs end to end in smoke mode on the real data and writes the
rows its claims read: the paper's full-tree ``admiral`` with its ablations where it runs, the mention-narrowed
stand-in everywhere, and the paired differences (exact match included, the Not-joint ablation's metric)."""
import pytest

from proofbook.admiral.retrieval import retrieval_experiments

pytestmark = pytest.mark.notebook


def test_retrieval_chapter_writes_the_papers_method_and_the_stand_in(smoke_run):
    [data] = smoke_run("admiral/02_experiments")["results"].values()
    keys = {(r["dataset"], r["system"], r["metric"]) for r in data["rows"]}
    for dataset in ("hover", "feverous_s", "feverous_s+distractors"):
        full = dataset in retrieval_experiments.FULLTRIE_DATASETS
        for name in ("admiral", "admiral-mentions"):
            for system in (name, f"{name}-top1", f"{name}-notjoint"):
                assert ((dataset, system, "recall@5") in keys) == (full or name == "admiral-mentions"), system
            if full or name == "admiral-mentions":
                assert {(dataset, f"{name}-vs-{name}-notjoint", m) for m in ("em", "em:ci95_low", "recall@5")} <= keys
                assert (dataset, f"{name}-vs-dense-mdr", "recall@5") in keys
    assert ("hover", "admiral-mentions-vs-mentions-only", "recall@5") in keys
    for dataset in retrieval_experiments.FULLTRIE_DATASETS:     # the copy head against the model without it
        assert {(dataset, "admiral-nocopy", "recall@5"), (dataset, "admiral-vs-admiral-nocopy", "recall@5"),
                (dataset, "admiral-vs-mentions-only", "recall@10")} <= keys
    # measured on held-apart training claims (the smoke task's FEVEROUS-S claims give no hop-1 example)
    assert {("hover", "copy", "hop1_top1"), ("hover", "no-copy", "hop1_top5"),
            ("hover", "copy-vs-no-copy", "hop1_top1:ci95_low"), ("hover", "gold", "hop1_copyable")} <= keys
