"""Where the project is, and which data files this process has read.

``PROJECT_ROOT`` is the repository root (``lib/proofbook/core/paths.py``, three folders up): the default
home of the data directory, the notebooks, the results and the cache.  Every dataset reader reports the
files it reads through :func:`record_read`; the artifact cache does the same for the files a cached entry
depends on, and a notebook's results record the content hash of every file in :func:`files_read`
(:mod:`proofbook.core.provenance`), so a result says exactly which data it came from.
"""
from __future__ import annotations

import os
from pathlib import Path

#: the repository root (``lib/proofbook/core/paths.py`` -> three levels up)
PROJECT_ROOT = Path(__file__).resolve().parents[3]

_FILES_READ: set[Path] = set()


def record_read(path: os.PathLike | str) -> None:
    """Note that this process read ``path`` (every reader does, through :func:`proofbook.data.textfile.iter_lines`)."""
    _FILES_READ.add(Path(path).resolve())


def files_read() -> set[Path]:
    """Every file this process has read as data so far (the results' digest hashes their contents)."""
    return set(_FILES_READ)


def resolve_data_dir(data_dir: os.PathLike | str | None = None) -> Path:
    """The data directory: the argument, else ``$PROOFBOOK_DATA``, else ``data/`` in the project root."""
    if data_dir is None or str(data_dir) == "":
        data_dir = os.environ.get("PROOFBOOK_DATA") or PROJECT_ROOT / "data"
    path = Path(data_dir).expanduser()
    if not path.is_absolute() and not path.exists() and (PROJECT_ROOT / path).exists():
        path = PROJECT_ROOT / path
    return path
