"""The game tree on one machine and on a Dask LocalCluster of 2 workers on this machine:
time and positions per level, and the overhead the cluster adds.

    python benchmarks/bench_tree_cluster.py [--game gebeta] [--depth 15]
        [--against results/tree/gebeta.jsonl]

Per level: distinct positions, seconds on one machine and on the cluster, the bytes the
workers sent each other, the level's rows over the workers, and the peak resident memory of
the one-machine process and of the largest worker so far. Results also go to
``results/tree_cluster.jsonl`` (one line per run), each level also as it ends to
``results/tree_cluster_levels.jsonl`` (a long run stopped midway keeps its levels).

``--against FILE`` takes the one-machine levels from a table ``tree_deep.py`` wrote (for
depths where running both would take too long) instead of running them here: the cluster's
totals are checked against that table, and its seconds come from that run, not this one.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from distributed import LocalCluster

import mancalab
from mancalab.analysis.stats import tree, tree_cluster

from _report import machine, report


TOTALS = tree.TreeRow._fields[:9]  # level, the counts, positions: what must be equal
RESULTS = Path(__file__).parent / "results"


def stored_levels(path: Path, depth: int) -> list[dict]:
    """Levels 1..depth of a table tree_deep.py wrote, the last one counted and not stored."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if len(rows) < depth:
        raise SystemExit(f"{path} holds {len(rows)} levels, fewer than {depth}")
    rows = rows[:depth]
    rows[-1] = {**rows[-1], "positions": None}
    return rows


def run_here(game, depth: int) -> tuple[list[dict], float, list[float]]:
    """The levels on one machine (2 threads): their totals, the seconds in all, and the
    process's peak resident memory (GiB) after each level."""
    tree.warm_up(game)  # compile or load the kernels
    started = time.perf_counter()
    rss: list[float] = []
    rows = tree.tree_stats(game, depth, on_level=lambda row: rss.append(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20))
    seconds = time.perf_counter() - started
    return [row._asdict() for row in rows], seconds, rss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gebeta")
    parser.add_argument("--depth", type=int, default=15)
    parser.add_argument("--against", type=Path,
                        help="one machine's levels from this tree_deep.py table, not run here")
    args = parser.parse_args()
    game = mancalab.variant(args.game)
    progress = RESULTS / "tree_cluster_levels.jsonl"

    def on_level(row) -> None:
        with open(progress, "a") as handle:
            handle.write(json.dumps({"game": args.game, "depth": args.depth,
                                     "level": row.level, "seconds": round(row.seconds, 2),
                                     "positions": row.positions, **row.details}) + "\n")

    # the workers start first: a process started later would begin with this one's peak
    # memory as its own (Linux keeps the peak across a fork)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster:
        tree_cluster.tree_stats(game, 3, cluster.scheduler_address)  # workers load the code
        if args.against:
            here = stored_levels(args.against, args.depth)
            one_machine = sum(row["seconds"] for row in here)
            rss = [row["peak_rss_gib"] for row in here]
        else:
            here, one_machine, rss = run_here(game, args.depth)
        started = time.perf_counter()
        there = tree_cluster.tree_stats(game, args.depth, cluster.scheduler_address,
                                        on_level=on_level)
        on_cluster = time.perf_counter() - started
    assert [tuple(r[:9]) for r in there] == [tuple(a[k] for k in TOTALS) for a in here], \
        "the totals differ"
    rows = [{"level": b.level, "positions": b.positions or 0,
             "one machine s": round(a["seconds"], 2), "cluster s": round(b.seconds, 2),
             "moved MB": round(b.details["moved_bytes"] / 1e6, 1),
             "level MB (cluster)": round(b.peak_bytes / 1e6, 1),
             "one machine peak GiB": round(peak, 2),
             "worker peak GiB": round(b.details["worker_peak_bytes"] / 2**30, 2)}
            for a, b, peak in zip(here, there, rss)]
    columns = list(rows[0])
    rows.append({**{c: "" for c in columns}, "level": "all",
                 "one machine s": round(one_machine, 2), "cluster s": round(on_cluster, 2),
                 "moved MB": round(sum(r["moved MB"] for r in rows), 1)})
    one = f"one machine ({args.against.name}, an earlier run)" if args.against else \
        "one machine (2 threads)"
    title = (f"{args.game} tree to level {args.depth}: {one} and a "
             "LocalCluster of 2 workers; totals equal")
    report(title, rows, columns)
    with open(RESULTS / "tree_cluster.jsonl", "a") as handle:
        handle.write(json.dumps({"benchmark": title, "machine": machine(), "depth": args.depth,
                                 "results": rows}) + "\n")


if __name__ == "__main__":
    main()
