"""Oware Abapa (Ghana): the game's descriptor (options, notation, drawing, levels); its
compiled rules are ``mancalab.variants.rules.oware`` (docs/rules/oware.md).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core import (History, IllegalMoveError, InvalidPositionError, Kernels,
                    Solving, State, Teaching, Texts, Variant, whole_range)
from .common import SeedStores
from .rules.oware import (
    GAME_ID,
    legal_mask,
    play,
    positional,
    score,
    settle,
    step,
    stop,
    table_bounds,
)

MAX_HOUSES = 26  # a house is a letter (and a mover's houses fit one move mask)
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Oware(SeedStores, Variant):
    name = "oware"
    game_id = GAME_ID
    examples = ({"houses": 3, "seeds": 2},)
    title = "Oware Abapa (Ghana)"
    texts = Texts(score_noun="seeds captured")
    # the first recurrence of a position ends the game (OpenSpiel's rule)
    history = History(repetitions=2, repetition_is_a_rule=True)
    teaching = Teaching(
        lessons=("sow", "capture"),
        levels={"easy": "classic:level=4", "medium": "greedy"},  # measured: docs/players.md
        # one move proven to win whatever came before, by the endgame tables (puzzles.py)
        puzzles="win", puzzle_seeds=12)
    option_specs = {
        "houses": whole_range(6, 1, MAX_HOUSES, f"houses per player, 1..{MAX_HOUSES}"),
        "seeds": whole_range(4, 1, 100, "seeds per house at the start, 1..100"),
        "move_cap": whole_range(1000, 1, 1_000_000,
                                "moves after which no move is taken, 1..1,000,000 (OpenSpiel: "
                                "1000)"),
    }
    kernels = Kernels(legal_mask, play, score, settle, stop=stop, step=step,
                      positional=positional, table_bounds=table_bounds)
    solving = Solving(not_solved=(
        "Oware has no exact values: its first recurrence of a position ends the game, so a "
        "position's value depends on the positions before it; its endgame tables bound it "
        "over every history (mancalab db build oware)"))

    def __init__(self, **options) -> None:
        super().__init__(**options)
        n = self.houses
        self.n_cells = 2 * n + 2
        self.max_moves = n
        self.texts = replace(self.texts, move_hint=f"a house ({LETTERS[0]}-{LETTERS[n - 1]})")
        self.history = replace(self.history, move_cap=self.options["move_cap"])

    def make_params(self) -> np.ndarray:
        return np.array([GAME_ID, self.options["houses"], self.options["seeds"]], dtype=np.int64)

    @property
    def houses(self) -> int:
        return self.options["houses"]

    @property
    def total_seeds(self) -> int:
        return 2 * self.houses * self.options["seeds"]

    def start_cells(self) -> list[int]:
        return [self.options["seeds"]] * (2 * self.houses) + [0, 0]

    def turn_cells(self) -> list[int]:
        n = self.houses
        return [(house + n) % (2 * n) for house in range(2 * n)] + [2 * n + 1, 2 * n]

    def action_cells(self, player: int) -> list[int]:
        """Houses in sowing order from the mover's first: OpenSpiel's action ids."""
        return [player * self.houses + a for a in range(self.houses)]

    def check_cells(self, cells: list[int]) -> None:
        if sum(cells) != self.total_seeds:
            raise InvalidPositionError(
                f"seeds do not add up: the cells hold {sum(cells)}, must be {self.total_seeds}")

    # ----- notation: OpenSpiel's letters, capitals for South, small letters for North ---
    def move_name(self, state: State, move: int) -> str:
        n = self.houses
        if move >= 2 * n:
            return "S" if move == 2 * n else "s"
        letter = LETTERS[move % n]
        return letter if move < n else letter.lower()

    def parse_move(self, state: State, text: str) -> int:
        """A house letter of the player to move (either case: ``D`` and ``d`` are both the
        mover's fourth house)."""
        n = self.houses
        token = text.strip()
        if len(token) != 1 or token.upper() not in LETTERS[:n]:
            raise IllegalMoveError(
                f"{token!r} is not a house: type a letter {LETTERS[0]}-{LETTERS[n - 1]}")
        house = state.to_move * n + LETTERS.index(token.upper())
        if state.is_over:
            raise IllegalMoveError("the game is over")
        if state.cells[house] == 0:
            raise IllegalMoveError(f"house {token} is empty: choose a house with seeds")
        if house not in state.legal_moves():
            raise IllegalMoveError(f"house {token} does not reach the other row, which is "
                                   "empty: a move must give the opponent seeds")
        return house

    # ----- drawing: South's row below, stores at the ends (South's on the right) ---------
    def grid(self, state: State) -> list[list[int | None]]:
        n = self.houses
        return [[None] + list(range(2 * n - 1, n - 1, -1)) + [None],
                [2 * n + 1] + [None] * n + [2 * n],
                [None] + list(range(n)) + [None]]

    def cell_owner(self, state: State, index: int) -> int | None:
        n = self.houses
        return index - 2 * n if index >= 2 * n else index // n

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        if index >= 2 * self.houses or self.cell_owner(state, index) != viewer:
            return None
        return self.move_name(state, index)
