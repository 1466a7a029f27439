"""Shared test set-up: no network but loopback, where the real data lives, the plugins, and tiers.

Every test belongs to at least one tier, given by its marker (collection fails naming any test without one):

- ``unit``: library code on small hand-written inputs (``pytest -m unit``; ``make test-unit``);
- ``data``: reads the real datasets through the ``real_data_dir`` fixture (skipped where none is present);
- ``notebook``: executes a notebook with ``smoke=True`` through the ``smoke_run`` fixture (the plugin
  ``tests/smoke_runs.py``: each chapter of ``_toc.yml`` run once per session, some in a background lane).

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

#: the fake OpenAI-compatible server (``fake_llm`` fixture), shared by tests/models and tests/wild; the notebooks'
#: smoke runs (``smoke_run`` fixture, the background lane and its hooks)
pytest_plugins = ("tests.fake_llm", "tests.smoke_runs")


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


@pytest.fixture(scope="session")
def ray_node():
    """A Ray node of this machine (2 CPUs, loopback only) for the tests of the Ray backends, shut down at the end."""
    ray = pytest.importorskip("ray")
    from proofbook.cli.parallel import Workers, connect

    connect(Workers(workers=2, threads=1))
    yield ray
    ray.shutdown()
