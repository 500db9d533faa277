"""Markdown tables of measured pairings (the JSON lines bench_arena.py --results writes).

    python benchmarks/arena_tables.py benchmarks/results/round_robin_1s.jsonl [more.jsonl ...]

The files may also be those of bench_levels.py --results (pairs of levels) and of
`mancalab arena A B --json` (one pairing, a .json file).

For each game a cross table: the row player's score against the column player (wins plus half
the draws, over the games of the pairing), then the row player's mean score over the
opponents measured. A pairing found in several files is taken from the last. Pairings not yet
measured show as "·". With ``--levels``, then a table of the levels for people in each game:
each level's player and its score against the level below. The README's round-robin table
and the levels table of docs/players.md are this script's output.
"""

from __future__ import annotations

import argparse
import json
from functools import lru_cache
from pathlib import Path

from mancalab.players import LEVELS, level_spec, player

ORDER = ["classic:level=-1", "random", "greedy", "classic", "mcts", "alphabeta"]


def load(paths: list[Path]) -> dict[tuple[str, str, str], dict]:
    rows = {}
    for path in paths:
        lines = [path.read_text()] if path.suffix == ".json" else path.read_text().splitlines()
        for line in filter(str.strip, lines):
            row = _pairing(json.loads(line))
            game = row["game"]
            rows[game, _name(row["A"], game), _name(row["B"], game)] = row
    return rows


def _pairing(row: dict) -> dict:
    """A pairing as bench_arena.py writes it, from any of the files that measure one."""
    if "upper" in row:  # a pair of levels, from bench_levels.py
        return {**row, "A": row["upper"], "B": row["lower"], "A score %": row["score %"]}
    if "a" in row:  # one run of `mancalab arena A B --json`
        return {**row, "A": row["a"], "B": row["b"], "A score %": round(100 * row["score"], 1)}
    return row


@lru_cache(maxsize=None)
def _name(spec: str, game: str) -> str:
    """The player's canonical spec (a level's in ``game``) without the 1 s a move the timed
    players share."""
    name, _, options = player(spec, game).spec.partition(":")
    options = ",".join(o for o in options.split(",") if o and o != "time=1.0")
    return f"{name}:{options}" if options else name


def scores(rows: dict, game: str) -> tuple[list[str], dict[tuple[str, str], float]]:
    """The players of ``game`` in order of appearance, and each one's score % against each."""
    players: list[str] = []
    score = {}
    for (g, a, b), row in rows.items():
        if g != game:
            continue
        for name in (a, b):
            if name not in players:
                players.append(name)
        score[a, b] = row["A score %"]
        score[b, a] = round(100 - row["A score %"], 1)
    players.sort(key=lambda name: ORDER.index(name) if name in ORDER else len(ORDER))
    return players, score


def table(rows: dict, game: str) -> str:
    players, score = scores(rows, game)
    lines = [f"| {game} | " + " | ".join(players) + " | mean |",
             "|---|" + "---|" * (len(players) + 1)]
    for a in players:
        measured = [score[a, b] for b in players if (a, b) in score]
        cells = ["—" if a == b else (f"{score[a, b]:g}%" if (a, b) in score else "·")
                 for b in players]
        mean = f"{sum(measured) / len(measured):.0f}%" if measured else "·"
        lines.append(f"| **{a}** | " + " | ".join(cells) + f" | {mean} |")
    return "\n".join(lines)


def levels_table(rows: dict, games: list[str]) -> str:
    """Per game, each level's player and its score against the level below."""
    lines = ["| game | " + " | ".join(LEVELS) + " |", "|---|" + "---|" * len(LEVELS)]
    for game in games:
        _, score = scores(rows, game)
        names = [_name(level_spec(level, game), game) for level in LEVELS]
        cells = [f"`{names[0]}`"]
        for below, name in zip(names, names[1:]):
            measured = f"{score[name, below]:g}%" if (name, below) in score else "·"
            cells.append(f"`{name}` {measured}")
        lines.append(f"| {game} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--levels", action="store_true",
                        help="also the levels for people and their measured scores")
    args = parser.parse_args()
    rows = load(args.files)
    games = list(dict.fromkeys(game for game, _, _ in rows))
    print("\n\n".join(table(rows, game) for game in games))
    if args.levels:
        print("\n" + levels_table(rows, games))


if __name__ == "__main__":
    main()
