"""The alpha-beta player: ``mancalab.search``'s iterative deepening by time (``time=T``
seconds a move), by game clock (``clock=C`` seconds a game, FairKalah style: a share of what
is left each move) or to a fixed depth."""

from __future__ import annotations

import time

from ..core import MancalabError, Option, State, real, whole
from ..search import MAX_DEPTH, NO_TABLES, Search
from .base import Player, seed_option
from .book import for_variant as opening_book


class AlphaBetaPlayer(Player):
    """Alpha-beta by time (default 1 s a move), by game clock, or to a fixed depth."""

    name = "alphabeta"
    thinks_by_clock = True
    option_specs = {
        "time": Option(1.0, real, lambda v: v > 0, "seconds a move, above 0"),
        "clock": Option(0.0, real, lambda v: v >= 0,
                        "seconds for the whole game (0: use time a move)"),
        "depth": Option(0, whole, lambda v: 0 <= v <= MAX_DEPTH,
                        f"a fixed depth 1..{MAX_DEPTH} (0: search by time)"),
        "tables": Option(1, whole, lambda v: v in (0, 1),
                         "1: use the game's endgame tables where built (Oware: `mancalab db "
                         "build oware`), 0: not"),
        "book": Option(1, whole, lambda v: v in (0, 1),
                       "1: play the game's opening book where it holds the position (Oware; "
                       "not with depth=), 0: not"),
        "seed": seed_option("alpha-beta is deterministic; kept for a uniform spec"),
    }

    def __init__(self, **options) -> None:
        super().__init__(**options)
        self.search = Search()
        self.new_game()

    def stop(self) -> None:
        super().stop()
        self.search.stop()  # the search in another thread gives up at its next node

    def new_game(self) -> None:
        """Forget the last game: a full clock and an empty transposition table."""
        self.clock_left = self.options["clock"]
        self.moves_played = 0
        self.search.clear()

    def budget(self) -> float:
        """Seconds for this move: the time option, or a share of the clock left."""
        if not self.options["clock"]:
            return self.capped(self.options["time"])
        expected_moves_left = max(10, 30 - self.moves_played)
        return self.capped(max(0.01, min(self.clock_left / expected_moves_left,
                                         self.clock_left / 3)))

    def choose(self, state: State) -> int:
        legal = state.legal_moves()
        if not legal:
            raise MancalabError("the game is over: there is no move to choose")
        started = time.perf_counter()
        budget = self.budget()
        fixed = self.options["depth"]
        booked = None if fixed or len(legal) == 1 else self.book_move(state)
        if len(legal) == 1 and not fixed:
            move, value, depth, nodes = legal[0], None, 0, 0
        elif booked is not None:
            (move, value), depth, nodes = booked, 0, 0
        else:
            self.search.stopped = self.stopped
            self.search.tables = tables_for(state.variant, self.options["tables"])
            move, value, depth, nodes = self.search.deepen(
                state, budget, fixed, unlimited=bool(fixed) and self.cap is None,
                history=self.history(state), keep_time=bool(self.options["clock"]))
        seconds = time.perf_counter() - started
        self.moves_played += 1
        if self.options["clock"]:
            self.clock_left = max(0.0, self.clock_left - seconds)
        self.last_info = {"value": value, "depth": depth, "nodes": nodes, "seconds": seconds,
                          "book": booked is not None}
        return move

    def book_move(self, state: State) -> tuple[int, int] | None:
        """The opening book's move and value in ``state``, if the book holds it and its move
        does not repeat a position of the game (where that ends the game)."""
        if not self.options["book"]:
            return None
        book = opening_book(state.variant)
        found = book and book.moves.get(state)
        if not found or state.play(found[0]) in set(self.history(state)):
            return None
        return found


def tables_for(variant, wanted: int) -> tuple:
    """The endgame tables the search of ``variant`` takes (``search.NO_TABLES``: none)."""
    if not wanted:
        return NO_TABLES
    from ..analysis.solving import oware_tables

    return oware_tables.for_search(variant)
