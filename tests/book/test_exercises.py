"""Exercises that work as written: every command, edit and hint of a chapter's ``## Exercises`` is checked
against the chapter and the library it names, without running anything.

- a ``python -m proofbook run`` command names a chapter that exists, passes only parameters of that chapter
  (with values of the right type), and sends the executed copy of a book chapter elsewhere (``--output``);
- an edit ``dataclasses.replace(settings, NAME=...)`` names fields of the chapter's settings class, and a
  settings class it builds (``OperatorSettings(max_per_operator=...)``) has the fields it passes;
- a hint's code block parses, imports only what the library has, and uses only names the block or the
  chapter's code defines;
- a hint's "`Name` in `proofbook.module`" names something that module holds.

The exercises' *outcomes* are the reader's to find; what is checked here is that following them cannot fail
on a name, a parameter or a line that no longer exists.
"""
import ast
import builtins
import dataclasses
import functools
import importlib
import importlib.util
import re
import shlex

import jupytext
import pytest

from proofbook.cli import runner
from proofbook.cli.exercises import SPAN, exercises_text, read_exercises, sections
from proofbook.cli.parameters import parameter_specs
from proofbook.core.paths import PROJECT_ROOT

pytestmark = pytest.mark.unit

NOTEBOOKS = runner.book_notebooks()
IDS = [runner.notebook_id(p) for p in NOTEBOOKS]
COMMAND = re.compile(r"`(python -m proofbook run [^`]+)`")
REPLACE = re.compile(r"`[^`]*dataclasses\.replace\(settings,[^`]*`")
FENCE = re.compile(r"```python\n(.*?)```", re.S)
NAMED_IN = re.compile(r"`([A-Za-z_][\w.]*)` (?:in|from) `(proofbook(?:\.\w+)+)`")


def chapter(source):
    """(markdown of the exercises, the code cells' text, the parameters cell's text) of a chapter."""
    cells = jupytext.read(source, fmt="py:percent").cells
    code = [c.source for c in cells if c.cell_type == "code"]
    params = next(c.source for c in cells if "parameters" in c.metadata.get("tags", []))
    markdown = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    exercises = markdown.split("## Exercises", 1)[1] if "## Exercises" in markdown else ""
    return exercises, "\n".join(code), params


def defined_names(code: str) -> set[str]:
    """Every name the code binds anywhere: assignments, imports, loops, functions, comprehensions."""
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def imported_objects(code: str) -> dict:
    """The library names a chapter's code imports (``from proofbook... import x``, ``import proofbook...``)."""
    found = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("proofbook"):
            module = importlib.import_module(node.module)
            for alias in node.names:
                obj = getattr(module, alias.name, None)
                if obj is None and importlib.util.find_spec(f"{node.module}.{alias.name}"):
                    obj = importlib.import_module(f"{node.module}.{alias.name}")
                if obj is not None:
                    found[alias.asname or alias.name] = obj
    return found


def resolve(func: ast.expr, names: dict):
    """The object ``func`` (a name or a dotted attribute chain) stands for, from ``names``; None when unknown."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name) or func.id not in names:
        return None
    obj = names[func.id]
    for part in reversed(parts):
        obj = getattr(obj, part, None)
        if obj is None:
            raise AssertionError(f"{ast.unparse(func)} has no {part!r}")
    return obj


def settings_class(code: str):
    """The class the chapter passes as ``settings=`` to ``start`` (or builds ``settings`` from with
    ``sized_settings``), imported as the chapter imports it."""
    match = (re.search(r"\bsettings=([A-Za-z_][\w.]*)", code)
             or re.search(r"^settings = sized_settings\(([A-Za-z_][\w.]*)", code, re.M))
    if match is None:
        return None
    found = resolve(ast.parse(match.group(1), mode="eval").body, imported_objects(code))
    if found is None:
        raise AssertionError(f"settings class {match.group(1)} is not imported by the chapter")
    return found


def field_names(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_run_command_names_a_chapter_its_parameters_and_an_output_elsewhere(source):
    exercises, _, params = chapter(source)
    own = parameter_specs(params, str(source))
    for command in COMMAND.findall(exercises):
        words = shlex.split(command.replace("...", ""))[4:]
        target, rest = words[0], words[1:]
        path, specs = source, own          # a copy of this chapter (/tmp/mine/...) takes its parameters
        if target.startswith("notebooks/"):
            path = PROJECT_ROOT / target
            assert path.is_file(), f"{source.name}: `{command}` runs {target}, which does not exist"
            specs = parameter_specs(chapter(path)[2], target)
            assert "--output" in rest, f"{source.name}: `{command}` would overwrite the book's executed copy"
            output = rest[rest.index("--output") + 1]
            assert not output.startswith("notebooks/"), f"{source.name}: `{command}` writes into notebooks/"
        pairs = {}
        for i, word in enumerate(rest):
            if word == "-p":
                pairs[rest[i + 1]] = rest[i + 2]
        unknown = set(pairs) - set(specs)
        assert not unknown, f"{source.name}: `{command}` passes {sorted(unknown)}, not parameters of {target}"
        # placeholders (`ID`, `N`) are the reader's to fill in; a split needs its files, checked elsewhere
        typed = {k: v for k, v in pairs.items() if k != "split" and not v.isupper()}
        runner.check_parameters(path, typed, specs)


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_settings_edit_names_fields_the_settings_have(source):
    exercises, code, _ = chapter(source)
    edits = REPLACE.findall(exercises.replace("\n", " "))
    if not edits:
        return
    cls = settings_class(code)
    assert cls is not None, f"{source.name}: an exercise edits `settings` but the chapter has no settings class"
    named = {name: mod for name, mod in NAMED_IN.findall(exercises)}
    for edit in edits:
        call = ast.parse(edit.strip("`")).body[0].value     # `settings = replace(...)` or `replace(...)`
        fields = {k.arg for k in call.keywords}
        assert fields <= field_names(cls), f"{source.name}: {edit} names {sorted(fields - field_names(cls))}, " \
                                           f"not fields of {cls.__name__}"
        for keyword in call.keywords:
            if isinstance(keyword.value, ast.Call) and isinstance(keyword.value.func, ast.Name):
                inner = keyword.value.func.id
                assert inner in named, f"{source.name}: {edit} builds {inner} but does not say where to import it"
                inner_cls = getattr(importlib.import_module(named[inner]), inner)
                given = {k.arg for k in keyword.value.keywords}
                assert given <= field_names(inner_cls), f"{source.name}: {inner} has no {sorted(given - field_names(inner_cls))}"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_hint_block_imports_what_exists_and_uses_names_the_chapter_defines(source):
    exercises, code, _ = chapter(source)
    known = defined_names(code) | set(dir(builtins))
    for block in FENCE.findall(exercises):
        tree = ast.parse(block)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                module = importlib.import_module(node.module)
                for alias in node.names:        # a name the module holds, or one of its submodules
                    assert hasattr(module, alias.name) or importlib.util.find_spec(f"{node.module}.{alias.name}"), \
                        f"{source.name}: {node.module} has no {alias.name}"
        used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        missing = used - known - defined_names(block)
        assert not missing, f"{source.name}: a hint's code uses {sorted(missing)}, which the chapter never defines"


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_name_a_hint_places_in_a_module_is_there(source):
    exercises, _, _ = chapter(source)
    for name, module in NAMED_IN.findall(exercises.replace("\n", " ")):
        obj = importlib.import_module(module)
        for part in name.split("."):
            assert hasattr(obj, part), f"{source.name}: `{name}` is not in `{module}`"
            obj = getattr(obj, part)


def hint_value(chapter_path: str, marker: str):
    """Run the one hint block of a chapter's exercises that holds ``marker``, on its own (a by-hand exercise's
    check needs nothing from the chapter), and return the value of its last line."""
    exercises, _, _ = chapter(PROJECT_ROOT / "notebooks" / chapter_path)
    [block] = [b for b in FENCE.findall(exercises) if marker in b]
    tree = ast.parse(block)
    *body, last = tree.body
    assert isinstance(last, ast.Expr), f"{chapter_path}: the hint's last line is not an expression"
    namespace = {}
    exec(compile(ast.Module(body=body, type_ignores=[]), chapter_path, "exec"), namespace)
    return eval(compile(ast.Expression(last.value), chapter_path, "eval"), namespace)


BY_HAND = [(source, exercise) for source in NOTEBOOKS for exercise in read_exercises(source)
           if exercise.kind == "no computer"]


@pytest.mark.parametrize("source,exercise", BY_HAND,
                         ids=[f"{runner.notebook_id(s)}-{e.number}" for s, e in BY_HAND])
def test_every_by_hand_exercise_has_a_check_that_runs_on_its_own(source, exercise):
    """A by-hand exercise's hint shows the call that checks the answer; a code block of it runs on its own (it
    needs nothing from the chapter), a call on the chapter's objects is checked by the tests above."""
    [text] = [body for number, _, body in sections(exercises_text(source)) if number == exercise.number]
    blocks = FENCE.findall(text)
    assert blocks or re.search(r"`[^`]*\(", text) or NAMED_IN.search(text.replace("\n", " ")), \
        f"{source.name}: exercise {exercise.number} is done by hand but its hint shows no call to check it with"
    for block in blocks:
        exec(compile(block, f"{source.name} exercise {exercise.number}", "exec"), {})


METHOD_CHAPTERS = [s for s in NOTEBOOKS if runner.notebook_id(s).split("/")[0] in ("admiral", "wild", "entailer")]
@pytest.mark.parametrize("source", METHOD_CHAPTERS, ids=[runner.notebook_id(s) for s in METHOD_CHAPTERS])
def test_every_method_chapter_has_an_exercise_done_by_hand(source):
    assert any(e.kind == "no computer" for e in read_exercises(source)), \
        f"{source.name}: no exercise is done by hand (title ending '(no computer needed)')"


def test_the_bm25_hint_computes_the_score_the_formula_gives():
    """admiral/01's by-hand exercise: its hint's call agrees with the formula the exercise states."""
    import math

    scores = hint_value("admiral/01_method.py", "BM25")
    idf = math.log(3 - 1 + 0.5) - math.log(1 + 0.5)
    avgdl = (6 + 4 + 6) / 3
    by_hand = idf * 1 * (0.9 + 1) / (1 + 0.9 * (1 - 0.1 + 0.1 * 6 / avgdl))
    assert scores[0] == pytest.approx(by_hand) and list(scores[1:]) == [0, 0]


def test_the_automaton_hint_gives_the_paths_the_transition_table_gives():
    """admiral/05: the paths read off the automaton's table (Angeli & Manning 2014): from SUPPORTS, = stays and
    ! goes to REFUTES; from REFUTES, ! goes back, > stays and < goes to NOT ENOUGH INFO; > from SUPPORTS goes to
    NOT ENOUGH INFO, which absorbs."""
    paths = hint_value("admiral/05_natural_logic.py", "automaton_path")
    S, R, N = "SUPPORTS", "REFUTES", "NOT ENOUGH INFO"
    assert paths == [[S, S, R, R], [S, S, N, N], [S, R, S], [S, R, N]]


def test_the_auc_hint_gives_seven_of_nine_pairs_and_the_threshold_04():
    auc, best = hint_value("admiral/06_sufficiency.py", "roc_auc")
    assert auc == pytest.approx(7 / 9)          # 0.9 > all three, 0.6 and 0.4 > 0.3 and 0.1
    assert best["threshold"] == 0.4 and best["balanced_accuracy"] == pytest.approx((1 + 2 / 3) / 2)
    assert best["accuracy"] == pytest.approx(5 / 6)


def test_the_ranked_list_hint_shows_five_new_pages_pushing_a_gold_page_below_5():
    """admiral/02: selected A, C; then N1-N5; then B D E ... -- B (gold) falls from place 2 to place 8."""
    initial, admiral = hint_value("admiral/02_experiments.py", "recall_at_k")
    assert initial == (list("ABCDEF"), True, True)
    assert admiral == (["A", "C", "N1", "N2", "N3", "N4", "N5", "B", "D", "E"], False, True)


def test_the_exponent_hint_gives_the_two_point_slope_and_the_dense_bytes():
    import math

    exponent, carried, dense = hint_value("admiral/03_efficiency.py", "log_log_slope")
    assert exponent == pytest.approx(math.log(2.5 / 2.0) / math.log(10))
    assert carried == pytest.approx(2.5 * (5_400_000 / 250_000) ** exponent)
    assert dense == [384_000_000, 8_294_400_000]


def test_the_four_fates_hint_gives_one_gold_page_per_stage():
    from proofbook.admiral.retrieval.errors import STAGES

    fates = hint_value("admiral/04_error_analysis.py", "missing_stage")
    assert fates == {"A": None, "P": STAGES[3], "Q": STAGES[1], "R": STAGES[2], "S": STAGES[0]}


def test_the_hedging_hint_shows_the_constant_winning_on_mae_and_losing_on_accuracy():
    bold, constant = hint_value("wild/02_experiments.py", "veracity_metrics")
    assert (bold["accuracy"], bold["mae"], bold["soft_accuracy"]) == pytest.approx((3 / 6, 12 / 6, 3 / 6))
    assert (constant["accuracy"], constant["mae"], constant["soft_accuracy"]) == pytest.approx((1 / 6, 10 / 6, 2 / 6))


def test_the_constant_column_hint_is_the_distance_to_half_true():
    column, matrix = hint_value("wild/03_error_analysis.py", "mae_by_label")
    assert column == {label: (abs(label - 3), 1) for label in range(6)}
    assert matrix[:, 3].tolist() == [1] * 6 and matrix.sum() == 6


@functools.cache
def library_calls_checked(source) -> tuple[str, ...]:
    """Every call in a backticked span of the chapter's exercises whose callee the chapter imports from the library,
    bound against that callee's signature (an AssertionError naming the span when it does not take the arguments);
    returns the spans checked."""
    import inspect

    exercises, code, _ = chapter(source)
    names = imported_objects(code)
    checked = []
    for span in SPAN.findall(exercises.replace("\n", " ")):
        try:
            tree = ast.parse(span.strip())
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
                continue
            replaced = ast.unparse(node.func) == "dataclasses.replace" and bool(node.args) and (
                isinstance(node.args[0], ast.Call) or ast.unparse(node.args[0]) == "settings")
            try:            # replace(Settings.full(seed), field=...) or replace(settings, field=...): its fields
                target = (settings_class(code) if replaced and not isinstance(node.args[0], ast.Call)
                          else resolve(node.args[0].func if replaced else node.func, names))
            except AssertionError as err:
                raise AssertionError(f"{source.name}: `{span}`: {err}") from None
            if replaced:
                cls = target if isinstance(target, type) else getattr(target, "__self__", None)
                if dataclasses.is_dataclass(cls):
                    unknown = {k.arg for k in node.keywords} - field_names(cls)
                    assert not unknown, f"{source.name}: `{span}`: {cls.__name__} has no {sorted(unknown)}"
                    checked.append(span)
                continue
            if target is None or not callable(target):
                continue
            try:
                signature = inspect.signature(target)
            except (TypeError, ValueError):
                continue
            try:
                signature.bind_partial(*[None] * len(node.args), **{k.arg: None for k in node.keywords})
            except TypeError as err:
                raise AssertionError(f"{source.name}: `{span}`: {err}") from None
            checked.append(span)
    return tuple(checked)


@pytest.mark.parametrize("source", NOTEBOOKS, ids=IDS)
def test_every_library_call_an_exercise_writes_takes_the_arguments_it_is_given(source):
    """A call the reader is told to write (``book_config(smoke, new_documents=1)``, ``SufficiencySettings(seed=seed,
    iterations=2)``) names what the chapter imports and passes it only arguments it takes: an exercise whose prose
    names a field that is gone fails here, not in a reader's run."""
    library_calls_checked(source)


def test_the_call_check_reaches_the_reading_exercises_calls():
    checked = [span for source in NOTEBOOKS for span in library_calls_checked(source)]
    assert len(checked) >= 15 and any("new_documents=1" in span for span in checked)


def test_the_three_answers_hint_gives_a_faithfulness_break():
    """entailer/02: s_r = 0.72 x 0.5, 0.81 x 0.9, 0.42 x 0.9, 0.45 x 0.8; direct A (0.9) beats proof B (0.729)."""
    scores, direct, entailer, combined, broken = hint_value("entailer/02_experiments.py", "faithfulness_break")
    assert scores == [0.36, 0.729, 0.378, 0.36] and (direct, entailer, combined, broken) == ("A", "B", "A", True)


def test_the_wrong_answers_hint_sorts_one_into_each_reasoning_or_belief_category():
    categories = hint_value("entailer/03_error_analysis.py", "error_category")
    assert categories == ["reasoning", "belief", "reasoning: near-tautology"]
