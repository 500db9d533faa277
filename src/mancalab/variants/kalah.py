"""Kalah and the FairKalah boards: the game's descriptor (options, the fair boards, notation,
drawing, levels); its compiled rules are ``mancalab.variants.rules.kalah``
(docs/rules/kalah.md).
"""

from __future__ import annotations

from dataclasses import replace

import random
from functools import lru_cache
from importlib import resources

import numpy as np

from ..core import (
    History,
    IllegalMoveError,
    InvalidPositionError,
    Kernels,
    Option,
    Solving,
    State,
    Teaching,
    Texts,
    UnknownOptionError,
    Variant,
    choice,
    whole,
    whole_range,
)
from .common import SeedStores, flag, parse_number, store_grid
from .rules.kalah import (
    GAME_ID,
    legal_mask,
    play,
    score,
    settle,
    step,
    stop,
)

END_RULES = ("side_empty", "no_move")
FAIR_BOARDS = 254
MAX_PITS = 30  # the legal moves of any position fit core.MAX_MOVES


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


class Kalah(SeedStores, Variant):
    name = "kalah"
    game_id = GAME_ID
    examples = ({"pits": 4, "seeds": 3, "empty_capture": False, "end_rule": "no_move"},
                {"board": 12})
    title = "Kalah (FairKalah rules)"
    texts = Texts(score_noun="seeds in store")
    # solved by search over its own databases (its graph layout, for exact random play, is
    # the board's: ``__init__``)
    solving = Solving(
        "search",
        # 16 seeds on first use: Kalah(6,4)'s start is solved soonest end to end over 15 or
        # 16 (5 s to build, 8 s to search on 2 cores; over 18 seeds, 15 s and 7 s)
        on_demand_seeds=16,
        preparation=(("database", 18, 17, 300, 87), ("start", None, 40, 1331, 0)))
    teaching = Teaching(
        lessons=("sow", "extra_turn", "capture"),
        levels={"medium": "alphabeta:depth=2", "hard": "alphabeta:time=1",
                "expert": "perfect:time=1,turn=2"},
        puzzles="best", puzzle_seeds=36)
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
    history = History(recurs=False)
    kernels = Kernels(legal_mask, play, score, settle, stop=stop, step=step)

    def __init__(self, **options) -> None:
        super().__init__(**options)
        m = self.options["pits"]
        self.n_cells = 2 * m + 2
        self.max_moves = m
        self.texts = replace(self.texts, move_hint=f"a pit (1-{m}, 1 next to your store)")
        # every move banks a seed or moves seeds nearer their owner's store: nothing comes
        # round again
        self.solving = replace(self.solving, graph_layout={
            "slots": tuple(range(m)) + tuple(range(m + 1, 2 * m + 1)), "unit": 1, "step": 1,
            "margin_step": 1, "acyclic": True})
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
