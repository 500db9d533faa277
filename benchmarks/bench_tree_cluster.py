"""The game tree on one machine and on a Dask LocalCluster of 2 workers on this machine:
time and positions per level, and the overhead the cluster adds.

    python benchmarks/bench_tree_cluster.py [--game gebeta] [--depth 15]
"""

from __future__ import annotations

import argparse
import time

from distributed import LocalCluster

import mancalab
from mancalab.analysis import tree, tree_cluster

from _report import report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gebeta")
    parser.add_argument("--depth", type=int, default=15)
    args = parser.parse_args()
    game = mancalab.variant(args.game)
    tree.tree_stats(game, 3)  # compile or load the kernels
    started = time.perf_counter()
    here = tree.tree_stats(game, args.depth)
    one_machine = time.perf_counter() - started
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        tree_cluster.tree_stats(game, 3, cluster.scheduler_address)  # workers load the code
        started = time.perf_counter()
        there = tree_cluster.tree_stats(game, args.depth, cluster.scheduler_address)
        on_cluster = time.perf_counter() - started
    assert [r[:9] for r in there] == [r[:9] for r in here], "the totals differ"
    rows = [{"level": a.level, "positions": a.positions or 0,
             "one machine s": round(a.seconds, 2), "cluster s": round(b.seconds, 2),
             "level bytes (cluster)": b.peak_bytes} for a, b in zip(here, there)]
    rows.append({"level": "all", "positions": 0, "one machine s": round(one_machine, 2),
                 "cluster s": round(on_cluster, 2), "level bytes (cluster)": 0})
    report(f"{args.game} tree to level {args.depth}: one machine (2 threads) and a "
           "LocalCluster of 2 workers; totals equal", rows,
           ["level", "positions", "one machine s", "cluster s", "level bytes (cluster)"])


if __name__ == "__main__":
    main()
