"""The solver of Gebeta's and Gabata's positions, which can repeat: a position's bounds
from the start's book, or from the graph it reaches above the database, and each move's
bounds and what it guarantees after each reply. Bounds that stay apart after a complete walk
are those of the rule for endless play."""

from __future__ import annotations

import time as _time
from collections.abc import Callable

import numpy as np

from ...core import State, Variant
from ...variants import variant as make_variant
from .book import book_for, book_graph
from .graph import Graph, mover_view, walk
from . import threshold
from .results import Cancel, SolveResult
from .retrograde import (END, NODE, NODE_SAME, NONE, NOT_OVER, PITS, STORED, STORED_SAME,
                         Database, _moves, build, database_for, layout_of, slots_of)


def warm_up() -> None:
    """Compile (or load from the cache) the database build and the graph walk now."""
    variant = make_variant("gabata")
    database = build(variant, 1)
    solve(variant.state([1, 0, 0, 0, 0, 1, 23, 0, 0, 1, 0, 0, 0, 22], 0), database=database)


def _edge_bounds(graph: Graph, database: Database | None, j: int,
                 node: int = 0) -> tuple[int, int]:
    """Bounds on ``node``'s move ``j`` for ``node``'s mover (its gain included)."""
    kind, gain = int(graph.kinds[node, j]), int(graph.gains[node, j])
    t = int(graph.targets[node, j])
    if kind == END:
        return gain, gain
    if kind in (NODE, NODE_SAME):
        lo, hi = int(graph.low[t]), int(graph.high[t])
    else:
        lo, hi = int(database.low[t]), int(database.high[t])
    if kind in (NODE_SAME, STORED_SAME):
        return gain + lo, gain + hi
    return gain - hi, gain - lo


def _stored_replies(variant: Variant, database: Database, pits: np.ndarray) -> list:
    """Bounds on each move of a database position, for its mover."""
    kinds, gains = np.zeros(6, dtype=np.int64), np.zeros(6, dtype=np.int64)
    kid_pits, kid_seeds = np.zeros((6, PITS), dtype=np.int64), np.zeros(6, dtype=np.int64)
    over = _moves(variant.params, slots_of(variant), pits, np.zeros(16, dtype=np.int64), kinds,
                  gains, kid_pits, kid_seeds)
    if over != NOT_OVER:
        return [(int(over), int(over))]
    found = []
    for kind, gain, kid in zip(kinds, gains, kid_pits):
        if kind == END:
            found.append((int(gain), int(gain)))
        elif kind != NONE:
            lo, hi = database.bounds(kid)
            found.append((int(gain) + lo, int(gain) + hi) if kind == NODE_SAME
                         else (int(gain) - hi, int(gain) - lo))
    return found


def _reply_values(graph: Graph, database: Database | None, state: State,
                  j: int) -> list[int]:
    """What the root's move ``j`` guarantees (lower bounds, from the root's base) after each
    legal reply of the opponent: what a fallible opponent can give away after it."""
    kind, gain, t = int(graph.kinds[0, j]), int(graph.gains[0, j]), int(graph.targets[0, j])
    if kind != NODE and kind != STORED:  # the game ends, or the mover moves again
        return [_edge_bounds(graph, database, j)[0]]
    if kind == NODE:
        replies = [_edge_bounds(graph, database, k, t) for k in range(6)
                   if graph.kinds[t, k] != NONE]
    else:
        cell = layout_of(state.variant).slots[j + 6 * state.to_move]
        replies = _stored_replies(state.variant, database, mover_view(state.play(cell)))
    if not replies:  # not walked (the frontier of a walk cut short)
        return [_edge_bounds(graph, database, j)[0]]
    return [gain - high for _, high in replies]


def solve(state: State, time: float | None = None, moves: bool = False,
          database: Database | None = None, build: bool = True,
          cancel: Cancel | None = None,
          on_bounds: Callable[[int, int], None] | None = None,
          exact_only: bool = False, parallel: bool = True,
          settle: bool = False) -> SolveResult:
    """The value of ``state`` (not over) for the player to move, or its proven bounds: see
    ``solving.solve``. ``settle``: bounds a walk cut short by memory leaves apart (the
    value's or a move's) are closed by yes-or-no questions (``threshold.tighten``) in what
    is left of ``time``. Bounds that stay apart after a complete walk mean the value depends
    on the rule for endless play. ``exact_only``: a walk cut short by ``time``
    returns at once, with the widest bounds (a player that only uses exact values). A
    position the start's book holds is looked up there instead of walked."""
    started = _time.perf_counter()
    variant = state.variant
    database = database or database_for(variant, build)
    book = book_for(variant)
    graph = book_graph(variant, book, database, mover_view(state)) if book else None
    if graph is None:
        graph = walk(state, time, database, cancel, exact_only, parallel)
    a, b = state.score
    base = a - b if state.to_move == 0 else b - a
    lower, upper = base + int(graph.low[0]), base + int(graph.high[0])
    if on_bounds:
        on_bounds(lower, upper)
    exact = lower == upper
    result = SolveResult(lower if exact else None, exact, lower, upper, [], [],
                         nodes=graph.count, database_seeds=database and database.seeds,
                         endless=graph.final)
    slots = layout_of(variant).slots
    apart = not exact  # whether any bound, the value's or a move's, is left apart
    for j in range(6):
        if graph.kinds[0, j] == NONE:
            continue
        cell = slots[j + 6 * state.to_move]
        lo, hi = _edge_bounds(graph, database, j)
        apart = apart or lo < hi
        if moves:
            result.moves[cell] = (base + lo, base + hi)
            result.move_names[cell] = state.move_name(cell)
            result.replies[cell] = [base + v for v in _reply_values(graph, database, state, j)]
        if exact and base + lo >= lower:
            result.best_moves.append(cell)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    if settle and apart and not graph.final:
        graph = None  # its memory is the questions' now
        left = None if time is None else max(0.0, time - (_time.perf_counter() - started))
        threshold.tighten(state, result, database, left)
    result.seconds = _time.perf_counter() - started
    return result
