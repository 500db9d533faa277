"""Random play solved exactly from a game's start (``mancalab.analysis.stats.random_exact``), and
checked against sampled random games.

    python benchmarks/random_play.py [--game gebeta] [-o NAME=VALUE ...] [--games 1000000]
                                     [--samples 1] [--out FILE.json]

Prints each level as it is solved (seeds in play, positions, sweeps, seconds so far), then the
exact chances (A wins, B wins, draws, timeouts, expected moves, the final margins) beside the
shares of ``--games`` sampled random games with their 95% intervals, the machine, the peak
memory and one JSON line; ``--out`` keeps the same JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

from _report import machine

import mancalab
from mancalab.analysis.stats.random_sampled import random_play_stats
from mancalab.analysis.stats.random_exact import solve_random_play
from mancalab.cli.common import parse_options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="gebeta")
    parser.add_argument("-o", "--option", action="append", default=[],
                        help="a game option NAME=VALUE, e.g. -o seeds=1 for Kalah(6,1)")
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--samples", type=int, default=1,
                        help="samples of --games each (seeds 1, 2, ...), checked pooled and "
                             "each shown")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    options = parse_options(args.option)
    start = mancalab.variant(args.game, **options).start()

    def told(seeds: int, positions: int, sweeps: int, seconds: float) -> None:
        passes = f"{sweeps:5d} sweeps" if sweeps else "pushed forward"
        print(f"  level {seeds:3d} seeds: {positions:12,} positions, {passes}, "
              f"{seconds:8.1f} s", flush=True)

    exact = solve_random_play(start, on_level=told)
    began = time.perf_counter()
    samples = [random_play_stats(start, args.games, seed=seed)
               for seed in range(1, args.samples + 1)]
    sampling = time.perf_counter() - began
    chances = exact.for_players()
    games = args.games * args.samples
    counts = {"A wins": sum(s.wins_0 for s in samples), "B wins": sum(s.wins_1 for s in samples),
              "draws": sum(s.draws for s in samples),
              "timeouts": sum(s.timeouts for s in samples)}
    rows = []
    for key, count in counts.items():
        share = count / games
        spread = 1.96 * (share * (1 - share) / games) ** 0.5
        rows.append({"outcome": key, "exact": chances[key], "sampled": share,
                     "low": share - spread, "high": share + spread,
                     "inside": share - spread <= chances[key] <= share + spread})
    mean_moves = sum(s.moves for s in samples) / games
    each = [{"seed": seed, "A wins": s.wins_0 / args.games, "B wins": s.wins_1 / args.games,
             "draws": s.draws / args.games, "moves": s.moves / args.games}
            for seed, s in enumerate(samples, 1)]
    if args.samples > 1:
        for sample in each:
            print("  seed {seed}: A {A wins:.6f}  B {B wins:.6f}  draws {draws:.6f}  "
                  "moves {moves:.4f}".format(**sample))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    for row in rows:
        print(f"{row['outcome']:9s} exact {row['exact']:.12f}   sampled {row['sampled']:.6f} "
              f"[{row['low']:.6f}, {row['high']:.6f}] {'inside' if row['inside'] else 'OUTSIDE'}")
    print(f"moves     exact {exact.moves:.9f}   sampled mean {mean_moves:.4f}")
    print(f"{exact.positions:,} positions, {exact.how}, {exact.seconds:.0f} s; {games:,} games "
          f"sampled in {sampling:.0f} s; peak {peak:.1f} GiB")
    result = {"game": args.game, "options": options, "chances": chances, "margins": exact.margins,
              "positions": exact.positions, "sweeps": exact.sweeps, "forward": exact.forward,
              "last_change": exact.residual, "seconds": round(exact.seconds, 1),
              "sampled": {"games": games, "rows": rows, "mean_moves": mean_moves,
                          "seconds": round(sampling, 1), "samples": each},
              "peak_gib": round(peak, 2), "machine": machine()}
    line = json.dumps(result)
    print("JSON: " + line)
    if args.out:
        args.out.write_text(line + "\n")


if __name__ == "__main__":
    main()
