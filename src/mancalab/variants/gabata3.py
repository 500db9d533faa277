"""3-row Gabata: the game's descriptor (options, notation, drawing, levels); its compiled
rules are ``mancalab.variants.rules.gabata3`` (docs/rules/gabata3.md).
"""

from __future__ import annotations

import numpy as np

from ..core import (IllegalMoveError, InvalidPositionError, Kernels, Solving,
                    State, Teaching, Texts, Variant, choice, whole)
from .common import flag, lap_guard
from .rules.gabata3 import (
    GAME_ID,
    HOLES,
    OWNER,
    ROUND,
    STORE,
    begin,
    holdings,
    legal_mask,
    play,
    score,
    settle,
    step,
    stop,
)

SEEDS = 54
ROUTES = ("loop", "abalala_s")
RACES = ("lap_alternating", "seed_synchronous", "none")
AFTER_CAPTURE = ("move_on", "new_turn")
ROUND_ENDS = ("to_move", "either")
ROUNDS = ("multi", "single")
ROUND_ONE_OWNER = [0] * 6 + [1, 1, 1, 0, 0, 0] + [1] * 6


def _column_row(text: str) -> int:
    token = text.strip().upper()
    if len(token) != 2 or token[0] not in "ABCDEF" or token[1] not in "123":
        raise IllegalMoveError(f"{text.strip()!r} is not a hole: type a column A-F and a row "
                               "1-3, e.g. D2")
    return 6 * (int(token[1]) - 1) + "ABCDEF".index(token[0])


class Gabata3(Variant):
    name = "gabata3"
    game_id = GAME_ID
    teaching = Teaching(
        lessons=("sow", "relay", "capture", "round_end"), puzzles="capture",
        levels={"easy": "mcts:time=0.1", "medium": "greedy", "hard": "alphabeta:depth=2",
                "expert": "alphabeta:time=0.1"})
    examples = ({"route": "abalala_s", "race": "seed_synchronous", "after_capture": "new_turn"},)
    title = "3-row Gabata (race start, rounds)"
    n_cells = 20
    n_extra = 19  # owner of each hole, round
    max_moves = HOLES
    extra_names = ("owner", "round")
    solving = Solving(
        not_solved="its reloads make the position depend on the round (not built yet)")
    race_option = "race"  # every round begins with a race (RACES; "none": player 0 begins)
    texts = Texts(score_noun="seeds in store",
                  move_hint="a hole (column A-F and row 1-3, e.g. D2)")
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
