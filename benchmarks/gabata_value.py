"""Gabata's exact value from the start, and each first move's, by yes-or-no questions
(``mancalab.analysis.solving.threshold``): "can A force a margin of at least v?" walks only
the positions the question needs, where the whole graph of the start does not fit in memory.

First the retrograde walk bounds every first move within the memory it may take; then each
gap is closed from the top: v = U, U - 2, ... until the answer under L is yes, or a question
runs out of its time (then the bounds proven so far are reported). One line of JSON per
question, written as it is answered.

    python benchmarks/gabata_value.py --db-seeds 14 --time 900 --results FILE
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import mancalab
from mancalab.analysis.solving import graph, repeating, retrograde, threshold


def first_moves(variant):
    """(move, move name, the position after it, side to move then, A's banked margin) for
    each first move of the start (A, player 0, moves first)."""
    start = variant.start()
    for move in start.legal_moves():
        child = start.play(move)
        a, b = child.score
        yield move, start.move_name(move), child, 0 if child.to_move == 0 else 1, a - b


def close(variant, database, child, side, banked, low, high, budget, log):
    """Tighten the walk's bounds [low, high] of the position after a first move by asking
    "at least v?" for v = high, high - 2, ... (margins are even): the first yes under U is
    U, the first yes under L is L. Returns (L, U), None where a question ran out of time."""
    pits = graph.mover_view(child)
    upper = None
    for target in range(high, low, -2):
        answer = threshold.at_least(variant, pits, target, database, side=side, banked=banked,
                                    time=budget)
        log(target=target, under_l=answer.under_l, under_u=answer.under_u, nodes=answer.nodes,
            expanded=answer.expanded, seconds=round(answer.seconds, 1))
        if upper is None and answer.under_u:
            upper = target
        if answer.under_l:
            return target, upper
        if answer.under_l is None or answer.under_u is None:
            return None, upper
    return low, low if upper is None else upper


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-seeds", type=int, default=14)
    parser.add_argument("--time", type=float, default=900, help="seconds a question may take")
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
    order = sorted(first_moves(variant), key=lambda m: walked.moves[m[0]][1] - walked.moves[m[0]][0])
    for move, name, child, side, banked in order:
        if args.moves and name not in args.moves:
            continue
        low, high = walked.moves[move]
        if low < high:
            low, high = close(variant, database, child, side, banked, low, high, args.time,
                              lambda **r: emit(kind="question", move=name, **r))
        emit(kind="move", move=name, lower=low, upper=high)
    emit(kind="done", seconds=round(time.monotonic() - began, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
