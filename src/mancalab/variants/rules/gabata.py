"""Gabata's compiled rules (Ethiopia, 2x6 with deposit slots), as Nathnael Bekele's Gabata
program plays it.

Rules: docs/rules/gabata.md. Relays go through both rows, a last marble in an own empty pit
facing marbles is carried across, nothing is captured; the game ends when both rows are empty.
Cells: ``0..5`` player 0's pits, ``6`` player 0's deposit, ``7..12`` player 1's pits, ``13``
player 1's deposit. The board adds ``to_move`` and ``status``.
"""

from __future__ import annotations

from numba import njit

from ...core import DRAW, ONGOING, TIMEOUT, WIN_0, WIN_1
from ...movemask import NONE
from ...sowing import DROP, LIFT, note
from ..common import nonempty_pits, pit_sum

GAME_ID = 2  # params[0], see mancalab.kernels
P_MAX_LAPS = 1
TO_MOVE, STATUS = 14, 15


@njit(cache=True)
def legal_mask(params, board):
    """The mover's non-empty pits."""
    if board[STATUS] != ONGOING:
        return NONE
    return nonempty_pits(board, 7 * board[TO_MOVE], 6)


@njit(cache=True)
def _row_sum(board, player):
    return pit_sum(board, 7 * player, 6)


@njit(cache=True)
def _sow(params, board, pos, mover, trace):
    """Relay-sow one turn from ``pos``; the player to move next, or -1 when cut off."""
    own = 6 if mover == 0 else 13
    skip = 13 if mover == 0 else 6
    laps = 0
    while True:
        laps += 1
        hand = board[pos]
        board[pos] = 0
        note(trace, LIFT, board, pos, hand)
        while hand > 0:
            pos += 1
            if pos == skip:
                pos += 1
            if pos == 14:
                pos = 0
            board[pos] += 1
            hand -= 1
            note(trace, DROP, board, pos, hand)
        if pos == own:
            return mover  # extra turn
        if board[pos] == 1:  # an empty pit
            mine = 7 * mover <= pos < 7 * mover + 6
            if not (mine and board[12 - pos] > 0):
                return 1 - mover
            if laps == params[P_MAX_LAPS]:
                return -1
            board[pos] = 0  # carry the marble across and lift the opposite pit
            note(trace, LIFT, board, pos, 1)
            pos = 12 - pos
            board[pos] += 1
            note(trace, DROP, board, pos, 0)
        elif laps == params[P_MAX_LAPS]:
            return -1


@njit(cache=True)
def _pass_rule(board, next_player):
    """A player whose row is empty is skipped; both rows empty end the game."""
    empty0 = _row_sum(board, 0) == 0
    empty1 = _row_sum(board, 1) == 0
    if empty0 and empty1:
        a, b = board[6], board[13]
        board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)
    elif empty1:
        board[TO_MOVE] = 0
    elif empty0:
        board[TO_MOVE] = 1
    else:
        board[TO_MOVE] = next_player


@njit(cache=True)
def play(params, board, move, trace=None):
    """Play the legal move ``move`` in place (noting each change in ``trace``, see sowing)."""
    next_player = _sow(params, board, move, board[TO_MOVE], trace)
    if next_player < 0:
        board[STATUS] = TIMEOUT
    else:
        _pass_rule(board, next_player)


@njit(cache=True)
def score(params, board, player):
    """The marbles in ``player``'s deposit."""
    return board[6 + 7 * player]


@njit(cache=True)
def settle(params, board):
    """A position given directly follows the pass rule (and ends when both rows are empty)."""
    if board[STATUS] == ONGOING:
        _pass_rule(board, board[TO_MOVE])


@njit(cache=True)
def stop(params, board):
    """The end for endless play (docs/gabata.md): each player puts the marbles of their own
    row into their deposit; the fuller deposit wins."""
    for player in range(2):
        first = 7 * player
        for pit in range(first, first + 6):
            board[first + 6] += board[pit]
            board[pit] = 0
    a, b = board[6], board[13]
    board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)
