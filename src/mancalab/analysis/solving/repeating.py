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
from . import questions
from .results import Cancel, SolveResult
from .retrograde import (END, NODE, NODE_SAME, NONE, NOT_OVER, PITS, STORED, STORED_SAME,
                         Database, _moves, build, database_for, layout_of, slots_of)


WALK_FIRST = 2_000_000  # positions walked before the proof search takes over (about 170 MB)
# a player's (``exact_only``): its moves are timed, and the proof search answers most of what a
# bigger walk would, sooner (a bigger walk takes the time it is given before any question)
PLAYER_WALK = 50_000


# per game: a position a little above the smallest database (its seeds, the position's cells)
WARM_UP = {"gabata": (1, [1, 0, 0, 0, 0, 1, 23, 0, 0, 1, 0, 0, 0, 22]),
           "gebeta": (4, [1, 0, 0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 5, 5])}


def warm_up(game: str = "gabata") -> None:
    """Compile (or load from the cache) ``game``'s database build, graph walk and proof
    search now (compiled once a game: ``mancalab.params``)."""
    variant = make_variant(game)
    seeds, cells = WARM_UP[game]
    state, database = variant.state(cells, 0), build(variant, seeds)
    solve(state, database=database)
    # the walk closes this position alone; the perfect player asks the proof search too
    questions.Asker(state, database, None).proves(0, 0, quick=True, max_nodes=100)


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
    over = _moves(variant.params, slots_of(variant), pits, np.zeros(variant.board_size, dtype=np.int64), kinds,
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
    ``solving.solve``. The walk takes at most ``WALK_FIRST`` positions; bounds it leaves
    apart (the value's or a move's) are closed by yes-or-no questions to the proof search
    (``questions.tighten``) in what is left of ``time``, and with ``settle`` also by the
    attractor walk where the proof search finds no answer (minutes and gigabytes for an
    opening position). Bounds that stay apart after a complete walk mean the value depends
    on the rule for endless play. ``exact_only``: a walk cut short is not settled (its
    bounds are the widest) and no whole walk follows the questions (a player that only uses
    exact values, within its time). A position the start's book holds is looked up there
    instead of walked; a player's walk (``exact_only``) stops at ``PLAYER_WALK``."""
    started = _time.perf_counter()
    variant = state.variant
    database = database or database_for(variant, build)
    book = book_for(variant)
    graph = book_graph(variant, book, database, mover_view(state)) if book else None
    capped = graph is None
    if graph is None:
        graph = walk(state, time, database, cancel, exact_only, parallel,
                     PLAYER_WALK if exact_only else WALK_FIRST)
    capped = capped and graph.expanded < graph.count and not exact_only
    result, moves_apart = _from_graph(state, graph, database, moves)
    if on_bounds:
        on_bounds(result.lower, result.upper)
    if (not result.exact or moves_apart) and not graph.final:
        graph = None  # its memory is the questions' now
        bounds = result.lower, result.upper
        questions.tighten(state, result, database, _left(time, started), walk=settle,
                          cancel=cancel)
        if _apart(result) and capped and _left(time, started) != 0:
            # the proof search found no answer (positions cycling without progress): the
            # walk as far as memory and time allow, its bounds kept where narrower
            whole = walk(state, _left(time, started), database, cancel, False, parallel)
            _narrow(state, result, _from_graph(state, whole, database, moves)[0])
        if on_bounds and (result.lower, result.upper) != bounds:
            on_bounds(result.lower, result.upper)
    result.seconds = _time.perf_counter() - started
    return result


def _left(time: float | None, started: float) -> float | None:
    return None if time is None else max(0.0, time - (_time.perf_counter() - started))


def _apart(result: SolveResult) -> bool:
    """Whether any bound, the value's or a move's, is left apart."""
    return not result.exact or any(low < high for low, high in result.moves.values())


def _from_graph(state: State, graph: Graph, database: Database | None,
                moves: bool) -> tuple[SolveResult, bool]:
    """The value's bounds from the graph of ``state``, and with ``moves`` every move's; and
    whether any move's bounds are apart (its best moves may not all be proven)."""
    a, b = state.score
    base = a - b if state.to_move == 0 else b - a
    lower, upper = base + int(graph.low[0]), base + int(graph.high[0])
    exact = lower == upper
    result = SolveResult(lower if exact else None, exact, lower, upper, [], [],
                         nodes=graph.count, database_seeds=database and database.seeds,
                         endless=graph.final)
    slots = layout_of(state.variant).slots
    moves_apart = False
    for j in range(6):
        if graph.kinds[0, j] == NONE:
            continue
        cell = slots[j + 6 * state.to_move]
        lo, hi = _edge_bounds(graph, database, j)
        moves_apart = moves_apart or lo < hi
        if moves:
            result.moves[cell] = (base + lo, base + hi)
            result.move_names[cell] = state.move_name(cell)
            result.replies[cell] = [base + v for v in _reply_values(graph, database, state, j)]
        if exact and base + lo >= lower:
            result.best_moves.append(cell)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    return result, moves_apart


def _narrow(state: State, result: SolveResult, other: SolveResult) -> None:
    """Keep in ``result`` the narrower of each pair of proven bounds."""
    result.lower, result.upper = max(result.lower, other.lower), min(result.upper, other.upper)
    result.exact = result.lower == result.upper
    result.value = result.lower if result.exact else None
    result.nodes += other.nodes
    result.endless = other.endless
    for move, (low, high) in other.moves.items():
        mine = result.moves.get(move, (low, high))
        result.moves[move] = (max(mine[0], low), min(mine[1], high))
    if result.exact:
        if result.moves:
            best = [m for m, (low, _) in result.moves.items() if low >= result.value]
        else:
            best = sorted(set(result.best_moves) | set(other.best_moves))
        result.best_moves = sorted(best)
        result.best_move_names = [state.move_name(m) for m in result.best_moves]
