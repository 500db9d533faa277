"""Strength: a round robin of players on the games, each pairing over the same starts.

    python benchmarks/bench_arena.py [--games kalah gebeta ...] [--players ...]
        [--per-pairing 20] [--time 1] [--jobs 2] [--max-plies 1000] [--results FILE.jsonl]

Every pairing plays ``--per-pairing`` games (each start twice, colours swapped) with the
arena's rules (mancalab.analysis.compete.arena). Prints per game and pairing: A's score, the mean
margin and the Elo difference with its 95% confidence interval; then one JSON line.
With ``--results`` each pairing is appended to a JSON-lines file as it ends, and pairings
already there are not played again; each game is kept as it ends in FILE.GAME-A-B.games.jsonl, so a
pairing stopped in the middle goes on from its next game instead of starting again.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import re
import time
from pathlib import Path

from _report import report

from mancalab.analysis.compete import arena
from mancalab.analysis.research.journal import Journal
from mancalab.players import with_time

PLAYERS = ["random", "greedy", "classic", "mcts", "alphabeta"]
GAMES = ["gebeta", "kalah", "gabata", "urubugu", "gabata3"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES)
    parser.add_argument("--players", nargs="+", default=PLAYERS)
    parser.add_argument("--per-pairing", type=int, default=20)
    parser.add_argument("--time", type=float, default=1.0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-plies", type=int, default=arena.MAX_PLIES)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", type=Path, help="a JSON-lines file to append and resume")
    args = parser.parse_args()
    done = _load(args.results)
    rows = []
    for game in args.games:
        for a, b in itertools.combinations(args.players, 2):
            specs = [with_time(p, args.time, game) for p in (a, b)]
            if (game, specs[0], specs[1]) in done:
                rows.append(done[game, specs[0], specs[1]])
                continue
            schedule = [dataclasses.replace(s, max_plies=args.max_plies) for s in
                        arena.schedule(*specs, game, {}, args.per_pairing, args.seed)]
            started = time.perf_counter()
            summary = arena.summarize(_play(schedule, args, specs))
            rows.append({"game": game, "A": specs[0], "B": specs[1], "games": summary.games,
                         "A W-D-L": f"{summary.wins}-{summary.draws}-{summary.losses}",
                         "A score %": round(100 * summary.score, 1),
                         "A margin": round(summary.mean_margin, 2),
                         "Elo A-B": _elo(summary.elo),
                         "95% CI": f"{_elo(summary.elo_low)} .. {_elo(summary.elo_high)}",
                         "errors": len(summary.errors),
                         "minutes": round((time.perf_counter() - started) / 60, 1)})
            print(rows[-1], flush=True)
            if args.results:
                with args.results.open("a") as handle:
                    handle.write(json.dumps(rows[-1]) + "\n")
    report(f"round robin at {args.time} s a move", rows, list(rows[0]))


def _play(schedule: list, args: argparse.Namespace, specs: list) -> list:
    """The pairing's games: those kept in its games file, then the rest, each kept as it
    ends (the whole file is written again when the pairing is done)."""
    if args.results is None:
        return arena.run(schedule, args.jobs)
    game = schedule[0].game
    header = {"game": game, "A": specs[0], "B": specs[1], "games": len(schedule),
              "seed": args.seed, "max plies": args.max_plies}
    name = re.sub(r"[^A-Za-z0-9=.,-]+", "_", f"{game}-{specs[0]}-{specs[1]}")
    journal = Journal(args.results.with_name(f"{args.results.stem}.{name}.games.jsonl"),
                      header, key=lambda row: row["number"])
    left = [spec for spec in schedule if spec.number not in journal]
    with journal:
        arena.run(left, args.jobs, on_result=lambda r: journal.add(dataclasses.asdict(r)))
    rows = journal.finish(spec.number for spec in schedule)
    return [arena.GameResult(**row) for row in rows]


def _load(path: Path | None) -> dict:
    """The pairings a results file already holds, by (game, A, B)."""
    if path is None or not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(row["game"], row["A"], row["B"]): row for row in rows}


def _elo(value: float) -> str:
    return f"{value + 0.0:+.0f}"


if __name__ == "__main__":
    main()
