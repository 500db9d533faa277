"""3-row Gabata (Ethiopia/Eritrea): race start, relay sowing, column captures, rounds.

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

from ..core import (
    DRAW,
    ONGOING,
    TIMEOUT,
    WIN_0,
    WIN_1,
    IllegalMoveError,
    InvalidPositionError,
    Kernels,
    State,
    Variant,
    choice,
    whole,
)
from ..movemask import NONE, bit
from ..sowing import BANK, CAPTURE, DROP, LIFT, SET, note
from .common import bank_hole, flag, lap_guard

GAME_ID = 4  # params[0], see mancalab.kernels
(P_ROUTE, P_RACE, P_ANY_EMPTY, P_NEW_TURN, P_EITHER_ENDS, P_SINGLE_ROUND,
 P_MAX_LAPS) = range(1, 8)
HOLES = 18
STORE = 18  # STORE + p
OWNER = 20  # OWNER + site
ROUND = 38
TO_MOVE, STATUS = 39, 40
SEEDS = 54

ROUTES = ("loop", "abalala_s")
RACES = ("lap_alternating", "seed_synchronous", "none")
AFTER_CAPTURE = ("move_on", "new_turn")
ROUND_ENDS = ("to_move", "either")
ROUNDS = ("multi", "single")

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
ROUND_ONE_OWNER = [0] * 6 + [1, 1, 1, 0, 0, 0] + [1] * 6


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


def _column_row(text: str) -> int:
    token = text.strip().upper()
    if len(token) != 2 or token[0] not in "ABCDEF" or token[1] not in "123":
        raise IllegalMoveError(f"{text.strip()!r} is not a hole: type a column A-F and a row "
                               "1-3, e.g. D2")
    return 6 * (int(token[1]) - 1) + "ABCDEF".index(token[0])



@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)

class Gabata3(Variant):
    name = "gabata3"
    game_id = GAME_ID
    lessons = ("sow", "relay", "capture", "round_end")
    puzzles = "capture"
    examples = ({"route": "abalala_s", "race": "seed_synchronous", "after_capture": "new_turn"},)
    levels = {"easy": "mcts:time=0.1", "medium": "greedy", "hard": "alphabeta:depth=2",
              "expert": "alphabeta:time=0.1"}
    title = "3-row Gabata (race start, rounds)"
    n_cells = 20
    n_extra = 19  # owner of each hole, round
    max_moves = HOLES
    extra_names = ("owner", "round")
    score_noun = "seeds in store"
    not_solved = "its reloads make the position depend on the round (not built yet)"
    race_option = "race"  # every round begins with a race (RACES; "none": player 0 begins)
    move_hint = "a hole (column A-F and row 1-3, e.g. D2)"
    option_specs = {
        "route": choice("loop", ROUTES),
        "race": choice("lap_alternating", RACES, ", ".join(RACES)),
        "capture_in_any_empty_hole": flag(False),
        "after_capture": choice("move_on", AFTER_CAPTURE),
        "round_end": choice("to_move", ROUND_ENDS),
        "rounds": choice("multi", ROUNDS),
        "max_laps": lap_guard(),
    }
    kernels = Kernels(legal_mask, play, score, settle, holdings, stop, step=step)

    def make_params(self) -> np.ndarray:
        o = self.options
        return np.array([GAME_ID, ROUTES.index(o["route"]), RACES.index(o["race"]),
                         o["capture_in_any_empty_hole"], AFTER_CAPTURE.index(o["after_capture"]),
                         ROUND_ENDS.index(o["round_end"]), ROUNDS.index(o["rounds"]),
                         o["max_laps"]], dtype=np.int64)

    def key_widths(self) -> list[int]:
        return [6] * HOLES + [6, 6] + [1] * HOLES + [12] + [1]

    def start_cells(self) -> list[int]:
        return [3] * HOLES + [0, 0]

    def start(self) -> State:
        """Round 1 after its race (the race winner to move)."""
        board = self._board(self.start_cells(), 0, {})
        begin(self.params, board)
        return State(self, board)

    def extra_slots(self, extra: dict) -> list[int]:
        owner = extra.get("owner", ROUND_ONE_OWNER)
        if isinstance(owner, str):
            owner = owner.replace(",", "").strip()
        try:
            owner = [int(o) for o in owner]
            round_ = whole(extra.get("round", 1))
        except (TypeError, ValueError):
            raise InvalidPositionError(
                "owner must be 18 digits 0 or 1 and round a whole number") from None
        if len(owner) != HOLES or set(owner) - {0, 1}:
            raise InvalidPositionError("owner must give 0 or 1 for each of the 18 holes")
        if not 1 <= round_ <= 1_000_000:
            raise InvalidPositionError(f"round must be 1..1,000,000, got {round_}")
        return owner + [round_]

    def extra_of(self, board: np.ndarray) -> dict:
        return {"owner": [int(o) for o in board[OWNER:OWNER + HOLES]], "round": int(board[ROUND])}

    # The race's first lap and the reload's tie go to player 0.
    seat_symmetric = False

    def turn_cells(self) -> list[int]:
        return [HOLES - 1 - site for site in range(HOLES)] + [STORE + 1, STORE]

    def turn_extra(self, board: np.ndarray, out: np.ndarray) -> None:
        """Each hole's owner moves with the hole, and the owners swap."""
        owner = board[OWNER:OWNER + HOLES]
        out[OWNER:OWNER + HOLES] = 1 - owner[::-1]

    def action_cells(self, player: int) -> list[int]:
        """Every hole, as owners change between rounds: A1..F3 from player 0's seat, the same
        holes turned for player 1."""
        return list(range(HOLES)) if player == 0 else [HOLES - 1 - s for s in range(HOLES)]

    def observation_high(self) -> list[int]:
        return [SEEDS] * self.n_cells + [1] * HOLES + [1_000_000, 1]

    def check_cells(self, cells: list[int]) -> None:
        if sum(cells) != SEEDS:
            raise InvalidPositionError(
                f"seeds do not add up: the cells hold {sum(cells)}, must be {SEEDS}")

    def status_text(self, state: State) -> str:
        held = state.material
        # the seeds held decide the next round's holes, which the stores alone do not show
        return (f"Round {int(state.board[ROUND])} · seeds held (store + own holes): "
                f"A {held[0]}, B {held[1]}")

    # ----- notation: board coordinates from player 0's seat, e.g. D2 ---------------
    def move_name(self, state: State, move: int) -> str:
        return "ABCDEF"[move % 6] + str(move // 6 + 1)

    def parse_move(self, state: State, text: str) -> int:
        site = _column_row(text)
        if state.is_over:
            raise IllegalMoveError("the game is over")
        label = self.move_name(state, site)
        if state.board[OWNER + site] != state.to_move:
            raise IllegalMoveError(f"hole {label} belongs to your opponent")
        if state.cells[site] == 0:
            raise IllegalMoveError(f"hole {label} is empty: choose a hole with seeds")
        return site

    # ----- drawing -----------------------------------------------------------------
    def grid(self, state: State) -> list[list[int | None]]:
        # the stores at the ends of the middle row, as in Kalah's drawing
        return [[None] + list(range(12, 18)) + [None], [19] + list(range(6, 12)) + [18],
                [None] + list(range(0, 6)) + [None]]

    def cell_owner(self, state: State, index: int) -> int | None:
        if index >= HOLES:
            return index - STORE
        return int(state.board[OWNER + index])

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        """Only the viewer's own holes are labelled: ownership changes between rounds."""
        if index >= HOLES or self.cell_owner(state, index) != viewer:
            return None
        return self.move_name(state, index)
