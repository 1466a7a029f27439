"""``python -m proofbook exercises``: each chapter's exercises as data, and one of them run and timed.

Every chapter ends with ``## Exercises``, numbered ``### N. Title`` sections.  What an exercise asks the
reader to change is written in a few fixed forms, which :func:`read_exercises` reads:

- "change `OLD` to `NEW`" (optionally "in the `NAME` call"): ``OLD`` occurs exactly once in the chapter's code
  cells and is replaced by ``NEW``;
- "`LINE` ... right after the line that starts `START`": exactly one code line starts with ``START``, and
  ``LINE`` is added after it, with its indentation;
- "change the config to `CALL`" (the one call assigned to ``config``) or "change the call to `CALL`" (the one call
  of ``CALL``'s function): that call gets ``CALL``'s arguments, those it does not name kept as they are (so
  several such exercises applied to one copy add up);
- "add the cell below right after the cell that starts `START`" (or "the lines below ... the line that starts
  `START`") followed by a ``python`` code block: exactly one code cell (one code line) starts with ``START``, and the
  block becomes a new cell after it (is added after that line, with its indentation), as written;
- "add `import dataclasses`", "import `Name` from `proofbook.module`": imports the edits need, added with the
  edit that uses them;
- "`-p NAME VALUE`", alone or in a ``python -m proofbook run`` command: a parameter of the rerun; a value in
  capitals (``-p example_id ID``) is the reader's to choose, so the rerun is costed but not run here; a command
  may name another chapter (the reproduction report's exercises rerun an Entailer chapter);
- a ``python`` code block with no place stated: code the reader places (the exercise is read, not run here);
- "(no computer needed)" in the title: an exercise done with pen and paper (a hint shows a library call that
  checks it).

A one-letter capital in ``NEW`` (``threshold=T``) is a value the reader chooses; :data:`PLACEHOLDER` stands in
for it when the edit is applied here.  :func:`edited_source` applies edits to a copy of the chapter and
:func:`run_exercise` runs such a copy with the runner, its outputs in a folder of its own (never the book's),
and returns how long it took: what a teacher needs to know before setting an exercise for a class.  The
book's tests apply every chapter's edits and smoke-run the copies (``tests/book/test_exercise_edits.py``).

:func:`minutes_here` says what each exercise costs on the machine that built the book: nothing for one done by
hand; for one that reruns a chapter, its measured time when ``--run`` (or ``--measure``, every runnable exercise of
a chapter in turn) timed it here on the chapter's current source (:func:`record_time`, kept under
``_build/exercise-times/``, not committed), else about that chapter's last recorded run
(:func:`proofbook.cli.status.chapter_runs`), since its models come from the cache, plus the training when the
exercise says it retrains ("retrains", "retrained", "trained again"); a change the reader writes is not
estimated.  A cell exercise costs a run of the chapter too: the new cell needs the chapter's objects, so a reader
in Jupyter runs the chapter's cells (its models from the cache) before it, as :func:`run_exercise` does.
"""
from __future__ import annotations

import ast
import json
import platform
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from proofbook.cli import runner
from proofbook.core.paths import PROJECT_ROOT
from proofbook.core.provenance import sha256_file

CHANGE = re.compile(r"[Cc]hange\s+`([^`]+)`(?:\s+in the `[^`]+` call)?\s+to\s+`([^`]+)`")
SET_CALL = re.compile(r"[Cc]hange the (config|call) to\s+`([^`]+)`")
INSERT = re.compile(r"`([^`]+)`(?:(?!below)[^`]){0,80}?right after the line that starts\s+`([^`]+)`")
BLOCK = re.compile(r"the\s+(cell|lines)\s+below\s+right\s+after\s+the\s+(?:cell|line)\s+that\s+starts\s+`([^`]+)`"
                   r".*?```python\n(.*?)```", re.S)
IMPORT_LINE = re.compile(r"`((?:import|from) [\w. ,]+)`")
IMPORT_NAME = re.compile(r"`(\w+)`\s+from\s+`(proofbook(?:\.\w+)+)`")
SPAN = re.compile(r"`([^`]+)`")
PARAMETER = re.compile(r"(?:^|\s)-p (\w+) (\S+)")
COMMAND = re.compile(r"^python -m proofbook run (notebooks/\S+\.py)")
HEADING = re.compile(r"^### (\d+)\.\s*(.+)$", re.M)
ZERO_COMPUTE = "(no computer needed)"
RETRAINS = re.compile(r"\bretrain(?:s|ed)\b|\btrained again\b")
#: the value put in for a one-letter capital the reader chooses (``threshold=T``)
PLACEHOLDER = "0.3"
#: parameters an exercise's command sets only to keep the book's own outputs as they are
OUTPUT_PARAMETERS = ("results_dir", "figures_dir")


#: the edit kinds that add code (a cell, or lines) rather than change the chapter's own
ADDED_CODE = ("cell", "lines")


class ExerciseError(ValueError):
    """An exercise that cannot be followed as written: the chapter, the exercise and what went wrong."""


@dataclass(frozen=True)
class Edit:
    """One change to a copy of a chapter: ``change`` replaces ``anchor`` by ``text``; ``insert`` adds the line
    ``text`` after the line that starts with ``anchor`` (``lines``: the lines ``text``, as written); ``cell`` adds
    the code cell ``text`` after the cell that starts with ``anchor``; ``call`` gives the one call that ``anchor``
    names (the name it is assigned to, or its function) the arguments of the call ``text``."""

    kind: str
    anchor: str
    text: str


@dataclass(frozen=True)
class Exercise:
    """One ``### N. Title`` section of a chapter's exercises and what it asks the reader to change."""

    chapter: str                            # the chapter's id, e.g. "admiral/02_experiments"
    number: int
    title: str
    edits: tuple[Edit, ...]
    parameters: tuple[tuple[str, str], ...]  # the rerun's -p pairs (the output folders left out)
    imports: tuple[str, ...]
    zero_compute: bool
    target: str | None = None               # the chapter its command reruns, when not this one
    code: bool = False                      # its text holds a ``python`` code block
    command: bool = False                   # it gives the rerun's command (``python -m proofbook run``)
    retrains: bool = False                  # it says its change retrains models (longer than a rerun)
    chosen: tuple[str, ...] = ()            # parameters whose value the reader picks (``-p example_id ID``)

    @property
    def runs(self) -> str:
        """The id of the chapter the exercise runs: the one its command names, else its own."""
        return self.target or self.chapter

    @property
    def kind(self) -> str:
        """``no computer``, ``edit`` (a changed copy of the chapter, run), ``cell`` (a copy with code added: a
        cell, or lines after one, run), ``rerun`` (the chapter run with other parameters) or ``reading`` (the
        changes are the reader's to write)."""
        if self.zero_compute:
            return "no computer"
        if self.edits:
            return "cell" if all(edit.kind in ADDED_CODE for edit in self.edits) else "edit"
        if self.parameters or self.command or self.chosen:
            return "rerun"
        return "reading"


def _markdown(source: Path) -> str:
    import jupytext

    return "\n".join(c.source for c in jupytext.read(source, fmt="py:percent").cells if c.cell_type == "markdown")


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def exercises_text(source: Path) -> str:
    """The markdown of a chapter's ``## Exercises`` (empty when it has none)."""
    markdown = _markdown(Path(source))
    return markdown.split("## Exercises", 1)[1] if "## Exercises" in markdown else ""


def read_edits(text: str) -> list[Edit]:
    """The edits ``text`` asks for, in the order it states them."""
    found = [(len(_flat(text[:m.start()])),                   # where it is in the flattened text, as the others
              Edit("cell" if m.group(1) == "cell" else "lines", _flat(m.group(2)), m.group(3)))
             for m in BLOCK.finditer(text)]
    text = _flat(text)
    found += [(m.start(), Edit("change", m.group(1), m.group(2))) for m in CHANGE.finditer(text)]
    found += [(m.start(), Edit("insert", m.group(2), m.group(1))) for m in INSERT.finditer(text)]
    found += [(m.start(), Edit("call", m.group(1) if m.group(1) == "config" else _callee(m.group(2)), m.group(2)))
              for m in SET_CALL.finditer(text)]
    return [edit for _, edit in sorted(found, key=lambda pair: pair[0])]


def read_imports(text: str) -> list[str]:
    """The import statements ``text`` tells the reader to add."""
    text = _flat(text)
    lines = [m.group(1) for m in IMPORT_LINE.finditer(text)]
    lines += [f"from {module} import {name}" for name, module in IMPORT_NAME.findall(text)]
    return list(dict.fromkeys(lines))


def _parameters(text: str) -> tuple[tuple[tuple[str, str], ...], str | None, bool, tuple[str, ...]]:
    """The rerun's ``-p`` pairs stated in ``text`` (output folders and the reader's placeholders left out), the
    chapter its command names (a book chapter, not an edited copy), whether it gives a command, and the names of
    the parameters whose value the reader chooses."""
    pairs, target, commands, chosen = [], None, False, []
    for span in SPAN.findall(_flat(text)):
        span = span.strip()
        command = COMMAND.match(span)
        commands = commands or bool(command)
        if command:
            target = target or runner.notebook_id(Path(command.group(1)))
        if command or span.startswith("-p "):
            found = [(name, value) for name, value in PARAMETER.findall(span) if name not in OUTPUT_PARAMETERS]
            pairs += [(name, value) for name, value in found if not re.fullmatch(r"[A-Z_]+", value)]
            chosen += [name for name, value in found if re.fullmatch(r"[A-Z_]+", value) and name != "NAME"]
    return tuple(dict.fromkeys(pairs)), target, commands, tuple(dict.fromkeys(chosen))


def sections(text: str) -> list[tuple[int, str, str]]:
    """``(number, title, body)`` of each ``### N. Title`` section of an exercises text (:func:`exercises_text`), the
    body running up to the next heading."""
    headings = list(HEADING.finditer(text))
    return [(int(heading.group(1)), heading.group(2).strip(),
             text[heading.end():following.start() if following else len(text)])
            for heading, following in zip(headings, headings[1:] + [None])]


def read_exercises(source: Path) -> list[Exercise]:
    """The numbered exercises of the chapter ``source``, in order (each section's text up to the next heading)."""
    source = Path(source)
    chapter = runner.notebook_id(source)
    out = []
    for number, title, body in sections(exercises_text(source)):
        parameters, target, command, chosen = _parameters(body)
        out.append(Exercise(chapter, number, title, tuple(read_edits(body)), parameters,
                            tuple(read_imports(body)), ZERO_COMPUTE in title,
                            target if target != chapter else None, "```python" in body, command,
                            bool(RETRAINS.search(_flat(body))), chosen))
    return out


def book_exercises(sources=None) -> list[Exercise]:
    """The exercises of ``sources`` (default: every notebook of the book, in book order)."""
    return [e for source in (sources if sources is not None else runner.book_notebooks())
            for e in read_exercises(source)]


def _bound(statement: str) -> set[str]:
    """The names an import statement binds."""
    return {(alias.asname or alias.name).split(".")[0] for node in ast.parse(statement).body for alias in node.names}


def _needed_imports(new: str, imports) -> list[str]:
    """Those of ``imports`` that bind a name the new text uses."""
    used = set(re.findall(r"\b[A-Za-z_]\w*", new))         # the new text may be a fragment, not a statement
    return [statement for statement in imports if _bound(statement) & used]


def _callee(call: str) -> str:
    """The function a call's text calls (``retrieval_experiments.book_config``)."""
    return ast.unparse(ast.parse(call, mode="eval").body.func)


def _calls(code: str, anchor: str) -> list[ast.Call]:
    """The calls in ``code`` that ``anchor`` names: assigned to that name, or of that function."""
    masked = "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines())
    tree = ast.parse(masked)
    assigned = [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                and [ast.unparse(t) for t in node.targets] == [anchor] and isinstance(node.value, ast.Call)]
    return assigned or [node for node in ast.walk(tree) if isinstance(node, ast.Call)
                        and ast.unparse(node.func) == anchor]


def _with_arguments(old: ast.Call, new: ast.Call) -> str:
    """``old`` with the arguments of ``new`` (its positional ones when it has any; its keywords replacing or
    added to ``old``'s); ``new`` itself when it calls another function."""
    if ast.unparse(old.func) != ast.unparse(new.func):
        return ast.unparse(new)
    named = {k.arg: k for k in new.keywords}
    keywords = [named.pop(k.arg, k) for k in old.keywords] + list(named.values())
    return ast.unparse(ast.Call(old.func, new.args or old.args, keywords))


def _offset(lines: list[str], lineno: int, col_offset: int) -> int:
    """The character offset in ``"\\n".join(lines)`` of an ast position (a 1-based line, a UTF-8 byte column)."""
    return sum(len(line) + 1 for line in lines[:lineno - 1]) + len(lines[lineno - 1].encode()[:col_offset].decode())


def _set_call(cell, call: ast.Call, new: str) -> None:
    """Give ``call``, found in ``cell`` by :func:`_calls`, the arguments of the call ``new``."""
    lines = cell.source.split("\n")
    start, end = _offset(lines, call.lineno, call.col_offset), _offset(lines, call.end_lineno, call.end_col_offset)
    cell.source = cell.source[:start] + _with_arguments(call, ast.parse(new, mode="eval").body) + cell.source[end:]


def edited_notebook(source: Path, edits, imports=()):
    """A copy of the chapter (a jupytext notebook) with ``edits`` applied; an :class:`ExerciseError` naming the edit
    that does not find exactly one place."""
    import jupytext

    from nbformat.v4 import new_code_cell

    source = Path(source)
    notebook = jupytext.read(source, fmt="py:percent")
    for edit in edits:
        code = [cell for cell in notebook.cells if cell.cell_type == "code"]
        new = edit.text.strip("\n") if edit.kind in ADDED_CODE else re.sub(r"\b[A-Z]\b", PLACEHOLDER, edit.text)
        if edit.kind == "cell":
            places = [cell for cell in code if cell.source.startswith(edit.anchor)]
            if len(places) != 1:
                raise ExerciseError(f"{source.name}: the exercise adds a cell after the one that starts "
                                    f"`{edit.anchor}`, found {len(places)} such cells in the code")
            notebook.cells.insert(notebook.cells.index(places[0]) + 1, new_code_cell(new))
        elif edit.kind == "call":
            calls = [(cell, call) for cell in code for call in _calls(cell.source, edit.anchor)]
            if len(calls) != 1:
                raise ExerciseError(f"{source.name}: the exercise changes the call `{edit.anchor}` names, found "
                                    f"{len(calls)} such calls in the code")
            _set_call(*calls[0], new)
        elif edit.kind == "change":
            places = [cell for cell in code if edit.anchor in cell.source]
            count = sum(cell.source.count(edit.anchor) for cell in places)
            if count != 1:
                raise ExerciseError(f"{source.name}: the exercise changes `{edit.anchor}`, found {count} times in "
                                    "the code")
            cell = places[0]
            line = next(line for line in cell.source.splitlines() if edit.anchor in line)
            indent = line[:len(line) - len(line.lstrip())]
            added = "".join(f"{indent}{statement}\n" for statement in _needed_imports(new, imports))
            cell.source = cell.source.replace(line, added + line.replace(edit.anchor, new), 1)
        else:
            places = [(cell, line) for cell in code for line in cell.source.splitlines()
                      if line.lstrip().startswith(edit.anchor)]
            if len(places) != 1:
                raise ExerciseError(f"{source.name}: the exercise adds a line after the one that starts "
                                    f"`{edit.anchor}`, found {len(places)} such lines in the code")
            cell, line = places[0]
            indent = line[:len(line) - len(line.lstrip())]
            added = "".join(f"{indent}{s}\n" if s else "\n" for s in [*_needed_imports(new, imports), *new.split("\n")])
            cell.source = cell.source.replace(line + "\n", line + "\n" + added, 1) if line + "\n" in cell.source \
                else cell.source.replace(line, line + "\n" + added.rstrip("\n"), 1)
    return notebook


def edited_source(source: Path, edits, imports=()) -> str:
    """:func:`edited_notebook` as percent-format text, ready to be written beside a run's outputs."""
    import jupytext

    return jupytext.writes(edited_notebook(source, edits, imports), fmt="py:percent")


def chapter_source(chapter: str) -> Path:
    """The book's notebook named ``chapter`` (an id such as ``admiral/02_experiments``, or its path); an
    :class:`ExerciseError` naming the book's chapters when there is none."""
    sources = {runner.notebook_id(s): s for s in runner.book_notebooks()}
    name = runner.notebook_id(Path(chapter)) if chapter.endswith(".py") else chapter.removeprefix("notebooks/")
    if name not in sources:
        raise ExerciseError(f"no chapter {chapter!r} (the book's: {', '.join(sources)})")
    return sources[name]


def find(chapter: str, number: int) -> tuple[Path, Exercise]:
    """The chapter and its exercise ``number``; an :class:`ExerciseError` naming what is there when it is missing."""
    source = chapter_source(chapter)
    found = read_exercises(source)
    for exercise in found:
        if exercise.number == number:
            return source, exercise
    raise ExerciseError(f"{runner.notebook_id(source)} has no exercise {number} "
                        f"(it has {', '.join(str(e.number) for e in found) or 'none'})")


#: the kinds of exercise that run a chapter (:func:`run_exercise`), and why the others do not
RUNNABLE = ("edit", "cell", "rerun")
NOT_RUN = {"no computer": "it is done by hand", "reading": "its changes are the reader's to write"}


def run_exercise(source: Path, exercise: Exercise, folder: Path, smoke: bool = False) -> float:
    """Run ``exercise`` of the chapter ``source`` as a reader would: a copy with its edits (or the chapter its
    command names), with its parameters, the results, figures and executed copy in ``folder``; returns the
    seconds it took.  An exercise of another kind (:data:`NOT_RUN`), or one whose parameter value is the reader's
    to choose, is an :class:`ExerciseError` saying why."""
    if exercise.kind not in RUNNABLE:
        raise ExerciseError(f"{exercise.chapter} exercise {exercise.number} ({exercise.title}) runs no chapter: "
                            f"{NOT_RUN[exercise.kind]}")
    if exercise.chosen:
        raise ExerciseError(f"{exercise.chapter} exercise {exercise.number} ({exercise.title}) asks for a value you "
                            f"choose ({', '.join(f'-p {name} ...' for name in exercise.chosen)}): run the chapter "
                            "with yours, `python -m proofbook run` as its exercises say")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    chapter = chapter_source(exercise.target) if exercise.target else Path(source)
    copy = chapter
    if exercise.edits:
        copy = folder / chapter.name
        copy.write_text(edited_source(chapter, exercise.edits, exercise.imports), encoding="utf-8")
    parameters = {**dict(exercise.parameters), "results_dir": str(folder / "results"),
                  "figures_dir": str(folder / "figures"), **({"smoke": True} if smoke else {})}
    start = time.perf_counter()
    runner.run_notebook(copy, parameters, output=folder / f"{chapter.stem}.ipynb", progress=False)
    return time.perf_counter() - start


#: where :func:`record_time` keeps each measured exercise (``<chapter id>/<number>.json``; not committed)
TIMES = PROJECT_ROOT / "_build" / "exercise-times"


def _source_digest(exercise: Exercise) -> str:
    """The sha256 of the chapter ``exercise`` runs: a measurement holds while it is unchanged."""
    return sha256_file(chapter_source(exercise.runs))


def _time_path(exercise: Exercise, times: Path | None = None) -> Path:
    """Where the measured time of ``exercise`` is kept, under ``times`` (default :data:`TIMES`)."""
    return Path(times or TIMES) / exercise.chapter / f"{exercise.number}.json"


def record_time(exercise: Exercise, seconds: float, times: Path | None = None) -> Path:
    """Keep how long ``exercise`` took here (a full-size run), with the digest of the chapter it ran, under
    ``times`` (default :data:`TIMES`)."""
    path = _time_path(exercise, times)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"seconds": round(seconds, 1), "source_sha256": _source_digest(exercise),
                                "finished": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                                "host": platform.node()}, indent=1), encoding="utf-8")
    return path


def measured_minutes(exercises, times: Path | None = None) -> dict[tuple[str, int], float]:
    """``(chapter, number) -> minutes`` of each exercise measured here on its chapter's current source; a record
    that does not parse raises a ValueError naming its file."""
    found = {}
    for e in exercises:
        path = _time_path(e, times)
        if not path.is_file():
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            seconds, digest = float(record["seconds"]), record["source_sha256"]
        except (ValueError, KeyError, TypeError) as err:
            raise ValueError(f"{path}: not an exercise time ({type(err).__name__}: {err})") from None
        if digest == _source_digest(e):
            found[e.chapter, e.number] = seconds / 60
    return found


def minutes_here(exercise: Exercise, chapter_minutes: dict[str, float | None],
                 measured: dict[tuple[str, int], float] | None = None) -> str:
    """What ``exercise`` costs here: ``0 min`` by hand; for a rerun or a copy (edited, or with a cell added)
    ``N min (measured)`` from
    ``measured`` (:func:`measured_minutes`), else ``~N min`` from ``chapter_minutes`` (a chapter's id -> the
    minutes of its last recorded run, None when none is recorded; ``+ training`` when it retrains); ``-`` when
    not estimated (a change of the reader's, no recorded run)."""
    if exercise.kind == "no computer":
        return "0 min"
    if exercise.kind not in RUNNABLE:
        return "-"
    if measured and (exercise.chapter, exercise.number) in measured:
        return f"{max(measured[exercise.chapter, exercise.number], 0.1):.1f} min (measured)"
    minutes = chapter_minutes.get(exercise.runs)
    if minutes is None:
        return "-"
    return f"~{max(minutes, 0.1):.1f} min" + (" + training" if exercise.retrains else "")


#: what :func:`minutes_here`'s numbers are, for a reader of the listing or the status page
COST_NOTE = ("cost here: 0 min by hand; N min (measured) = the exercise run here with --run or --measure; "
             "~N min = the chapter's last recorded run on this machine (more than a rerun with cached models needs "
             "when that run trained them; less when the exercise enlarges the work), + training when the exercise "
             "retrains; - = not estimated")


def recorded_minutes(runs=None) -> dict[str, float | None]:
    """Each chapter's id -> the minutes of its last recorded run on this machine (None: none recorded); ``runs``
    are :func:`proofbook.cli.status.chapter_runs`' (read when not given)."""
    if runs is None:
        from proofbook.cli.status import chapter_runs

        runs = chapter_runs()
    return {run.notebook: None if run.seconds is None else run.seconds / 60 for run in runs}


def exercise_rows(exercises, chapter_minutes: dict[str, float | None],
                  measured: dict[tuple[str, int], float] | None = None) -> list[dict]:
    """One row per exercise: chapter, number, kind, its cost here (:func:`minutes_here`), title, what it changes."""
    rows = []
    for e in exercises:
        changes = [f"-p {n} {v}" for n, v in e.parameters] + [f"-p {n} (yours)" for n in e.chosen] + [
            f"arguments of `{x.anchor}`" if x.kind == "call" else
            f"{x.kind} after `{x.anchor}`" if x.kind in ADDED_CODE else f"{x.kind} `{x.anchor}`" for x in e.edits]
        changes += [f"runs {e.target}"] if e.target else []
        rows.append({"chapter": e.chapter, "exercise": e.number, "kind": e.kind,
                     "cost here": minutes_here(e, chapter_minutes, measured), "title": e.title,
                     "changes": "; ".join(changes)})
    return rows


def listing(rows: list[dict]) -> list[str]:
    """:func:`exercise_rows` as lines of text."""
    return [f"{r['chapter']:<28} {r['exercise']:>2}  {r['kind']:<11}  {r['cost here']:<20} {r['title']}"
            + (f"  [{r['changes']}]" if r["changes"] else "") for r in rows]


def _timed(source: Path, exercise: Exercise, folder: Path, smoke: bool) -> None:
    """Run one exercise, print its time and, for a full-size run, keep it (:func:`record_time`)."""
    seconds = run_exercise(source, exercise, folder, smoke)
    if not smoke:
        record_time(exercise, seconds)
    print(f"{exercise.chapter} exercise {exercise.number} ({exercise.title}): {seconds / 60:.1f} min"
          f"{' (smoke run: tiny sizes, not kept)' if smoke else ''}; outputs in {folder}", flush=True)


def main(chapter: str | None = None, number: int | None = None, output: str | None = None,
         smoke: bool = False, measure: bool = False) -> int:
    """The command line: list the exercises (of one chapter, or of every chapter) with their cost here; run one
    (``number``) or, with ``measure``, every runnable exercise of a chapter in turn, and print and keep their
    times."""
    if number is None and not measure:
        exercises = book_exercises([chapter_source(chapter)] if chapter is not None else None)
        for line in listing(exercise_rows(exercises, recorded_minutes(), measured_minutes(exercises))):
            print(line)
        print(f"[exercises] {COST_NOTE}")
        return 0
    if chapter is None or output is None:
        raise ExerciseError("--run and --measure need a chapter and --output (a folder for the runs' outputs)")
    if number is not None:
        source, exercise = find(chapter, number)
        _timed(source, exercise, Path(output), smoke)
        return 0
    source = chapter_source(chapter)
    runnable = [e for e in read_exercises(source) if e.kind in RUNNABLE]
    if not runnable:
        raise ExerciseError(f"{runner.notebook_id(source)} has no exercise that runs a chapter")
    for exercise in [e for e in runnable if e.chosen]:
        print(f"{exercise.chapter} exercise {exercise.number} ({exercise.title}): not run (its "
              f"{', '.join(exercise.chosen)} is the reader's to choose)", flush=True)
    for exercise in [e for e in runnable if not e.chosen]:
        _timed(source, exercise, Path(output) / str(exercise.number), smoke)
    return 0
