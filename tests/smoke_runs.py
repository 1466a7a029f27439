"""The notebooks' smoke runs: each chapter executed once per test session with ``smoke=True``, in two lanes.

A pytest plugin (``pytest_plugins`` in tests/conftest.py, beside ``tests.fake_llm``), so the ``smoke_run``
fixture reaches every folder.  ``smoke_run("paper/NN_name")`` returns that notebook's executed copy, results and
figures (:class:`SmokeRuns`); the first test that asks runs it, the others reuse the run.

The chapter list is ``_toc.yml``'s, read through :func:`proofbook.cli.runner.book_notebooks` and named by
:func:`proofbook.cli.runner.notebook_id`; no chapter list is typed here.  The background lane is derived from it
by :func:`background_lane`:

    the chapters of the parts named in :data:`LANE_PARTS` (by their notebooks' folder), in book order, except
    those in :data:`TEST_PROCESS_CHAPTERS`; then the root page.

Why: the lane runs beside the suite from its first test, so it holds the chapters the tests ask for *late*.  The
chapters the first notebook tests ask for (``tests/admiral/prover``, collected first, asks for the natural-logic
chapters; a unit test checks it) run in the test process as they always have, and the Entailer part is left to
the test process (asked for after the lane is done).  A chapter added to ``_toc.yml`` under a lane part joins
the lane; one added elsewhere runs in the test process.
"""
import os
from pathlib import Path

import pytest

#: the parts of ``_toc.yml`` whose chapters run in the background lane, each named by its notebooks' folder
#: (``notebooks/admiral/...``: "AdMIRaL: multi-hop retrieval"; ``notebooks/wild/...``: "Claims in the wild")
LANE_PARTS = ("admiral", "wild")
#: chapters of the lane parts that stay in the test process: the first notebook tests collected
#: (``tests/admiral/prover/test_notebooks.py``) ask for them, so they must not wait behind the lane
TEST_PROCESS_CHAPTERS = ("admiral/05_natural_logic", "admiral/06_sufficiency")
#: the test that needs every notebook's smoke run (the background lane starts only when it is selected)
WHOLE_BOOK_TEST = "test_the_smoke_book_builds_clean_and_reads_well_in_a_browser"
#: per-library thread settings while two runs share the cores (one thread each: no oversubscription)
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "TOKENIZERS_PARALLELISM": "false"}
#: variables the smoke runs never see (no LLM endpoint in tests)
LLM_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL")


def background_lane(notebooks=None, parts=LANE_PARTS, test_process=TEST_PROCESS_CHAPTERS) -> tuple[str, ...]:
    """The notebook ids of the background lane, in the order it runs them (the rule: the module docstring).

    ``notebooks``: the book's notebooks in book order, the root page first (default:
    :func:`~proofbook.cli.runner.book_notebooks`, which reads ``_toc.yml``).  A part in ``parts`` with no chapter
    in the book, or a ``test_process`` chapter that is not one of those parts' chapters, is an error: a renamed
    entry in ``_toc.yml`` must not shrink the lane silently."""
    from proofbook.cli import runner

    ids = [runner.notebook_id(source) for source in (runner.book_notebooks() if notebooks is None else notebooks)]
    if not ids:
        raise ValueError("the book lists no notebook")
    root, chapters = ids[0], ids[1:]
    in_parts = [chapter for chapter in chapters if "/" in chapter and chapter.split("/", 1)[0] in parts]
    empty = [part for part in parts if not any(chapter.startswith(f"{part}/") for chapter in in_parts)]
    strays = [chapter for chapter in test_process if chapter not in in_parts]
    if empty or strays:
        raise ValueError(f"the smoke lane's rule names what _toc.yml does not hold: parts without chapters {empty}, "
                         f"test-process chapters not among the lane parts' chapters {strays} (tests/smoke_runs.py)")
    return (*[chapter for chapter in in_parts if chapter not in test_process], root)


class SmokeRuns:
    """Each notebook executed once per test session with ``smoke=True`` (memoised), sharing one model cache.

    Smoke runs train tiny models; chapters of one paper reuse each other's (the cache is keyed by config
    and data, exactly as in the book), so running every notebook once keeps ``make test`` short.  Results
    and figures go to a temporary folder per notebook, never over the committed ones.

    **Two lanes.**  When the whole suite runs (:data:`WHOLE_BOOK_TEST` is selected), :meth:`start_lane`
    executes the notebooks of :func:`background_lane` one after another in a child process each, while the
    tests go on with the other notebooks and the unit tests: on two cores that overlaps the single-threaded
    parts of both.  While the lane is busy both sides use one thread per library (:data:`ONE_THREAD`;
    two 2-thread torch jobs on two cores slow each other down many times over).  A test that needs a
    lane notebook waits for it.  The cache is safe for concurrent writers (``proofbook.core.cache``).
    """

    def __init__(self, root: Path, data_dir: Path | None):
        self.root, self.data_dir, self.done, self.lane = root, data_dir, {}, {}
        self._pool, self._child, self.threads = None, None, None

    def start_lane(self, notebooks=None) -> None:
        """Start the background runs of ``notebooks`` (in order, one at a time; default :func:`background_lane`);
        ``threads`` keeps this process's torch threads for when the lane is done."""
        from concurrent.futures import ThreadPoolExecutor

        import torch

        notebooks = background_lane() if notebooks is None else notebooks
        self.threads = torch.get_num_threads()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="smoke-lane")
        self.lane = {notebook: self._pool.submit(self._run_in_child, notebook) for notebook in notebooks}

    def lane_busy(self) -> bool:
        """Whether a background run is still queued or running."""
        return any(not future.done() for future in self.lane.values())

    def stop_lane(self) -> None:
        """End of the session (also after Ctrl-C or ``-x``): drop the queued runs and end the running one, with
        its kernel, so that pytest does not wait for notebooks no test will read."""
        import signal

        if self._pool is None:
            return
        self._pool.shutdown(wait=False, cancel_futures=True)
        child = self._child
        if child is not None and child.poll() is None:
            os.killpg(child.pid, signal.SIGTERM)      # the child leads its own process group (its kernel too)
            try:
                child.wait(timeout=5)
            except Exception:  # noqa: BLE001 - it would not stop: kill the group
                os.killpg(child.pid, signal.SIGKILL)
        self._pool.shutdown(wait=True)

    def __call__(self, notebook: str) -> dict:
        """``notebook`` like ``"admiral/02_experiments"``; returns the executed copy, results and figures."""
        if notebook not in self.done:
            if notebook in self.lane:
                self.done[notebook] = self.lane[notebook].result()
            else:
                self.done[notebook] = self._run(notebook)
        outcome = self.done[notebook]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def run_edited(self, notebook: str, text: str, tag: str = "edited") -> dict:
        """A copy of ``notebook`` whose source is ``text`` (an exercise's edits applied), smoke-run as the chapter
        is, with the same model cache, into a folder of its own; returns its outcome, or raises its error.  The
        chapter's own smoke run comes first, so the copy finds its models cached."""
        self(notebook)
        folder = self.root / f"{notebook.replace('/', '__')}__{tag}"
        folder.mkdir(parents=True, exist_ok=True)
        copy = folder / f"{notebook.rsplit('/', 1)[-1]}.py"
        copy.write_text(text, encoding="utf-8")
        outcome = self._run(notebook, source=copy, tag=tag)
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _paths(self, notebook: str, source: Path | None = None, tag: str = ""):
        from proofbook.cli import runner

        source = source or runner.NOTEBOOKS / f"{notebook}.py"
        folder = self.root / (notebook.replace("/", "__") + (f"__{tag}" if tag else ""))
        params = {"smoke": True, "results_dir": str(folder / "results"), "figures_dir": str(folder / "figures")}
        env = {"PROOFBOOK_DATA": str(self.data_dir), "PROOFBOOK_CACHE": str(self.root / "cache")}
        return source, folder, params, env, folder / f"{source.stem}.ipynb"

    @staticmethod
    def _outcome(source: Path, folder: Path, executed: Path) -> dict:
        from proofbook.core.results import load_results

        results = {path: load_results(path) for path in sorted((folder / "results").rglob("*.json"))}
        return {"source": source, "executed": executed, "results": results,
                "rows": [row for data in results.values() for row in data["rows"]],
                "figures": sorted((folder / "figures").rglob("*.svg"))}

    def _run(self, notebook: str, source: Path | None = None, tag: str = ""):
        from proofbook.cli import runner

        source, folder, params, env, output = self._paths(notebook, source, tag)
        if self.lane_busy():
            env.update(ONE_THREAD)
        saved = {name: os.environ.get(name) for name in [*env, *LLM_VARIABLES]}
        os.environ.update(env)
        for name in LLM_VARIABLES:
            os.environ.pop(name, None)
        try:
            executed = runner.run_notebook(source, params, output=output, progress=False)
            return self._outcome(source, folder, executed)
        except Exception as err:  # noqa: BLE001 - remembered, so every test of this notebook reports it
            return err
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value

    def _run_in_child(self, notebook: str):
        """:meth:`_run` in a child process (the background lane: ``python -m proofbook run``), with one thread
        per library."""
        import subprocess
        import sys

        source, folder, params, env, output = self._paths(notebook)
        env = {**{k: v for k, v in os.environ.items() if k not in LLM_VARIABLES}, **env, **ONE_THREAD}
        command = [sys.executable, "-m", "proofbook", "run", str(source), "--output", str(output)]
        for name, value in params.items():
            command += ["-p", name, str(value)]
        try:
            self._child = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                           text=True, start_new_session=True)
            _, stderr = self._child.communicate()
            if self._child.returncode != 0:
                return RuntimeError(f"smoke run of {notebook} failed (background lane):\n{stderr[-4000:]}")
            return self._outcome(source, folder, output)
        except Exception as err:  # noqa: BLE001 - remembered, so every test of this notebook reports it
            return err


def pytest_collection_finish(session):
    # after -m/-k/--deselect: the background lane starts only when the whole-book test is really selected
    session.config._smoke_whole_book = any(item.name == WHOLE_BOOK_TEST for item in session.items)


@pytest.fixture(scope="session", autouse=True)
def _smoke_runs(request, tmp_path_factory):
    """The session's :class:`SmokeRuns`; its background lane starts with the first test of a whole-suite run."""
    from tests.conftest import find_real_data

    runs = SmokeRuns(tmp_path_factory.mktemp("smoke-notebooks"), find_real_data())
    if runs.data_dir is not None and getattr(request.config, "_smoke_whole_book", False):
        runs.start_lane()
    yield runs
    runs.stop_lane()


@pytest.fixture(autouse=True)
def _threads_while_the_lane_runs(_smoke_runs):
    """One torch thread in this process while the background lane runs (torch's own default otherwise)."""
    if _smoke_runs.lane:
        import torch

        torch.set_num_threads(1 if _smoke_runs.lane_busy() else _smoke_runs.threads)
    yield


@pytest.fixture(scope="session")
def smoke_run(real_data_dir, _smoke_runs) -> SmokeRuns:
    """``smoke_run("paper/NN_name")``: that notebook's smoke execution (run once per session)."""
    return _smoke_runs
