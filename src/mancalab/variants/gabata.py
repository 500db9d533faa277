"""Gabata (Ethiopia, 2x6 with deposit slots), as Nathnael Bekele's Gabata program plays it.

Rules: docs/rules/gabata.md. Relays go through both rows, a last marble in an own empty pit
facing marbles is carried across, nothing is captured; the game ends when both rows are empty.
Cells: ``0..5`` player 0's pits, ``6`` player 0's deposit, ``7..12`` player 1's pits, ``13``
player 1's deposit. The board adds ``to_move`` and ``status``.
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
)
from ..movemask import NONE
from ..sowing import DROP, LIFT, note
from .common import lap_guard, nonempty_pits, parse_number, pit_sum, store_grid

GAME_ID = 2  # params[0], see mancalab.kernels
P_MAX_LAPS = 1
TO_MOVE, STATUS = 14, 15
MARBLES = 48


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
        # else relay from the non-empty pit ``pos``


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

class Gabata(Variant):
    name = "gabata"
    game_id = GAME_ID
    lessons = ("sow", "deposit", "extra_turn")
    levels = {"hard": "mcts:time=0.1",
              "expert": "perfect:time=1,turn=2,fallback=mcts,threads=2,traps=false"}
    title = "Gabata (Ethiopia, 2x6 with deposits)"
    n_cells = 14
    max_moves = 6
    score_noun = "marbles in the deposit"
    solver = "retrograde"
    # every marble ends banked: final margins are even
    graph_layout = {"slots": tuple(range(6)) + tuple(range(7, 13)), "unit": 1, "step": 1,
                    "margin_step": 2}
    on_demand_seeds = 12  # 1 s on first use (2 cores)
    preparation = (("database", 12, 2, 100, 6),)
    puzzles, puzzle_seeds = "best", 24
    move_hint = "a pit (1-6 from your left)"
    option_specs = {
        "max_laps": lap_guard(),
    }
    kernels = Kernels(legal_mask, play, score, settle, stop=stop, step=step)

    def make_params(self) -> np.ndarray:
        return np.array([GAME_ID, self.options["max_laps"]], dtype=np.int64)

    def key_widths(self) -> list[int]:
        return [6] * self.n_cells + [1]

    def start_cells(self) -> list[int]:
        return [4] * 6 + [0] + [4] * 6 + [0]

    def turn_cells(self) -> list[int]:
        return [(cell + 7) % 14 for cell in range(14)]

    def action_cells(self, player: int) -> list[int]:
        """Pits 1-6."""
        return [7 * player + k for k in range(6)]

    def check_cells(self, cells: list[int]) -> None:
        if sum(cells) != MARBLES:
            raise InvalidPositionError(
                f"marbles do not add up: the cells hold {sum(cells)}, must be {MARBLES}")

    # ----- notation: pit k = 1..6 from the mover's own left ------------------------
    def move_name(self, state: State, move: int) -> str:
        return str(move + 1 if move < 6 else move - 6)

    def parse_move(self, state: State, text: str) -> int:
        k = parse_number(text, 1, 6, "pit")
        if state.is_over:
            raise IllegalMoveError("the game is over")
        pit = k - 1 if state.to_move == 0 else 6 + k
        if state.cells[pit] == 0:
            raise IllegalMoveError(f"pit {k} is empty: choose a pit with marbles")
        return pit

    # ----- drawing -----------------------------------------------------------------
    def grid(self, state: State) -> list[list[int | None]]:
        return store_grid(6)

    def cell_owner(self, state: State, index: int) -> int | None:
        return 0 if index <= 6 else 1

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        if index in (6, 13) or self.cell_owner(state, index) != viewer:
            return None
        return self.move_name(state, index)
