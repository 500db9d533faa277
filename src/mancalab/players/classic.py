"""The Gabata program's bot (shared/rules/gabata.md, "Computer player of the reference program").

It looks ``level`` turns ahead through every line of play, both players' turns alike, and
values a root move by the best score the bot itself reaches at any leaf below it (level -1:
the worst score, five turns deep; "it is difficult to lose to this bot"). The opponent's score
is ignored and there is no minimax, exactly as in the original. Ties go to the first move in
the game's move order (the lowest pit). It plays every mancalab game the same way.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from .. import kernels, movemask
from ..core import ONGOING, Option, State
from .base import Player

WEAK_LEVEL, WEAK_DEPTH = -1, 5


@njit(cache=True)
def leaf_extreme(params, root, plies, player, minimize):
    """The largest (smallest when ``minimize``) score of ``player`` over the leaves ``plies``
    turns below ``root`` (a finished game is a leaf). A depth-first walk with an explicit
    stack: numba cannot load a cached recursive function safely (numba issue 6061)."""
    boards = np.empty((plies + 1, root.shape[0]), dtype=np.int64)
    untried = np.zeros(plies + 1, dtype=np.uint64)  # the moves still to try at each ply
    if plies == 0 or root[-1] != ONGOING:
        return kernels.score(params, root, player)
    boards[0] = root
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
        child[:] = boards[ply]
        kernels.play(params, child, move)
        if ply + 1 == plies or child[-1] != ONGOING:  # a leaf
            value = kernels.score(params, child, player)
            if best < 0 or (value < best if minimize else value > best):
                best = value
        else:
            ply += 1
            untried[ply] = kernels.legal_mask(params, child)
    return best


def classic_values(state: State, level: int) -> dict[int, int]:
    """Each legal move's value for the player to move, in the game's move order."""
    depth, minimize = (WEAK_DEPTH, True) if level == WEAK_LEVEL else (level, False)
    params = state.variant.params
    return {move: int(leaf_extreme(params, state.play(move).board.copy(), depth - 1,
                                   state.to_move, minimize))
            for move in state.legal_moves()}


class ClassicPlayer(Player):
    name = "classic"
    option_specs = {
        "level": Option(4, int, lambda v: v == WEAK_LEVEL or 1 <= v <= 8,
                        "-1 (the deliberately weak bot) or 1..8 (turns looked ahead)"),
    }

    def choose(self, state: State) -> int:
        started = time.perf_counter()
        level = self.options["level"]
        return self.choose_by_value(classic_values(state, level), started,
                                    lowest=level == WEAK_LEVEL)
