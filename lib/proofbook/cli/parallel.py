"""``run-all --workers N [--ray ADDRESS]``: the book's notebooks as Ray tasks, several at a time.

The chapters of the three papers do not read each other's results; they share trained models only through
the artifact cache (:mod:`proofbook.core.cache`), whose locks make a second chapter that needs the same
model wait for the first to train it.  So they can run at the same time, each as a Ray task (Moritz et al.
2018) that executes the notebook with papermill exactly as ``run`` does, with ``threads`` torch threads.
A notebook that reads other notebooks' results files (:data:`READS_RESULTS_OF`: the reproduction report, the
datasets page, the status page) starts only when those have finished.  Longest first: the notebooks whose last
run (their stamp) took longest are started first, so that a long chapter does not start last.

Without ``--ray`` a Ray node is started on this machine (loopback only) with ``workers x threads`` CPUs; with
an address, the tasks go to that cluster, where every node must hold this repository at the same path, the
data directory and (to share trained models) the artifact cache on a shared file system.  Each stamp says
on which host the notebook ran (``host``).  A failed notebook stops new starts; the running ones finish and
the first error is raised, as a sequential ``run-all`` stops at its first failure.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from proofbook.cli import runner

#: the environment variable that names a running Ray cluster (``ray://HOST:10001`` or ``HOST:6379``)
ADDRESS_VARIABLE = "PROOFBOOK_RAY_ADDRESS"
#: the object store of a Ray node started here: tasks pass only paths, parameters and file names
OBJECT_STORE_BYTES = 200 * 1024 ** 2

#: notebook id -> the notebooks whose results it reads ("*": every notebook listed before it in ``_toc.yml``)
READS_RESULTS_OF = {"99_reproduction_report": "*", "datasets": ("99_reproduction_report",), "99_status": "*"}
#: the variables that set a process's CPU threads; a task sets them before its kernel starts
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


@dataclass(frozen=True)
class Workers:
    """How ``run-all`` spreads the notebooks: ``workers`` at a time, ``threads`` torch threads each, on the Ray
    cluster at ``address`` or (None) on a Ray node started on this machine with ``workers x threads`` CPUs."""
    workers: int = 2
    threads: int | None = None
    address: str | None = None

    def __post_init__(self):
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}")
        if self.threads is not None and self.threads < 1:
            raise ValueError(f"threads must be at least 1, got {self.threads}")

    @property
    def threads_per_worker(self) -> int:
        return self.threads or max(1, (os.cpu_count() or 1) // self.workers)


def connect(workers: Workers):
    """Join ``workers.address``, or start a Ray node on this machine (loopback only); no-op when connected."""
    import ray

    if not ray.is_initialized():
        common = dict(include_dashboard=False, log_to_driver=False, configure_logging=False)
        if workers.address:
            ray.init(address=workers.address, **common)
        else:
            ray.init(num_cpus=workers.workers * workers.threads_per_worker, _node_ip_address="127.0.0.1",
                     object_store_memory=OBJECT_STORE_BYTES, **common)
    return ray


def prerequisites(sources: list[Path]) -> dict[Path, set[Path]]:
    """For each notebook of ``sources`` (in book order), the notebooks of ``sources`` it must wait for."""
    ids = [runner.notebook_id(source) for source in sources]
    waits = {}
    for position, (source, nid) in enumerate(zip(sources, ids)):
        reads = READS_RESULTS_OF.get(nid, ())
        before = sources[:position] if reads == "*" else [s for s, i in zip(sources, ids) if i in reads]
        waits[source] = set(before)
    return waits


def _last_seconds(source: Path) -> float:
    stamp = runner.stamp_path(source)
    try:
        return float(json.loads(stamp.read_text(encoding="utf-8")).get("seconds") or 0.0)
    except (OSError, ValueError):
        return 0.0


def _run_one(source: str, typed: dict, threads: int) -> tuple[list[str], float, str]:
    """A Ray task: execute one notebook as ``run`` does; returns (results files written, seconds, host)."""
    for name in THREAD_VARIABLES:
        os.environ[name] = str(threads)        # inherited by the notebook's kernel
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    path = Path(source)
    notebook, _ = runner.read_notebook(path)
    start = time.perf_counter()
    runner.make_output_folders(path, typed)
    _, written = runner._execute(path, notebook, typed, None, False, False, None)
    return written, time.perf_counter() - start, platform.node()


def run_all_parallel(parameters: dict | None, force: bool, workers: Workers) -> list[tuple[Path, str, float]]:
    """:func:`proofbook.cli.runner.run_all` (the same checks, locks, skips and stamps) with the notebooks as Ray tasks."""
    return runner.run_all(parameters, force, run_each=partial(run_parallel, workers=workers))


def run_parallel(read: dict[Path, tuple], typed: dict[Path, dict], force: bool,
                 workers: Workers) -> list[tuple[Path, str, float]]:
    """Each notebook of ``read`` (source -> (notebook, specs)) as a Ray task, ``workers.workers`` at a time,
    skipping up-to-date ones; returns (notebook, status, seconds) in book order and writes each stamp."""
    sources = list(read)
    waits = prerequisites(sources)
    status: dict[Path, tuple[str, float]] = {}
    for source in sources:
        if not force and runner.up_to_date(source, typed[source]):
            print(f"[proofbook] {runner.notebook_id(source)}: unchanged, skipped", file=sys.stderr)
            status[source] = ("skipped", 0.0)
    ray = connect(workers)
    task = ray.remote(num_cpus=workers.threads_per_worker, max_retries=0)(_run_one)
    pending: dict = {}
    failure: BaseException | None = None
    while True:
        finished = set(status)
        ready = [s for s in sources if s not in finished and s not in pending.values() and waits[s] <= finished]
        ready.sort(key=lambda s: -_last_seconds(s))
        while failure is None and ready and len(pending) < workers.workers:
            source = ready.pop(0)
            print(f"[proofbook] {runner.notebook_id(source)}: running (Ray)", file=sys.stderr)
            pending[task.remote(str(source), typed[source], workers.threads_per_worker)] = source
        if not pending:
            break
        (done,), _ = ray.wait(list(pending), num_returns=1)
        source = pending.pop(done)
        try:
            written, seconds, host = ray.get(done)
        except Exception as error:          # noqa: BLE001 -- kept, raised once the running tasks are done
            cause = getattr(error, "cause", None) or error      # the notebook's own error, not Ray's wrapper
            cause.add_note(f"while running {runner.notebook_id(source)} as a Ray task")
            failure = failure or cause
            status[source] = ("failed", 0.0)
            continue
        runner.write_stamp(source, typed[source], written, seconds, host=host)
        print(f"[proofbook] {runner.notebook_id(source)}: done in {seconds:.0f} s on {host}", file=sys.stderr)
        status[source] = ("ran", seconds)
    if failure is not None:
        raise failure
    return [(source, *status[source]) for source in sources]
