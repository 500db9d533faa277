"""Game-tree statistics: wall-clock and memory per level.

    python benchmarks/bench_tree.py [--game gebeta] [--depth 18] [--jobs 2] [--both]

Per level: distinct positions, seconds (and how they split: expanding the parents with the
kernels, which inserts their children into the next level's table as they are played, and
growing that table), the bytes the level's tables held at their peak, and the process's peak
resident memory so far (the figure to compare with the 6 GB target). ``--both`` also counts
the tree the other way (path by path where the game's own way is levels of positions, and
the other way round: Oware) and says whether the two agree and how long each took.
"""

from __future__ import annotations

import argparse
import resource
import time

from mancalab.analysis import tree_stats
from mancalab.analysis.stats.tree import PHASES, warm_up
from mancalab.variants import variant as make_variant

from _report import report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gebeta")
    parser.add_argument("--depth", type=int, default=18)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--both", action="store_true", help="count it the other way too")
    args = parser.parse_args()
    warm_up(args.game)  # compile or load the kernels outside the measurement
    rows = []
    started = time.perf_counter()

    def on_level(row) -> None:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB -> GiB
        rows.append({"level": row.level, "turns": row.turns, "games": row.games,
                     "positions": row.positions, "seconds": round(row.seconds, 3),
                     "total seconds": round(time.perf_counter() - started, 3),
                     **{f"{phase} s": (row.details or {}).get(phase) for phase in PHASES},
                     "tables GiB": round(row.peak_bytes / 2**30, 3),
                     "peak RSS GiB": round(rss, 3)})
        found = "counted" if row.positions is None else f"{row.positions:,} positions"
        print(f"level {row.level}: {found}, {row.seconds:.2f} s, "
              f"peak RSS {rss:.2f} GiB", flush=True)

    mine = tree_stats(args.game, args.depth, jobs=args.jobs, on_level=on_level)
    report(f"tree {args.game} depth {args.depth}", rows, list(rows[0]))
    if args.both:
        _other_way(args, mine, time.perf_counter() - started)


def _other_way(args, mine, seconds) -> None:
    """The tree counted the other way: the time and whether every count agrees."""
    game = make_variant(args.game)
    started = time.perf_counter()
    other = tree_stats(game, args.depth, jobs=args.jobs,
                       by_paths=not game.history.repetition_is_a_rule)
    took = time.perf_counter() - started
    ways = ("path by path", "by positions")
    own, second = ways if game.history.repetition_is_a_rule else ways[::-1]
    same = [row[1:8] for row in mine] == [row[1:8] for row in other]
    print(f"{own}: {seconds:.1f} s; {second}: {took:.1f} s; every count "
          f"{'the same' if same else 'NOT the same'}")


if __name__ == "__main__":
    main()
