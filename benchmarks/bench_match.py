"""Exact adjudication in `mancalab match`: the same match with and without it, its figures.

Prints, for each run, the wall time, the games ended by adjudication, the mean moves played
and the solver's checking time; the saving is the difference of the wall times. Players
that think (a search with a time a move) make the saving show: quick engines are judged
less often (the checks take at most a tenth of the players' thinking).

    python benchmarks/bench_match.py --games 40 --jobs 2
"""

from __future__ import annotations

import argparse
import time

from mancalab.analysis.compete import match


def run(a: str, b: str, game: str, games: int, clock: str, jobs: int, adjudicate: bool):
    specs = match.schedule(a, b, game, {}, games, match.TimeControl.parse(clock), seed=1,
                           openings="fair", adjudicate=adjudicate)
    started = time.perf_counter()
    result = match.run(specs, jobs=jobs)
    seconds = time.perf_counter() - started
    plies = sum(r.plies for r in result.results) / len(result.results)
    score = sum(r.score_for_a for r in result.results) / len(result.results)
    return seconds, len(result.adjudicated), plies, result.judging_seconds, score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--a", default="mcts:time=0.1")
    parser.add_argument("--b", default="mcts:time=0.1,exploration=1")
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--clock", default="10+0.1")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.a} vs {args.b}, {args.game}, {args.games} games, clock {args.clock}, "
          f"{args.jobs} jobs")
    print(f"{'adjudication':>12} {'wall s':>8} {'judged':>7} {'moves':>6} {'checks s':>9} "
          f"{'A score':>8}")
    walls = {}
    for adjudicate in (False, True):  # the first run also warms the compiled code's cache
        wall, judged, plies, checks, score = run(args.a, args.b, args.game, args.games,
                                                 args.clock, args.jobs, adjudicate)
        walls[adjudicate] = wall
        print(f"{'on' if adjudicate else 'off':>12} {wall:8.1f} {judged:7d} {plies:6.1f} "
              f"{checks:9.1f} {score:8.3f}")
    print(f"saved: {walls[False] - walls[True]:.1f} s of {walls[False]:.1f} s "
          f"({100 * (1 - walls[True] / walls[False]):.0f}%)")


if __name__ == "__main__":
    main()
