"""Tiny, an example game from another package: 2x3 pits of 2 seeds, one lap sown
anticlockwise; a last seed that makes an even count in the opponent's row is captured with
them; a player with no seed on their row to move ends the game, and the other takes the rest.

Everything mancalab needs is here: the compiled kernels, the layout, the notation and the
facts, in one ``Variant`` subclass that the package's entry point names
(``[mancalab.games] tiny = mancalab_tiny:Tiny``, docs/adding-a-game.md).
"""

import numpy as np
from numba import njit

from mancalab.core import DRAW, ONGOING, WIN_0, WIN_1, IllegalMoveError, InvalidPositionError
from mancalab.core import Kernels, State, Texts, Variant
from mancalab.movemask import NONE, bit
from mancalab.sowing import BANK, CAPTURE, DROP, LIFT, note

GAME_ID = 100  # a plugin's id: 100 or more, its own
PITS, SEEDS = 3, 2
STORES = 2 * PITS  # cells 6 (A) and 7 (B)


@njit(cache=True)
def legal_mask(params, board):
    if board[-1] != ONGOING:
        return NONE
    mask = NONE
    for pit in range(board[-2] * PITS, board[-2] * PITS + PITS):
        if board[pit] > 0:
            mask |= bit(pit)
    return mask


@njit(cache=True)
def _end_if_starved(board, trace):
    mover = board[-2]
    if legal_mask(np.zeros(1, np.int64), board) != NONE:
        return
    other = 1 - mover
    for pit in range(2 * PITS):
        seeds = board[pit]
        if seeds > 0:
            board[pit] = 0
            note(trace, CAPTURE, board, pit, seeds)
            board[STORES + other] += seeds
            note(trace, BANK, board, STORES + other, 0)
    a, b = board[STORES], board[STORES + 1]
    board[-1] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def play(params, board, move, trace=None):
    mover = board[-2]
    hand = board[move]
    board[move] = 0
    note(trace, LIFT, board, move, hand)
    pos = move
    while hand > 0:
        pos = (pos + 1) % (2 * PITS)
        board[pos] += 1
        hand -= 1
        note(trace, DROP, board, pos, hand)
    if pos // PITS != mover and board[pos] % 2 == 0:
        seeds = board[pos]
        board[pos] = 0
        note(trace, CAPTURE, board, pos, seeds)
        board[STORES + mover] += seeds
        note(trace, BANK, board, STORES + mover, 0)
    board[-2] = 1 - mover
    _end_if_starved(board, trace)


@njit(cache=True)
def score(params, board, player):
    return board[STORES + player]


@njit(cache=True)
def settle(params, board):
    if board[-1] == ONGOING:
        _end_if_starved(board, None)


@njit(cache=True)
def stop(params, board):
    for pit in range(2 * PITS):
        board[STORES + pit // PITS] += board[pit]
        board[pit] = 0
    a, b = board[STORES], board[STORES + 1]
    board[-1] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


class Tiny(Variant):
    name = "tiny"
    game_id = GAME_ID
    title = "Tiny (an example plugin game)"
    n_cells = 2 * PITS + 2
    max_moves = PITS
    texts = Texts(score_noun="seeds", move_hint="a pit (1-3)")
    kernels = Kernels(legal_mask, play, score, settle, stop=stop)

    def make_params(self):
        return np.array([GAME_ID], dtype=np.int64)

    def key_widths(self):
        return [4] * self.n_cells + [1]

    def start_cells(self):
        return [SEEDS] * (2 * PITS) + [0, 0]

    def turn_cells(self):
        return [(pit + PITS) % (2 * PITS) for pit in range(2 * PITS)] + [STORES + 1, STORES]

    def action_cells(self, player):
        return [player * PITS + k for k in range(PITS)]

    def check_cells(self, cells):
        if sum(cells) != 2 * PITS * SEEDS:
            raise InvalidPositionError(f"seeds do not add up: {sum(cells)}, must be 12")

    def move_name(self, state, move):
        return str(move % PITS + 1)

    def parse_move(self, state, text):
        token = text.strip()
        if token not in ("1", "2", "3"):
            raise IllegalMoveError(f"{token!r} is not a pit: type 1-3")
        pit = state.to_move * PITS + int(token) - 1
        if state.is_over or state.cells[pit] == 0:
            raise IllegalMoveError(f"pit {token} cannot be played")
        return pit

    def grid(self, state: State):
        return [[None, 5, 4, 3, None], [7, None, None, None, 6], [None, 0, 1, 2, None]]

    def cell_owner(self, state, index):
        return index - STORES if index >= STORES else index // PITS

    def cell_label(self, state, viewer, index):
        if index >= STORES or self.cell_owner(state, index) != viewer:
            return None
        return str(index % PITS + 1)
