"""Every game's compiled rules behind one switch, for the game-independent compiled code.

Search and analysis kernels (MCTS playouts, tree statistics, ...) call these functions, which
branch on ``params[0]`` (the game's id) to the game's own kernels in ``mancalab.variants``.
A switch rather than passing functions around keeps numba's on-disk cache working: numba
cannot cache a function that takes another compiled function as an argument.
To add a game: give it the next id and add one branch to each function below.
"""

from __future__ import annotations

from numba import njit

from .variants import gebeta

GEBETA = 0


@njit(cache=True)
def legal_moves(params, board, out):
    """Write the legal moves to ``out``; return how many there are (0 once the game is over)."""
    return gebeta.legal_moves(params, board, out)


@njit(cache=True)
def play(params, board, move):
    """Play a legal move in place."""
    gebeta.play(params, board, move)


@njit(cache=True)
def margin(params, board):
    """Player 0's score minus player 1's."""
    return gebeta.margin(params, board)
