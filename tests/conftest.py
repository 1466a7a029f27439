"""Shared test set-up: no network but loopback, and where the real data lives."""
import os
from pathlib import Path

import pytest

# Set before proofbook is imported anywhere, so that this process and every notebook kernel the
# tests start (they inherit the environment) refuse non-loopback connections.
os.environ["PROOFBOOK_NO_NETWORK"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

from proofbook import netguard  # noqa: E402

netguard.install()

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
