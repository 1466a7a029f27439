"""``make data``: fill the data directory, from a local mirror or from the official sources.

The official sources of every file (repository, commit, path, git blob id, size) are listed in
``sources.json`` beside this module, taken from each dataset's ``SOURCE.md``.  Two ways in:

- ``mirror``: a local folder laid out like the data directory (``DATA_MIRROR``; ``make data`` uses a
  ``shared/data`` folder beside the project, a local mirror of the datasets, when there is one); each
  dataset folder is copied as it is, and each file is checked against its official blob id -- a copy that
  is a documented subset of the official file (held-back splits) is reported as such, not rejected.
- download: each listed file is fetched from the raw-file address of its repository at the pinned
  commit and verified against its git blob id (``sha1("blob <size>\\0" + content)``); a mismatch is an
  error and nothing is written.

Each dataset's licence line is printed when it is fetched.  Dataset files are never committed.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path

from proofbook.core.paths import resolve_data_dir

SOURCES = Path(__file__).with_name("sources.json")
#: where a file is downloaded from; ``{repo}``, ``{commit}`` and ``{path}`` are filled in
#: (``$PROOFBOOK_DATA_URL`` overrides it, e.g. for an institutional mirror)
RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"


class FetchError(RuntimeError):
    """A dataset file could not be fetched or did not match its official blob id."""


def load_sources() -> dict:
    """The official sources (``sources.json``): dataset folder -> licence and files (repo, commit, blob)."""
    return json.loads(SOURCES.read_text(encoding="utf-8"))


def git_blob_id(content: bytes) -> str:
    """The git blob id of ``content``: what ``git hash-object`` prints."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


def matches_blob(content: bytes, blob: str) -> bool:
    """Whether ``content`` has the (possibly abbreviated) git blob id ``blob``."""
    return git_blob_id(content).startswith(blob.lower())


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def copy_from_mirror(folder: str, mirror: Path, dest: Path, entry: dict) -> list[str]:
    """Copy one dataset folder from a mirror; returns a line per file saying how it compares."""
    source = mirror / folder
    official = {f["name"]: f for f in entry["files"]}
    lines = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        rel = path.relative_to(source).as_posix()
        target = dest / folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if not (target.is_file() and target.stat().st_size == path.stat().st_size
                and target.read_bytes() == path.read_bytes()):
            shutil.copyfile(path, target)
        if rel in official:
            same = matches_blob(path.read_bytes(), official[rel]["blob"])
            lines.append(f"  {rel}: {'official file (blob ' + official[rel]['blob'] + ' verified)' if same else 'differs from the official blob: a documented subset (see SOURCE.md)'}")
        else:
            lines.append(f"  {rel}: copied")
    return lines


def download_file(spec: dict, target: Path) -> None:
    """Fetch one file from its repository at the pinned commit, verify its blob id, write atomically."""
    url = os.environ.get("PROOFBOOK_DATA_URL", RAW_URL).format(repo=spec["repo"], commit=spec["commit"], path=spec["path"])
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            content = response.read()
    except OSError as err:
        raise FetchError(f"{url}: download failed ({err}); use DATA_MIRROR=<folder> to copy from a local mirror") from err
    if not matches_blob(content, spec["blob"]):
        raise FetchError(f"{url}: content does not match the official git blob {spec['blob']} "
                         f"(got {git_blob_id(content)[:12]}, {len(content)} bytes); nothing written")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
    os.replace(tmp, target)


def fetch_all(dest: str | os.PathLike | None = None, mirror: str | os.PathLike | None = None,
              only: list[str] | None = None) -> Path:
    """Fill ``dest`` (default: the data directory) with every dataset; returns ``dest``."""
    sources = load_sources()
    dest = resolve_data_dir(dest)
    mirror = Path(mirror).resolve() if mirror else None
    if mirror is not None and not mirror.is_dir():
        raise FetchError(f"{mirror}: mirror folder does not exist")
    if mirror is not None and mirror == dest.resolve():
        _log(f"[data] {dest} is the mirror itself: nothing to copy")
        return dest
    unknown = sorted(set(only or []) - set(sources))
    if unknown:
        raise FetchError(f"unknown dataset folder(s) {unknown}; known: {sorted(sources)}")
    dest.mkdir(parents=True, exist_ok=True)
    for folder, entry in sources.items():
        if only and folder not in only:
            continue
        _log(f"[data] {folder} -- licence: {entry['licence']}")
        if mirror is not None and (mirror / folder).is_dir():
            for line in copy_from_mirror(folder, mirror, dest, entry):
                _log(line)
            continue
        if mirror is not None:
            _log(f"  not in the mirror {mirror}; downloading")
        for spec in entry["files"]:
            target = dest / folder / spec["name"]
            if target.is_file() and matches_blob(target.read_bytes(), spec["blob"]):
                _log(f"  {spec['name']}: present, blob verified")
                continue
            download_file(spec, target)
            _log(f"  {spec['name']}: downloaded, blob {spec['blob']} verified")
    return dest
