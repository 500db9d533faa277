"""The game tree on one machine and on a Dask LocalCluster of 2 workers on this machine:
time and positions per level, and the overhead the cluster adds.

    python benchmarks/bench_tree_cluster.py [--game gebeta] [--depth 15]

Per level: distinct positions, seconds on one machine and on the cluster, the bytes the
workers sent each other, the level's rows over the workers, and the peak resident memory of
the one-machine process and of the largest worker so far. Results also go to
``results/tree_cluster.jsonl`` (one line per run).
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from distributed import LocalCluster

import mancalab
from mancalab.analysis import tree, tree_cluster

from _report import machine, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gebeta")
    parser.add_argument("--depth", type=int, default=15)
    args = parser.parse_args()
    game = mancalab.variant(args.game)
    # the workers start first: a process started later would begin with this one's peak
    # memory as its own (Linux keeps the peak across a fork)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        tree_cluster.tree_stats(game, 3, cluster.scheduler_address)  # workers load the code
        tree.tree_stats(game, 3)  # compile or load the kernels
        started = time.perf_counter()
        rss: list[float] = []
        here = tree.tree_stats(game, args.depth, on_level=lambda row: rss.append(
            resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20))
        one_machine = time.perf_counter() - started
        started = time.perf_counter()
        there = tree_cluster.tree_stats(game, args.depth, cluster.scheduler_address)
        on_cluster = time.perf_counter() - started
    assert [r[:9] for r in there] == [r[:9] for r in here], "the totals differ"
    rows = [{"level": a.level, "positions": a.positions or 0,
             "one machine s": round(a.seconds, 2), "cluster s": round(b.seconds, 2),
             "moved MB": round(b.details["moved_bytes"] / 1e6, 1),
             "level MB (cluster)": round(b.peak_bytes / 1e6, 1),
             "one machine peak GiB": round(peak, 2),
             "worker peak GiB": round(b.details["worker_peak_bytes"] / 2**30, 2)}
            for a, b, peak in zip(here, there, rss)]
    columns = list(rows[0])
    rows.append({**{c: "" for c in columns}, "level": "all",
                 "one machine s": round(one_machine, 2), "cluster s": round(on_cluster, 2),
                 "moved MB": round(sum(r["moved MB"] for r in rows), 1)})
    title = (f"{args.game} tree to level {args.depth}: one machine (2 threads) and a "
             "LocalCluster of 2 workers; totals equal")
    report(title, rows, columns)
    out = Path(__file__).parent / "results" / "tree_cluster.jsonl"
    with open(out, "a") as handle:
        handle.write(json.dumps({"benchmark": title, "machine": machine(), "depth": args.depth,
                                 "results": rows}) + "\n")


if __name__ == "__main__":
    main()
