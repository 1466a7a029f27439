"""The artifact cache: trained models, indexes and predictions, keyed by config + data hash.

Every paper's pipeline trains several models and builds indexes that take minutes on two CPU cores
(AdMIRaL's reranker and seq2seq retriever, the veracity classifier of claims in the wild, Entailer's
scorers and BM25 fact index).  A notebook asks the cache instead of rebuilding:

    cache = ArtifactCache()
    reranker = cache.get_or_build("reranker", settings.cache_config(), build, *object_codec(CrossEncoder),
                                  data=[train_file])

The key is :func:`fingerprint` of the config (a component's settings, :mod:`proofbook.core.settings`)
together with :func:`file_fingerprint` of the data files, so a change to either builds a new entry; the
codec (:mod:`proofbook.core.codecs`) says how the value is written into the entry's folder.  Two rules keep entries whole:

**Publishing is one atomic rename, and the first writer wins.**  An entry is built in a private
temporary folder in the cache root (``.building-<kind>-*``), given a ``manifest.json`` (size and
sha256 of each file, and the config), and moved into place with one ``os.rename``: a build that fails
leaves nothing behind, and a reader never sees half an entry (a process killed while building leaves only its ``.building-<kind>-<pid>-*``
folder, which no reader opens and the next build removes once that process is gone; a write that fails, such as on a full disk, raises an ``OSError`` naming the
entry).  Several processes may build the same
key at once (two notebooks, or ``make -j``).  Renaming a folder onto an existing non-empty one fails,
which tells a writer that another one got there first: if that entry verifies, it is kept, the
writer's own copy is discarded and the writer returns the value it built (the same config and data,
so an equivalent value).  If the entry in the way is corrupt, it is first renamed aside to a unique
``.trash-*`` name and deleted, then the rename is tried again.  A reader that finds a corrupt entry
removes it the same way (rename aside, then delete), and puts back a folder it moved aside if that
turns out to be a valid entry another process published in the meantime, so a valid entry is never
deleted in a race.

**Corruption is detected by content.**  Before an entry is loaded, every file named in its manifest is
re-hashed (sha256 of the bytes, never a memo of size and modification time, which an edit that keeps
both would fool).  A corrupted or partial entry, or one whose load raises, is reported (a
:class:`CacheCorruptionWarning` naming it), removed and rebuilt.  :func:`file_fingerprint` hashes the
data files' contents on every call for the same reason; that costs about 40 ms for the book's 51 MB
of datasets.
"""
from __future__ import annotations

import dataclasses
import enum
import errno
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
import uuid
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable

from proofbook.core.codecs import json_codec, pickle_codec
from proofbook.core.paths import PROJECT_ROOT, record_read

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: ``os.rename`` of a folder onto an existing one: the target is there (another writer won)
_TARGET_EXISTS = {errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR}
#: how many times a writer retries publishing when the entry in its way keeps being corrupt
_PUBLISH_ATTEMPTS = 8


#: "no valid entry" inside ``ArtifactCache.get_or_build`` (a stored value may be None)
_MISSING = object()


class CacheCorruptionWarning(UserWarning):
    """A cache entry failed its manifest check or its load, and is being rebuilt."""


def _canonical(obj: Any) -> Any:
    """``obj`` as plain JSON values with a stable order (dataclasses, paths, sets, enums handled)."""
    if obj is None or isinstance(obj, (bool, int, str)):
        return obj
    if isinstance(obj, float):
        return obj if obj == obj and abs(obj) != float("inf") else repr(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        fields = {f.name: _canonical(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
        return {"__dataclass__": type(obj).__qualname__, **fields}
    if isinstance(obj, enum.Enum):
        return _canonical(obj.value)
    if isinstance(obj, os.PathLike):
        return Path(obj).as_posix()
    if isinstance(obj, dict):
        return {str(key): _canonical(value) for key, value in sorted(obj.items(), key=lambda kv: str(kv[0]))}
    if isinstance(obj, (set, frozenset)):
        return sorted((_canonical(item) for item in obj), key=lambda item: json.dumps(item, sort_keys=True))
    if isinstance(obj, (list, tuple)):
        return [_canonical(item) for item in obj]
    if isinstance(obj, bytes):
        return {"__bytes_sha256__": hashlib.sha256(obj).hexdigest()}
    if hasattr(obj, "item") and callable(obj.item):  # numpy / torch scalars
        return _canonical(obj.item())
    if callable(obj) and hasattr(obj, "__qualname__"):
        return {"__callable__": f"{getattr(obj, '__module__', '?')}.{obj.__qualname__}"}
    raise TypeError(f"fingerprint: cannot hash a {type(obj).__name__} ({obj!r:.60}); pass JSON-able settings")


def fingerprint(obj: Any) -> str:
    """A stable sha256 (hex) of a JSON-able config: equal settings give equal fingerprints across runs."""
    text = json.dumps(_canonical(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hash_file(path: Path) -> str:
    """sha256 of a file's content, read every time (nothing is remembered between calls)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def file_fingerprint(paths: os.PathLike | str | Iterable[os.PathLike | str]) -> str:
    """A content hash of data files (a folder counts as all the files under it).

    File names enter the hash but not the folders they sit in, so the same data read from ``data/`` or
    from a ``shared/data`` folder beside the project (a local mirror of the datasets) gives the same
    fingerprint.  The contents are read on every call, so any edit changes the fingerprint, even one that
    keeps the size and modification time.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    parts = []
    for path in map(Path, paths):
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            parts += [(p.relative_to(path).as_posix(), _hash_file(p)) for p in files]
            for file in files:
                record_read(file)
        elif path.is_file():
            parts.append((path.name, _hash_file(path)))
            record_read(path)
        else:
            raise FileNotFoundError(f"file_fingerprint: {path}: no such file or folder")
    return fingerprint(parts)


def _describe_files(folder: Path) -> dict[str, dict[str, Any]]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    return {p.relative_to(folder).as_posix(): {"size": p.stat().st_size, "sha256": _hash_file(p)}
            for p in files}


def verify_entry(folder: Path) -> str | None:
    """``None`` if every file in the entry's manifest is present with its size and hash; else the problem.

    Every file is hashed from its bytes on each call.
    """
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return "missing manifest.json (partial entry)"
    try:
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
        expected_files = [(str(name), int(want["size"]), str(want["sha256"])) for name, want in files.items()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        return f"unreadable manifest.json ({type(err).__name__}: {err})"
    for name, size, sha256 in expected_files:
        path = folder / name
        try:
            if not path.is_file():
                return f"missing file {name}"
            if path.stat().st_size != size:
                return f"{name} has {path.stat().st_size} bytes, manifest says {size}"
            if _hash_file(path) != sha256:
                return f"{name} does not match its sha256 in the manifest"
        except OSError as err:  # e.g. the folder was moved away while it was being read
            return f"cannot read {name} ({type(err).__name__}: {err})"
    return None


def _read_manifest(folder: Path) -> bytes | None:
    try:
        return (folder / MANIFEST).read_bytes()
    except OSError:
        return None


def _remove_tree(path: Path) -> None:
    """Delete a folder (or a stray file) that this process renamed aside; gone already is fine."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def _alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (signal 0 tests without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ArtifactCache:
    """Folders ``<root>/<kind>/<key>/`` holding one built artifact each, with a manifest.

    ``root`` defaults to ``$PROOFBOOK_CACHE``, else ``<project root>/.cache/proofbook``.
    ``stats`` counts hits, misses, rebuilt (corrupted) entries, and ``raced``: builds whose result
    was not stored because another process had published the same entry first.
    Any number of processes may share one root (see the module docstring for the rules).
    """

    def __init__(self, root: os.PathLike | str | None = None):
        root = root or os.environ.get("PROOFBOOK_CACHE") or PROJECT_ROOT / ".cache" / "proofbook"
        self.root = Path(root).expanduser()
        self.stats: Counter = Counter()

    def __repr__(self) -> str:
        return f"ArtifactCache({str(self.root)!r})"

    def path_for(self, kind: str, key: str) -> Path:
        """The folder of the entry ``key`` of artifact kind ``kind`` (it may not exist yet)."""
        for what, name in (("kind", kind), ("key", key)):
            if not _SAFE_NAME.match(name):
                raise ValueError(f"cache {what} {name!r}: use letters, digits, '_', '-' and '.' only")
        return self.root / kind / key

    def key_for(self, kind: str, config: Any, data: Any = None) -> str:
        """The entry key: fingerprint of kind, config and the content of the ``data`` files."""
        return self._key(kind, config, file_fingerprint(data) if data is not None else None)

    @staticmethod
    def _key(kind: str, config: Any, data_hash: str | None) -> str:
        return fingerprint({"kind": kind, "config": config, "data": data_hash})

    def get(self, kind: str, config: Any, load: Callable[[Path], Any], data: Any = None, default: Any = None) -> Any:
        """The stored value for ``(kind, config, data)``, or ``default`` when there is no valid entry.

        Nothing is built; a corrupted entry is removed (with a :class:`CacheCorruptionWarning`).
        """
        return self._load_entry(self.path_for(kind, self.key_for(kind, config, data)), load, default)

    def _load_entry(self, entry: Path, load: Callable[[Path], Any], default: Any) -> Any:
        if not entry.exists():
            return default
        judged = _read_manifest(entry)
        problem = verify_entry(entry)
        load_failed = False
        if problem is None:
            try:
                value = load(entry)
            except Exception as err:  # noqa: BLE001 - any failure to load means a bad entry
                problem, load_failed = f"load failed: {type(err).__name__}: {err}", True
            else:
                self.stats["hits"] += 1
                logger.info("cache hit: %s", entry)
                return value
        if not entry.exists():  # another process removed (or is replacing) it meanwhile: a plain miss
            return default
        warnings.warn(f"cache entry {entry} is corrupted ({problem}); deleting and rebuilding",
                      CacheCorruptionWarning, stacklevel=3)
        logger.warning("cache entry %s is corrupted (%s); rebuilding", entry, problem)
        self.stats["rebuilt"] += 1
        self._retire(entry, judged, load_failed)
        return default

    def _trash_path(self, entry: Path) -> Path:
        return self.root / f".trash-{entry.parent.name}-{entry.name[:16]}-{os.getpid()}-{uuid.uuid4().hex[:12]}"

    def _retire(self, entry: Path, judged: bytes | None, load_failed: bool) -> None:
        """Remove the entry this process judged bad, without ever deleting one published meanwhile.

        The folder is renamed aside first (to a name only this process uses), so two processes never
        delete the same folder, and what is deleted is exactly what was renamed.  If the folder moved
        aside turns out to be a different, valid entry (another process replaced the bad one between
        the check and the rename), it is put back, or dropped if yet another entry took its place.
        ``judged`` is the manifest as read when the entry was judged; ``load_failed`` says whether the
        entry verified but failed to load (then only a different manifest marks a different entry).
        """
        trash = self._trash_path(entry)
        try:
            os.rename(entry, trash)
        except FileNotFoundError:
            return  # someone else removed it already
        if verify_entry(trash) is None and (not load_failed or _read_manifest(trash) != judged):
            try:
                os.rename(trash, entry)
                return
            except OSError:  # an entry is in place again: the one moved aside is not needed
                pass
        _remove_tree(trash)

    def get_or_build(self, kind: str, config: Any, build: Callable[[], Any], save: Callable[[Any, Path], None],
                     load: Callable[[Path], Any], data: Any = None) -> Any:
        """Load the entry for ``(kind, config, data)`` if a valid one exists, else build and store it.

        ``data`` is a path or paths (files or folders) whose content enters the key.  ``save(obj,
        folder)`` writes the artifact into an empty folder; ``load(folder)`` reads it back.  When
        another process publishes the same entry while this one builds, theirs is kept and the value
        built here is returned (it comes from the same config and data).
        """
        data_hash = file_fingerprint(data) if data is not None else None
        key = self._key(kind, config, data_hash)
        entry = self.path_for(kind, key)
        value = self._load_entry(entry, load, _MISSING)
        if value is not _MISSING:
            return value
        self.stats["misses"] += 1
        logger.info("cache miss: %s; building", entry)
        return self._build_entry(entry, kind, key, config, data_hash, build, save)

    def _build_entry(self, entry: Path, kind: str, key: str, config: Any, data_hash: str | None,
                     build: Callable[[], Any], save: Callable[[Any, Path], None]) -> Any:
        """Build, save into a private temporary folder in the root, write the manifest, publish."""
        start = time.perf_counter()
        self.root.mkdir(parents=True, exist_ok=True)
        self._sweep_abandoned()
        scratch = Path(tempfile.mkdtemp(prefix=f".building-{kind}-{os.getpid()}-", dir=self.root))
        try:
            value = build()
            try:
                save(value, scratch)
                manifest = {"kind": kind, "key": key, "config": _canonical(config), "data": data_hash,
                            "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
                            "build_seconds": round(time.perf_counter() - start, 3),
                            "files": _describe_files(scratch)}
                (scratch / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
                entry.parent.mkdir(parents=True, exist_ok=True)
                outcome = self._publish(scratch, entry)
            except OSError as err:   # a full disk or a read-only cache: say which entry, keep no half of it
                raise OSError(err.errno, f"cannot store cache entry {entry}: {err.strerror or err}") from err
        finally:
            if scratch.exists():  # a failed build, or another writer's entry was kept
                shutil.rmtree(scratch, ignore_errors=True)
        if outcome == "stored":
            logger.info("cache stored: %s (%.1f s)", entry, time.perf_counter() - start)
        elif outcome == "theirs":
            self.stats["raced"] += 1
            logger.info("cache entry %s was published by another process meanwhile; keeping it", entry)
        return value

    def _sweep_abandoned(self) -> None:
        """Delete the ``.building-<kind>-<pid>-*`` folders of builders that no longer run (killed mid-build)."""
        for folder in self.root.glob(".building-*"):
            pid = re.search(r"-(\d+)-[^-]*$", folder.name)
            if pid is None or _alive(int(pid.group(1))):
                continue
            _remove_tree(folder)

    def _publish(self, scratch: Path, entry: Path) -> str:
        """Move ``scratch`` to ``entry`` with one rename: ``"stored"``, ``"theirs"`` or ``"not stored"``.

        A folder renamed onto an existing non-empty folder fails (ENOTEMPTY or EEXIST): another
        writer won.  Their entry is kept if it verifies (``"theirs"``); a corrupt one is retired and
        the rename retried.  After a few rounds of corrupt entries reappearing the build is simply not
        stored (``"not stored"``; the caller still returns the value it built).
        """
        for _ in range(_PUBLISH_ATTEMPTS):
            try:
                os.rename(scratch, entry)
                return "stored"
            except OSError as err:
                if err.errno not in _TARGET_EXISTS:
                    raise
            judged = _read_manifest(entry)
            problem = verify_entry(entry)
            if problem is None:
                return "theirs"
            if not entry.exists():  # retired by another process meanwhile: try again
                continue
            logger.warning("cache entry %s in the way is corrupted (%s); replacing it", entry, problem)
            self._retire(entry, judged, load_failed=False)
        logger.warning("cache entry %s: gave up storing after %d attempts", entry, _PUBLISH_ATTEMPTS)
        return "not stored"

    def cache_json(self, kind: str, config: Any, build: Callable[[], Any], data: Any = None) -> Any:
        """:meth:`get_or_build` for a JSON-able value (predictions, metric rows)."""
        return self.get_or_build(kind, config, build, *json_codec(), data=data)

    def cache_pickle(self, kind: str, config: Any, build: Callable[[], Any], data: Any = None) -> Any:
        """:meth:`get_or_build` for a picklable object (e.g. an index)."""
        return self.get_or_build(kind, config, build, *pickle_codec(), data=data)

    def clear(self, kind: str | None = None) -> None:
        """Delete every entry (of one kind, or all)."""
        target = self.root / kind if kind else self.root
        shutil.rmtree(target, ignore_errors=True)
