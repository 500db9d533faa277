"""Gabata's exact value from the start, and each first move's, by yes-or-no questions
(``mancalab.analysis.solving.threshold``): "can A force a margin of at least v?" walks only
the positions the question needs, where the whole graph of the start does not fit in memory.

First the retrograde walk bounds every first move within the memory it may take; then each
gap is closed from the top: v = U, U - 2, ... until the answer under L is yes, or a question
runs out of its time (then the bounds proven so far are reported): ``threshold.close_move``,
what ``mancalab solve --settle --moves`` does. One line of JSON a step, written as it ends.

    python benchmarks/gabata_value.py --db-seeds 14 --time 900 --results FILE
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import mancalab
from mancalab.analysis.solving import repeating, retrograde, threshold


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-seeds", type=int, default=14)
    parser.add_argument("--time", type=float, default=900,
                        help="seconds the questions of a move may take")
    parser.add_argument("--walk-time", type=float, default=120,
                        help="seconds for the walk that bounds every first move")
    parser.add_argument("--moves", nargs="*", help="first moves to settle (default: all)")
    parser.add_argument("--results", default=None, help="append JSON lines here")
    args = parser.parse_args(argv)
    variant = mancalab.variant("gabata")
    began = time.monotonic()
    database = retrograde.ensure(variant, args.db_seeds)
    machine = {"machine": platform.processor() or platform.machine(),
               "python": platform.python_version()}
    out = open(args.results, "a") if args.results else None

    def emit(**record):
        line = json.dumps(record)
        print(line, flush=True)
        if out:
            out.write(line + "\n")
            out.flush()

    emit(kind="database", seeds=args.db_seeds, seconds=round(time.monotonic() - began, 1),
         **machine)
    walked = repeating.solve(variant.start(), time=args.walk_time, moves=True,
                             database=database)
    emit(kind="walk", lower=walked.lower, upper=walked.upper, positions=walked.nodes,
         seconds=round(walked.seconds, 1),
         moves={walked.move_names[m]: bounds for m, bounds in walked.moves.items()})
    start = variant.start()
    for move in sorted(walked.moves, key=lambda m: walked.moves[m][1] - walked.moves[m][0]):
        name = start.move_name(move)
        if args.moves and name not in args.moves:
            continue
        low, high = walked.moves[move]
        if low < high:
            low, high = threshold.close_move(
                start, move, low, high, database, time.monotonic() + args.time,
                lambda a: emit(kind="question", move=name, mover_target=a.target,
                               under_l=a.under_l, under_u=a.under_u, nodes=a.nodes,
                               seconds=round(a.seconds, 1)))
        emit(kind="move", move=name, lower=low, upper=high)
    emit(kind="done", seconds=round(time.monotonic() - began, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
