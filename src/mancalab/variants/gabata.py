"""Gabata, 2x6 with deposits: the game's descriptor (options, notation, drawing, levels); its
compiled rules are ``mancalab.variants.rules.gabata`` (docs/rules/gabata.md).
"""

from __future__ import annotations

import numpy as np

from ..core import (IllegalMoveError, InvalidPositionError, Kernels, Solving,
                    State, Teaching, Texts, Variant)
from .common import lap_guard, parse_number, store_grid
from .rules.gabata import (
    GAME_ID,
    legal_mask,
    play,
    score,
    settle,
    step,
    stop,
)

MARBLES = 48


class Gabata(Variant):
    name = "gabata"
    game_id = GAME_ID
    title = "Gabata (Ethiopia, 2x6 with deposits)"
    n_cells = 14
    max_moves = 6
    solving = Solving(
        "retrograde",
        # every marble ends banked: final margins are even
        graph_layout={"slots": tuple(range(6)) + tuple(range(7, 13)), "unit": 1, "step": 1,
                      "margin_step": 2},
        on_demand_seeds=12,  # 1 s on first use (2 cores)
        preparation=(("database", 12, 2, 100, 6),))
    teaching = Teaching(
        lessons=("sow", "deposit", "extra_turn"),
        levels={"hard": "mcts:time=0.1",
                "expert": "perfect:time=1,turn=2,fallback=mcts,threads=2,traps=false"},
        puzzles="best", puzzle_seeds=24)
    texts = Texts(score_noun="marbles in the deposit", move_hint="a pit (1-6 from your left)")
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
