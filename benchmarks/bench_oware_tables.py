"""Oware's endgame tables: the build's time and memory, level by level, and how many
positions the bounds settle.

    python benchmarks/bench_oware_tables.py [--seeds 16] [--houses 6] [--jobs 2]

Each level (positions with exactly that many seeds on the board): its positions, the
fixed points' passes, the seconds it took, the share whose bounds meet (the value no
history changes) and the median width of the bounds. The whole build's peak memory
(resident) and the file's size close it.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _report import report  # noqa: E402

from mancalab.analysis.solving import oware_tables  # noqa: E402
from mancalab.variants import variant  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=16)
    parser.add_argument("--houses", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    game = variant("oware", houses=args.houses)
    rows, last = [], [time.perf_counter()]

    def done(level: int, passes: int, count: int) -> None:
        now = time.perf_counter()
        rows.append({"seeds": level, "positions": count, "passes": passes,
                     "seconds": round(now - last[0], 2)})
        last[0] = now

    started = time.perf_counter()
    built = oware_tables.build(game, args.seeds, jobs=args.jobs, on_progress=done)
    seconds = time.perf_counter() - started
    n = 2 * args.houses
    for row in rows:
        start, end = oware_tables.level_range(built.binom, row["seeds"], n)
        width = built.high[start:end].astype(np.int16) - built.low[start:end]
        row["exact"] = f"{float(np.mean(width == 0)):.3f}"
        row["median width"] = float(np.median(width))
    with tempfile.TemporaryDirectory() as folder:
        size = oware_tables.save(built, folder).stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    exact = float(np.mean(built.low == built.high))
    rows.append({"seeds": f"all {args.seeds}", "positions": int(built.low.size), "passes": "",
                 "seconds": round(seconds, 1), "exact": f"{exact:.4f}",
                 "median width": f"peak {peak / 2**30:.2f} GiB, file {size / 1e6:.1f} MB"})
    report(f"bench_oware_tables: Oware's endgame tables up to {args.seeds} seeds "
           f"({args.houses} houses a side, {args.jobs} jobs)", rows,
           ["seeds", "positions", "passes", "seconds", "exact", "median width"])


if __name__ == "__main__":
    main()
