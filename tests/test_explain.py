"""``python -m proofbook explain``: each paper's explainer with smoke models, its JSON keys, and bad input.

The smoke explainers reuse the model cache of the chapters' smoke runs (``smoke_run``, tests/conftest.py):
the same smoke settings and data give the same cache keys, so nothing is trained twice.
"""
import json

import pytest

from proofbook.cli import explain
from proofbook.__main__ import main

CLAIM = "The director of the film Inception was born in London."


def run_cli(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def smoke_cache(smoke_run, monkeypatch):
    """Point the artifact cache at the smoke runs' cache (after the chapter named here has filled it)."""
    def use(chapter: str) -> None:
        smoke_run(chapter)
        monkeypatch.setenv("PROOFBOOK_CACHE", str(smoke_run.root / "cache"))
    return use


@pytest.mark.notebook
def test_explain_admiral_smoke_json_and_html(smoke_cache, real_data_dir, capsys, tmp_path):
    smoke_cache("admiral/06_sufficiency")
    page = tmp_path / "trace.html"
    code, out, err = run_cli(["explain", "admiral", CLAIM, "--smoke", "--json", "--data-dir", str(real_data_dir),
                              "--html", str(page)], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert {"claim", "bm25", "genre", "reranked_documents", "selected", "hops", "sufficiency", "ranking",
            "stopped_by_sufficiency", "iterations", "seconds"} <= set(trace)
    assert trace["claim"] == CLAIM and trace["bm25"] and trace["ranking"]
    assert len(trace["sufficiency"]) == trace["iterations"] == 1 + len(trace["hops"])
    assert all({"sufficient", "proofs", "kept", "threshold", "score"} <= set(d) for d in trace["sufficiency"])
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and "bm25" in text and "<script" not in text


@pytest.mark.notebook
def test_explain_entailer_smoke_json_keys_and_text(smoke_cache, real_data_dir, capsys):
    smoke_cache("entailer/01_method")
    argv = ["explain", "entailer", "What do plants need to make food?", "--options", "sunlight", "darkness",
            "plastic", "--smoke", "--data-dir", str(real_data_dir)]
    code, out, err = run_cli(argv + ["--json"], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert {"hypotheses", "candidates", "trees", "answer"} <= set(trace)
    assert set(trace["hypotheses"]) == set(trace["trees"]) == set(trace["candidates"]) == {"A", "B", "C"}
    assert trace["answer"]["entailer"] in {"A", "B", "C"} and trace["answer"]["direct"] in {"A", "B", "C"}
    # the answers are the options whose trees score highest (ties: the first option, as max() keeps it)
    from proofbook.entailer.search import OptionProof
    from proofbook.entailer.trees import ProofNode

    options = [OptionProof(label, trace["options"][label], trace["hypotheses"][label],
                           ProofNode.from_dict(trace["trees"][label])) for label in ("A", "B", "C")]
    assert trace["answer"]["entailer"] == max(options, key=lambda o: o.proof_score).label
    assert trace["answer"]["direct"] == max(options, key=lambda o: o.direct).label
    code, out, err = run_cli(argv, capsys)
    assert code == 0 and "(A) sunlight" in out and "answers: Entailer" in out


@pytest.mark.notebook
def test_explain_wild_smoke_json_keys(smoke_cache, real_data_dir, capsys):
    from proofbook.wild.datasets import load_data

    smoke_cache("wild/01_method")
    claim_id = str(load_data(real_data_dir).claimdecomp["test"][0].example_id)
    code, out, err = run_cli(["explain", "wild", "--claim-id", claim_id, "--smoke", "--json", "--data-dir",
                              str(real_data_dir)], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert {"claim", "questions", "search", "passages", "summaries", "veracity", "seconds"} <= set(trace)
    assert trace["claim"]["id"] == claim_id and trace["veracity"]


@pytest.mark.data
def test_explain_without_cached_models_names_the_command(real_data_dir, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "empty-cache"))
    code, out, err = run_cli(["explain", "entailer", "Which is a mammal?", "--options", "a whale", "a shark",
                              "--data-dir", str(real_data_dir)], capsys)
    assert code == 2 and out == ""
    assert "not in the model cache" in err and "make book" in err and "--smoke" in err


@pytest.mark.parametrize("argv, message", [
    (["admiral", "   "], "the claim is empty"),
    (["admiral", "🙂 🎉 ᚠᚢᚦ"], "has no word the models know"),
    (["entailer", "Which is a mammal?", "--options", "a whale"], "at least two options, got 1"),
    (["entailer", "Which is a mammal?", "--options", "a whale", "A  Whale"], "options 'A' and 'B' are the same"),
    (["entailer", "Which is a mammal?", "--options", "a whale", " "], "option 'B' is empty"),
    (["entailer", "", "--options", "a whale", "a shark"], "the question is empty"),
    (["wild", "--claim-id", " "], "the claim id is empty"),
])
def test_explain_refuses_bad_input_with_a_clear_message(argv, message, capsys):
    code, out, err = run_cli(["explain", *argv, "--smoke"], capsys)
    assert code == 2 and out == "" and message in err


@pytest.mark.data
def test_explain_wild_unknown_claim_id(real_data_dir, capsys):
    code, out, err = run_cli(["explain", "wild", "--claim-id", "no-such-claim", "--smoke", "--data-dir",
                              str(real_data_dir)], capsys)
    assert code == 2 and "unknown claim id 'no-such-claim'" in err and "ClaimDecomp" in err


@pytest.mark.unit
def test_load_only_cache_loads_what_is_stored_and_never_builds(tmp_path):
    from proofbook.core.codecs import json_codec

    cache = explain.LoadOnlyCache(tmp_path, paper="wild")
    with pytest.raises(explain.MissingModels, match="make book"):
        cache.get_or_build("thing", {"a": 1}, lambda: pytest.fail("built"), *json_codec())
    explain.ArtifactCache(tmp_path).cache_json("thing", {"a": 1}, lambda: {"value": 3})
    assert cache.get_or_build("thing", {"a": 1}, lambda: pytest.fail("built"), *json_codec()) == {"value": 3}
