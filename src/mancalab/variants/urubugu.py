"""Urubugu (Burundi; igisoro), 4x8, as the dan4am/urubugu program plays it, quirks included.

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
)
from ..movemask import NONE, bit
from ..sowing import CAPTURE, DROP, LIFT, note
from .common import flag, lap_guard, parse_number

GAME_ID = 3  # params[0], see mancalab.kernels
(P_SINGLETONS, P_OCCUPIED_LANDING, P_BOTH_OPPOSITE, P_TURN_ORIGIN, P_WIPEOUT_ENDS,
 P_MAX_LAPS) = range(1, 7)
CELLS = 32
TO_MOVE, STATUS = 32, 33
BEADS_EACH = 32
ORIGINS = ("lap_origin", "turn_origin")


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

class Urubugu(Variant):
    name = "urubugu"
    game_id = GAME_ID
    has_setting = True
    setting_question = "arrange your 32 beads yourself?"
    setting_help = ("Type 16 counts for your holes 1 to 16 (hole 1 is the back-row hole on "
                    "your left; 9..16 come back along the front row), 32 beads in all; an "
                    "empty line keeps 2 per hole.")
    lessons = ("sow", "relay", "capture")
    examples = ({"singletons_playable": False, "capture_requires_both_opposite": True,
                 "captured_sow_origin": "turn_origin", "wipeout_ends_move": False},)
    levels = {"easy": "classic:level=4", "medium": "greedy"}
    title = "Urubugu (Burundi, 4x8)"
    n_cells = CELLS
    max_moves = 16
    score_noun = "beads"
    solver = "forced"
    puzzles = "wipeout"
    review_bands = (2, 4, 8)  # beads, of 64
    move_hint = "a hole (1-16)"
    option_specs = {
        "singletons_playable": flag(True),
        "capture_requires_occupied_landing": flag(False),
        "capture_requires_both_opposite": flag(False),
        "captured_sow_origin": choice("lap_origin", ORIGINS),
        "wipeout_ends_move": flag(True),
        "max_laps": lap_guard(),
    }
    kernels = Kernels(legal_mask, play, score, settle, stop=stop, step=step)

    def move_rank(self, cell: int) -> int:
        return int(CELL_HOLE[cell])  # moves are listed by hole number, 1..16

    def make_params(self) -> np.ndarray:
        o = self.options
        return np.array([GAME_ID, o["singletons_playable"], o["capture_requires_occupied_landing"],
                         o["capture_requires_both_opposite"],
                         ORIGINS.index(o["captured_sow_origin"]), o["wipeout_ends_move"],
                         o["max_laps"]], dtype=np.int64)

    def key_widths(self) -> list[int]:
        return [7] * CELLS + [1]  # a hole holds at most 64 beads

    def start_cells(self) -> list[int]:
        return [2] * CELLS

    def start(self, setting_a=None, setting_b=None) -> State:
        """The start, with each player's free setting if given (16 counts, hole 1 first)."""
        cells = self.start_cells()
        for player, setting in ((0, setting_a), (1, setting_b)):
            if setting is not None:
                for hole, count in enumerate(self.check_setting(setting, player), start=1):
                    cells[int(HOLE_CELL[player, hole])] = count
        return self.state(cells, to_move=0)

    @staticmethod
    def check_setting(setting, player: int) -> list[int]:
        """A free setting: 16 whole non-negative counts in hole order, 32 beads in all."""
        who = f"player {'AB'[player]}'s setting"
        try:
            counts = [int(c) for c in setting]
        except (TypeError, ValueError):
            raise InvalidPositionError(f"{who} must be 16 whole numbers, got {setting!r}") from None
        if len(counts) != 16:
            raise InvalidPositionError(f"{who} has {len(counts)} holes, must have 16")
        if min(counts) < 0:
            raise InvalidPositionError(f"{who} has a negative count")
        if sum(counts) != BEADS_EACH:
            raise InvalidPositionError(
                f"{who} holds {sum(counts)} beads; place exactly {BEADS_EACH}")
        return counts

    def turn_cells(self) -> list[int]:
        return [CELLS - 1 - cell for cell in range(CELLS)]

    def action_cells(self, player: int) -> list[int]:
        """Holes 1-16."""
        return [int(HOLE_CELL[player, hole]) for hole in range(1, 17)]

    def check_cells(self, cells: list[int]) -> None:
        # Fewer beads are fine (the spec's own examples use a handful); more cannot occur.
        if sum(cells) > 2 * BEADS_EACH:
            raise InvalidPositionError(
                f"too many beads: the cells hold {sum(cells)}, at most {2 * BEADS_EACH}")

    # ----- notation: the mover's own hole numbers 1..16 -----------------------------
    def move_name(self, state: State, move: int) -> str:
        return str(int(CELL_HOLE[move]))

    def parse_move(self, state: State, text: str) -> int:
        hole = parse_number(text, 1, 16, "hole")
        if state.is_over:
            raise IllegalMoveError("the game is over")
        cell = int(HOLE_CELL[state.to_move, hole])
        if cell not in state.legal_moves():
            count = state.cells[cell]
            why = "is empty" if count == 0 else "holds a single bead, which may not be played"
            raise IllegalMoveError(f"hole {hole} {why}")
        return cell

    # ----- drawing -----------------------------------------------------------------
    def grid(self, state: State) -> list[list[int | None]]:
        return [list(range(8 * row, 8 * row + 8)) for row in range(4)]

    def cell_owner(self, state: State, index: int) -> int | None:
        return 0 if index >= 16 else 1

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        return str(int(CELL_HOLE[index])) if self.cell_owner(state, index) == viewer else None
