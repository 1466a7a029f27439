"""``python -m proofbook explain``: each paper's explainer with smoke models, its JSON keys, and bad input.

The smoke explainers reuse the model cache of the chapters' smoke runs (``smoke_run``, tests/smoke_runs.py):
the same smoke settings and data give the same cache keys, so nothing is trained twice.  Each explainer runs
on a dev and a test example of every dataset it reads (AdMIRaL: HoVer dev and test, FEVEROUS-S dev; Entailer:
OBQA dev; claims in the wild: a ClaimDecomp dev claim without cached questions and a test claim with them).
"""
import json
import re

import pytest

from proofbook.cli import explain
from proofbook.__main__ import main


def run_cli(argv, capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


NUMBER = re.compile(r"-?\d+\.\d+")


def assert_rounded(lines) -> None:
    """Every decimal number on ``lines`` has at most 3 decimals, and some have exactly 3."""
    lines = list(lines)
    numbers = [n for line in lines for n in NUMBER.findall(line)]
    assert numbers, lines
    assert all(len(n.split(".")[1]) <= 3 for n in numbers), [line for line in lines if re.search(r"\.\d{4}", line)]
    assert any(len(n.split(".")[1]) == 3 for n in numbers)


def assert_one_line_refusal(code: int, out: str, err: str) -> None:
    """Exit status 2, nothing on stdout, one line on stderr (``explain PAPER: ...``, or ``proofbook explain: ...``
    where the command line refuses an option before the explainer runs), no traceback."""
    assert code == 2 and out == "", (code, out, err)
    assert re.match(r"(proofbook )?explain\b", err) and err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err


def explain_main(paper: str, capsys, **given) -> tuple[int, str, str]:
    """``proofbook.cli.explain.main`` itself, with the options of the command line (defaults as argparse's)."""
    from argparse import Namespace

    args = Namespace(**{"claim": None, "question": None, "options": None, "claim_id": None, "json": False,
                        "html": None, "smoke": True, "data_dir": None, "seed": 0, **given})
    code = explain.main(paper, args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def full_precision(values) -> bool:
    """Whether some of the floats keep more decimals than the text shows."""
    return any(len(repr(float(v)).split(".")[1]) > 4 for v in values if isinstance(v, float))


@pytest.fixture(scope="module")
def examples(real_data_dir) -> dict:
    """A dev and a test example of every dataset an explainer reads."""
    from proofbook.data.feverous import read_feverous_claims
    from proofbook.data.hover import read_hover_claims
    from proofbook.data.science_qa import read_obqa
    from proofbook.wild.datasets import load_data

    data = load_data(real_data_dir)
    dev = [c for c in data.claimdecomp["dev"] if c.example_id not in data.cached_questions]
    # a negative example_id if there is one: argparse must take "--claim-id -123" as the id
    dev = sorted(dev, key=lambda c: c.example_id >= 0)[0]
    test = next(c for c in data.claimdecomp["test"] if c.example_id in data.cached_questions)
    liar = next(s for split in ("valid", "train") for s in data.liar.get(split, []))
    return {"hover dev": read_hover_claims(real_data_dir, "dev")[0].claim,
            "hover test": read_hover_claims(real_data_dir, "test")[0].claim,
            "feverous_s dev": read_feverous_claims(real_data_dir, "dev")[0].claim,
            "obqa dev": read_obqa(real_data_dir, "dev")[0],
            "claimdecomp dev": dev, "claimdecomp test": test, "liar": liar.id}


@pytest.fixture
def smoke_cache(smoke_run, monkeypatch):
    """Point the artifact cache at the smoke runs' cache (after the chapter named here has filled it)."""
    def use(chapter: str) -> None:
        smoke_run(chapter)
        monkeypatch.setenv("PROOFBOOK_CACHE", str(smoke_run.root / "cache"))
    return use


@pytest.mark.notebook
def test_explain_admiral_smoke_json_and_html(smoke_cache, real_data_dir, examples, capsys, tmp_path):
    smoke_cache("admiral/06_sufficiency")
    claim = examples["hover dev"]
    page = tmp_path / "trace.html"
    code, out, err = run_cli(["explain", "admiral", claim, "--smoke", "--json", "--data-dir", str(real_data_dir),
                              "--html", str(page)], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert {"claim", "bm25", "genre", "reranked_documents", "selected", "hops", "sufficiency", "ranking",
            "stopped_by_sufficiency", "iterations", "seconds"} <= set(trace)
    assert trace["claim"] == claim and trace["bm25"] and trace["ranking"]
    assert len(trace["sufficiency"]) == trace["iterations"] == 1 + len(trace["hops"])
    assert all({"sufficient", "proofs", "kept", "threshold", "score"} <= set(d) for d in trace["sufficiency"])
    assert all(0 <= beam["copied"] <= 1 for hop in trace["hops"] for beam in hop["beams"])   # the hop models copy
    # --json keeps full precision; the text the command prints for this trace and the page round to 3 decimals
    assert full_precision([r["score"] for r in trace["bm25"]] + [s["score"] for s in trace["selected"]])
    text = explain.TEXT["admiral"](trace)
    assert_rounded(line for line in text.splitlines() if re.match(r"\s+-?\d+\.\d+  ", line)
                   or "sufficiency after iteration" in line)
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "bm25" in html and "<script" not in html
    numbers = re.findall(r"<td>(-?\d+\.\d+)</td>", html)
    numbers += re.findall(r'(?:"|&quot;)score(?:"|&quot;): (-?\d+\.\d+)', html)   # scores inside JSON cells
    assert numbers and all(len(n.split(".")[1]) <= 3 for n in numbers)


@pytest.mark.notebook
@pytest.mark.parametrize("example", ["hover test", "feverous_s dev"])
def test_explain_admiral_smoke_text_on_each_dataset(example, smoke_cache, real_data_dir, examples, capsys):
    """The command takes any claim: a HoVer test claim and a FEVEROUS-S claim, in text, numbers rounded."""
    smoke_cache("admiral/06_sufficiency")
    code, out, err = run_cli(["explain", "admiral", examples[example], "--smoke", "--data-dir", str(real_data_dir)],
                             capsys)
    assert code == 0, err
    assert out.startswith(f"claim: {examples[example]}") and "final ranking:" in out
    assert_rounded(line for line in out.splitlines() if re.match(r"\s+-?\d+\.\d+  ", line)
                   or "sufficiency after iteration" in line)


@pytest.mark.notebook
def test_explain_entailer_smoke_json_keys_and_text(smoke_cache, real_data_dir, examples, capsys):
    smoke_cache("entailer/01_method")
    question = examples["obqa dev"]           # an OBQA dev question with its own options
    labels = [o.label for o in question.options]
    argv = ["explain", "entailer", question.stem, "--options", *[o.text for o in question.options], "--smoke",
            "--data-dir", str(real_data_dir)]
    code, out, err = run_cli(argv + ["--json"], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert {"hypotheses", "candidates", "trees", "answer"} <= set(trace)
    assert set(trace["hypotheses"]) == set(trace["trees"]) == set(trace["candidates"]) == set(labels)
    assert trace["answer"]["entailer"] in labels and trace["answer"]["direct"] in labels
    assert full_precision([s[k] for s in trace["scores"].values() for k in ("direct", "proof")])
    # the answers are the options whose trees score highest (ties: the first option, as max() keeps it)
    from proofbook.entailer.search import OptionProof
    from proofbook.entailer.trees import ProofNode

    options = [OptionProof(label, trace["options"][label], trace["hypotheses"][label],
                           ProofNode.from_dict(trace["trees"][label])) for label in labels]
    assert trace["answer"]["entailer"] == max(options, key=lambda o: o.proof_score).label
    assert trace["answer"]["direct"] == max(options, key=lambda o: o.direct).label
    code, out, err = run_cli(argv, capsys)
    assert code == 0 and f"(A) {question.options[0].text}" in out and "answers: Entailer" in out
    assert_rounded(line for line in out.splitlines() if "s_d(H) =" in line or "(premises " in line)


WILD_KEYS = {"claim", "questions_source", "questions", "annotated_questions", "search_note", "search", "passages",
             "summaries", "veracity", "seconds"}


def veracity_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("  condition: ")]


@pytest.mark.notebook
def test_explain_wild_smoke_test_claim_with_cached_questions(smoke_cache, real_data_dir, examples, capsys):
    smoke_cache("wild/01_method")
    claim = examples["claimdecomp test"]
    argv = ["explain", "wild", "--claim-id", str(claim.example_id), "--smoke", "--data-dir", str(real_data_dir)]
    code, out, err = run_cli(argv + ["--json"], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert WILD_KEYS <= set(trace)
    assert trace["claim"]["id"] == str(claim.example_id) and trace["claim"]["split"] == "test" and trace["veracity"]
    assert trace["questions_source"] == "cached LLM questions" and trace["search"] and trace["search_note"] is None
    assert trace["annotated_questions"] == list(claim.subquestions)
    assert full_precision([v for row in trace["veracity"] for v in row.values()])
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert "questions source: cached LLM questions" in out and "annotated questions (ClaimDecomp" in out
    assert len(veracity_lines(out)) == 4
    assert_rounded(veracity_lines(out))


@pytest.mark.notebook
def test_explain_wild_smoke_dev_claim_falls_back_to_annotated_questions(smoke_cache, real_data_dir, examples,
                                                                       capsys, tmp_path):
    """A dev claim has no cached LLM questions (and no cached search results): its annotated questions stand in,
    the search finds nothing and says why, and the trace says where the questions came from."""
    smoke_cache("wild/01_method")
    claim = examples["claimdecomp dev"]
    page = tmp_path / "wild.html"
    argv = ["explain", "wild", "--claim-id", str(claim.example_id), "--smoke", "--data-dir", str(real_data_dir)]
    code, out, err = run_cli(argv + ["--json", "--html", str(page)], capsys)
    assert code == 0, err
    trace = json.loads(out)
    assert WILD_KEYS <= set(trace) and trace["claim"]["split"] == "dev"
    assert trace["questions_source"] == "annotated questions"
    assert trace["questions"] == trace["annotated_questions"] == list(claim.subquestions)
    assert trace["search"] == [] and "search cache" in trace["search_note"]
    assert [row["condition"] for row in trace["veracity"]] == ["claim-only", "justification", "web-snippets",
                                                               "web-summaries"]
    html = page.read_text(encoding="utf-8")
    assert "<h2>questions_source</h2><pre>annotated questions</pre>" in html and "<script" not in html
    cells = re.findall(r"<td>(\d\.\d+)</td>", html)
    assert cells and all(len(c.split(".")[1]) == 3 for c in cells)
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    assert "questions source: annotated questions" in out and "note: no search results" in out
    assert_rounded(veracity_lines(out))


@pytest.mark.data
def test_explain_without_cached_models_names_the_command(real_data_dir, capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "empty-cache"))
    code, out, err = run_cli(["explain", "entailer", "Which is a mammal?", "--options", "a whale", "a shark",
                              "--data-dir", str(real_data_dir)], capsys)
    assert code == 2 and out == ""
    assert "not in the model cache" in err and "make book" in err and "--smoke" in err


@pytest.mark.unit
@pytest.mark.parametrize("argv, message", [
    (["admiral", "   "], "the claim is empty"),
    (["admiral", ""], "the claim is empty"),
    (["admiral", "🙂 🎉 ᚠᚢᚦ"], "has no word the models know"),
    (["admiral", "!!! ..."], "has no letter or digit"),
    (["admiral", "the of a"], "has no content word"),
    (["entailer", "Which is a mammal?", "--options", "a whale"], "at least two options, got 1"),
    (["entailer", "Which is a mammal?", "--options", "a whale", "A  Whale"], "options 'A' and 'B' are the same"),
    (["entailer", "Which is a mammal?", "--options", "a whale", " "], "option 'B' is empty"),
    (["entailer", "Which is a mammal?", "--options", "a whale", "?!"], "the option '?!' has no letter or digit"),
    (["entailer", "Which is a mammal?", "--options", *[f"animal {i}" for i in range(27)]], "at most 26 options"),
    (["entailer", "", "--options", "a whale", "a shark"], "the question is empty"),
    (["wild", "--claim-id", " "], "the claim id is empty"),
])
def test_explain_refuses_bad_input_with_a_clear_message(argv, message, capsys):
    code, out, err = run_cli(["explain", *argv, "--smoke"], capsys)
    assert_one_line_refusal(code, out, err)
    assert message in err


@pytest.mark.unit
@pytest.mark.parametrize("paper, given, message", [
    ("wild", {"claim_id": "1", "data_dir": "/no/such/data"}, "the data directory /no/such/data (--data-dir) does not"),
    ("wild", {"claim_id": "1", "data_dir": ""}, "cannot be used"),        # the empty copy made below
    ("admiral", {"claim": "A claim.", "data_dir": ""}, "hover_multihop"),
    ("entailer", {"question": "Which is a mammal?", "options": ["a whale", "a shark"], "data_dir": ""},
     "Entailer training needs"),
    ("wild", {"claim_id": "1", "seed": -1}, "--seed -1: expected a whole number"),
    ("wild", {"claim_id": "1", "html": "/no/such/folder/trace.html"}, "the folder /no/such/folder does not exist"),
    ("other", {}, "unknown paper 'other'"),
])
def test_explain_main_refuses_bad_options_and_missing_data(paper, given, message, capsys, tmp_path, monkeypatch):
    """:func:`proofbook.cli.explain.main` itself: exit 2 and one line, whatever the command line checks first."""
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "cache"))
    if given.get("data_dir") == "":
        given["data_dir"] = str(tmp_path)                # a folder without the datasets
    code, out, err = explain_main(paper, capsys, **given)
    assert_one_line_refusal(code, out, err)
    assert err.startswith(f"explain {paper}: ") and message in err


@pytest.mark.data
def test_explain_wild_unknown_claim_id(real_data_dir, examples, capsys):
    code, out, err = run_cli(["explain", "wild", "--claim-id", "no-such-claim", "--smoke", "--data-dir",
                              str(real_data_dir)], capsys)
    assert_one_line_refusal(code, out, err)
    assert "unknown claim id 'no-such-claim'" in err and "ClaimDecomp" in err
    code, out, err = run_cli(["explain", "wild", "--claim-id", examples["liar"], "--smoke", "--data-dir",
                              str(real_data_dir)], capsys)
    assert_one_line_refusal(code, out, err)
    assert "is a LIAR statement" in err


@pytest.mark.unit
def test_questions_come_from_the_cache_else_the_annotations_else_the_claim():
    from types import SimpleNamespace

    cached = SimpleNamespace(example_id=1, claim="Taxes rose.", subquestions=["Did taxes rise?"])
    annotated = SimpleNamespace(example_id=2, claim="Taxes fell.", subquestions=["Did taxes fall?", " "])
    bare = SimpleNamespace(example_id=3, claim="Taxes stayed.", subquestions=[])
    data = SimpleNamespace(cached_questions={1: ["Were taxes raised?"], 2: []})
    assert explain.questions_for(data, cached) == (["Were taxes raised?"], "cached LLM questions")
    assert explain.questions_for(data, annotated) == (["Did taxes fall?"], "annotated questions")
    assert explain.questions_for(data, bare) == (["Taxes stayed."], "the claim itself")


@pytest.mark.unit
def test_refusals_are_one_exception_type_and_text_rounds_what_json_keeps():
    assert issubclass(explain.MissingModels, explain.RefusedInput) and issubclass(explain.RefusedInput, ValueError)
    assert issubclass(explain.MissingModels, RuntimeError)
    assert explain.rounded({"p": [0.123456, 2], "q": (1.98765,), "ok": True, "s": "0.123456"}) == \
        {"p": [0.123, 2], "q": [1.988], "ok": True, "s": "0.123456"}
    assert explain.one_line("a\n  b\n\nc") == "a; b; c"


@pytest.mark.unit
def test_load_only_cache_loads_what_is_stored_and_never_builds(tmp_path):
    from proofbook.core.codecs import json_codec

    cache = explain.LoadOnlyCache(tmp_path, paper="wild")
    with pytest.raises(explain.MissingModels, match="make book"):
        cache.get_or_build("thing", {"a": 1}, lambda: pytest.fail("built"), *json_codec())
    explain.ArtifactCache(tmp_path).cache_json("thing", {"a": 1}, lambda: {"value": 3})
    assert cache.get_or_build("thing", {"a": 1}, lambda: pytest.fail("built"), *json_codec()) == {"value": 3}
