"""The Gabata program's bot (docs/rules/gabata.md, "Computer player of the reference program").

It looks ``level`` turns ahead through every line of play, both players' turns alike, and
values a root move by the best score the bot itself reaches at any leaf below it (level -1:
the worst score, five turns deep; "it is difficult to lose to this bot"). The opponent's score
is ignored and there is no minimax, exactly as in the original. Ties go to the first move in
the game's move order (the lowest pit). It plays every mancalab game the same way.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from .. import kernels, movemask
from ..borrow import borrowed
from ..core import ONGOING, Option, State, real, whole
from .base import Player, seed_option

WEAK_LEVEL, WEAK_DEPTH = -1, 5
DONE, LIMIT = 0, 1  # the work array: moves played so far, and where to give up
UNLIMITED = np.iinfo(np.int64).max
FIRST_RATE = 200_000  # moves a second assumed before one is measured (a slow game's relays)


@njit(cache=True, nogil=True)
def leaf_extreme(params, root, plies, player, minimize, work):
    """The largest (smallest when ``minimize``) score of ``player`` over the leaves ``plies``
    turns below ``root`` (a finished game is a leaf); -1 when the moves played, counted in
    ``work[DONE]``, pass ``work[LIMIT]``. A depth-first walk with an explicit stack: numba
    cannot load a cached recursive function safely (numba issue 6061)."""
    params, root, work = borrowed(params), borrowed(root), borrowed(work)
    boards = np.empty((plies + 1, root.shape[0]), dtype=np.int64)
    untried = np.zeros(plies + 1, dtype=np.uint64)  # the moves still to try at each ply
    if plies == 0 or root[-1] != ONGOING:
        return kernels.score(params, root, player)
    kernels.copy_into(boards[0], root)
    untried[0] = kernels.legal_mask(params, root)
    best = np.int64(-1)
    ply = 0
    while ply >= 0:
        if untried[ply] == movemask.NONE:
            ply -= 1
            continue
        move = movemask.lowest(untried[ply])
        untried[ply] &= untried[ply] - movemask.ONE
        child = boards[ply + 1]
        kernels.copy_into(child, boards[ply])
        kernels.play(params, child, move)
        work[DONE] += 1
        if work[DONE] > work[LIMIT]:
            return -1
        if ply + 1 == plies or child[-1] != ONGOING:  # a leaf
            value = kernels.score(params, child, player)
            if best < 0 or (value < best if minimize else value > best):
                best = value
        else:
            ply += 1
            untried[ply] = kernels.legal_mask(params, child)
    return best


def look_ahead(level: int) -> tuple[int, bool]:
    """The turns a level looks ahead, and whether it takes the smallest leaf (level -1)."""
    return (WEAK_DEPTH, True) if level == WEAK_LEVEL else (level, False)


def leaf_values(state: State, depth: int, minimize: bool, work: np.ndarray) -> dict | None:
    """Each legal move's value ``depth`` turns ahead, in the game's move order; None when
    ``work`` runs out first."""
    values = {}
    for move in state.legal_moves():
        value = leaf_extreme(state.variant.params, state.play(move).board.copy(), depth - 1,
                             state.to_move, minimize, work)
        if value < 0:
            return None
        values[move] = int(value)
    return values


def classic_values(state: State, level: int) -> dict[int, int]:
    """Each legal move's value for the player to move, in the game's move order."""
    return leaf_values(state, *look_ahead(level), np.array([0, UNLIMITED]))


def values_within(state: State, level: int, deadline: float) -> tuple[dict[int, int], int]:
    """The values of the deepest look-ahead, up to the level's, that ends before ``deadline``
    (``time.perf_counter``), and its depth. Depths are searched in turn: one predicted (from
    the last one's growth) not to end in time is not started, one that runs out is given up."""
    depth, minimize = look_ahead(level)
    best, reached = leaf_values(state, 1, minimize, np.array([0, UNLIMITED])), 1
    works, spent, rate = [0], 0.0, float(FIRST_RATE)
    for ahead in range(2, depth + 1):
        left = deadline - time.perf_counter()
        growth = works[-1] / works[-2] if len(works) > 1 and works[-2] else 1.0
        if spent * growth > left:
            break
        work = np.array([0, max(1, int(left * rate))])
        started = time.perf_counter()
        values = leaf_values(state, ahead, minimize, work)
        if values is None:
            break
        best, reached = values, ahead
        works.append(int(work[DONE]))
        spent = time.perf_counter() - started
        if works[-1] >= 1000:  # enough moves to time
            rate = works[-1] / spent
    return best, reached


class ClassicPlayer(Player):
    """The Gabata program's bot; ``time`` caps a move (the original has no cap: 0)."""

    name = "classic"
    option_specs = {
        "level": Option(4, whole, lambda v: v == WEAK_LEVEL or 1 <= v <= 8,
                        "-1 (the deliberately weak bot) or 1..8 (turns looked ahead)"),
        "time": Option(0.0, real, lambda v: v >= 0,
                       "at most these seconds a move, looking fewer turns ahead if need be "
                       "(0: no limit, as in the original)"),
        "seed": seed_option("the bot is deterministic; kept for a uniform spec"),
    }

    def __init__(self, **options) -> None:
        super().__init__(**options)

    def choose(self, state: State) -> int:
        warm_up(state)  # compiled for this game before its clock starts
        started = time.perf_counter()
        level, budget = self.options["level"], self.options["time"]
        if self.cap is not None:
            budget = self.capped(budget or math.inf)
        if budget:
            values, depth = values_within(state, level, started + budget)
        else:
            values, depth = classic_values(state, level), look_ahead(level)[0]
        move = self.choose_by_value(values, started, lowest=level == WEAK_LEVEL)
        self.last_info["depth"] = depth
        return move


def warm_up(state: State | None = None) -> None:
    """Compile (or load from the cache) the look-ahead for ``state``'s game (default: the
    first registered game's start) now, not inside the first timed move (once a game:
    ``mancalab.params``)."""
    from ..variants import VARIANTS

    state = state or next(iter(VARIANTS.values()))().start()
    leaf_extreme(state.variant.params, state.board.copy(), 1, 0, False, np.array([0, 1]))
