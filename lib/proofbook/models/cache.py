"""The artifact cache: trained models, indexes and predictions, keyed by config + data hash.

Every paper's pipeline trains several models and builds indexes that take minutes on two CPU cores
(AdMIRaL's reranker and seq2seq retriever, the veracity classifier of claims in the wild, Entailer's
scorers and BM25 fact index).  A notebook asks the cache instead of rebuilding:

    cache = ArtifactCache()
    reranker = cache.get_or_build("reranker", config, build, *object_codec(CrossEncoder),
                                  data=[train_file])

The key is :func:`fingerprint` of the config together with :func:`file_fingerprint` of the data
files, so a change to either builds a new entry.  An entry is written into a temporary folder in the
cache root, given a ``manifest.json`` (size and sha256 of each file, and the config), and moved into
place with one ``os.replace``: a build that fails leaves nothing behind.  Before an entry is loaded its
manifest is checked; a corrupted or partial entry is reported (a :class:`CacheCorruptionWarning`
naming it), deleted and rebuilt.
"""
from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import logging
import os
import pickle
import re
import shutil
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterable, NamedTuple

from proofbook.data.base import PROJECT_ROOT
from proofbook.models.loading import load_model, load_tokenizer, quiet_transformers

logger = logging.getLogger(__name__)

MANIFEST = "manifest.json"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_file_hashes: dict[tuple[str, int, int], str] = {}


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
    """sha256 of a file's content, remembered by (path, size, mtime) within this process."""
    stat = path.stat()
    memo = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if memo not in _file_hashes:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 20), b""):
                digest.update(chunk)
        _file_hashes[memo] = digest.hexdigest()
    return _file_hashes[memo]


def file_fingerprint(paths: os.PathLike | str | Iterable[os.PathLike | str]) -> str:
    """A content hash of data files (a folder counts as all the files under it).

    File names enter the hash but not the folders they sit in, so the same data read from
    ``data/`` or ``../shared/data`` gives the same fingerprint.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    parts = []
    for path in map(Path, paths):
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            parts += [(p.relative_to(path).as_posix(), _hash_file(p)) for p in files]
        elif path.is_file():
            parts.append((path.name, _hash_file(path)))
        else:
            raise FileNotFoundError(f"file_fingerprint: {path}: no such file or folder")
    return fingerprint(parts)


class Codec(NamedTuple):
    """How to write an artifact into a folder, and read it back."""

    save: Callable[[Any, Path], None]
    load: Callable[[Path], Any]


def json_codec(name: str = "value.json") -> Codec:
    """Save/load a JSON-able value (predictions, metric rows) as one file."""
    def save(value: Any, folder: Path) -> None:
        (folder / name).write_text(json.dumps(value, ensure_ascii=False, indent=1), encoding="utf-8")

    def load(folder: Path) -> Any:
        return json.loads((folder / name).read_text(encoding="utf-8"))
    return Codec(save, load)


def pickle_codec(name: str = "value.pkl") -> Codec:
    """Save/load any picklable object (e.g. a BM25 index) as one file; only for this cache's own files."""
    def save(value: Any, folder: Path) -> None:
        with open(folder / name, "wb") as handle:
            pickle.dump(value, handle, protocol=pickle.HIGHEST_PROTOCOL)

    def load(folder: Path) -> Any:
        with open(folder / name, "rb") as handle:
            return pickle.load(handle)
    return Codec(save, load)


def hf_codec() -> Codec:
    """Save/load a transformers model, or a ``(model, tokenizer)`` pair, with save/from_pretrained."""
    def save(value: Any, folder: Path) -> None:
        model, tokenizer = value if isinstance(value, tuple) else (value, None)
        with quiet_transformers():
            model.save_pretrained(folder)
            if tokenizer is not None:
                tokenizer.save_pretrained(folder)
        info = {"model_class": type(model).__name__, "tokenizer": tokenizer is not None}
        (folder / "hf_artifact.json").write_text(json.dumps(info), encoding="utf-8")

    def load(folder: Path) -> Any:
        import transformers

        info = json.loads((folder / "hf_artifact.json").read_text(encoding="utf-8"))
        model = load_model(getattr(transformers, info["model_class"]), folder)
        model.eval()
        return (model, load_tokenizer(folder)) if info["tokenizer"] else model
    return Codec(save, load)


def object_codec(cls: type) -> Codec:
    """Save/load an object with ``obj.save(folder)`` and ``cls.load(folder)`` (e.g. CrossEncoder)."""
    return Codec(lambda value, folder: value.save(folder), cls.load)


def _describe_files(folder: Path) -> dict[str, dict[str, Any]]:
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    return {p.relative_to(folder).as_posix(): {"size": p.stat().st_size, "sha256": _hash_file(p)}
            for p in files}


def verify_entry(folder: Path) -> str | None:
    """``None`` if every file in the entry's manifest is present with its size and hash; else the problem."""
    manifest = folder / MANIFEST
    if not manifest.is_file():
        return "missing manifest.json (partial entry)"
    try:
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
    except (ValueError, KeyError, TypeError) as err:
        return f"unreadable manifest.json ({err})"
    for name, expected in files.items():
        path = folder / name
        if not path.is_file():
            return f"missing file {name}"
        if path.stat().st_size != expected["size"]:
            return f"{name} has {path.stat().st_size} bytes, manifest says {expected['size']}"
        if _hash_file(path) != expected["sha256"]:
            return f"{name} does not match its sha256 in the manifest"
    return None


class ArtifactCache:
    """Folders ``<root>/<kind>/<key>/`` holding one built artifact each, with a manifest.

    ``root`` defaults to ``$PROOFBOOK_CACHE``, else ``<project root>/.cache/proofbook``.
    ``stats`` counts hits, misses and rebuilt (corrupted) entries.
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
        data_hash = file_fingerprint(data) if data is not None else None
        return fingerprint({"kind": kind, "config": config, "data": data_hash})

    def get(self, kind: str, config: Any, load: Callable[[Path], Any], data: Any = None, default: Any = None) -> Any:
        """The stored value for ``(kind, config, data)``, or ``default`` when there is no valid entry.

        Nothing is built; a corrupted entry is deleted (with a :class:`CacheCorruptionWarning`).
        """
        return self._load_entry(self.path_for(kind, self.key_for(kind, config, data)), load, default)

    def _load_entry(self, entry: Path, load: Callable[[Path], Any], default: Any) -> Any:
        if not entry.exists():
            return default
        problem = verify_entry(entry)
        if problem is None:
            try:
                value = load(entry)
            except Exception as err:  # noqa: BLE001 - any failure to load means a bad entry
                problem = f"load failed: {type(err).__name__}: {err}"
            else:
                self.stats["hits"] += 1
                logger.info("cache hit: %s", entry)
                return value
        warnings.warn(f"cache entry {entry} is corrupted ({problem}); deleting and rebuilding",
                      CacheCorruptionWarning, stacklevel=3)
        logger.warning("cache entry %s is corrupted (%s); rebuilding", entry, problem)
        self.stats["rebuilt"] += 1
        shutil.rmtree(entry, ignore_errors=True)
        return default

    def get_or_build(self, kind: str, config: Any, build: Callable[[], Any], save: Callable[[Any, Path], None],
                     load: Callable[[Path], Any], data: Any = None) -> Any:
        """Load the entry for ``(kind, config, data)`` if a valid one exists, else build and store it.

        ``data`` is a path or paths (files or folders) whose content enters the key.  ``save(obj,
        folder)`` writes the artifact into an empty folder; ``load(folder)`` reads it back.
        """
        key = self.key_for(kind, config, data)
        entry = self.path_for(kind, key)
        value = self._load_entry(entry, load, _MISSING)
        if value is not _MISSING:
            return value
        self.stats["misses"] += 1
        logger.info("cache miss: %s; building", entry)
        return self._build_entry(entry, kind, key, config, data, build, save)

    def _build_entry(self, entry: Path, kind: str, key: str, config: Any, data: Any,
                     build: Callable[[], Any], save: Callable[[Any, Path], None]) -> Any:
        """Build, save into a temporary folder in the root, write the manifest, move into place."""
        start = time.perf_counter()
        self.root.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".building-{kind}-", dir=self.root))
        try:
            value = build()
            save(value, scratch)
            manifest = {"kind": kind, "key": key, "config": _canonical(config),
                        "data": file_fingerprint(data) if data is not None else None,
                        "created": time.strftime("%Y-%m-%dT%H:%M:%S"),
                        "build_seconds": round(time.perf_counter() - start, 3),
                        "files": _describe_files(scratch)}
            (scratch / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False), encoding="utf-8")
            entry.parent.mkdir(parents=True, exist_ok=True)
            if entry.exists():  # another process finished the same build first
                shutil.rmtree(entry, ignore_errors=True)
            os.replace(scratch, entry)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        logger.info("cache stored: %s (%.1f s)", entry, time.perf_counter() - start)
        return value

    def cache_json(self, kind: str, config: Any, build: Callable[[], Any], data: Any = None) -> Any:
        """:meth:`get_or_build` for a JSON-able value (predictions, metric rows)."""
        return self.get_or_build(kind, config, build, *json_codec(), data=data)

    def cache_pickle(self, kind: str, config: Any, build: Callable[[], Any], data: Any = None) -> Any:
        """:meth:`get_or_build` for a picklable object (e.g. an index)."""
        return self.get_or_build(kind, config, build, *pickle_codec(), data=data)

    def cache_hf(self, kind: str, config: Any, build: Callable[[], Any], data: Any = None) -> Any:
        """:meth:`get_or_build` for a transformers model or ``(model, tokenizer)`` pair."""
        return self.get_or_build(kind, config, build, *hf_codec(), data=data)

    def clear(self, kind: str | None = None) -> None:
        """Delete every entry (of one kind, or all)."""
        target = self.root / kind if kind else self.root
        shutil.rmtree(target, ignore_errors=True)
