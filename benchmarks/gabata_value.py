"""Gabata's exact value from the start, and each first move's, by yes-or-no questions
(``mancalab.analysis.solving.questions``): "can A force a margin of at least v?" proven or
refuted by depth-first proof search over the positions one strategy needs, where the whole
graph of the start does not fit in memory.

First the retrograde walk bounds every first move within ``--walk-positions``; then each
gap is closed by questions (``questions.close_move``, what ``mancalab solve gabata --moves``
does; with ``--settle`` the attractor walk answers what the proof search cannot). One line
of JSON a question, written as it ends.

    python benchmarks/gabata_value.py --db-seeds 12 --results FILE
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time

import numpy as np

import mancalab
from mancalab.analysis.solving import graph, proof, questions, repeating, retrograde


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-seeds", type=int, default=12)
    parser.add_argument("--time", type=float, default=900,
                        help="seconds the questions of a move may take")
    parser.add_argument("--walk-positions", type=int, default=repeating.WALK_FIRST,
                        help="positions the walk that bounds every first move may take")
    parser.add_argument("--settle", action="store_true",
                        help="the attractor walk where the proof search finds no answer")
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
    start = variant.start()
    walk_began = time.monotonic()
    found = graph.reachable(variant, graph.mover_view(start), database, args.walk_positions,
                            np.ones(4, dtype=np.int64), np.ones(4, dtype=np.int64))
    walked = repeating._from_graph(start, found, database, True)[0]
    del found
    emit(kind="walk", lower=walked.lower, upper=walked.upper, positions=walked.nodes,
         seconds=round(time.monotonic() - walk_began, 1),
         moves={walked.move_names[m]: bounds for m, bounds in walked.moves.items()})

    def told(question):
        if isinstance(question, proof.Question):
            emit(kind="question", move=name, mover_target=question.target,
                 prover=["mover", "opponent"][question.prover],
                 answer={1: "proven", 0: "failed", 2: "not found", -1: "unknown"}[
                     question.answer], nodes=question.nodes,
                 seconds=round(question.seconds, 3))
        else:
            emit(kind="walked question", move=name, mover_target=question.target,
                 under_l=question.under_l, under_u=question.under_u, nodes=question.nodes,
                 seconds=round(question.seconds, 1))

    for move in sorted(walked.moves, key=lambda m: walked.moves[m][1] - walked.moves[m][0]):
        name = start.move_name(move)
        if args.moves and name not in args.moves:
            continue
        low, high = walked.moves[move]
        move_began = time.monotonic()
        if low < high:
            low, high = questions.close_move(start, move, low, high, database,
                                             time.monotonic() + args.time, told, args.settle)
        emit(kind="move", move=name, lower=low, upper=high,
             seconds=round(time.monotonic() - move_began, 2))
    emit(kind="done", seconds=round(time.monotonic() - began, 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
