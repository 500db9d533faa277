"""Make the balanced openings the arena's ``--openings balanced`` plays, one file a game.

    python tools/make_openings.py [--games urubugu gabata3] [--count 100] [--depth 10]
                                       [--margin 4] [--seed 1]

Each opening is 4 random moves from the standard start whose value by a fixed-depth
alpha-beta search (player 0's expected margin) is within ``--margin`` of 0. Writes
``src/mancalab/data/openings/GAME.txt`` whole (a comment naming this command, then one
"moves value" line each, moves as cells), and prints how many candidates it took.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mancalab.analysis.compete import openings
from mancalab.records import write_atomic

FOLDER = Path(__file__).resolve().parent.parent / "src" / "mancalab" / "data" / "openings"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["urubugu", "gabata3"])
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--margin", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    FOLDER.mkdir(parents=True, exist_ok=True)
    for game in args.games:
        started = time.perf_counter()
        found = openings.make(game, args.count, args.depth, args.margin, args.seed)
        seconds = time.perf_counter() - started
        lines = [f"# Balanced openings of {game}: {openings.PLIES} random moves from the start "
                 f"whose value by a {args.depth}-ply alpha-beta search is within "
                 f"{args.margin} of 0 (player 0's margin).",
                 f"# Made by: python tools/make_openings.py {' '.join(sys.argv[1:])}",
                 "# moves (cells) value"]
        lines += [f"{','.join(map(str, moves))} {value}" for moves, value in found]
        write_atomic(FOLDER / f"{game}.txt", "\n".join(lines) + "\n")
        print(f"{game}: {len(found)} openings in {seconds:.1f} s", flush=True)


if __name__ == "__main__":
    main()
