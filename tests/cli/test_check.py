"""Results that prove where they came from: input digests (proofbook.core.provenance) and ``check``."""
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from proofbook.cli import check, runner
from proofbook.core import provenance
from proofbook.__main__ import main
from proofbook.data import politifact
from proofbook.core.results import Results

pytestmark = pytest.mark.unit

CLEAN = "0123456789abcdef0123456789abcdef01234567"


def write_notebook(folder: Path, body: str) -> Path:
    source = folder / "nb.py"
    source.write_text('# %% tags=["parameters"]\nseed = 0\n\n# %%\n' + body, encoding="utf-8")
    return source


def test_imported_modules_follow_imports_through_modules_and_functions(tmp_path):
    source = write_notebook(tmp_path, "from proofbook.core.results import Results\n\ndef later():\n"
                                      "    from proofbook.index import bm25\n")
    names = {p.relative_to(provenance.LIBRARY).as_posix() for p in provenance.imported_modules(source)}
    # results imports provenance and paths; importing a submodule runs its packages' __init__ files
    assert {"__init__.py", "core/__init__.py", "core/results.py", "core/provenance.py", "core/paths.py",
            "index/__init__.py", "index/bm25.py"} <= names
    assert "entailer/search.py" not in names and "wild/search.py" not in names


def test_a_results_file_names_its_data_by_content_and_relative_path(tmp_path, monkeypatch):
    data = tmp_path / "data"
    (data / "liar").mkdir(parents=True)
    row = "\t".join(["1.json", "true", "A claim.", "tax", "jo", "", "", "", "0", "0", "0", "0", "0", "a speech"])
    (data / "liar" / "train.tsv").write_text(row + "\n", encoding="utf-8")
    source = write_notebook(tmp_path, "")
    monkeypatch.setenv("PROOFBOOK_NOTEBOOK", str(source))
    politifact.read_liar(data, "train")
    res = Results("paper/nb", {"data_dir": str(data), "seed": 0}, tmp_path / "results")
    res.add("liar", "train", "x", "accuracy", 1.0, 1)
    saved = json.loads(res.path.read_text(encoding="utf-8"))
    digest = saved["input_digest"]
    assert digest["data"]["liar/train.tsv"] == hashlib.sha256((data / "liar" / "train.tsv").read_bytes()).hexdigest()
    assert digest["params"] == {"data_dir": ".", "seed": 0} and digest["source"] == provenance.sha256_file(source)
    assert set(saved["environment"]) >= {"python", "torch", "transformers", "torch_threads", "cpu"}
    # the same data in another folder is not stale; an edited copy is
    copy = tmp_path / "copy"
    shutil.copytree(data, copy)
    assert provenance.stale_parts(source, digest, copy) == []
    (copy / "liar" / "train.tsv").write_text(row.replace("true", "false") + "\n", encoding="utf-8")
    assert provenance.stale_parts(source, digest, copy) == ["data: liar/train.tsv differs"]
    source.write_text(source.read_text() + "1\n")
    assert provenance.stale_parts(source, digest, None) == ["source: nb.py changed"]


def good_file(**changes) -> dict:
    data = {"notebook": "introduction/00_introduction", "git_commit": CLEAN, "params": {"data_dir": "."},
            "input_digest": {"source": "x", "library": {}, "params": {}, "data": {}}, "environment": {},
            "complete": True, "rows": [{"dataset": "d", "split": "dev", "system": "s", "metric": "m", "value": 0.5, "n": 2}]}
    data.update(changes)
    return {k: v for k, v in data.items() if v is not ...}


@pytest.mark.parametrize("content, problem", [
    ("{not json", "not a JSON file"),
    (good_file(input_digest=...), "missing field 'input_digest'"),
    (good_file(git_commit=CLEAN + "-dirty"), "dirty work tree"),
    (good_file(git_commit="unknown"), "unknown commit"),
    (good_file(complete=False), "unfinished: the run that wrote it stopped before its last cell"),
    (good_file(complete=...), "missing field 'complete'"),
    (good_file(params={"data_dir": "/work/shared/data"}), "absolute path '/work/shared/data' at params.data_dir"),
    (good_file(rows=[{"dataset": "d", "split": "dev", "system": "s", "metric": "m", "value": 0.5}]), "row 0: missing"),
    (good_file(input_digest={"source": "x"}), "input_digest: missing 'library'"),
])
def test_check_structure_names_the_file_and_the_problem(tmp_path, content, problem):
    path = tmp_path / "paper" / "nb.json"
    path.parent.mkdir()
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    problems = check.run_check(tmp_path, structure_only=True, notebooks=[])
    assert len(problems) >= 1 and all(p.startswith(str(path)) for p in problems)
    assert any(problem in p for p in problems), problems


def test_check_passes_on_a_good_file_and_flags_a_stale_one(tmp_path, capsys):
    path = tmp_path / "introduction" / "00_introduction.json"
    path.parent.mkdir()
    source = provenance.notebook_source("introduction/00_introduction")
    current = {**provenance.code_digest_of(source), "params": {}, "data": {}}
    path.write_text(json.dumps(good_file(input_digest=current)), encoding="utf-8")
    assert check.run_check(tmp_path, structure_only=False, data_dir=None, notebooks=[]) == []
    assert main(["check", "--results-dir", str(tmp_path), "--data-dir", str(tmp_path)]) == 0
    old = {**current, "library": {**current["library"], "core/results.py": "0" * 64}}
    path.write_text(json.dumps(good_file(input_digest=old)), encoding="utf-8")
    assert check.run_check(tmp_path, data_dir=None, notebooks=[]) == [f"{path}: stale: library: core/results.py changed"]
    assert main(["check", "--results-dir", str(tmp_path), "--data-dir", str(tmp_path)]) == 1
    assert "stale: library: core/results.py changed" in capsys.readouterr().out


def test_a_glue_name_shown_but_never_glued_is_found(tmp_path):
    source = tmp_path / "nb.py"
    source.write_text('# %% [markdown]\n# Recall {glue:text}`recall_hover` and {glue:}`gain_x:.2f`, '
                      'also {glue:text}`missing_one`.\n\n# %%\nfrom myst_nb import glue\nd = "hover"\n'
                      'glue(f"recall_{d}", 1, display=False)\nglue("gain_x", 2, display=False)\n', encoding="utf-8")
    assert check.glue_problems(source) == ["{glue}`missing_one` is shown but never glued"]


@pytest.mark.parametrize("source", runner.book_notebooks(), ids=runner.notebook_id)
def test_every_glue_name_of_the_book_is_glued(source):
    assert check.glue_problems(source) == []


def test_git_commit_is_dirty_for_changed_code_but_not_for_the_notebooks_outputs(tmp_path):
    import subprocess

    from proofbook.core.results import git_commit

    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    for folder in ("lib", "results", "figures"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "f.txt").write_text("one\n")
    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x")
    assert not git_commit(tmp_path).endswith("-dirty")
    (tmp_path / "results" / "f.txt").write_text("two\n")      # a run rewrote its results and figures
    (tmp_path / "figures" / "f.txt").write_text("two\n")
    assert not git_commit(tmp_path).endswith("-dirty")
    (tmp_path / "lib" / "f.txt").write_text("two\n")          # the code changed
    assert git_commit(tmp_path).endswith("-dirty")
