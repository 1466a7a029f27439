"""The executor seam (proofbook.core.executor): fixed shards, per-item seeds, the serial backend, and Ray actors on
a local Ray node -- the same results as the serial run, models built once per worker, a killed worker retried,
the shard function's own error raised -- and BM25 retrieval of real HoVer claims, serial and on two workers."""
import os
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from proofbook.core.executor import SERIAL, Executor, item_seed, map_shards, shards


def _build_offset(offset: int = 1000):
    return {"offset": offset, "pid": os.getpid()}


def _noisy_square(models, items, first):
    """A shard step that samples, seeded per item: item i gives (i, i*i + offset + a draw from its own seed)."""
    out = []
    for position, value in enumerate(items):
        rng = np.random.default_rng(item_seed(7, first + position))
        out.append((value, value * value + models["offset"] + float(rng.random())))
    return out


def _with_pid(models, items, first):
    return [(value, models["pid"], os.getpid()) for value in items]


def _dies_once(marker: str, models, items, first):
    """Kills its own process the first time any worker reaches item 5 (the marker file says it happened)."""
    if first <= 5 < first + len(items) and not Path(marker).exists():
        Path(marker).write_text("killed")
        os._exit(1)
    return _noisy_square(models, items, first)


def _fails(models, items, first):
    if first >= 4:
        raise KeyError(f"item {first} has no gold pages")
    return list(items)


def _wrong_count(models, items, first):
    return list(items)[:-1]


@pytest.mark.unit
def test_shards_are_fixed_cuts_of_consecutive_items():
    assert shards(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert shards(0, 4) == [] and shards(3, 5) == [(0, 3)]
    with pytest.raises(ValueError, match="shard_size"):
        shards(3, 0)


@pytest.mark.unit
def test_item_seeds_depend_on_the_run_seed_and_the_index_only():
    assert item_seed(0, 3) == item_seed(0, 3)
    assert len({item_seed(0, i) for i in range(100)}) == 100
    assert item_seed(0, 3) != item_seed(1, 3)
    with pytest.raises(ValueError):
        item_seed(-1, 0)


@pytest.mark.unit
def test_executor_settings_are_checked():
    assert not SERIAL.uses_ray and Executor(workers=2).uses_ray and Executor(ray=True).uses_ray
    assert Executor(address="ray://head:10001").uses_ray
    assert Executor(workers=2, threads=3).threads_per_worker == 3
    for bad in (dict(workers=0), dict(threads=0), dict(retries=-1)):
        with pytest.raises(ValueError):
            Executor(**bad)


@pytest.mark.unit
def test_the_serial_map_builds_once_and_keeps_item_order_whatever_the_shard_size():
    built = []

    def build():
        built.append(1)
        return {"offset": 0, "pid": 0}

    one = map_shards(build, _noisy_square, range(11), shard_size=3, progress=False)
    assert [value for value, _ in one] == list(range(11)) and len(built) == 1
    assert one == map_shards(build, _noisy_square, range(11), shard_size=5, progress=False)


@pytest.mark.unit
def test_a_shard_that_loses_results_is_refused():
    with pytest.raises(ValueError, match="gave 2 results for 3 items"):
        map_shards(_build_offset, _wrong_count, range(6), shard_size=3, progress=False)


@pytest.mark.unit
def test_two_ray_workers_give_the_serial_results_and_build_their_models_once(ray_node):
    serial = map_shards(_build_offset, _noisy_square, range(23), shard_size=4, progress=False)
    on_ray = map_shards(_build_offset, _noisy_square, range(23), shard_size=4, executor=Executor(workers=2, threads=1),
                        progress=False)
    assert on_ray == serial
    pids = map_shards(_build_offset, _with_pid, range(23), shard_size=2, executor=Executor(workers=2, threads=1),
                      progress=False)
    assert [value for value, _, _ in pids] == list(range(23))
    # each worker's models were built in that worker, once: one build pid per worker pid
    assert all(built == ran for _, built, ran in pids) and 1 <= len({ran for _, _, ran in pids}) <= 2
    assert all(ran != os.getpid() for _, _, ran in pids)


@pytest.mark.unit
def test_a_worker_killed_mid_shard_is_restarted_and_the_results_are_unchanged(ray_node, tmp_path):
    marker = tmp_path / "killed"
    serial = map_shards(_build_offset, _noisy_square, range(12), shard_size=3, progress=False)
    on_ray = map_shards(_build_offset, partial(_dies_once, str(marker)), range(12), shard_size=3,
                        executor=Executor(workers=2, threads=1), progress=False)
    assert marker.read_text() == "killed" and on_ray == serial


@pytest.mark.unit
def test_the_shard_functions_own_error_is_raised_not_retried(ray_node):
    with pytest.raises(KeyError, match="item 4 has no gold pages"):
        map_shards(_build_offset, _fails, range(8), shard_size=2, executor=Executor(workers=2, threads=1),
                   progress=False)


def _hover_index(data_dir: str):
    from proofbook.data.hover import build_hover_corpus
    from proofbook.index.bm25 import DocumentIndex

    return DocumentIndex(build_hover_corpus(data_dir))


def _top_pages(index, claims, first):
    return [index.search(claim, k=5) for claim in claims]


@pytest.mark.data
def test_bm25_retrieval_of_real_hover_claims_is_the_same_on_two_ray_workers(ray_node, real_data_dir):
    from proofbook.data.hover import read_hover_claims

    claims = [claim.claim for claim in read_hover_claims(real_data_dir, "dev")[:30]]
    build = partial(_hover_index, str(real_data_dir))
    serial = map_shards(build, _top_pages, claims, shard_size=8, progress=False)
    on_ray = map_shards(build, _top_pages, claims, shard_size=8, executor=Executor(workers=2, threads=1),
                        progress=False)
    assert on_ray == serial and len(serial) == 30 and all(len(pages) == 5 for pages in serial)
