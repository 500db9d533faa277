"""Gebeta's compiled rules (Ethiopia): 2x6 homes, relay sowing, families of four.

Rules: docs/rules/gebeta.md, following Oliver Thiel's reference program quirk for quirk.
Cells: 0..5 player A's homes, 6..11 player B's homes (sowing order 0..11), 12 and 13 the
families of A and B. The board adds ``to_move`` and ``status`` (see ``mancalab.core``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core import DRAW, ONGOING, TIMEOUT, WIN_0, WIN_1
from ... import movemask
from ...sowing import BANK, CAPTURE, DROP, LIFT, note
from ...movemask import NONE
from ..common import nonempty_pits, pit_sum

HOMES = 12
FAMILIES = 12  # cells[12] (A) and cells[13] (B)
TO_MOVE = 14
STATUS = 15
COUNTERS = 48
GAME_ID = 0  # params[0], see mancalab.kernels
P_LAP_LIMIT = 1  # params[1]: the lap limit (50 in the reference program)


@njit(cache=True)
def legal_mask(params, board):
    """The mover's non-empty homes."""
    if board[STATUS] != ONGOING:
        return NONE
    return nonempty_pits(board, 6 * board[TO_MOVE], 6)


@njit(cache=True, inline="always")
def _sow(params, board, pit, mover, trace):
    """Relay-sow from ``pit``; False when the lap limit is passed (a timeout)."""
    laps = 0
    while True:
        laps += 1
        if laps > params[P_LAP_LIMIT]:
            return False
        seeds = board[pit]
        board[pit] = 0
        note(trace, LIFT, board, pit, seeds)
        while seeds > 0:
            pit += 1
            if pit == HOMES:
                pit = 0
            board[pit] += 1
            seeds -= 1
            note(trace, DROP, board, pit, seeds)
            if board[pit] == 4:  # a family: the mover's if made by the last counter
                board[pit] = 0
                note(trace, CAPTURE, board, pit, seeds + 4)  # the family is lifted off
                owner = mover if seeds == 0 else (1 if pit >= 6 else 0)  # else the row owner's
                board[FAMILIES + owner] += 1
                note(trace, BANK, board, FAMILIES + owner, seeds)
                if seeds == 0:
                    return True
        if board[pit] == 1:  # the last counter fell into an empty home
            return True


@njit(cache=True, inline="always")
def _row_sum(board, player):
    return pit_sum(board, 6 * player, 6)


@njit(cache=True, inline="always")
def _finish(board, player, trace):
    """``player`` banks the families left in their row; decide the result."""
    board[FAMILIES + player] += _row_sum(board, player) // 4
    note(trace, BANK, board, FAMILIES + player, 0)
    a, b = board[FAMILIES], board[FAMILIES + 1]
    board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def play(params, board, move, trace=None):
    """Play the legal move ``move`` in place (noting each change in ``trace``, see sowing)."""
    mover = board[TO_MOVE]
    if not _sow(params, board, move, mover, trace):
        board[STATUS] = TIMEOUT
        return
    opponent = 1 - mover
    if _row_sum(board, opponent) == 0:  # only the opponent's row is checked
        _finish(board, mover, trace)
    else:
        board[TO_MOVE] = opponent


@njit(cache=True)
def score(params, board, player):
    """The families ``player`` has made."""
    return board[FAMILIES + player]


# ----- a position in one 64-bit word (for the game-tree statistics) ------------------
# The 48 counters are in the homes or in families of four, so the homes are a composition of
# at most 48: home i is written as board[i] one-bits and a zero-bit, which takes at most
# 48 + 11 = 59 bits; A's families go in bits 59..62 and the mover in bit 63. B's families
# follow from the total. (Field by field the position takes 81 bits, two words.)
STRING_BITS = 59


@njit(cache=True, inline="always")
def pack_key(params, board, keys, k):
    """Pack the position into ``keys[k, 0]`` (the tree statistics' key, ``Kernels.pack_key``):
    1, or 0 if it does not hold 48 counters."""
    key = np.uint64(0)
    at = 0
    for home in range(HOMES):
        count = board[home]
        key |= ((np.uint64(1) << np.uint64(count)) - np.uint64(1)) << np.uint64(at)
        at += count + 1
    keys[k, 0] = (key | np.uint64(board[12]) << np.uint64(STRING_BITS)
                  | np.uint64(board[TO_MOVE]) << np.uint64(63))
    total = at - HOMES + 4 * (board[12] + board[13])
    return np.int64(total == COUNTERS and board[12] < 16)


@njit(cache=True, inline="always")
def unpack_key(params, keys, k, board):
    """The position of ``keys[k, 0]`` (the inverse of pack_key), status ONGOING."""
    key = keys[k, 0]
    string = key & ((np.uint64(1) << np.uint64(STRING_BITS)) - np.uint64(1))
    in_homes = 0
    for home in range(HOMES):
        count = movemask.lowest(~string)  # the run of one-bits before the next zero-bit
        string >>= np.uint64(count + 1)
        board[home] = count
        in_homes += count
    families_a = np.int64((key >> np.uint64(STRING_BITS)) & np.uint64(15))
    board[12] = families_a
    board[13] = (COUNTERS - in_homes) // 4 - families_a
    board[TO_MOVE] = np.int64(key >> np.uint64(63))
    board[STATUS] = ONGOING
    return True


@njit(cache=True)
def settle(params, board):
    """A position given with the mover's row empty was ended by the previous mover."""
    if board[STATUS] == ONGOING and _row_sum(board, board[TO_MOVE]) == 0:
        _finish(board, 1 - board[TO_MOVE], None)


@njit(cache=True)
def stop(params, board):
    """The end for endless play (docs/gebeta.md): each player banks the families their own
    counters make, as the end rule has the last mover do; the larger count of families wins."""
    for player in range(2):
        board[FAMILIES + player] += _row_sum(board, player) // 4
    a, b = board[FAMILIES], board[FAMILIES + 1]
    board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)
