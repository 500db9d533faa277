"""Oware Abapa's compiled rules (Ghana, the Caribbean, the Mind Sports Olympiad), as
OpenSpiel's ``oware`` plays it.

Rules: docs/rules/oware.md. One lap of sowing that skips the emptied house, captures of 2s and
3s backwards on the opponent's row (none on a grand slam), the feeding rule, the end at more
than half the seeds (or half each), a first recurrence of a position sweeping the board
(``repetitions``), and OpenSpiel's cap of 1000 moves (``move_cap``).
Cells: ``0..n-1`` player 0's houses (South, left to right), ``n..2n-1`` player 1's houses
(North, right to left): the sowing order; ``2n`` and ``2n+1`` the players' captured seeds.
The board adds ``to_move`` and ``status``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core import DRAW, ONGOING, POSITION_UNIT, WIN_0, WIN_1
from ...movemask import NONE, bit
from ...ranking import rank_from
from ...sowing import BANK, CAPTURE, DROP, LIFT, note
from ..common import bank_hole, nonempty_pits, pit_sum

GAME_ID = 5  # params[0], see mancalab.kernels
P_HOUSES, P_SEEDS = 1, 2  # params slots


@njit(cache=True, inline="always")
def _row_sum(board, n, player):
    return pit_sum(board, player * n, n)


@njit(cache=True, inline="always")
def _feeding(board, n, player):
    """The houses of ``player`` whose sowing reaches the other row (the feeding rule)."""
    mask = NONE
    first = player * n
    for a in range(n):
        if board[first + a] > n - 1 - a:
            mask |= bit(first + a)
    return mask


@njit(cache=True, inline="always")
def _moves(board, n, player):
    if _row_sum(board, n, 1 - player) == 0:
        return _feeding(board, n, player)
    return nonempty_pits(board, player * n, n)


@njit(cache=True)
def legal_mask(params, board):
    """The mover's non-empty houses; only those that feed an empty opponent."""
    if board[-1] != ONGOING:
        return NONE
    return _moves(board, params[P_HOUSES], board[-2])


@njit(cache=True, inline="always")
def _sweep(board, n, trace):
    """Every house's seeds go to its owner; the larger store wins."""
    for pit in range(2 * n):
        bank_hole(board, pit, 2 * n + pit // n, trace)
    a, b = board[2 * n], board[2 * n + 1]
    board[-1] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True, inline="always")
def _apply_end_rule(params, board, trace):
    """More than half the seeds, or half each, ends the game; so does a mover who cannot
    feed. Either way the board is swept. Inlined (into ``play`` and ``settle``): a call a
    move slowed random play."""
    n = params[P_HOUSES]
    half = n * params[P_SEEDS]
    a, b = board[2 * n], board[2 * n + 1]
    if a > half or b > half or (a == half and b == half):
        _sweep(board, n, trace)
    elif _moves(board, n, board[-2]) == NONE:
        _sweep(board, n, trace)


@njit(cache=True, inline="always")
def _capture(board, n, mover, last, trace):
    """Take the 2s and 3s from ``last`` backwards on the opponent's row, unless that would
    take every seed the opponent has (the grand slam: nothing is taken)."""
    first = (1 - mover) * n
    if not first <= last < first + n:
        return
    end = last
    while end >= first and (board[end] == 2 or board[end] == 3):
        end -= 1
    if end == last or pit_sum(board, first, n) == pit_sum(board, end + 1, last - end):
        return
    store = 2 * n + mover
    for pit in range(last, end, -1):
        seeds = board[pit]
        board[pit] = 0
        note(trace, CAPTURE, board, pit, seeds)
        board[store] += seeds
        note(trace, BANK, board, store, 0)


@njit(cache=True)
def play(params, board, move, trace=None):
    """Sow one lap from ``move`` (skipping the emptied house), capture, pass the turn, end.
    Each change is noted in ``trace`` (see mancalab.sowing)."""
    n = params[P_HOUSES]
    mover = board[-2]
    hand = board[move]
    board[move] = 0
    note(trace, LIFT, board, move, hand)
    pos = move
    while hand > 0:
        pos += 1
        if pos == 2 * n:
            pos = 0
        if pos == move:
            continue
        board[pos] += 1
        hand -= 1
        note(trace, DROP, board, pos, hand)
    _capture(board, n, mover, pos, trace)
    board[-2] = 1 - mover
    _apply_end_rule(params, board, trace)


@njit(cache=True)
def score(params, board, player):
    """The seeds ``player`` has captured."""
    return board[2 * params[P_HOUSES] + player]


@njit(cache=True)
def settle(params, board):
    """A position given directly that already meets an end rule is swept at once."""
    if board[-1] == ONGOING:
        _apply_end_rule(params, board, None)  # typed as play passes it: compiled once


@njit(cache=True)
def stop(params, board):
    """The end for endless play (docs/oware.md): each player takes the seeds on their own
    row, as OpenSpiel does at the first recurrence of a position."""
    _sweep(board, params[P_HOUSES], None)


@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)


# Oware's positional terms, in seeds, for the player to move, fitted by least squares to the
# values of depth-6 and depth-7 searches of 12,000 random positions
# (benchmarks/fit_oware_eval.py; the searches add them): they explain half the variance the
# captured seeds leave.
# On the 6-house board, per house counted from the mover's first (its own, then the
# opponent's): its weight if it is empty, if it holds 1 or 2 seeds (the opponent captures 2s
# and 3s), if it holds a lap or more (a big house: a capture's threat); and having the move.
OWARE_HOUSE_TERMS = np.array([
    [-2.91, -2.9, -2.44, -2.29, -2.2, -1.58, 2.52, 2.67, 2.34, 2.06, 1.97, 1.52],
    [-2.05, -1.65, -1.28, -1.2, -0.84, -0.19, 2.62, 2.29, 1.8, 1.29, 1.04, 0.56],
    [-0.07, -0.17, 0.39, 0.51, 0.65, 1.31, 0.05, 0.09, -0.03, -0.44, -0.58, -0.94]])
OWARE_HOUSE_TEMPO = 0.48
# Other boards: the same kinds summed over each row (the mover's less the opponent's)
OWARE_EMPTY, OWARE_WEAK, OWARE_BIG, OWARE_TEMPO = -2.17, -1.27, 0.47, 0.96


@njit(cache=True)
def positional(params, board):
    """The positional terms (above) for the player to move, in ``POSITION_UNIT``s: the
    searches add them to the seeds captured (``Kernels.positional``)."""
    n, mover = params[P_HOUSES], board[-2]
    by_house = n == OWARE_HOUSE_TERMS.shape[1] // 2
    terms = OWARE_HOUSE_TEMPO if by_house else OWARE_TEMPO
    for house in range(2 * n):
        seeds = board[house]
        kind = 0 if seeds == 0 else (1 if seeds <= 2 else (2 if seeds >= 2 * n - 1 else -1))
        if kind < 0:
            continue
        if by_house:
            terms += OWARE_HOUSE_TERMS[kind, (house - mover * n) % (2 * n)]
        else:
            sign = 1 if house // n == mover else -1
            terms += sign * (OWARE_EMPTY if kind == 0 else
                             (OWARE_WEAK if kind == 1 else OWARE_BIG))
    return np.int64(round(terms * POSITION_UNIT))


@njit(cache=True)
def table_bounds(params, board, low, high, binom):
    """What Oware's endgame tables (``analysis.solving.oware_tables``: ``low`` and ``high``
    by the board as the mover sees it, ranked with ``binom``) say of this position: (1, the
    least and the greatest final margin for the player to move over every history, were the
    game played on past half the seeds); (0, 0, 0) when the board holds more seeds than the
    tables. The end by score changes the margin, never the winner (a store above half stays
    above it), so their signs are the game's."""
    n = params[P_HOUSES]
    cells = 2 * n
    seeds = pit_sum(board, 0, cells)
    if low.shape[0] == 0 or seeds > binom.shape[0] - cells - 1 or board[-1] != ONGOING:
        return 0, 0, 0
    mover = board[-2]
    at = rank_from(board, mover * n, cells, binom)
    if seeds > 0:
        at += binom[seeds - 1 + cells, cells]
    ahead = board[cells + mover] - board[cells + 1 - mover]
    return 1, ahead + np.int64(low[at]), ahead + np.int64(high[at])
