"""Uniformly random games from a position, in compiled code: how long games last and who wins.

Also the measure behind the playout benchmark: MCTS spends its time in exactly these playouts.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ... import kernels
from ...borrow import borrowed
from ...core import DRAW, TIMEOUT, WIN_0, WIN_1, State


@njit(cache=True)
def _random_games(params, start, n_games, max_plies, repetitions, out):
    """Play ``n_games`` random games from ``start``; fill ``out`` with the counts.

    A game still going after ``max_plies`` moves is stopped and counted in ``out[0]``; one
    whose position occurs for the ``repetitions``-th time ends by the game's rule for endless
    play (``kernels.random_moves``).
    """
    params, start, out = borrowed(params), borrowed(start), borrowed(out)
    board = np.empty_like(start)
    for _ in range(n_games):
        kernels.copy_into(board, start)
        out[6] += kernels.random_moves(params, board, max_plies, repetitions)
        out[board[-1]] += 1  # status codes 1..4 index the results, 0 counts unfinished games
        out[5] += kernels.margin(params, board)


class RandomPlayStats(NamedTuple):
    games: int
    moves: int
    wins_0: int
    wins_1: int
    draws: int
    timeouts: int
    mean_margin: float
    unfinished: int  # games stopped at max_plies

    @property
    def mean_length(self) -> float:
        return self.moves / self.games if self.games else 0.0


def random_play_stats(state: State, games: int, seed: int = 0,
                      max_plies: int = 100_000) -> RandomPlayStats:
    """Statistics of ``games`` uniformly random games from ``state``, each cut at
    ``max_plies`` and ended by a repeated position as a game record ends it (the positions
    before ``state`` not counted)."""
    out = np.zeros(7, dtype=np.int64)
    kernels.seed_rng(seed)
    variant = state.variant
    _random_games(variant.params, state.board, games, max_plies, kernels.repetitions_of(variant),
                  out)
    return RandomPlayStats(games, int(out[6]), int(out[WIN_0]), int(out[WIN_1]), int(out[DRAW]),
                           int(out[TIMEOUT]), float(out[5]) / games if games else 0.0,
                           int(out[0]))


__all__ = ["RandomPlayStats", "random_play_stats"]
