"""Urubugu's compiled rules (Burundi; igisoro), 4x8, as the dan4am/urubugu program plays it,
quirks included.

Rules: docs/rules/urubugu.md. Each player sows round their own 16 holes, relays from occupied
holes and captures the opponent's whole column facing a front-row landing; the captured beads
are re-sown at once. Whoever cannot move loses. Cells: the original ``BOARD[4][8]`` row by row
(``8*row + col``): row 0 player 1's back row, row 1 player 1's front row, row 2 player 0's front
row, row 3 player 0's back row. The board adds ``to_move`` and ``status``. Moves are cell
indices; people use the mover's own hole numbers 1..16 (see ``HOLE_CELL``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core import DRAW, ONGOING, TIMEOUT, WIN_0, WIN_1
from ...movemask import NONE, bit
from ...sowing import CAPTURE, DROP, LIFT, note

GAME_ID = 3  # params[0], see mancalab.kernels
(P_SINGLETONS, P_OCCUPIED_LANDING, P_BOTH_OPPOSITE, P_TURN_ORIGIN, P_WIPEOUT_ENDS,
 P_MAX_LAPS) = range(1, 7)
CELLS = 32
TO_MOVE, STATUS = 32, 33


def _hole_cell(player: int, hole: int) -> int:
    if player == 0:
        return 23 + hole if hole <= 8 else 32 - hole
    return 8 - hole if hole <= 8 else hole - 1


# HOLE_CELL[p, h]: the cell of player p's hole h (1..16); column 0 is unused.
HOLE_CELL = np.array([[0] + [_hole_cell(p, h) for h in range(1, 17)] for p in (0, 1)],
                     dtype=np.int64)
# CELL_HOLE[c]: the owner's hole number of cell c.
CELL_HOLE = np.zeros(CELLS, dtype=np.int64)
for _p in (0, 1):
    for _h in range(1, 17):
        CELL_HOLE[HOLE_CELL[_p, _h]] = _h


@njit(cache=True)
def beads(board, player):
    first = 16 if player == 0 else 0
    total = 0
    for c in range(first, first + 16):
        total += board[c]
    return total


@njit(cache=True)
def _playable(params, board, player):
    """The mask of ``player``'s playable holes (as cells)."""
    need = 1 if params[P_SINGLETONS] == 1 else 2
    mask = NONE
    for hole in range(1, 17):
        cell = HOLE_CELL[player, hole]
        if board[cell] >= need:
            mask |= bit(cell)
    return mask


@njit(cache=True)
def legal_mask(params, board):
    if board[STATUS] != ONGOING:
        return NONE
    return _playable(params, board, board[TO_MOVE])


@njit(cache=True)
def captures(params, board, p, q, last):
    """Does the mover's front landing hole ``last`` (9..16) capture the column it faces?"""
    front = board[HOLE_CELL[q, 25 - last]]
    back = board[HOLE_CELL[q, last - 8]]
    if params[P_OCCUPIED_LANDING] == 1 and board[HOLE_CELL[p, last]] < 2:
        return False
    if params[P_BOTH_OPPOSITE] == 1:
        return front > 0 and back > 0
    return front > 0 or back > 0


@njit(cache=True)
def sow_lap(board, p, start, hand, trace):
    """One lap: ``hand`` beads, one a hole, into player ``p``'s holes after hole ``start``
    (hole numbers 1..16); the hole of the last bead. The counter-setting search
    (``mancalab.analysis.research.counter``) sows its laps with this too."""
    h = start
    for k in range(hand):
        h = h % 16 + 1
        board[HOLE_CELL[p, h]] += 1
        note(trace, DROP, board, HOLE_CELL[p, h], hand - k - 1)
    return h


@njit(cache=True)
def _sow(params, board, move, p, trace):
    """The whole turn from cell ``move``; False when lap ``max_laps`` was cut off."""
    q = 1 - p
    played = CELL_HOLE[move]
    origin = played
    start = played
    hand = board[move]
    board[move] = 0
    note(trace, LIFT, board, move, hand)
    laps = 0
    while True:
        laps += 1
        last = sow_lap(board, p, start, hand, trace)
        if params[P_WIPEOUT_ENDS] == 1 and beads(board, q) == 0:
            return True
        if last >= 9 and captures(params, board, p, q, last):
            if laps == params[P_MAX_LAPS]:
                return False
            front = HOLE_CELL[q, 25 - last]
            back = HOLE_CELL[q, last - 8]
            hand = board[front] + board[back]
            if board[front] > 0:
                board[front] = 0
                note(trace, CAPTURE, board, front, hand - board[back])
            if board[back] > 0:
                board[back] = 0
                note(trace, CAPTURE, board, back, hand)
            start = played if params[P_TURN_ORIGIN] == 1 else origin
            continue
        cell = HOLE_CELL[p, last]
        if board[cell] == 1:  # it was empty: the turn ends
            return True
        if laps == params[P_MAX_LAPS]:
            return False
        hand = board[cell]  # relay
        board[cell] = 0
        note(trace, LIFT, board, cell, hand)
        origin = last
        start = last


@njit(cache=True)
def _end_if_stuck(params, board):
    """The player to move without a legal move loses."""
    if _playable(params, board, board[TO_MOVE]) == NONE:
        board[STATUS] = WIN_1 if board[TO_MOVE] == 0 else WIN_0


@njit(cache=True)
def play(params, board, move, trace=None):
    """Play the legal move ``move`` in place (noting each change in ``trace``, see sowing)."""
    p = board[TO_MOVE]
    if not _sow(params, board, move, p, trace):
        if beads(board, 1 - p) == 0:  # cut off, but the opponent is already wiped out
            board[STATUS] = WIN_0 if p == 0 else WIN_1
        else:
            board[STATUS] = TIMEOUT
        return
    board[TO_MOVE] = 1 - p
    _end_if_stuck(params, board)


@njit(cache=True)
def score(params, board, player):
    """The beads ``player`` holds."""
    return beads(board, player)


@njit(cache=True)
def settle(params, board):
    if board[STATUS] == ONGOING:
        _end_if_stuck(params, board)


@njit(cache=True)
def stop(params, board):
    """The end for endless play (docs/urubugu.md): every bead stays where it is, on its
    owner's side; the player holding more beads wins."""
    a, b = beads(board, 0), beads(board, 1)
    board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)
