"""3-row Gabata's compiled rules (Ethiopia/Eritrea): race start, relay sowing, column
captures, rounds.

Rules: docs/rules/gabata3.md (a complete rule set fixed from Cyningstan, bead.game, Pankhurst
and Ludii, with every alternative as an option).

Board slots (the kernels' flat int64 array):

| slots    | meaning                                                                  |
|----------|--------------------------------------------------------------------------|
| 0..17    | the holes, site ``6*row + col`` (A1..F1, A2..F2, A3..F3 from player 0's seat) |
| 18, 19   | player 0's and player 1's stores                                         |
| 20..37   | ``owner`` of each hole (0 or 1); changes only at a reload               |
| 38       | ``round`` (1, 2, ...)                                                    |
| 39, 40   | ``to_move`` and ``status`` as in every game                              |

``State.cells`` are slots 0..19, as the spec's ``cells``; ``State.extra`` gives owner and round.
A race runs automatically at the start of every round (``start()`` and any move that ends a
round return the position after the next race), so there is no visible race phase.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...core import DRAW, ONGOING, TIMEOUT, WIN_0, WIN_1
from ...movemask import NONE, bit
from ...sowing import BANK, CAPTURE, DROP, LIFT, SET, note
from ..common import bank_hole

GAME_ID = 4  # params[0], see mancalab.kernels
(P_ROUTE, P_RACE, P_ANY_EMPTY, P_NEW_TURN, P_EITHER_ENDS, P_SINGLE_ROUND,
 P_MAX_LAPS) = range(1, 8)
HOLES = 18
STORE = 18  # STORE + p
OWNER = 20  # OWNER + site
ROUND = 38
TO_MOVE, STATUS = 39, 40
_LOOP = [0, 1, 2, 3, 4, 5, 11, 10, 9, 17, 16, 15, 14, 13, 12, 6, 7, 8]
_S_ROUTES = ([0, 1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 6, 12, 13, 14, 15, 16, 17],
             [17, 16, 15, 14, 13, 12, 6, 7, 8, 9, 10, 11, 5, 4, 3, 2, 1, 0])
# ROUTE[route, player]: the 18 sites in sowing order, starting at the player's first hole.
ROUTE = np.array([[_LOOP, _LOOP[9:] + _LOOP[:9]], list(_S_ROUTES)], dtype=np.int64)
# NEXT[route, player, site]: the site after ``site`` on that player's route.
NEXT = np.zeros((2, 2, HOLES), dtype=np.int64)
for _r in range(2):
    for _p in range(2):
        for _i in range(HOLES):
            NEXT[_r, _p, ROUTE[_r, _p, _i]] = ROUTE[_r, _p, (_i + 1) % HOLES]


@njit(cache=True)
def legal_mask(params, board):
    """The mover's own holes holding seeds."""
    if board[STATUS] != ONGOING:
        return NONE
    p = board[TO_MOVE]
    mask = NONE
    for site in range(HOLES):
        if board[OWNER + site] == p and board[site] > 0:
            mask |= bit(site)
    return mask


@njit(cache=True)
def _owned_seeds(board, player):
    total = 0
    for site in range(HOLES):
        if board[OWNER + site] == player:
            total += board[site]
    return total


@njit(cache=True)
def _capture(board, h, p, trace):
    """Take every seed in opponent-owned holes of ``h``'s column (not ``h``) into p's store."""
    take = 0
    for site in range(h % 6, HOLES, 6):
        if site != h and board[OWNER + site] != p:
            seeds = board[site]
            board[site] = 0
            if seeds > 0:
                take += seeds
                note(trace, CAPTURE, board, site, take)
    board[STORE + p] += take
    if take > 0:
        note(trace, BANK, board, STORE + p, 0)
    return take


@njit(cache=True)
def _turn(params, board, h, p, trace):
    """Sow one turn from hole ``h``: 0 the turn passes, 1 p moves again, -1 cut off."""
    route = params[P_ROUTE]
    hand = board[h]
    board[h] = 0
    note(trace, LIFT, board, h, hand)
    laps = 0
    while True:
        laps += 1
        for k in range(hand):
            h = NEXT[route, p, h]
            board[h] += 1
            note(trace, DROP, board, h, hand - k - 1)
        while True:  # judge the hole of the last seed
            if board[h] >= 2:
                if laps == params[P_MAX_LAPS]:
                    return -1
                hand = board[h]  # relay
                board[h] = 0
                note(trace, LIFT, board, h, hand)
                break
            if board[OWNER + h] != p and params[P_ANY_EMPTY] == 0:
                return 0
            if _capture(board, h, p, trace) == 0:
                return 0
            if params[P_NEW_TURN] == 1:
                return 1
            board[h] -= 1  # the capturing seed moves one hole on
            note(trace, LIFT, board, h, 1)
            h = NEXT[route, p, h]
            board[h] += 1
            note(trace, DROP, board, h, 0)


@njit(cache=True)
def _race_laps(params, board, at, hand, trace):
    """``race="lap_alternating"``: whole laps in turn, player 0 first; the winner or -1."""
    route = params[P_ROUTE]
    p = 0
    laps = 0
    while True:
        laps += 1
        h = at[p]
        for k in range(hand[p]):
            h = NEXT[route, p, h]
            board[h] += 1
            note(trace, DROP, board, h, hand[p] - k - 1 + hand[1 - p])
        at[p] = h
        hand[p] = 0
        if board[h] == 1:
            _sow_out(board, route, 1 - p, at[1 - p], hand[1 - p], trace)
            return p
        if laps == params[P_MAX_LAPS]:
            board[at[1 - p]] += hand[1 - p]  # the hand in the air goes back
            note(trace, SET, board, at[1 - p], 0)
            return -1
        hand[p] = board[h]
        board[h] = 0
        note(trace, LIFT, board, h, hand[0] + hand[1])
        p = 1 - p


@njit(cache=True)
def _race_seeds(params, board, at, hand, trace):
    """``race="seed_synchronous"``: one seed each per step, player 0 first; the winner or -1."""
    route = params[P_ROUTE]
    laps = 0
    while True:
        for p in range(2):
            h = NEXT[route, p, at[p]]
            at[p] = h
            board[h] += 1
            hand[p] -= 1
            note(trace, DROP, board, h, hand[0] + hand[1])
            if hand[p] > 0:
                continue
            laps += 1
            if board[h] == 1:
                _sow_out(board, route, 1 - p, at[1 - p], hand[1 - p], trace)
                return p
            if laps == params[P_MAX_LAPS]:
                board[at[1 - p]] += hand[1 - p]
                note(trace, SET, board, at[1 - p], 0)
                return -1
            hand[p] = board[h]
            board[h] = 0
            note(trace, LIFT, board, h, hand[0] + hand[1])


@njit(cache=True)
def _sow_out(board, route, p, h, hand, trace):
    """The race's loser sows the seeds in hand on from ``h``, without relay."""
    for k in range(hand):
        h = NEXT[route, p, h]
        board[h] += 1
        note(trace, DROP, board, h, hand - k - 1)


@njit(cache=True)
def _race(params, board, trace):
    """Run the race of a new round and give the first turn to its winner."""
    if params[P_RACE] == 2:
        board[TO_MOVE] = 0
        return
    # both players lift their first hole at once: ``at`` is where each hand is, ``hand`` its seeds
    route = params[P_ROUTE]
    at = np.array([ROUTE[route, 0, 0], ROUTE[route, 1, 0]])
    hand = np.array([board[at[0]], board[at[1]]])
    board[at[0]] = 0
    note(trace, LIFT, board, at[0], hand[0])
    board[at[1]] = 0
    note(trace, LIFT, board, at[1], hand[0] + hand[1])
    if params[P_RACE] == 0:
        winner = _race_laps(params, board, at, hand, trace)
    else:
        winner = _race_seeds(params, board, at, hand, trace)
    if winner < 0:
        board[STATUS] = TIMEOUT
    else:
        board[TO_MOVE] = winner


@njit(cache=True)
def _round_over(params, board):
    """Who takes the seeds left when the round ends now: 0 or 1, or -1 if it goes on."""
    mover = board[TO_MOVE]
    if _owned_seeds(board, mover) == 0:
        return 1 - mover
    if params[P_EITHER_ENDS] == 1 and _owned_seeds(board, 1 - mover) == 0:
        return mover
    return -1


@njit(cache=True)
def _decide(board):
    a, b = board[STORE], board[STORE + 1]
    board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def _reload(params, board, trace):
    """End of a round: decide the game, or share 3 seeds a hole along the routes."""
    t0, t1 = board[STORE], board[STORE + 1]
    if params[P_SINGLE_ROUND] == 1 or t0 <= 1 or t1 <= 1:
        _decide(board)  # a player with at most 1 seed cannot fill a hole: the other wins
        return
    a = 0 if t0 <= t1 else 1  # the poorer player (player 0 if equal)
    remainder = board[STORE + a] % 3
    if remainder == 2:
        board[STORE + a] += 1
        board[STORE + 1 - a] -= 1
    elif remainder == 1:
        board[STORE + a] -= 1
        board[STORE + 1 - a] += 1
    note(trace, SET, board, STORE + a, 0)
    note(trace, SET, board, STORE + 1 - a, 0)
    filled = np.zeros(HOLES, dtype=np.bool_)
    route = params[P_ROUTE]
    for player in (a, 1 - a):
        holes = board[STORE + player] // 3
        i = 0
        while holes > 0:
            site = ROUTE[route, player, i]
            i += 1
            if not filled[site]:
                filled[site] = True
                board[site] = 3
                board[OWNER + site] = player
                note(trace, SET, board, site, 0)
                holes -= 1
    board[STORE] = 0
    note(trace, SET, board, STORE, 0)
    board[STORE + 1] = 0
    note(trace, SET, board, STORE + 1, 0)
    board[ROUND] += 1
    _race(params, board, trace)


@njit(cache=True)
def _end_rounds(params, board, trace):
    """The round-end check after a turn or a race, repeated while rounds end at once."""
    while board[STATUS] == ONGOING:
        taker = _round_over(params, board)
        if taker < 0:
            return
        for site in range(HOLES):
            bank_hole(board, site, STORE + taker, trace)
        _reload(params, board, trace)


@njit(cache=True)
def play(params, board, move, trace=None):
    """Play the legal move ``move`` in place (and any round end, reload and race it causes),
    noting each change in ``trace`` (see mancalab.sowing)."""
    p = board[TO_MOVE]
    result = _turn(params, board, move, p, trace)
    if result < 0:
        board[STATUS] = TIMEOUT
        return
    board[TO_MOVE] = p if result == 1 else 1 - p
    _end_rounds(params, board, trace)


@njit(cache=True)
def begin(params, board):
    """Start a round from a freshly filled board: the race, then the round-end check."""
    _race(params, board, None)
    _end_rounds(params, board, None)


@njit(cache=True)
def score(params, board, player):
    """The seeds in ``player``'s store."""
    return board[STORE + player]


@njit(cache=True)
def holdings(params, board, player):
    """The seeds ``player`` would hold if the round ended now: store plus own holes.

    The stores are emptied at every reload, so the store margin says nothing about rounds won;
    the holdings carry over (a reload fills a player's holes with them), which makes them what
    search weighs (``mancalab.kernels.material``)."""
    held = board[STORE + player]
    for site in range(HOLES):
        if board[OWNER + site] == player:
            held += board[site]
    return held


@njit(cache=True)
def settle(params, board):
    """A position given directly whose round is over is ended (and the next one begun)."""
    _end_rounds(params, board, None)


@njit(cache=True)
def stop(params, board):
    """The end for endless play (docs/gabata3.md): each player banks the seeds of the holes
    they own, as at the end of a round; the larger store wins the game."""
    for site in range(HOLES):
        bank_hole(board, site, STORE + board[OWNER + site], None)
    a, b = board[STORE], board[STORE + 1]
    board[STATUS] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)
