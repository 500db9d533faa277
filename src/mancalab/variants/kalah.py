"""Kalah(m, n) with the FairKalah rules and its 254 fair start boards.

Rules: docs/rules/kalah.md (Neller's FairKalah; the defaults are the patent rules: empty
capture, the game ends as soon as either side is empty). Cells (Neller's layout):
``0..m-1`` player 0's pits in sowing order, ``m`` player 0's store, ``m+1..2m`` player 1's
pits, ``2m+1`` player 1's store. The board adds ``to_move`` and ``status``.
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib import resources

import numpy as np
from numba import njit

from ..core import (
    DRAW,
    ONGOING,
    WIN_0,
    WIN_1,
    IllegalMoveError,
    InvalidPositionError,
    Kernels,
    Option,
    State,
    UnknownOptionError,
    Variant,
    choice,
    whole,
    whole_range,
)
from ..movemask import NONE
from ..sowing import BANK, CAPTURE, DROP, LIFT, note
from .common import (SeedStores, bank_hole, flag, nonempty_pits, parse_number, pit_sum,
                     store_grid)

GAME_ID = 1  # params[0], see mancalab.kernels
P_PITS, P_EMPTY_CAPTURE, P_END_RULE = 1, 2, 3  # params slots
END_RULES = ("side_empty", "no_move")
FAIR_BOARDS = 254
MAX_PITS = 30  # the legal moves of any position fit core.MAX_MOVES


@njit(cache=True)
def legal_mask(params, board):
    """The mover's non-empty pits."""
    if board[-1] != ONGOING:
        return NONE
    m = params[P_PITS]
    return nonempty_pits(board, board[-2] * (m + 1), m)


@njit(cache=True, inline="always")
def _side_sum(board, m, player):
    return pit_sum(board, player * (m + 1), m)


@njit(cache=True, inline="always")
def _sweep(board, m, trace):
    """Each player banks the seeds left on their own side; the larger store wins."""
    for player in range(2):
        first = player * (m + 1)
        for pit in range(first, first + m):
            bank_hole(board, pit, first + m, trace)
    a, b = board[m], board[2 * m + 1]
    board[-1] = WIN_0 if a > b else (WIN_1 if b > a else DRAW)


@njit(cache=True)
def _apply_end_rule(params, board, trace):
    """The end of the game where the end rule says so: one compiled function for ``play``
    and ``settle`` (inlined into both, numba compiled it twice: a first small solve 0.35 s)."""
    m = params[P_PITS]
    if params[P_END_RULE] == 0:  # side_empty: either side empty ends the game
        if _side_sum(board, m, 0) == 0 or _side_sum(board, m, 1) == 0:
            _sweep(board, m, trace)
    elif _side_sum(board, m, board[-2]) == 0:  # no_move: the player to move is starved
        _sweep(board, m, trace)


@njit(cache=True)
def play(params, board, move, trace=None):
    """Sow one lap from ``move`` (skipping the opponent's store), capture, extra turn, end.
    Each change is noted in ``trace`` (see mancalab.sowing)."""
    m = params[P_PITS]
    mover = board[-2]
    own = m if mover == 0 else 2 * m + 1
    other = 2 * m + 1 if mover == 0 else m
    size = 2 * m + 2
    hand = board[move]
    board[move] = 0
    note(trace, LIFT, board, move, hand)
    pos = move
    while hand > 0:
        pos += 1
        if pos == size:
            pos = 0
        if pos == other:
            continue
        board[pos] += 1
        hand -= 1
        note(trace, DROP, board, pos, hand)
    if pos != own:
        board[-2] = 1 - mover
        first = mover * (m + 1)
        if first <= pos < first + m and board[pos] == 1:
            opposite = 2 * m - pos
            if params[P_EMPTY_CAPTURE] == 1 or board[opposite] > 0:
                taken = board[opposite] + 1
                if taken > 1:  # (with empty_capture the opposite pit may be empty)
                    board[opposite] = 0
                    note(trace, CAPTURE, board, opposite, taken - 1)
                board[pos] = 0
                note(trace, CAPTURE, board, pos, taken)
                board[own] += taken
                note(trace, BANK, board, own, 0)
    _apply_end_rule(params, board, trace)


@njit(cache=True)
def score(params, board, player):
    """The seeds in ``player``'s store."""
    m = params[P_PITS]
    return board[m + player * (m + 1)]


@njit(cache=True)
def settle(params, board):
    """A position given directly that already meets the end rule is swept at once."""
    if board[-1] == ONGOING:
        _apply_end_rule(params, board, None)  # typed as play passes it: compiled once


@njit(cache=True)
def stop(params, board):
    """The end for endless play (docs/kalah.md): each player banks their own side, as at the
    end of a game. (Kalah cannot repeat a position; the rule still holds for agreement.)"""
    _sweep(board, params[P_PITS], None)


@lru_cache(maxsize=None)
def fair_boards(pits: int = 6, seeds: int = 4,
                empty_capture: bool = True) -> dict[int, tuple[int, ...]]:
    """The fair start boards of Kalah(pits, seeds) by number, from the shipped data files
    (empty when none is known). Kalah(6,4) has the 254 FairKalah boards (Ludii's "Board #"),
    under either capture rule (so that the numbers in earlier records keep their boards);
    the other sizes have the boards ``mancalab fair`` found for their capture rule
    (docs/kalah.md). The list it found for Kalah(6,4) without empty capture is published
    data (``screened_boards``), not a numbering of the ``board`` option."""
    if (pits, seeds) == (6, 4):
        return _read_boards("data/fairkalah_boards.txt")
    return screened_boards(pits, seeds, empty_capture)


def screened_boards(pits: int, seeds: int,
                    empty_capture: bool = True) -> dict[int, tuple[int, ...]]:
    """The boards ``mancalab fair`` found fair for these rules and shipped, by number
    (``src/mancalab/data/fair/``; empty when none is shipped)."""
    rule = "ec" if empty_capture else "noec"
    return _read_boards(f"data/fair/kalah-{pits}-{seeds}-{rule}.txt")


def _read_boards(name: str) -> dict[int, tuple[int, ...]]:
    source = resources.files("mancalab").joinpath(name)
    if not source.is_file():
        return {}
    boards = {}
    for line in source.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            number, cells = line.split()
            boards[int(number)] = tuple(int(c) for c in cells.split(","))
    return boards


def known_fair_sizes() -> list[str]:
    """The Kalah sizes and capture rules with shipped fair boards, in words."""
    found = ["Kalah(6,4)"]
    folder = resources.files("mancalab").joinpath("data/fair")
    if folder.is_dir():
        for entry in sorted(folder.iterdir(), key=lambda e: e.name):
            _, pits, seeds, rule = entry.name.removesuffix(".txt").split("-")
            if (pits, seeds) == ("6", "4"):  # the board option keeps the FairKalah boards
                continue
            found.append(f"Kalah({pits},{seeds}) {'with' if rule == 'ec' else 'without'} "
                         "empty capture")
    return found


def _board_option(value):
    """``"standard"``, ``"random"`` (resolved to a number when the game is made, so it is
    recorded) or a fair board number."""
    if isinstance(value, str) and value.strip().lower() in ("standard", "random"):
        return value.strip().lower()
    return whole(value)



@njit(cache=True)
def step(params, board, move):
    """``play``, then the new position's legal moves: a step from Python in one call."""
    play(params, board, move)
    return legal_mask(params, board)

class Kalah(SeedStores, Variant):
    name = "kalah"
    game_id = GAME_ID
    lessons = ("sow", "extra_turn", "capture")
    examples = ({"pits": 4, "seeds": 3, "empty_capture": False, "end_rule": "no_move"},
                {"board": 12})
    levels = {"medium": "alphabeta:depth=2", "hard": "alphabeta:time=1",
              "expert": "perfect:time=1,turn=2"}
    title = "Kalah (FairKalah rules)"
    score_noun = "seeds in store"
    solver = "search"
    # solved by search over its own databases; the layout serves exact random play (every
    # move banks a seed or moves seeds nearer their owner's store: nothing comes round again)
    @property
    def graph_layout(self) -> dict:
        m = self.options["pits"]
        return {"slots": tuple(range(m)) + tuple(range(m + 1, 2 * m + 1)), "unit": 1,
                "step": 1, "margin_step": 1, "acyclic": True}

    # 16 seeds on first use: Kalah(6,4)'s start is solved soonest end to end over 15 or 16
    # (5 s to build, 8 s to search on 2 cores; over 18 seeds, 15 s and 7 s)
    on_demand_seeds = 16
    preparation = (("database", 18, 17, 300, 87), ("start", None, 40, 1331, 0))
    puzzles, puzzle_seeds = "best", 36
    option_specs = {
        "pits": whole_range(6, 1, MAX_PITS, f"pits per side, 1..{MAX_PITS}"),
        "seeds": whole_range(4, 1, 100, "seeds per pit at the start, 1..100"),
        "empty_capture": flag(True),
        "end_rule": choice("side_empty", END_RULES),
        "board": Option("standard", _board_option,
                        lambda v: v in ("standard", "random") or v >= 1,
                        f"standard, random or a fair board number (1..{FAIR_BOARDS} for "
                        "Kalah(6,4): the FairKalah boards; other sizes: docs/kalah.md)",
                        choices=("standard", "random"), low=1, high=FAIR_BOARDS),
    }
    # No position recurs: stores never shrink, and a move that adds nothing to a store
    # moves the mover's seeds along their own row only, towards the store (the sum of their
    # places grows) and leaves the other row as it was.
    recurs = False
    kernels = Kernels(legal_mask, play, score, settle, stop=stop, step=step)

    def __init__(self, **options) -> None:
        super().__init__(**options)
        m = self.options["pits"]
        self.n_cells = 2 * m + 2
        self.max_moves = m
        self.move_hint = f"a pit (1-{m}, 1 next to your store)"
        if self.options["board"] != "standard":
            self.options["board"] = self._fair_board(self.options["board"])

    def _fair_board(self, board: int | str) -> int:
        """The number of a fair board of these rules (``random``: one drawn now)."""
        m, n = self.pits, self.options["seeds"]
        boards = fair_boards(m, n, self.options["empty_capture"])
        if not boards:
            raise UnknownOptionError(f"no fair boards are known for Kalah({m},{n}) with these "
                                     f"rules; there are for {', '.join(known_fair_sizes())}")
        if board == "random":
            return random.randint(1, len(boards))
        if board > len(boards):
            raise UnknownOptionError(f"board must be 1..{len(boards)} for Kalah({m},{n}), "
                                     f"got {board}")
        return board

    def fair_starts(self) -> list[dict]:
        if self.options["board"] != "standard":
            return []
        boards = fair_boards(self.pits, self.options["seeds"], self.options["empty_capture"])
        return [{"board": number} for number in sorted(boards)]

    def random_starts(self) -> list[dict]:
        if (self.pits, self.options["seeds"]) != (6, 4) or self.options["board"] != "standard":
            return []
        return [{"board": number} for number in range(1, FAIR_BOARDS + 1)]

    def make_params(self) -> np.ndarray:
        end_rule = END_RULES.index(self.options["end_rule"])
        return np.array([GAME_ID, self.options["pits"], int(self.options["empty_capture"]),
                         end_rule], dtype=np.int64)

    @property
    def pits(self) -> int:
        return self.options["pits"]

    @property
    def total_seeds(self) -> int:
        return 2 * self.pits * self.options["seeds"]

    def start_cells(self) -> list[int]:
        board = self.options["board"]
        if board != "standard":
            return list(fair_boards(self.pits, self.options["seeds"],
                                    self.options["empty_capture"])[board])
        row = [self.options["seeds"]] * self.pits
        return row + [0] + row + [0]

    def turn_cells(self) -> list[int]:
        return [(cell + self.pits + 1) % self.n_cells for cell in range(self.n_cells)]

    def action_cells(self, player: int) -> list[int]:
        """Pits 1..m, pit 1 next to the mover's store."""
        last = self.pits - 1 if player == 0 else 2 * self.pits
        return [last - k for k in range(self.pits)]

    def check_cells(self, cells: list[int]) -> None:
        if sum(cells) != self.total_seeds:
            raise InvalidPositionError(
                f"seeds do not add up: the cells hold {sum(cells)}, must be {self.total_seeds}")

    # ----- notation: pit k is k holes from the mover's own store -------------------
    def pit_number(self, move: int) -> int:
        return (self.pits - move) if move < self.pits else (2 * self.pits + 1 - move)

    def move_name(self, state: State, move: int) -> str:
        return str(self.pit_number(move))

    def parse_move(self, state: State, text: str) -> int:
        k = parse_number(text, 1, self.pits, "pit")
        if state.is_over:
            raise IllegalMoveError("the game is over")
        pit = self.pits - k if state.to_move == 0 else 2 * self.pits + 1 - k
        if state.cells[pit] == 0:
            raise IllegalMoveError(f"pit {k} is empty: choose a pit with seeds")
        return pit

    # ----- drawing -----------------------------------------------------------------
    def grid(self, state: State) -> list[list[int | None]]:
        return store_grid(self.pits)

    def cell_owner(self, state: State, index: int) -> int | None:
        return 0 if index <= self.pits else 1

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        if index in (self.pits, 2 * self.pits + 1) or self.cell_owner(state, index) != viewer:
            return None
        return str(self.pit_number(index))
