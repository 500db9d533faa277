"""Are the levels ordered? Each level against the one below it, on every game, as people get them.

    python benchmarks/bench_levels.py [--games kalah gebeta ...] [--pairs beginner-easy ...]
        [--games-per-pair 40] [--jobs 2] [--results FILE.jsonl]

Each pair plays the two levels' players (``mancalab.players.level_spec``: a game's own levels
where they differ) over the arena's starts, each start twice with colours swapped (``--jobs``
games at once, but one at a time where a level thinks on both cores). Prints the
upper level's score with its 95% interval and whether it reaches the 55% the levels promise
(issue 19), then one JSON line. With ``--results`` each pair is appended to a JSON-lines file
as it ends (keyed by the players' specs, so a changed level is played again) and pairs already
there are not played again.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _report import report

from mancalab.analysis.compete import arena
from mancalab.analysis.research.metrics import wilson
from mancalab.players import LEVELS, level_spec, parse_spec

GAMES = ["gebeta", "kalah", "gabata", "urubugu", "gabata3"]
PAIRS = [f"{low}-{high}" for low, high in zip(list(LEVELS), list(LEVELS)[1:])]
ORDERED = 0.55  # the upper level's score that the levels promise


def threads(spec: str) -> int:
    """The cores a player spec thinks on."""
    return int(parse_spec(spec)[1].get("threads", 1))


def play(game: str, low: str, high: str, games: int, jobs: int, seed: int) -> dict:
    specs = (level_spec(high, game), level_spec(low, game))
    if max(map(threads, specs)) > 1:
        jobs = 1  # a player on both cores gets them to itself, as where a person plays it
    started = time.perf_counter()
    summary = arena.summarize(arena.run(arena.schedule(*specs, game, {}, games, seed), jobs))
    points = 2 * summary.wins + summary.draws  # half-points: the interval is over them
    low_share, high_share = wilson(points, 2 * summary.games)
    return {"game": game, "pair": f"{low}-{high}", "upper": specs[0], "lower": specs[1],
            "games": summary.games, "W-D-L": f"{summary.wins}-{summary.draws}-{summary.losses}",
            "score %": round(100 * summary.score, 1),
            "95% CI": f"{100 * low_share:.0f}-{100 * high_share:.0f}%",
            "ordered": summary.score >= ORDERED, "errors": len(summary.errors),
            "minutes": round((time.perf_counter() - started) / 60, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES)
    parser.add_argument("--pairs", nargs="+", default=PAIRS, choices=PAIRS)
    parser.add_argument("--games-per-pair", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", type=Path, help="a JSON-lines file to append and resume")
    args = parser.parse_args()
    done = {}
    if args.results and args.results.exists():
        for line in args.results.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["game"], row["upper"], row["lower"], row["games"]] = row
    rows = []
    for game in args.games:
        for pair in args.pairs:
            low, high = pair.split("-")
            key = (game, level_spec(high, game), level_spec(low, game), args.games_per_pair)
            if key not in done:
                done[key] = play(game, low, high, args.games_per_pair, args.jobs, args.seed)
                print(json.dumps(done[key]), flush=True)
                if args.results:
                    with args.results.open("a") as handle:
                        handle.write(json.dumps(done[key]) + "\n")
            rows.append(done[key])
    report("each level against the one below", rows,
           ["game", "pair", "upper", "lower", "games", "W-D-L", "score %", "95% CI", "ordered"])


if __name__ == "__main__":
    main()
