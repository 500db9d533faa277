"""Small games solved by the alpha-beta search to their end, without a solver of their own.

A game of a few seeds (Kalah(4,3): 24) is searched to its end by the players' alpha-beta
(``mancalab.search``) in well under a second, and that search compiles in about three seconds
for one game; Kalah's own solver and its endgame database take ten seconds each to compile.
So ``solve`` on a small position asks the search first: every move's child is searched to
the end (no horizon reached, within a node budget), which makes each move's value exact. A
position the budget does not cover (or one whose positions can repeat: a search to the end
needs a game that ends) goes to the game's solver as before.
"""

from __future__ import annotations

import time

import numpy as np

from ... import search
from ...core import State
from .results import SolveResult

SMALL_SEEDS = 24  # seeds in play at most for a position to be tried here
NODES = 3_000_000  # a move's search budget (about a second on this machine)
DEPTH = 400  # plies: deeper than any game of so few seeds lasts


def is_small(state: State) -> bool:
    """Whether ``state`` is tried by the search to the end: few seeds in play, and a game
    whose positions never come round again."""
    layout = state.variant.graph_layout
    in_play = sum(state.cells) - sum(state.score)
    return bool(layout and layout.get("acyclic")) and in_play <= SMALL_SEEDS


def solve(state: State) -> SolveResult | None:
    """Every move's exact value by the search to the end, or None where a search reached
    its horizon or its budget (the caller solves it otherwise)."""
    started = time.perf_counter()
    tables = search.Search()
    values, nodes = {}, 0
    for move in state.legal_moves():
        child = state.play(move)
        if child.is_over:
            a, b = child.score
            values[move] = a - b if state.to_move == 0 else b - a
            continue
        stats = np.zeros(4, dtype=np.int64)
        stats[search.NODE_LIMIT] = NODES
        value, _ = search.negamax(child.variant.params, child.board.copy(), DEPTH,
                                  -search.INFINITY, search.INFINITY, tables.tt_key,
                                  tables.tt_data, tables.history, stats)
        nodes += int(stats[search.NODES])
        if stats[search.ABORTED] or stats[search.HORIZON]:
            return None
        margin = search.margin_of(int(value))
        values[move] = margin if child.to_move == state.to_move else -margin
    best = max(values.values())
    best_moves = [move for move, value in values.items() if value == best]
    return SolveResult(best, True, best, best, best_moves,
                       [state.move_name(move) for move in best_moves],
                       moves={move: (value, value) for move, value in values.items()},
                       move_names={move: state.move_name(move) for move in values},
                       nodes=nodes, seconds=time.perf_counter() - started)
