"""Command line: ``python -m proofbook run|run-all|data|check|check-book|status|explain``.

- ``run NOTEBOOK.py [-p NAME VALUE ...] [--output PATH]``: execute one notebook (see :mod:`proofbook.cli.runner`).
- ``run-all [-p NAME VALUE ...] [--force]``: every notebook of the book, skipping unchanged ones.
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
paper's models), so ``python -m proofbook --help`` answers at once.
"""
from __future__ import annotations

import argparse
import sys


def _parameters(pairs) -> dict:
    """``-p NAME VALUE`` pairs as given: the runner types each value from the notebook's parameters cell."""
    return {name: value for name, value in (pairs or [])}


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line) and run its command; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m proofbook", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="execute one notebook with papermill")
    run.add_argument("notebook")
    run.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    run.add_argument("--output", help="where to write the executed copy (default: beside the source)")
    run.add_argument("--log-output", action="store_true", help="echo the notebook's output")

    run_all = commands.add_parser("run-all", help="execute every notebook of the book that changed")
    run_all.add_argument("-p", "--parameter", nargs=2, action="append", metavar=("NAME", "VALUE"))
    run_all.add_argument("--force", action="store_true")

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
    state.add_argument("--cells", type=int, default=0, metavar="N", help="also each notebook's N slowest cells")
    book = commands.add_parser("check-book", help="open every page of the built book in headless Chromium")
    book.add_argument("--html", default=None, help="the built book (default: _build/html)")
    book.add_argument("--allow-empty-tables", action="store_true", help="for the smoke book, whose tiny runs "
                      "can leave a table empty")

    explain = commands.add_parser("explain", help="one claim or question through a paper's method, step by step")
    papers = explain.add_subparsers(dest="paper", required=True)
    admiral = papers.add_parser("admiral", help="AdMIRaL's retrieval loop and sufficiency proofs for a claim")
    admiral.add_argument("claim", help="the claim text")
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
    if args.command == "run":
        from proofbook.cli.runner import run_notebook

        path = run_notebook(args.notebook, _parameters(args.parameter), output=args.output, log_output=args.log_output)
        print(path)
    elif args.command == "run-all":
        from proofbook.cli.runner import run_all

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
    elif args.command == "explain":
        from proofbook.cli.explain import main as explain_main

        return explain_main(args.paper, args)
    elif args.command == "data":
        from proofbook.data.fetch import fetch_all

        fetch_all(dest=args.dest, mirror=args.mirror, only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
