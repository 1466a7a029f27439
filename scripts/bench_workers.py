"""Benchmark: one evaluation loop through ``proofbook.core.executor`` -- serial or on Ray workers -- at one thread budget.

The loop encodes the HoVer corpus's pages with MiniLM (``proofbook.index.dense.SentenceEmbedder``), the model
work of the book's dense baseline, in fixed shards.  It runs the same shards as

- ``serial-2``: in this process, 2 torch threads (the book's default on 2 cores);
- ``serial-1``: in this process, 1 torch thread;
- ``ray-1x2``: one Ray actor of 2 threads (the difference from ``serial-2`` is Ray's own cost);
- ``ray-2x1``: two Ray actors of 1 thread each (the same thread budget as ``serial-2``),

and prints, for each, the seconds of the loop (model loading included, once per worker), pages per second, the
ratio to ``serial-2``, Ray's overhead per page (actors' start and model loading included; the Ray node's
start is timed apart), the largest resident memory of a worker, and the largest
difference of any vector from ``serial-2``'s.  Measure on quiet cores: run nothing else beside it.

    python scripts/bench_workers.py --data-dir data --pages 2000 --out _build/bench_workers.json
"""
from __future__ import annotations

import argparse
import json
import platform
import resource
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

from proofbook.core.executor import Executor, connect, map_shards, set_threads

CONFIGS = {"serial-2": dict(executor=Executor(), threads=2), "serial-1": dict(executor=Executor(), threads=1),
           "ray-1x2": dict(executor=Executor(workers=1, threads=2, ray=True), threads=2),
           "ray-2x1": dict(executor=Executor(workers=2, threads=1), threads=1)}


def _embedder():
    from proofbook.index.dense import SentenceEmbedder

    return SentenceEmbedder("minilm")


def _encode(embedder, texts, first, batch_size: int):
    vectors = embedder.encode(list(texts), batch_size=batch_size, progress=False)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024          # Linux reports kilobytes
    return [(vector, rss) for vector in vectors]


def page_texts(data_dir: str, pages: int) -> list[str]:
    from proofbook.data.hover import build_hover_corpus
    from proofbook.index.dense import page_text

    corpus = build_hover_corpus(data_dir)
    return [page_text(document) for document in list(corpus)[:pages]]


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--pages", type=int, default=2000)
    parser.add_argument("--shard-size", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    parser.add_argument("--out", default=None, help="also write the rows as JSON here")
    args = parser.parse_args(argv)
    if "serial-2" not in args.configs:
        args.configs.insert(0, "serial-2")
    texts = page_texts(args.data_dir, args.pages)
    step = partial(_encode, batch_size=args.batch_size)
    node_seconds = None
    if any(CONFIGS[name]["executor"].uses_ray for name in args.configs):
        start = time.perf_counter()
        connect(workers=2, threads=1)               # the node once, outside the timed loops
        node_seconds = round(time.perf_counter() - start, 2)
    runs = {}
    for name in args.configs:
        config = CONFIGS[name]
        set_threads(config["threads"])             # the serial runs' threads; a Ray worker sets its own
        start = time.perf_counter()
        out = map_shards(_embedder, step, texts, args.shard_size, executor=config["executor"], desc=name)
        seconds = time.perf_counter() - start
        runs[name] = (np.stack([vector for vector, _ in out]), seconds, max(rss for _, rss in out))
        print(f"{name}: {seconds:.1f} s", file=sys.stderr)
    base_vectors, base_seconds, _ = runs["serial-2"]
    rows = []
    for name, (vectors, seconds, rss) in runs.items():
        rows.append({"config": name, "pages": len(texts), "seconds": round(seconds, 2),
                     "pages_per_second": round(len(texts) / seconds, 2),
                     "ratio_to_serial_2": round(seconds / base_seconds, 3),
                     "overhead_ms_per_page": round(1000 * (seconds - base_seconds) / len(texts), 3),
                     "max_rss_mib": round(rss / 2 ** 20, 1),
                     "max_abs_difference": float(np.abs(vectors - base_vectors).max())})
    report = {"host": platform.node(), "processor": platform.processor() or platform.machine(),
              "shard_size": args.shard_size, "batch_size": args.batch_size, "ray_node_start_seconds": node_seconds,
              "rows": rows}
    header = f"{'config':10} {'seconds':>8} {'pages/s':>8} {'ratio':>6} {'ms/page':>8} {'RSS MiB':>8} {'max diff':>9}"
    print(header)
    for row in rows:
        print(f"{row['config']:10} {row['seconds']:8.1f} {row['pages_per_second']:8.1f} {row['ratio_to_serial_2']:6.3f} "
              f"{row['overhead_ms_per_page']:8.2f} {row['max_rss_mib']:8.1f} {row['max_abs_difference']:9.2g}")
    if node_seconds is not None:
        print(f"Ray node start (not in the rows): {node_seconds:.1f} s")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return report


if __name__ == "__main__":
    main()
