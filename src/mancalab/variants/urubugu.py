"""Urubugu (Burundi): the game's descriptor (options, notation, drawing, levels); its
compiled rules are ``mancalab.variants.rules.urubugu`` (docs/rules/urubugu.md).
"""

from __future__ import annotations

import numpy as np

from ..core import (IllegalMoveError, InvalidPositionError, Kernels, Solving,
                    State, Teaching, Texts, Variant, choice)
from .common import flag, lap_guard, parse_number
from .rules.urubugu import (
    CELLS,
    CELL_HOLE,
    GAME_ID,
    HOLE_CELL,
    legal_mask,
    play,
    score,
    settle,
    step,
    stop,
)

BEADS_EACH = 32
ORIGINS = ("lap_origin", "turn_origin")


class Urubugu(Variant):
    name = "urubugu"
    game_id = GAME_ID
    has_setting = True
    texts = Texts(
        score_noun="beads", move_hint="a hole (1-16)",
        setting_question="arrange your 32 beads yourself?",
        setting_help="Type 16 counts for your holes 1 to 16 (hole 1 is the back-row hole on "
                     "your left; 9..16 come back along the front row), 32 beads in all; an "
                     "empty line keeps 2 per hole.")
    examples = ({"singletons_playable": False, "capture_requires_both_opposite": True,
                 "captured_sow_origin": "turn_origin", "wipeout_ends_move": False},)
    teaching = Teaching(lessons=("sow", "relay", "capture"), puzzles="wipeout",
                        levels={"easy": "classic:level=4", "medium": "greedy"},
                        review_bands=(2, 4, 8))  # beads, of 64
    title = "Urubugu (Burundi, 4x8)"
    n_cells = CELLS
    max_moves = 16
    solving = Solving("forced")
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
