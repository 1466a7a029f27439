"""Shared test set-up: no network but loopback, where the real data lives, the notebooks' smoke runs, and tiers.

Every test belongs to at least one tier, given by its marker (collection fails naming any test without one):

- ``unit``: library code on small hand-written inputs (``pytest -m unit``; ``make test-unit``);
- ``data``: reads the real datasets through the ``real_data_dir`` fixture (skipped where none is present);
- ``notebook``: executes a notebook with ``smoke=True`` through the ``smoke_run`` fixture.

``tests/`` mirrors ``lib/proofbook/`` (``tests/README.md`` maps it); ``tests/book/`` holds the tests of the
book as a whole.  Every folder is a package (``__init__.py``), so two folders may hold files of the same name
and helpers import as ``tests.<folder>.<module>``.
"""
import os
from pathlib import Path

import pytest

# Set before proofbook is imported anywhere, so that this process and every notebook kernel the
# tests start (they inherit the environment) refuse non-loopback connections.
os.environ["PROOFBOOK_NO_NETWORK"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

from proofbook.core import netguard  # noqa: E402

netguard.install()  # already done by `import proofbook` above; idempotent, and explicit here

#: the fake OpenAI-compatible server (``fake_llm`` fixture), shared by tests/models and tests/wild
pytest_plugins = ("tests.fake_llm",)


def pytest_report_header(config):
    if netguard.isolated():
        return "network: guard installed; isolated network namespace (loopback only)"
    return ("network: guard installed (this process only); not in an isolated network namespace, so child "
            "processes that do not import proofbook are not isolated (`make test` uses unshare --net)")


ROOT = Path(__file__).resolve().parents[1]


def find_real_data() -> Path | None:
    """$PROOFBOOK_DATA, else the project's data/ (after `make data`), else ../shared/data."""
    candidates = [os.environ.get("PROOFBOOK_DATA"), ROOT / "data", ROOT.parent / "shared" / "data"]
    for candidate in candidates:
        if candidate and (Path(candidate) / "hover_multihop").is_dir():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def real_data_dir() -> Path:
    """The real datasets; tests that need them are skipped where none is present."""
    path = find_real_data()
    if path is None:
        pytest.skip("no real data directory (run `make data` or place ../shared/data beside the repo)")
    return path


#: The notebooks whose smoke runs start in a background process when the whole suite runs (see
#: :class:`SmokeRuns`): those the tests ask for late in the suite (the chapters that other tests ask for early
#: run in the test process, as they always have, so no test waits for the lane).
BACKGROUND_LANE = ("admiral/01_method", "admiral/02_experiments", "admiral/04_error_analysis",
                   "admiral/03_efficiency", "wild/01_method", "wild/02_experiments", "wild/03_error_analysis",
                   "00_introduction")
#: the test that needs every notebook's smoke run (the background lane starts only when it is selected)
WHOLE_BOOK_TEST = "test_the_smoke_book_builds_clean_and_reads_well_in_a_browser"
#: per-library thread settings while two runs share the cores (one thread each: no oversubscription)
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "TOKENIZERS_PARALLELISM": "false"}
#: variables the smoke runs never see (no LLM endpoint in tests)
LLM_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL")


class SmokeRuns:
    """Each notebook executed once per test session with ``smoke=True`` (memoised), sharing one model cache.

    Smoke runs train tiny models; chapters of one paper reuse each other's (the cache is keyed by config
    and data, exactly as in the book), so running every notebook once keeps ``make test`` short.  Results
    and figures go to a temporary folder per notebook, never over the committed ones.

    **Two lanes.**  When the whole suite runs (:data:`WHOLE_BOOK_TEST` is selected), :meth:`start_lane`
    executes the notebooks of :data:`BACKGROUND_LANE` one after another in a child process each, while the
    tests go on with the other notebooks and the unit tests: on two cores that overlaps the single-threaded
    parts of both.  While the lane is busy both sides use one thread per library (:data:`ONE_THREAD`;
    two 2-thread torch jobs on two cores slow each other down many times over).  A test that needs a
    lane notebook waits for it.  The cache is safe for concurrent writers (``proofbook.core.cache``).
    """

    def __init__(self, root: Path, data_dir: Path | None):
        self.root, self.data_dir, self.done, self.lane = root, data_dir, {}, {}
        self._pool, self._child, self.threads = None, None, None

    def start_lane(self, notebooks=BACKGROUND_LANE) -> None:
        """Start the background runs of ``notebooks`` (in order, one at a time); ``threads`` keeps this process's
        torch threads for when the lane is done."""
        from concurrent.futures import ThreadPoolExecutor

        import torch

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

    def _paths(self, notebook: str):
        from proofbook.cli import runner

        source = runner.NOTEBOOKS / f"{notebook}.py"
        folder = self.root / notebook.replace("/", "__")
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

    def _run(self, notebook: str):
        from proofbook.cli import runner

        source, folder, params, env, output = self._paths(notebook)
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


#: the tiers: every test carries at least one of these markers (see the module docstring)
TIERS = ("unit", "data", "notebook")


def pytest_collection_modifyitems(session, config, items):
    """Refuse the run if a collected test has no tier marker.

    This runs before ``-m``/``-k`` deselect anything, so a test without a tier is named even when the run
    selects one tier (where it would otherwise vanish silently)."""

    untiered = {}  # test function (parametrized cases counted together) -> number of items
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            function = item.nodeid.split("[", 1)[0]
            untiered[function] = untiered.get(function, 0) + 1
    if untiered:
        listing = "\n".join(f"  {f}" + (f" ({n} cases)" if n > 1 else "") for f, n in untiered.items())
        raise pytest.UsageError(f"{len(untiered)} test(s) without a tier marker: mark each with one of "
                                f"{', '.join(TIERS)} (tiers: tests/conftest.py):\n{listing}")


def pytest_collection_finish(session):
    # after -m/-k/--deselect: the background lane starts only when the whole-book test is really selected
    session.config._smoke_whole_book = any(item.name == WHOLE_BOOK_TEST for item in session.items)


@pytest.fixture(scope="session", autouse=True)
def _smoke_runs(request, tmp_path_factory):
    """The session's :class:`SmokeRuns`; its background lane starts with the first test of a whole-suite run."""
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
