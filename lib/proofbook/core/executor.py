"""One seam for the loops that map a system over claims or questions: serially here, or on Ray actors.

Every evaluation in the book is a map: a system (models built or loaded once) applied to each claim of a
split, or each question.  :func:`map_shards` is that map with two backends:

- **serial** (the default, ``Executor()``): the shards run one after another in this process;
- **Ray** (``Executor(workers=N)``, or ``address=`` a running cluster): ``N`` actors (Moritz et al. 2018),
  each of which calls ``build()`` once -- loading the models from the artifact cache, or training them
  under the cache's lock -- and then runs shard after shard, one at a time, as the driver hands them out.

The items are cut into **fixed shards** of ``shard_size`` consecutive items, the same cuts whatever the
number of workers, so a shard function that batches its model calls sees the same batches on either
backend; results come back in item order.  A step that samples draws from :func:`item_seed` (a seed of
its own for each item, from the run's seed and the item's index), never from a generator that runs across
items, so its result does not depend on which worker ran it or what ran before.  Together these make the
rows of a Ray run equal to those of the serial run for the same seed.

A worker that dies in the middle of a shard (killed, out of memory, its machine gone) is restarted by Ray:
it builds its models again and runs the shard again (``retries`` times at most).  An exception raised by the
shard function itself is not retried: it is raised here, as the serial run would raise it.

``build`` and ``run_shard`` travel to the workers by pickling, so they must be module-level functions (or
:func:`functools.partial` of them) and what they close over must be picklable: pass paths and settings,
not open models.
"""
from __future__ import annotations

import os
import sys
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

import numpy as np
from tqdm.auto import tqdm

Models = TypeVar("Models")
Item = TypeVar("Item")
Result = TypeVar("Result")

#: the variables that set a process's CPU threads (numpy's BLAS, torch's OpenMP pool)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: the environment variable that names a running Ray cluster (``ray://HOST:10001`` or ``HOST:6379``)
ADDRESS_VARIABLE = "PROOFBOOK_RAY_ADDRESS"
#: the object store of a Ray node started here: shards carry items and results, never models
OBJECT_STORE_BYTES = 200 * 1024 ** 2


@dataclass(frozen=True)
class Executor:
    """Where :func:`map_shards` runs: ``workers`` Ray actors of ``threads`` torch threads each, on the cluster at
    ``address`` or on a Ray node started on this machine; serially in this process when ``workers`` is 1 and
    neither ``address`` nor ``ray`` is set (``ray=True`` runs one actor, to measure Ray's own cost)."""
    workers: int = 1
    threads: int | None = None
    address: str | None = None
    ray: bool = False
    retries: int = 2

    def __post_init__(self):
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"threads must be at least 1, got {self.threads}")
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, got {self.retries}")

    @property
    def uses_ray(self) -> bool:
        return self.ray or self.workers > 1 or self.address is not None

    @property
    def threads_per_worker(self) -> int:
        return self.threads or max(1, (os.cpu_count() or 1) // self.workers)

    @classmethod
    def from_environment(cls, workers: int = 1, threads: int | None = None) -> "Executor":
        """``workers`` on the cluster named by ``$PROOFBOOK_RAY_ADDRESS`` if set, else on this machine."""
        return cls(workers=workers, threads=threads, address=os.environ.get(ADDRESS_VARIABLE) or None)


#: the default: every shard in this process, one after another
SERIAL = Executor()


def connect(workers: int, threads: int, address: str | None = None):
    """Ray, joined to ``address`` or to a node started on this machine (loopback only, ``workers x threads``
    CPUs); a no-op when this process is connected already.  Returns the ``ray`` module."""
    import ray

    if not ray.is_initialized():
        common = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
        if address:
            ray.init(address=address, **common)
        else:
            ray.init(num_cpus=workers * threads, _node_ip_address="127.0.0.1",
                     object_store_memory=OBJECT_STORE_BYTES, **common)
    return ray


def set_threads(threads: int) -> None:
    """This process's CPU threads: the environment (for children and BLAS read later) and torch's pool."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)
    if "torch" in sys.modules or _importable("torch"):
        import torch

        torch.set_num_threads(threads)


def _importable(name: str) -> bool:
    from importlib.util import find_spec

    return find_spec(name) is not None


def item_seed(seed: int, index: int) -> int:
    """The seed of item ``index`` in a run seeded with ``seed``: the same whichever worker runs the item."""
    if seed < 0 or index < 0:
        raise ValueError(f"seed and index must be 0 or more, got {seed} and {index}")
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def shards(n_items: int, shard_size: int) -> list[tuple[int, int]]:
    """``[first, stop)`` of each shard: consecutive items, ``shard_size`` each (the last may hold fewer)."""
    if shard_size < 1:
        raise ValueError(f"shard_size must be at least 1, got {shard_size}")
    return [(first, min(first + shard_size, n_items)) for first in range(0, n_items, shard_size)]


class ShardWorker:
    """One worker: the models built once, then :meth:`run` for each shard it is handed."""

    def __init__(self, build: Callable[[], Models], run_shard: Callable, threads: int):
        set_threads(threads)
        self.run_shard = run_shard
        self.models = build()

    def run(self, items: Sequence, first: int) -> list:
        """The shard's results: ``run_shard(models, items, first)``, one per item."""
        return _checked(self.run_shard(self.models, items, first), len(items), first)


def _checked(results, n: int, first: int) -> list:
    results = list(results)
    if len(results) != n:
        raise ValueError(f"the shard starting at item {first} gave {len(results)} results for {n} items")
    return results


def map_shards(build: Callable[[], Models], run_shard: Callable[[Models, Sequence[Item], int], Sequence[Result]],
               items: Sequence[Item], shard_size: int, executor: Executor = SERIAL, desc: str = "items",
               progress: bool = True) -> list[Result]:
    """``run_shard(models, shard_items, first)`` over fixed shards of ``items``; the results in item order.

    ``models = build()`` once per worker (once here when serial).  ``run_shard`` gets a shard's items and the
    index of its first item (for :func:`item_seed`) and returns one result per item.  Progress is counted in
    items, on standard error.
    """
    items = list(items)
    cuts = shards(len(items), shard_size)
    bar = tqdm(total=len(items), desc=desc, unit="item", file=sys.stderr, disable=not progress, leave=False)
    try:
        if not executor.uses_ray:
            models = build()
            out: list = []
            for first, stop in cuts:
                out.extend(_checked(run_shard(models, items[first:stop], first), stop - first, first))
                bar.update(stop - first)
            return out
        return _map_on_ray(build, run_shard, items, cuts, executor, bar)
    finally:
        bar.close()


def _map_on_ray(build, run_shard, items: list, cuts: list[tuple[int, int]], executor: Executor, bar) -> list:
    threads = executor.threads_per_worker
    ray = connect(executor.workers, threads, executor.address)
    actor = ray.remote(num_cpus=threads, max_restarts=executor.retries,
                       max_task_retries=executor.retries)(ShardWorker)
    workers = [actor.remote(build, run_shard, threads) for _ in range(min(executor.workers, max(1, len(cuts))))]
    waiting = deque(cuts)
    running: dict[Any, tuple[Any, int, int]] = {}      # object ref -> (worker, first, stop)
    done: dict[int, list] = {}
    idle = deque(workers)
    try:
        while waiting or running:
            while idle and waiting:
                worker, (first, stop) = idle.popleft(), waiting.popleft()
                running[worker.run.remote(items[first:stop], first)] = (worker, first, stop)
            (ref,), _ = ray.wait(list(running), num_returns=1)
            worker, first, stop = running.pop(ref)
            try:
                done[first] = ray.get(ref)
            except ray.exceptions.RayTaskError as error:       # the shard function's own exception
                raise error.as_instanceof_cause() from None
            bar.update(stop - first)
            idle.append(worker)
    finally:
        for worker in workers:
            ray.kill(worker)
    return [result for first, _ in cuts for result in done[first]]
