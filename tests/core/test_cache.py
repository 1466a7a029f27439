"""Tests of the artifact cache (proofbook.core.cache): keys, content checks, concurrent writers."""
import json
import os
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from proofbook.core.cache import ArtifactCache, CacheCorruptionWarning, file_fingerprint, fingerprint
from proofbook.core.codecs import json_codec
from proofbook.core.cache import verify_entry
from proofbook.core.codecs import pickle_codec

pytestmark = pytest.mark.unit


@dataclass
class Settings:
    name: str
    size: int
    paths: set


def test_fingerprint_is_stable_and_handles_dataclasses_paths_sets():
    a = Settings("x", 3, {Path("b"), Path("a")})
    b = Settings("x", 3, {Path("a"), Path("b")})
    assert fingerprint(a) == fingerprint(b) == fingerprint(Settings("x", 3, {Path("a"), Path("b")}))
    assert fingerprint(a) != fingerprint(Settings("x", 4, {Path("a"), Path("b")}))
    assert fingerprint({"b": 1, "a": (1, 2)}) == fingerprint({"a": [1, 2], "b": 1})
    assert len(fingerprint(None)) == 64
    with pytest.raises(TypeError, match="cannot hash"):
        fingerprint(object())


def test_file_fingerprint_follows_content_not_folder(tmp_path):
    (tmp_path / "one").mkdir(), (tmp_path / "two").mkdir()
    (tmp_path / "one" / "train.jsonl").write_text('{"claim": "a"}\n')
    (tmp_path / "two" / "train.jsonl").write_text('{"claim": "a"}\n')
    assert file_fingerprint(tmp_path / "one" / "train.jsonl") == file_fingerprint(tmp_path / "two" / "train.jsonl")
    assert file_fingerprint(tmp_path / "one") == file_fingerprint(tmp_path / "two")
    (tmp_path / "two" / "train.jsonl").write_text('{"claim": "b"}\n')
    assert file_fingerprint(tmp_path / "one") != file_fingerprint(tmp_path / "two")
    with pytest.raises(FileNotFoundError):
        file_fingerprint(tmp_path / "absent.tsv")


def edit_keeping_size_and_mtime(path: Path, old: bytes, new: bytes) -> None:
    """Replace ``old`` by ``new`` (same length) in ``path`` and restore its modification time."""
    assert len(old) == len(new)
    before = path.stat()
    content = path.read_bytes()
    assert old in content
    path.write_bytes(content.replace(old, new, 1))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)


def test_file_fingerprint_sees_an_edit_that_keeps_size_and_mtime(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "dev.jsonl").write_text('{"claim": "Paris is in France", "label": "SUPPORTED"}\n')
    first = file_fingerprint(data)
    assert file_fingerprint(data / "dev.jsonl") == file_fingerprint(data / "dev.jsonl")
    single = file_fingerprint(data / "dev.jsonl")
    edit_keeping_size_and_mtime(data / "dev.jsonl", b"SUPPORTED", b"REFUTED!!")
    assert file_fingerprint(data) != first
    assert file_fingerprint(data / "dev.jsonl") != single


class Builder:
    def __init__(self, value):
        self.value, self.calls = value, 0

    def __call__(self):
        self.calls += 1
        return self.value


def test_cache_builds_once_then_hits(tmp_path):
    cache = ArtifactCache(tmp_path / "cache")
    data = tmp_path / "dev.tsv"
    data.write_text("a\tb\n")
    build = Builder({"predictions": [1, 2, 3]})
    first = cache.get_or_build("predictions", {"k": 5}, build, *json_codec(), data=data)
    second = cache.get_or_build("predictions", {"k": 5}, build, *json_codec(), data=data)
    assert first == second == {"predictions": [1, 2, 3]} and build.calls == 1
    assert cache.stats["hits"] == 1 and cache.stats["misses"] == 1
    entry = cache.path_for("predictions", cache.key_for("predictions", {"k": 5}, data))
    manifest = json.loads((entry / "manifest.json").read_text())
    assert manifest["config"] == {"k": 5} and set(manifest["files"]) == {"value.json"}
    assert manifest["data"] == file_fingerprint(data)
    cache.get_or_build("predictions", {"k": 6}, build, *json_codec(), data=data)  # new config
    data.write_text("a\tc\n")
    cache.get_or_build("predictions", {"k": 5}, build, *json_codec(), data=data)  # new data
    assert build.calls == 3
    assert cache.cache_pickle("index", {"k": 5}, Builder({1, 2})) == {1, 2}


def test_default_cache_root_follows_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("PROOFBOOK_CACHE", str(tmp_path / "elsewhere"))
    assert ArtifactCache().root == tmp_path / "elsewhere"
    with pytest.raises(ValueError, match="letters"):
        ArtifactCache().path_for("../escape", "x")


def test_get_reads_a_stored_entry_and_builds_nothing(tmp_path):
    cache = ArtifactCache(tmp_path)
    load = pickle_codec()[1]
    assert cache.get("runs", {"n": 1}, load) is None and cache.get("runs", {"n": 1}, load, default=0) == 0
    cache.cache_pickle("runs", {"n": 1}, lambda: {"value": [1, 2]})
    assert cache.get("runs", {"n": 1}, load) == {"value": [1, 2]} and cache.get("runs", {"n": 2}, load) is None
    assert cache.stats["misses"] == 1 and cache.stats["hits"] == 1


def leftovers(root: Path) -> list[str]:
    """Scratch and trash folders left in a cache root."""
    return sorted(p.name for p in root.iterdir() if p.name.startswith((".building", ".trash")))


@pytest.mark.parametrize("damage", ["truncate", "delete_manifest", "delete_file", "load_raises", "same_size_same_mtime"])
def test_corrupted_entry_is_detected_and_rebuilt(tmp_path, damage):
    cache = ArtifactCache(tmp_path)
    build = Builder(list(range(100)))
    save, load = json_codec()
    cache.get_or_build("rows", "cfg", build, save, load)
    entry = cache.path_for("rows", cache.key_for("rows", "cfg"))
    if damage == "truncate":
        (entry / "value.json").write_text("[0, 1")
    elif damage == "delete_manifest":
        (entry / "manifest.json").unlink()
    elif damage == "delete_file":
        (entry / "value.json").unlink()
    elif damage == "same_size_same_mtime":
        assert cache.get("rows", "cfg", load) == list(range(100))   # verified (and hashed) once already
        cache.stats.clear()
        edit_keeping_size_and_mtime(entry / "value.json", b"42", b"24")
        assert verify_entry(entry) == "value.json does not match its sha256 in the manifest"
    else:
        def load(folder):
            raise ValueError("cannot read")
    with pytest.warns(CacheCorruptionWarning, match=str(entry)):
        assert cache.get_or_build("rows", "cfg", build, save, load) == list(range(100))
    assert build.calls == 2 and cache.stats["rebuilt"] == 1
    assert cache.get_or_build("rows", "cfg", build, *json_codec()) == list(range(100)) and build.calls == 2
    assert verify_entry(entry) is None and leftovers(tmp_path) == []


def test_a_failed_build_leaves_no_entry(tmp_path):
    cache = ArtifactCache(tmp_path)

    def broken_build():
        raise RuntimeError("out of memory")

    def broken_save(value, folder):
        (folder / "half.json").write_text("{")
        raise OSError("disk full")

    with pytest.raises(RuntimeError, match="out of memory"):
        cache.get_or_build("model", "cfg", broken_build, *json_codec())
    with pytest.raises(OSError, match="disk full"):
        cache.get_or_build("model", "cfg", Builder([1]), broken_save, json_codec().load)
    assert not cache.path_for("model", cache.key_for("model", "cfg")).exists()
    assert leftovers(tmp_path) == []


def test_a_writer_that_loses_the_race_keeps_the_winners_entry(tmp_path):
    ours, theirs = ArtifactCache(tmp_path), ArtifactCache(tmp_path)
    entry = ours.path_for("rows", ours.key_for("rows", "cfg"))

    def build():  # another process publishes the same entry while this one builds
        theirs.cache_json("rows", "cfg", lambda: [1, 2, 3])
        return [1, 2, 3]

    published = (entry / "manifest.json")
    assert ours.cache_json("rows", "cfg", build) == [1, 2, 3]
    assert ours.stats["raced"] == 1 and theirs.stats["misses"] == 1
    manifest = published.read_bytes()
    assert verify_entry(entry) is None and leftovers(tmp_path) == []
    assert ours.cache_json("rows", "cfg", lambda: pytest.fail("rebuilt")) == [1, 2, 3]
    assert published.read_bytes() == manifest   # the winner's entry was kept, not replaced


def test_a_corrupt_entry_in_the_way_is_replaced(tmp_path):
    cache = ArtifactCache(tmp_path)
    entry = cache.path_for("rows", cache.key_for("rows", "cfg"))

    def build():  # a half-written entry (no manifest) appears at the target while this one builds
        entry.mkdir(parents=True)
        (entry / "value.json").write_text("[1,")
        return [1, 2]

    assert cache.cache_json("rows", "cfg", build) == [1, 2]
    assert cache.stats["raced"] == 0 and verify_entry(entry) is None and leftovers(tmp_path) == []
    assert json.loads((entry / "value.json").read_text()) == [1, 2]


def test_removing_a_corrupt_entry_never_deletes_one_published_meanwhile(tmp_path):
    cache = ArtifactCache(tmp_path)
    cache.cache_json("rows", "cfg", lambda: [1])
    entry = cache.path_for("rows", cache.key_for("rows", "cfg"))
    # this process judged an earlier entry corrupt, then someone replaced it with this valid one
    cache._retire(entry, judged=b"an older manifest", load_failed=False)
    assert verify_entry(entry) is None and leftovers(tmp_path) == []
    cache._retire(entry, judged=b"an older manifest", load_failed=True)   # verified, but a different entry
    assert verify_entry(entry) is None and leftovers(tmp_path) == []
    cache._retire(entry, judged=(entry / "manifest.json").read_bytes(), load_failed=True)  # the one judged
    assert not entry.exists() and leftovers(tmp_path) == []
    cache._retire(entry, judged=None, load_failed=False)   # already gone: nothing to do
    assert leftovers(tmp_path) == []


WRITER = textwrap.dedent('''
    import json, sys, time
    from pathlib import Path
    from proofbook.core.cache import ArtifactCache

    root, go, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    cache = ArtifactCache(root)

    def save(value, folder):
        (folder / "value.json").write_text(json.dumps(value))
        time.sleep(0.002)
        (folder / "extra").mkdir()
        (folder / "extra" / "notes.txt").write_text("x" * value["i"])
        for part in range(6):   # a few more files: deleting an entry takes longer
            (folder / "extra" / f"part-{part}.txt").write_text(str(part))

    def load(folder):
        assert (folder / "extra" / "notes.txt").read_text() == "x" * json.loads((folder / "value.json").read_text())["i"]
        return json.loads((folder / "value.json").read_text())

    Path(str(go) + "." + sys.argv[4]).touch()
    while not go.exists():
        time.sleep(0.002)
    wrong = []
    for i in range(n):
        def build(i=i):
            time.sleep(0.004)
            return {"i": i, "square": i * i}
        if cache.get_or_build("race", {"i": i}, build, save, load) != {"i": i, "square": i * i}:
            wrong.append(i)
    print(json.dumps({"stats": dict(cache.stats), "wrong": wrong}))
''')


def test_concurrent_writers_of_the_same_keys_never_crash_or_leave_half_entries(tmp_path):
    n = 40
    root, go = tmp_path / "cache", tmp_path / "go"
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    cache = ArtifactCache(root)
    save, load = json_codec()
    corrupt = range(0, n, 5)   # some entries start out corrupt: both writers find and replace them
    for i in corrupt:
        cache.get_or_build("race", {"i": i}, lambda: {"i": -1}, save, load)
        (cache.path_for("race", cache.key_for("race", {"i": i})) / "value.json").write_text("{")
    env = {**os.environ, "PYTHONWARNINGS": "ignore::UserWarning"}
    writers = [subprocess.Popen([sys.executable, str(script), str(root), str(go), str(n), str(w)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(2)]
    deadline = time.monotonic() + 60
    while not all(Path(f"{go}.{w}").exists() for w in range(2)) and time.monotonic() < deadline:
        if any(w.poll() is not None for w in writers):
            break
        time.sleep(0.01)
    go.touch()   # both are imported and waiting: start them at once
    outputs = [w.communicate(timeout=120) for w in writers]
    for writer, (out, err) in zip(writers, outputs):
        assert writer.returncode == 0, err
        assert "Traceback" not in err, err
        assert json.loads(out.strip().splitlines()[-1])["wrong"] == []
    stats = [json.loads(out.strip().splitlines()[-1])["stats"] for out, _ in outputs]
    assert sum(s.get("misses", 0) for s in stats) >= n   # every key was built at least once
    for i in range(n):
        entry = cache.path_for("race", cache.key_for("race", {"i": i}))
        assert verify_entry(entry) is None, entry
        assert json.loads((entry / "value.json").read_text()) == {"i": i, "square": i * i}
        assert (entry / "extra" / "notes.txt").read_text() == "x" * i
    assert leftovers(root) == []
    assert sorted(p.name for p in root.iterdir()) == ["race"]
