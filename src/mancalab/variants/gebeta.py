"""Gebeta (Ethiopia): the game's descriptor (options, notation, drawing, levels); its
compiled rules are ``mancalab.variants.rules.gebeta`` (docs/rules/gebeta.md).
"""

from __future__ import annotations

import numpy as np

from ..core import (IllegalMoveError, InvalidPositionError, Kernels, Solving,
                    State, Teaching, Texts, Variant)
from .common import laps_option
from .rules.gebeta import (
    COUNTERS,
    FAMILIES,
    GAME_ID,
    HOMES,
    legal_mask,
    pack_key,
    play,
    score,
    settle,
    step,
    stop,
    unpack_key,
)

LETTERS = "ABCDEF"


class Gebeta(Variant):
    name = "gebeta"
    game_id = GAME_ID
    title = "Gebeta (Ethiopia)"
    n_cells = 14
    max_moves = 6
    solving = Solving(
        "retrograde",
        graph_layout={"slots": tuple(range(12)), "unit": 4, "step": 4, "margin_step": 1},
        on_demand_seeds=16,  # 8 s on first use (2 cores)
        book_seeds=16,
        preparation=(("database", 16, 10, 300, 29), ("book", 16, 333, 6758, 446)))
    teaching = Teaching(
        lessons=("sow", "relay", "family"),
        levels={"medium": "mcts:playouts=100",
                "expert": "perfect:time=1,fallback=mcts,threads=2,traps=false"},
        puzzles="best", puzzle_seeds=48,
        review_bands=(0, 1, 2))  # families: the whole game is often won by two
    texts = Texts(score_noun="families", move_hint="a home (A-F)")
    option_specs = {
        "lap_limit": laps_option(50, " (the reference program uses 50)"),
    }
    kernels = Kernels(legal_mask, play, score, settle, stop=stop, step=step,
                      pack_key=pack_key, unpack_key=unpack_key)

    def make_params(self) -> np.ndarray:
        return np.array([GAME_ID, self.options["lap_limit"]], dtype=np.int64)

    def key_widths(self) -> list[int]:
        # homes hold at most 48 counters (6 bits), families at most 12 (4 bits), the mover 1 bit
        return [6] * HOMES + [4, 4] + [1]

    key_words = 1  # packed by pack_key, not field by field

    def start_cells(self) -> list[int]:
        return [4] * HOMES + [0, 0]

    def turn_cells(self) -> list[int]:
        return [(home + 6) % HOMES for home in range(HOMES)] + [13, 12]

    def action_cells(self, player: int) -> list[int]:
        """Homes in sowing order from the mover's first: A-F for A, F-A for B (whose letters
        run the other way, as in the reference program)."""
        return [6 * player + k for k in range(6)]

    def check_cells(self, cells: list[int]) -> None:
        total = sum(cells[:HOMES]) + 4 * (cells[12] + cells[13])
        if total != COUNTERS:
            raise InvalidPositionError(
                f"counters do not add up: homes + 4 x families = {total}, must be {COUNTERS}")

    # ----- notation: letters A..F as seen from A's side, log "C1" / "C2" ------------
    @staticmethod
    def letter_index(player: int, letter: str) -> int:
        k = LETTERS.index(letter)
        return k if player == 0 else 11 - k

    def move_name(self, state: State, move: int) -> str:
        player = 0 if move < 6 else 1
        letter = LETTERS[move] if player == 0 else LETTERS[11 - move]
        return f"{letter}{player + 1}"

    def parse_move(self, state: State, text: str) -> int:
        """A letter A-F (either case) for the player to move, or the log form ``C1``/``C2``."""
        token = text.strip().upper()
        player = state.to_move
        if len(token) == 2 and token[1] in "12":
            if int(token[1]) != player + 1:
                raise IllegalMoveError(
                    f"{text.strip()!r} is a move of player {token[1]}, "
                    f"but player {player + 1} is to move")
            token = token[0]
        if len(token) != 1 or token not in LETTERS:
            raise IllegalMoveError(f"{text.strip()!r} is not a home: type a letter A-F")
        pit = self.letter_index(player, token)
        if state.is_over:
            raise IllegalMoveError("the game is over")
        if state.cells[pit] == 0:
            raise IllegalMoveError(f"home {token} is empty: choose a home with counters")
        return pit

    # ----- drawing -----------------------------------------------------------------
    def grid(self, state: State) -> list[list[int | None]]:
        return [list(range(11, 5, -1)), list(range(0, 6))]

    def cell_owner(self, state: State, index: int) -> int | None:
        if index >= HOMES:  # the families: cells 12 (A) and 13 (B)
            return index - FAMILIES
        return 0 if index < 6 else 1

    def cell_label(self, state: State, viewer: int, index: int) -> str | None:
        if index >= HOMES or self.cell_owner(state, index) != viewer:
            return None
        return LETTERS[index] if viewer == 0 else LETTERS[11 - index]
