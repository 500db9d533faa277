"""How often a player's move gives value away, judged by the exact solver (Gebeta, Gabata,
Kalah): positions reached by random play, each solved with every move's value, then the
player's choice compared with the best.

    python benchmarks/move_errors.py [--game gebeta] [--player mcts:time=0.3]
                                     [--positions 200] [--max-seeds 36] [--seed 1]
                                     [--results FILE.jsonl]

A position is kept when it has at least two legal moves, at most ``--max-seeds`` seeds in play
and every move's value is exact. Each position's row is appended to ``--results`` as it is
made, so an interrupted run goes on from there. Prints the share of moves that lose value,
the mean loss, the share that change the result (win, draw, loss) and one JSON line.
"""

from __future__ import annotations

import argparse
import math
import random
from pathlib import Path

from _report import keep_row as keep, report, rows_done as done

import mancalab
from mancalab.analysis import solving
from mancalab.players import player as make_player
from mancalab.players import with_seed


def outcome(value: int) -> int:
    return (value > 0) - (value < 0)


def position(variant, rng: random.Random, max_seeds: int):
    """A position reached by random play with at most ``max_seeds`` seeds in play."""
    while True:
        state = variant.start()
        while not state.is_over and sum(state.cells) - sum(state.score) > max_seeds:
            state = state.play(rng.choice(state.legal_moves()))
        for _ in range(rng.randrange(3)):  # a little further, so positions vary
            if not state.is_over:
                state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over and len(state.legal_moves()) > 1:
            return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="gebeta")
    parser.add_argument("--player", default="mcts:time=0.3")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--max-seeds", type=int, default=36)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", type=Path)
    args = parser.parse_args()
    variant = mancalab.variant(args.game)
    found = done(args.results)
    rng = random.Random(args.seed)
    rows = []
    for number in range(args.positions):
        state = position(variant, rng, args.max_seeds)  # drawn even when done: same stream
        run = f"{args.game} {args.player} {args.max_seeds} {args.seed} {number}"
        if run not in found:
            result = solving.solve(state, moves=True)
            if not all(low == high for low, high in result.moves.values()):
                continue
            player = make_player(with_seed(args.player, number, args.game), args.game)
            move = player.choose(state)
            value = result.moves[move][0]
            found[run] = {"run": run, "cells": list(state.cells), "to_move": state.to_move,
                          "best": result.value, "chosen": state.move_name(move),
                          "value": value, "loss": result.value - value,
                          "result_changed": outcome(value) != outcome(result.value)}
            keep(args.results, found[run])
        rows.append(found[run])
    errors = [r for r in rows if r["loss"] > 0]
    share = len(errors) / len(rows)
    half = 1.96 * math.sqrt(share * (1 - share) / len(rows))
    report(f"{args.player} on {args.game}: moves judged by the exact solver", [{
        "positions": len(rows), "lose value": f"{100 * share:.1f}% (±{100 * half:.1f})",
        "mean loss": round(sum(r["loss"] for r in rows) / len(rows), 3),
        "change the result": f"{100 * sum(r['result_changed'] for r in rows) / len(rows):.1f}%"}],
        ["positions", "lose value", "mean loss", "change the result"])


if __name__ == "__main__":
    main()
