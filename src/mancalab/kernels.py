"""Every game's compiled rules behind one switch, for the game-independent compiled code.

Search and analysis kernels (MCTS playouts, tree statistics, ...) call these functions, which
branch on ``params[0]`` (the game's id) to the game's own kernels in ``mancalab.variants``.
A switch rather than passing functions around keeps numba's on-disk cache working: numba
cannot cache a function that takes another compiled function as an argument.
``legal_mask`` and ``play`` are inlined into their callers (numba ``inline="always"``): the
extra call layer of the switch cost the tree statistics a quarter of their playing time.
To add a game: give it the next id (its module's ``GAME_ID``) and add one branch to each
function below.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import movemask
from .core import ONGOING
from .variants import gabata, gabata3, gebeta, kalah, urubugu

GEBETA, KALAH, GABATA, URUBUGU, GABATA3 = (gebeta.GAME_ID, kalah.GAME_ID, gabata.GAME_ID,
                                           urubugu.GAME_ID, gabata3.GAME_ID)


@njit(cache=True, inline="always")
def legal_mask(params, board):
    """The legal moves as a mask (``mancalab.movemask``); 0 once the game is over."""
    game = params[0]
    if game == GEBETA:
        return gebeta.legal_mask(params, board)
    if game == KALAH:
        return kalah.legal_mask(params, board)
    if game == GABATA:
        return gabata.legal_mask(params, board)
    if game == URUBUGU:
        return urubugu.legal_mask(params, board)
    return gabata3.legal_mask(params, board)


@njit(cache=True, inline="always")
def play(params, board, move):
    """Play a legal move in place."""
    game = params[0]
    if game == GEBETA:
        gebeta.play(params, board, move)
    elif game == KALAH:
        kalah.play(params, board, move)
    elif game == GABATA:
        gabata.play(params, board, move)
    elif game == URUBUGU:
        urubugu.play(params, board, move)
    else:
        gabata3.play(params, board, move)


@njit(cache=True)
def settle(params, board):
    """Apply the end rule to a position given directly (not reached by a move)."""
    game = params[0]
    if game == GEBETA:
        gebeta.settle(params, board)
    elif game == KALAH:
        kalah.settle(params, board)
    elif game == GABATA:
        gabata.settle(params, board)
    elif game == URUBUGU:
        urubugu.settle(params, board)
    else:
        gabata3.settle(params, board)


@njit(cache=True)
def score(params, board, player):
    """``player``'s score (families, store, beads held ...: the game's ``score_noun``)."""
    game = params[0]
    if game == GEBETA:
        return gebeta.score(params, board, player)
    if game == KALAH:
        return kalah.score(params, board, player)
    if game == GABATA:
        return gabata.score(params, board, player)
    if game == URUBUGU:
        return urubugu.score(params, board, player)
    return gabata3.score(params, board, player)


@njit(cache=True)
def material(params, board, player):
    """``player``'s material, what the players weigh short of the game's end: the score, except
    in 3-row Gabata, whose stores are emptied at every reload: there the seeds held (store plus
    own holes), which carry from round to round."""
    if params[0] == GABATA3:
        return gabata3.holdings(params, board, player)
    return score(params, board, player)


@njit(cache=True)
def margin(params, board):
    """Player 0's score minus player 1's."""
    return score(params, board, 0) - score(params, board, 1)


@njit(cache=True)
def material_margin(params, board):
    """Player 0's material minus player 1's."""
    return material(params, board, 0) - material(params, board, 1)


@njit(cache=True)
def seed_rng(seed):
    """Seed the random numbers of compiled code (numba keeps its own generator)."""
    np.random.seed(seed)


@njit(cache=True)
def random_moves(params, board, max_plies):
    """Play uniformly random legal moves in place until the game ends or ``max_plies`` moves
    have been played; return how many were played."""
    plies = 0
    while board[-1] == ONGOING and plies < max_plies:
        legal = legal_mask(params, board)
        play(params, board, movemask.nth(legal, np.random.randint(movemask.count(legal))))
        plies += 1
    return plies
