"""Gabata's exact value from the start, and each first move's, by yes-or-no questions
(``mancalab.analysis.solving.threshold``): "can A force a margin of at least v?" walks only
the positions the question needs, where the whole graph of the start does not fit in memory.

Each first move's value is closed from the top: v = 48, 46, ... until the answer under L is
yes (then L >= v; with the answer under U no at v + 2, U < v + 2: the value is v) or the
budget of a question runs out (then the bounds proven so far are reported). One line of JSON
per question, written as it is answered.

    python benchmarks/gabata_value.py --db-seeds 14 --time 900 --results FILE
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import mancalab
from mancalab.analysis.solving import graph, retrograde, threshold


def first_moves(variant):
    """(move name, pits as the mover then sees them, side to move, A's banked margin, over)
    after each first move of the start (A, player 0, moves first)."""
    start = variant.start()
    for move in start.legal_moves():
        child = start.play(move)
        a, b = child.score
        side = 0 if child.to_move == 0 else 1
        yield start.move_name(move), child, side, a - b


def close(variant, database, child, side, banked, budget, log):
    """Ask v = 48, 46, ... of ``child`` until the value is settled or a question is not."""
    top = 48
    if child.is_over:
        return banked, banked
    pits = graph.mover_view(child)
    upper = top
    for target in range(top, -top - 1, -2):
        answer = threshold.at_least(variant, pits, target, database, side=side, banked=banked,
                                    time=budget)
        log(target=target, under_l=answer.under_l, under_u=answer.under_u, nodes=answer.nodes,
            expanded=answer.expanded, seconds=round(answer.seconds, 1))
        if answer.under_u is False:
            upper = target - 2  # U < target: margins are even
        if answer.under_l is True:
            return target, upper  # L >= target
        if answer.under_l is None:
            return None, upper
    return -top, upper


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-seeds", type=int, default=14)
    parser.add_argument("--time", type=float, default=900, help="seconds a question may take")
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
    for name, child, side, banked in first_moves(variant):
        if args.moves and name not in args.moves:
            continue
        low, high = close(variant, database, child, side, banked, args.time,
                          lambda **r: emit(kind="question", move=name, **r))
        emit(kind="move", move=name, lower=low, upper=high)
    emit(kind="done", seconds=round(time.monotonic() - began, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
