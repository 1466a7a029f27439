"""Command line: ``python -m proofbook run|run-all|data|check|check-book|status|explain``.

- ``run NOTEBOOK.py [-p NAME VALUE ...] [--output PATH]``: execute one notebook (see :mod:`proofbook.cli.runner`).
- ``run-all [-p NAME VALUE ...] [--force] [--workers N] [--threads T] [--ray ADDRESS]``: every notebook of the
  book, skipping unchanged ones; with ``--workers`` or ``--ray``, several at a time as Ray tasks (see
  :mod:`proofbook.cli.parallel`).
- ``data [--dest data] [--mirror DIR] [--only FOLDER ...]``: fill the data directory (see :mod:`proofbook.data.fetch`).
- ``check-book [--html DIR] [--allow-empty-tables]``: open every page of the built book in headless Chromium
  (see :mod:`proofbook.cli.bookcheck`).
- ``check [--structure] [--results-dir DIR] [--data-dir DIR]``: are the results files well formed, from a
  clean commit, and what the current code computes on the data (see :mod:`proofbook.cli.check`)?
- ``status [--data-dir DIR] [--cells N]``: each notebook's last recorded run (when, how long, ok or failed) and
  whether its results are current; ``--cells N`` adds its N slowest cells (see :mod:`proofbook.cli.status`).
- ``explain admiral "CLAIM" | entailer "QUESTION" --options A B ... | wild --claim-id ID
  [--json] [--html FILE] [--smoke]``: one example through a paper's method, step by step, with the models
  ``make book`` cached (see :mod:`proofbook.cli.explain`).

Each command imports its module when it runs (heavy and optional: ``run`` needs papermill, ``explain`` a
paper's models), so ``python -m proofbook --help`` answers at once; ``COMMAND --help`` describes each.

**Errors.**  A refused input (a wrong parameter or split, a missing notebook or data directory, malformed
data, a results folder in use by another run, a full disk or a read-only folder) is one line on stderr,
``proofbook <command>: <what is wrong>``, and exit status 2; a notebook whose cell fails is one line naming
the cell and its error, and exit status 1 (the executed copy shows the whole traceback); Ctrl-C is exit
status 130.  ``--debug`` (before the command) shows Python's traceback instead; other errors are bugs and
always show it.
"""
from __future__ import annotations

import argparse
import errno
import sys

#: errno values of an ``OSError`` that is the environment's answer, not a bug: reported in one line
_ENVIRONMENT_ERRORS = {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT, errno.ENOENT,
                       errno.ENOTDIR, errno.EISDIR}


class _Parser(argparse.ArgumentParser):
    """argparse with its errors in one line (``prog: error: ...``, exit 2) instead of usage plus the error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parameters(pairs) -> dict:
    """``-p NAME VALUE`` pairs as given: the runner types each value from the notebook's parameters cell."""
    return {name: value for name, value in (pairs or [])}


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line) and run its command; returns the exit status."""
    parser = _Parser(prog="python -m proofbook", description=__doc__.splitlines()[0])
    parser.add_argument("--debug", action="store_true", help="show Python's traceback for a refused input")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = commands.add_parser("run", help="execute one notebook with papermill")
    run.add_argument("notebook")
    run.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    run.add_argument("--output", help="where to write the executed copy (default: beside the source)")
    run.add_argument("--log-output", action="store_true", help="echo the notebook's output")

    run_all = commands.add_parser("run-all", help="execute every notebook of the book that changed")
    run_all.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    run_all.add_argument("--force", action="store_true")
    run_all.add_argument("--workers", type=int, default=1,
                         help="notebooks at a time, as Ray tasks (default 1: one after the other, in this process)")
    run_all.add_argument("--threads", type=int, default=None,
                         help="torch threads per notebook with --workers (default: the CPUs divided among the workers)")
    run_all.add_argument("--ray", metavar="ADDRESS", default=None,
                         help="a running Ray cluster (default: $PROOFBOOK_RAY_ADDRESS, else a Ray node on this machine)")

    data = commands.add_parser("data", help="fill the data directory from a mirror or the official sources")
    data.add_argument("--dest", default=None, help="data directory (default: $PROOFBOOK_DATA or data/)")
    data.add_argument("--mirror", default=None, help="a local folder laid out like ../shared/data")
    data.add_argument("--only", nargs="*", help="dataset folders to fetch (default: all)")

    check = commands.add_parser("check", help="check the results files (structure; with data, staleness)")
    check.add_argument("--structure", action="store_true", help="only the structure and the glue names")
    check.add_argument("--results-dir", default=None, help="default: results/")
    check.add_argument("--data-dir", default=None, help="default: $PROOFBOOK_DATA, data/, else ../shared/data")

    state = commands.add_parser("status", help="each notebook's last run and whether its results are current")
    state.add_argument("--data-dir", default=None, help="default: $PROOFBOOK_DATA, data/, else ../shared/data")
    state.add_argument("--cells", type=_count, default=0, metavar="N", help="also each notebook's N slowest cells")
    book = commands.add_parser("check-book", help="open every page of the built book in headless Chromium")
    book.add_argument("--html", default=None, help="the built book (default: _build/html)")
    book.add_argument("--allow-empty-tables", action="store_true", help="for the smoke book, whose tiny runs "
                      "can leave a table empty")

    exercises = commands.add_parser("exercises", help="the chapters' exercises, or one of them run and timed")
    exercises.add_argument("chapter", nargs="?", default=None, help="a chapter id or path (default: every chapter)")
    exercises.add_argument("--run", type=int, default=None, metavar="N", help="run exercise N of the chapter")
    exercises.add_argument("--output", default=None, help="with --run: the folder for the run's outputs")
    exercises.add_argument("--measure", action="store_true",
                           help="run every exercise of the chapter that reruns it, in turn, and keep their times")
    exercises.add_argument("--smoke", action="store_true", help="with --run: tiny sizes (the time means nothing)")

    explain = commands.add_parser("explain", help="one claim or question through a paper's method, step by step")
    papers = explain.add_subparsers(dest="paper", required=True, parser_class=_Parser)
    admiral = papers.add_parser("admiral", help="AdMIRaL's retrieval loop and sufficiency proofs for a claim")
    admiral.add_argument("claim", help="the claim text")
    admiral.add_argument("--stand-in", action="store_true", help="the book's stand-ins (hops narrowed to the "
                         "mentioned titles, proofs by alignment) instead of the paper's method")
    entailer = papers.add_parser("entailer", help="Entailer's entailment trees for a multiple-choice question")
    entailer.add_argument("question", help="the question text")
    entailer.add_argument("--options", nargs="+", required=True, help="the answer options (labelled A, B, ...)")
    wild = papers.add_parser("wild", help="the five stages of claims in the wild for a ClaimDecomp claim")
    wild.add_argument("--claim-id", required=True, help="a ClaimDecomp example_id")
    for sub in (admiral, entailer, wild):
        sub.add_argument("--json", action="store_true", help="print the trace as JSON")
        sub.add_argument("--html", default=None, metavar="FILE", help="also write the trace as a standalone page")
        sub.add_argument("--smoke", action="store_true", help="tiny models trained in seconds (answers mean nothing)")
        sub.add_argument("--data-dir", default=None, help="default: $PROOFBOOK_DATA, data/, else ../shared/data")
        sub.add_argument("--seed", type=int, default=0)

    args = parser.parse_args(argv)
    try:
        return _command(args)
    except KeyboardInterrupt:
        if args.debug:
            raise
        print(f"proofbook {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as err:  # noqa: BLE001 - sorted below: refused input in one line, bugs with a traceback
        kind = _refused(err)
        if kind is None or args.debug:
            raise
        print(f"proofbook {args.command}: {_one_line(err)}", file=sys.stderr)
        return 1 if kind == "failed" else 2


def _refused(err: BaseException) -> str | None:
    """``"refused"`` for an input or environment the command cannot use, ``"failed"`` for a notebook cell that
    failed, None for anything else (a bug)."""
    from proofbook.cli.locks import Busy
    from proofbook.cli.parameters import ParameterError

    if type(err).__name__ in ("PapermillExecutionError", "DeadKernelError"):
        return "failed"
    if type(err).__name__ == "ExerciseError":
        return "refused"
    if isinstance(err, (ParameterError, Busy, FileNotFoundError, NotADirectoryError)):
        return "refused"
    if isinstance(err, OSError) and err.errno in _ENVIRONMENT_ERRORS:
        return "refused"
    if isinstance(err, (ValueError, RuntimeError)) and \
            type(err).__name__ in ("DataError", "RefusedInput", "MissingModels", "FetchError"):
        return "refused"
    return None


def _one_line(err: BaseException) -> str:
    """The error in one line: a failed cell as ``cell [N] failed: Name: message`` (N: its execution count in the executed copy)."""
    if type(err).__name__ == "PapermillExecutionError":
        text = f"cell [{err.exec_count}] failed: {err.ename}: {err.evalue}"
    elif type(err).__name__ == "DeadKernelError":
        text = f"the notebook's kernel died ({err}); the executed copy shows how far it got"
    else:
        text = str(err)
    return " ".join(text.split())


def _count(text: str) -> int:
    """A non-negative integer argument (argparse type)."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return int(text)


def _command(args) -> int:
    """Run the parsed command; returns the exit status."""
    from pathlib import Path

    from proofbook.cli.parameters import ParameterError

    given = getattr(args, "data_dir", None)
    if given is not None and not Path(given).expanduser().is_dir():
        raise ParameterError(f"--data-dir {given}: not a folder")
    if args.command == "run":
        from proofbook.cli.runner import run_notebook

        path = run_notebook(args.notebook, _parameters(args.parameter), output=args.output, log_output=args.log_output)
        print(path)
    elif args.command == "run-all":
        import os

        from proofbook.cli.runner import run_all

        address = args.ray or os.environ.get("PROOFBOOK_RAY_ADDRESS") or None
        if args.workers > 1 or address:
            from proofbook.cli.parallel import Workers, run_all_parallel

            try:
                workers = Workers(workers=args.workers, threads=args.threads, address=address)
            except ValueError as err:
                raise ParameterError(f"run-all: {err}") from None
            run_all_parallel(_parameters(args.parameter), args.force, workers)
        elif args.workers < 1:
            raise ParameterError(f"run-all: workers must be at least 1, got {args.workers}")
        else:
            run_all(_parameters(args.parameter), force=args.force)
    elif args.command == "check":
        from proofbook.cli.check import main as check_main

        return check_main(args.structure, args.results_dir, args.data_dir)
    elif args.command == "status":
        from proofbook.cli.check import find_data_dir
        from proofbook.cli.status import main as status_main

        return status_main(args.data_dir or find_data_dir(), cells=args.cells)
    elif args.command == "check-book":
        from proofbook.cli.bookcheck import check_book
        from proofbook.core.paths import PROJECT_ROOT

        problems = check_book(args.html or PROJECT_ROOT / "_build" / "html", args.allow_empty_tables)
        for problem in problems:
            print(problem)
        print(f"[check-book] {len(problems)} problem(s)" if problems else "[check-book] every page is fine")
        return 1 if problems else 0
    elif args.command == "exercises":
        from proofbook.cli.exercises import main as exercises_main

        return exercises_main(args.chapter, args.run, args.output, args.smoke, args.measure)
    elif args.command == "explain":
        from proofbook.cli.explain import main as explain_main

        return explain_main(args.paper, args)
    elif args.command == "data":
        from proofbook.data.fetch import fetch_all

        fetch_all(dest=args.dest, mirror=args.mirror, only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
