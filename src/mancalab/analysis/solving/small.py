"""Small games solved by the alpha-beta search to their end, without a solver of their own.

A game of a few seeds (Kalah(4,3): 24) is searched to its end by the players' alpha-beta
(``mancalab.search``) in about half a second (its moves on every core), and that search
compiles in about two seconds for one game; Kalah's own solver and its endgame database take
ten seconds each to compile.
So ``solve`` on a small position asks the search first: every move's child is searched to
the end (no horizon reached, within a node budget), which makes each move's value exact. A
position the budget does not cover (or one whose positions can repeat: a search to the end
needs a game that ends) goes to the game's solver as before.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor


from ... import search
from ...core import State
from .results import SolveResult

SMALL_SEEDS = 24  # seeds in play at most for a position to be tried here
NODES = 3_000_000  # a move's search budget (about a second on this machine)
DEPTH = 400  # plies: deeper than any game of so few seeds lasts


def is_small(state: State) -> bool:
    """Whether ``state`` is tried by the search to the end: few seeds in play, and a game
    whose positions never come round again."""
    layout = state.variant.solving.graph_layout
    in_play = sum(state.cells) - sum(state.score)
    return bool(layout and layout.get("acyclic")) and in_play <= SMALL_SEEDS


def solve(state: State, threads: int | None = None) -> SolveResult | None:
    """Every move's exact value by the search to the end, or None where a search reached
    its horizon or its budget (the caller solves it otherwise). The moves are searched on
    ``threads`` cores (default: every core), each with tables of its own."""
    started = time.perf_counter()
    moves = state.legal_moves()
    workers = max(1, min(len(moves), threads or os.cpu_count() or 1))
    with ThreadPoolExecutor(workers) as pool:
        searched = list(pool.map(lambda move: _value(state, move), moves))
    if any(value is None for value, _ in searched):
        return None
    values = {move: value for move, (value, _) in zip(moves, searched)}
    best = max(values.values())
    best_moves = [move for move, value in values.items() if value == best]
    return SolveResult(best, True, best, best, best_moves,
                       [state.move_name(move) for move in best_moves],
                       moves={move: (value, value) for move, value in values.items()},
                       move_names={move: state.move_name(move) for move in values},
                       nodes=sum(nodes for _, nodes in searched),
                       seconds=time.perf_counter() - started)


def _value(state: State, move: int) -> tuple[int | None, int]:
    """``move``'s exact value for the mover (None past the budget or a horizon), and the
    nodes searched; the compiled search runs without the GIL."""
    child = state.play(move)
    if child.is_over:
        a, b = child.score
        return (a - b if state.to_move == 0 else b - a), 0
    tables = search.Search()
    stats = search.new_stats(NODES)
    value, _ = search.negamax(child.variant.params, child.board.copy(), DEPTH,
                              -search.INFINITY, search.INFINITY, tables.table,
                              tables.history, stats)
    if stats[search.ABORTED] or stats[search.HORIZON]:
        return None, int(stats[search.NODES])
    margin = search.margin_of(int(value))
    return (margin if child.to_move == state.to_move else -margin), int(stats[search.NODES])
