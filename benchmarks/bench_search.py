"""Alpha-beta's search speed: positions a second and the depth reached, from each game's start.

    python benchmarks/bench_search.py [--games kalah gebeta ...] [--time 1] [--repeat 3]

For each game a fresh ``alphabeta:time=T`` player chooses the first move (compiled search
loaded before the clock starts); ``last_info`` gives the positions searched, the last depth
completed and the seconds spent. Each game is measured ``--repeat`` times with a new player
(empty transposition table) and the median run is shown, since one run's depth depends on
whether the next iteration was predicted to end in time. Run it on an idle machine: the
search uses one core.
"""

from __future__ import annotations

import argparse

import mancalab

from _report import report

GAMES = ["kalah", "gebeta", "gabata", "urubugu", "gabata3"]


def measure(game: str, seconds: float) -> dict:
    """One first move from the start by a fresh player."""
    player = mancalab.player(f"alphabeta:time={seconds}")
    player.choose(mancalab.variant(game).start())
    info = player.last_info
    return {"nodes": info["nodes"], "seconds": info["seconds"], "depth": info["depth"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES)
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--repeat", type=int, default=3, help="runs per game (median shown)")
    args = parser.parse_args()
    rows = []
    for game in args.games:
        runs = sorted((measure(game, args.time) for _ in range(args.repeat)),
                      key=lambda run: run["nodes"] / run["seconds"])
        median = runs[len(runs) // 2]
        rows.append({"game": game, "positions/s": median["nodes"] / median["seconds"],
                     "depth": median["depth"], "seconds": median["seconds"],
                     "depths seen": " ".join(str(run["depth"]) for run in runs)})
    report(f"alpha-beta from the start, {args.time} s a move", rows, list(rows[0]))


if __name__ == "__main__":
    main()
