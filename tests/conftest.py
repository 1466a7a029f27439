"""Shared test set-up: no network but loopback, and where the real data lives."""
import os
from pathlib import Path

import pytest

# Set before proofbook is imported anywhere, so that this process and every notebook kernel the
# tests start (they inherit the environment) refuse non-loopback connections.
os.environ["PROOFBOOK_NO_NETWORK"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

from proofbook.core import netguard  # noqa: E402

netguard.install()  # already done by `import proofbook` above; idempotent, and explicit here


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


class SmokeRuns:
    """Each notebook executed once per test session with ``smoke=True`` (memoised), sharing one model cache.

    Smoke runs train tiny models; chapters of one paper reuse each other's (the cache is keyed by config
    and data, exactly as in the book), so running every notebook once keeps ``make test`` short.  Results
    and figures go to a temporary folder per notebook, never over the committed ones.
    """

    def __init__(self, root: Path, data_dir: Path):
        self.root, self.data_dir, self.done = root, data_dir, {}

    def __call__(self, notebook: str) -> dict:
        """``notebook`` like ``"admiral/02_experiments"``; returns the executed copy, results and figures."""
        if notebook not in self.done:
            self.done[notebook] = self._run(notebook)
        outcome = self.done[notebook]
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome

    def _run(self, notebook: str):
        from proofbook.cli import runner
        from proofbook.core.results import load_results

        source = runner.NOTEBOOKS / f"{notebook}.py"
        folder = self.root / notebook.replace("/", "__")
        env = {"PROOFBOOK_DATA": str(self.data_dir), "PROOFBOOK_CACHE": str(self.root / "cache")}
        saved = {name: os.environ.get(name) for name in [*env, "OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL"]}
        os.environ.update(env)
        for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PROOFBOOK_LLM_MODEL"):   # no LLM endpoint in tests
            os.environ.pop(name, None)
        try:
            params = {"smoke": True, "results_dir": str(folder / "results"), "figures_dir": str(folder / "figures")}
            executed = runner.run_notebook(source, params, output=folder / f"{source.stem}.ipynb", progress=False)
            results = {path: load_results(path) for path in sorted((folder / "results").rglob("*.json"))}
            return {"source": source, "executed": executed, "results": results,
                    "rows": [row for data in results.values() for row in data["rows"]],
                    "figures": sorted((folder / "figures").rglob("*.svg"))}
        except Exception as err:  # noqa: BLE001 - remembered, so every test of this notebook reports it
            return err
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


@pytest.fixture(scope="session")
def smoke_run(real_data_dir, tmp_path_factory) -> SmokeRuns:
    """``smoke_run("paper/NN_name")``: that notebook's smoke execution (run once per session)."""
    return SmokeRuns(tmp_path_factory.mktemp("smoke-notebooks"), real_data_dir)
