"""Tests of the notebook runner (proofbook.cli.runner, ``python -m proofbook run``): typed parameters, execution.

Only tiny temporary notebooks are executed here; the book's own notebooks are read, never run.
"""
import hashlib
import json
from pathlib import Path

import pytest

from proofbook.core import results
from proofbook.cli import runner
from proofbook.__main__ import main
from proofbook.cli.runner import Parameter, ParameterError

pytestmark = pytest.mark.unit

NOTEBOOK = '''# %% [markdown]
# # A tiny notebook

# %% tags=["parameters"]
data_dir: str | None = None
split: str | None = None
limit: int | None = None
seed = 0
smoke = False
results_dir = "results"
figures_dir = "figures"

# %%
from pathlib import Path
from proofbook.core.results import Results
assert Path(figures_dir).is_dir(), figures_dir
res = Results("testpaper/tiny", dict(seed=seed, smoke=smoke, limit=limit, split=split, data_dir=data_dir), results_dir)
res.add("toy", "dev", "constant", "accuracy", 0.25 if smoke else 0.5, limit or 4)
'''


@pytest.fixture
def notebook(tmp_path) -> Path:
    source = tmp_path / "nb.py"
    source.write_text(NOTEBOOK)
    return source


def specs(code: str) -> dict:
    return runner.parameter_specs(code, "nb.py")


# ---- typing parameters from the parameters cell ----------------------------------------------
def test_types_come_from_defaults_and_annotations():
    found = specs('a = 0\nb = False\nc = 0.5\nd = "x"\ne: int | None = None\nf: "str | None" = None\n'
                  'g: Optional[float] = None\nh: float = 1\ni = -1\n')
    assert {name: (p.type, p.optional) for name, p in found.items()} == {
        "a": (int, False), "b": (bool, False), "c": (float, False), "d": (str, False), "e": (int, True),
        "f": (str, True), "g": (float, True), "h": (float, False), "i": (int, False)}
    assert found["a"].non_negative and found["e"].non_negative and not found["i"].non_negative


@pytest.mark.parametrize("cell, match", [
    ("limit = None\n", r"limit = None: cannot tell its type; annotate it, e.g. `limit: int \| None = None`"),
    ("ids = [1, 2]\n", "ids = \\[1, 2\\]: a list"),
    ("path = str(Path('x'))\n", "cannot tell its type"),
    ("limit: list | None = None\n", "unsupported annotation 'list | None'"),
    ("limit: int = None\n", "default None is not int"),
    ("seed: int = True\n", "default True is not int"),
    ("limit: int\n", "has no default value"),
])
def test_a_parameter_whose_type_cannot_be_told_is_refused(cell, match):
    with pytest.raises(ParameterError, match=match):
        specs(cell)


@pytest.mark.parametrize("text, value", [("false", False), ("False", False), ("0", False), ("true", True),
                                         ("True", True), ("1", True), (True, True), (False, False)])
def test_booleans_accept_only_true_false_1_0(text, value):
    assert runner.parse_value(Parameter("smoke", bool, default=False), text) is value


@pytest.mark.parametrize("text", ["yes", "no", "", "2", "None", 1, 0, None, "[]"])
def test_other_booleans_are_refused(text):
    with pytest.raises(ParameterError, match=r"parameter smoke=.* refused: expected bool \(True or False\)"):
        runner.parse_value(Parameter("smoke", bool, default=False), text, "nb.py")


def test_ints_floats_strings_and_none():
    limit, seed = Parameter("limit", int, True), Parameter("seed", int, default=0)
    assert runner.parse_value(limit, "3") == 3 and runner.parse_value(limit, 3) == 3
    assert runner.parse_value(limit, "None") is None and runner.parse_value(limit, None) is None
    assert runner.parse_value(seed, "+7") == 7 and runner.parse_value(Parameter("offset", int, default=-1), "-3") == -3
    with pytest.raises(ParameterError, match=r"parameter seed=None refused: expected int \(a non-negative integer\)"):
        runner.parse_value(seed, None)
    for bad in ("abc", "1.5", "3e2", 1.0, True, "-3", -3, ""):
        with pytest.raises(ParameterError, match="expected int"):
            runner.parse_value(limit, bad)
    rate = Parameter("rate", float, default=0.5)
    assert runner.parse_value(rate, "0.25") == 0.25 and runner.parse_value(rate, 2) == 2.0
    assert isinstance(runner.parse_value(rate, 2), float) and runner.parse_value(rate, "-1e-3") == -0.001
    for bad in ("nan", "inf", "x", True, None, float("nan")):
        with pytest.raises(ParameterError, match="expected float"):
            runner.parse_value(rate, bad)
    split = Parameter("split", str, True)
    assert runner.parse_value(split, "dev") == "dev" and runner.parse_value(split, "None") is None
    for bad in (3, ["dev"], Path("dev")):
        with pytest.raises(ParameterError, match="expected str"):
            runner.parse_value(split, bad)
    with pytest.raises(ParameterError, match="expected str"):
        runner.parse_value(Parameter("results_dir", str, default="results"), "None")


def test_check_parameters_types_command_line_text(notebook, tmp_path):
    typed = runner.check_parameters(notebook, {"smoke": "false", "limit": "3", "seed": "2", "split": "None",
                                               "data_dir": str(tmp_path), "results_dir": tmp_path / "res"})
    assert typed == {"smoke": False, "limit": 3, "seed": 2, "split": None, "data_dir": str(tmp_path),
                     "results_dir": str(tmp_path / "res")}
    assert runner.check_parameters(notebook, {"smoke": True, "limit": None}) == {"smoke": True, "limit": None}
    assert not (tmp_path / "res").exists()   # checking creates nothing


@pytest.mark.parametrize("name, value, match", [
    ("smoke", "yes", r"parameter smoke='yes' refused: expected bool"),
    ("limit", "-3", r"parameter limit='-3' refused: expected int \| None \(a non-negative integer, or None\)"),
    ("limit", -3, r"parameter limit=-3 refused: expected int \| None"),
    ("limit", "abc", r"parameter limit='abc' refused: expected int \| None"),
    ("seed", "1.5", r"parameter seed='1.5' refused: expected int"),
    ("data_dir", "no/such/folder", r"parameter data_dir='no/such/folder' refused: expected str \| None "
                                   r"\(an existing folder, or None\).*is not a folder"),
    ("results_dir", "", r"parameter results_dir='' refused"),
])
def test_a_wrong_value_is_refused_before_anything_runs(notebook, tmp_path, name, value, match):
    output = tmp_path / "out" / "nb.ipynb"
    figures = tmp_path / "figures"
    with pytest.raises(ParameterError, match=match) as info:
        runner.run_notebook(notebook, {name: value, "figures_dir": str(figures)}, output=output, progress=False)
    assert str(notebook.resolve()) in str(info.value)   # the message names the notebook
    assert not output.parent.exists() and not figures.exists()   # no kernel started, nothing written


def test_the_command_line_refuses_a_wrong_value(notebook, tmp_path):
    output = tmp_path / "nb.ipynb"
    assert main(["run", str(notebook), "-p", "limit", "abc", "--output", str(output)]) == 2
    assert not output.exists()
    with pytest.raises(ValueError, match=r"parameter limit='abc' refused: expected int"):    # --debug: the error
        main(["--debug", "run", str(notebook), "-p", "limit", "abc", "--output", str(output)])


def test_runner_refuses_unknown_parameter_and_missing_cell(tmp_path):
    good = tmp_path / "nb.py"
    good.write_text(NOTEBOOK)
    with pytest.raises(ValueError, match=r"unknown parameter\(s\) \['smokey'\]"):
        runner.run_notebook(good, {"smokey": True}, output=tmp_path / "out.ipynb")
    bad = tmp_path / "bad.py"
    bad.write_text(NOTEBOOK.replace(' tags=["parameters"]', ""))
    with pytest.raises(ValueError, match="exactly one cell tagged 'parameters'"):
        runner.run_notebook(bad, {}, output=tmp_path / "out.ipynb")
    partial = tmp_path / "partial.py"
    partial.write_text(NOTEBOOK.replace("figures_dir = \"figures\"\n", ""))
    with pytest.raises(ValueError, match="does not define \\['figures_dir'\\]"):
        runner.run_notebook(partial, {}, output=tmp_path / "out.ipynb")
    untyped = tmp_path / "untyped.py"
    untyped.write_text(NOTEBOOK.replace("limit: int | None = None", "limit = None"))
    with pytest.raises(ParameterError, match="limit = None: cannot tell its type"):
        runner.run_notebook(untyped, {}, output=tmp_path / "out.ipynb")
    assert not (tmp_path / "out.ipynb").exists()


# ---- executing (tiny notebooks only) ---------------------------------------------------------
def test_runner_executes_with_parameters(notebook, tmp_path):
    figures = tmp_path / "figs" / "deep"
    out = runner.run_notebook(notebook, {"smoke": True, "limit": 2, "results_dir": str(tmp_path / "res"),
                                         "figures_dir": figures}, output=tmp_path / "out" / "nb.ipynb", progress=False)
    assert out.is_file() and figures.is_dir()   # the output folder was created before the run
    data = results.load_results(tmp_path / "res" / "testpaper" / "tiny.json")
    assert data["params"] == {"seed": 0, "smoke": True, "limit": 2, "split": None, "data_dir": None}
    assert data["rows"][0]["value"] == 0.25 and data["rows"][0]["n"] == 2


def test_a_run_of_the_books_executed_copy_leaves_a_stamp_and_one_elsewhere_does_not(tmp_path, monkeypatch):
    source = tmp_path / "a.py"
    source.write_text(NOTEBOOK)
    monkeypatch.setattr(runner, "STAMPS", tmp_path / "stamps")
    given = {"smoke": True, "results_dir": str(tmp_path / "res")}
    runner.run_notebook(source, given, output=tmp_path / "elsewhere.ipynb", progress=False)
    assert not (tmp_path / "stamps").exists()
    assert runner.run_notebook(source, given, progress=False) == runner.executed_path(source)
    stamp = json.loads((tmp_path / "stamps" / "a.json").read_text())
    assert stamp["results"] == ["testpaper/tiny.json"] and stamp["host"] and stamp["finished"].endswith("+00:00")
    assert runner.up_to_date(source, runner.check_parameters(source, given, runner.read_notebook(source)[1]))


def test_command_line_values_reach_the_notebook_typed(notebook, tmp_path):
    out = tmp_path / "nb.ipynb"
    assert main(["run", str(notebook), "-p", "smoke", "false", "-p", "limit", "3", "-p", "seed", "1",
                 "-p", "split", "dev", "-p", "data_dir", str(tmp_path),
                 "-p", "results_dir", str(tmp_path / "res"), "--output", str(out)]) == 0
    data = results.load_results(tmp_path / "res" / "testpaper" / "tiny.json")
    assert data["params"] == {"seed": 1, "smoke": False, "limit": 3, "split": "dev", "data_dir": "."}  # relative
    assert data["input_digest"]["source"] == hashlib.sha256(notebook.read_bytes()).hexdigest()
    assert data["rows"][0]["value"] == 0.5 and data["rows"][0]["n"] == 3   # smoke=False really was False


def test_run_all_checks_every_notebook_first_and_stamps_typed_values(tmp_path, monkeypatch):
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text(NOTEBOOK)
    second.write_text(NOTEBOOK.replace("seed = 0\n", "seed = 0\nclaim_index = 0\n").replace("tiny", "tiny2"))
    monkeypatch.setattr(runner, "STAMPS", tmp_path / "stamps")
    monkeypatch.setattr(runner, "book_notebooks", lambda: [second, first])
    with pytest.raises(ParameterError, match=r"b.py: unknown parameter\(s\) \['no_such'\]"):
        runner.run_all({"no_such": "1"})       # no chapter defines it: refused, nothing runs
    monkeypatch.setattr(runner, "book_notebooks", lambda: [first, second])
    with pytest.raises(ParameterError, match=r"a.py: parameter limit='abc' refused"):
        runner.run_all({"limit": "abc"})
    assert not any(runner.executed_path(p).exists() for p in (first, second)) and not (tmp_path / "stamps").exists()
    given = {"smoke": "false", "results_dir": str(tmp_path / "res")}
    assert [status for _, status, _ in runner.run_all(given)] == ["ran", "ran"]
    stamp = json.loads((tmp_path / "stamps" / "a.json").read_text())
    assert stamp["parameters"] == {"smoke": False, "results_dir": str(tmp_path / "res")}
    same = {"smoke": False, "results_dir": tmp_path / "res"}   # the same values, typed: nothing to rerun
    assert [status for _, status, _ in runner.run_all(same)] == ["skipped", "skipped"]
    assert stamp["results"] == ["testpaper/tiny.json"]
    first.write_text(NOTEBOOK + "\n# %%\n1\n")                 # a changed source: stale, so it reruns
    assert [status for _, status, _ in runner.run_all(same)] == ["ran", "skipped"]
    assert [status for _, status, _ in runner.run_all({"smoke": True, "results_dir": tmp_path / "res"})] == ["ran", "ran"]


def test_failed_cell_fails_the_run(tmp_path):
    import papermill

    source = tmp_path / "nb.py"
    source.write_text(NOTEBOOK + "\n# %%\nraise RuntimeError('boom')\n")
    with pytest.raises(papermill.PapermillExecutionError, match="boom"):
        runner.run_notebook(source, {"results_dir": str(tmp_path)}, output=tmp_path / "o.ipynb", progress=False)


def test_a_run_is_stale_when_a_library_module_it_imports_changes(tmp_path, monkeypatch):
    from proofbook.core import provenance

    source = tmp_path / "nb.py"
    source.write_text(NOTEBOOK)
    recorded = provenance.code_digest_of(source)
    assert "core/results.py" in recorded["library"] and "admiral/retrieval/multihop.py" not in recorded["library"]
    assert provenance.stale_parts(source, recorded, None) == []
    changed = {**recorded, "library": {**recorded["library"], "core/results.py": "0" * 64}}
    assert provenance.stale_parts(source, changed, None) == ["library: core/results.py changed"]


# ---- the book's notebooks (read, not run) ----------------------------------------------------
def test_book_notebooks_follow_the_toc():
    listed = runner.book_notebooks()
    assert listed and listed[0].name == "00_introduction.py"
    assert all(p.is_file() for p in listed) and "99_reproduction_report.py" in {p.name for p in listed}
    assert "references.py" not in {p.name for p in listed}       # a markdown page of the toc, not a notebook


def test_a_toc_entry_without_a_notebook_is_an_error(tmp_path):
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: notebooks/00_introduction\nchapters:\n  - file: notebooks/no_such\n")
    with pytest.raises(FileNotFoundError, match="no_such"):
        runner.book_notebooks(toc)


STANDARD_TYPES = {"data_dir": (str, True), "split": (str, True), "limit": (int, True), "seed": (int, False),
                  "smoke": (bool, False), "results_dir": (str, False), "figures_dir": (str, False)}


@pytest.mark.parametrize("source", sorted(runner.NOTEBOOKS.rglob("*.py")), ids=lambda p: p.stem)
def test_every_notebook_parameter_has_a_type(source):
    _, found = runner.read_notebook(source)   # raises for a parameter whose type cannot be told
    assert set(STANDARD_TYPES) <= set(found)
    assert all(spec.type in (bool, int, float, str) for spec in found.values())
    assert {name: (found[name].type, found[name].optional) for name in STANDARD_TYPES} == STANDARD_TYPES
    for name, default in runner.STANDARD_PARAMETERS.items():
        assert found[name].default == default
