"""The player protocol: anything with ``choose(state) -> move`` plays; this base adds options."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from .. import kernels
from ..core import MancalabError, Option, State, resolve_options, whole


def seed_option(use: str) -> Option:
    """The ``seed`` option every player takes, so one spec form fits them all."""
    return Option(None, lambda v: v if v is None else whole(v), lambda v: v is None or v >= 0,
                  f"a whole number >= 0 ({use})")


def new_seed() -> int:
    """A fresh random seed for a player created without one."""
    return int.from_bytes(os.urandom(4), "little")


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


class Player:
    """Base of mancalab's players: options from a spec string, and info on the last choice.

    ``last_info`` holds what the last ``choose`` found (playouts, seconds, value), for display.
    """

    name = ""
    option_specs: dict[str, Option] = {}
    # True for players whose strength is the time they think (mcts, alphabeta): the arena's
    # --time fills in their time; the classic bot's time only caps its fixed look-ahead.
    thinks_by_clock = False

    def __init__(self, **options: Any) -> None:
        self.options = resolve_options(f"the player {self.name}", self.option_specs, options)
        self.last_info: dict[str, Any] = {}
        # Set by a server (``limit``): no move may take longer, or use more threads,
        # whatever the options say.
        self.cap: float | None = None
        self.thread_cap: int | None = None
        # Set by a referee with a game clock before each move: seconds left to each player
        # (player 0, player 1). Engines are told it; mancalab's players keep their own clock.
        self.clock: tuple[float, float] | None = None
        self.stopped = False
        self.game: Sequence[State] = ()  # the game's positions so far (``remember``)

    def limit(self, seconds: float, threads: int | None = None) -> Player:
        """Never think longer than ``seconds`` a move (playouts, depths and clocks included),
        nor (``threads``) in more threads than that."""
        self.cap = seconds
        self.thread_cap = threads
        return self

    def remember(self, states: Sequence[State]) -> Player:
        """Be told the game's positions so far, the one to choose in last (a record's
        ``states``): where a position's recurrence ends the game (Oware), a search sees that a
        move repeating one ends it. A driver tells it before each ``choose``."""
        self.game = states
        return self

    def history(self, state: State) -> Sequence[State]:
        """The game's positions before ``state``, as last remembered: none where no position
        can recur (``kernels.repetitions_of``), or if the positions remembered do not end at
        ``state``."""
        game = self.game
        if not game or not kernels.repetitions_of(state.variant) or game[-1] != state:
            return ()
        return game[:-1]

    def capped(self, seconds: float) -> float:
        """``seconds``, or the cap if that is shorter."""
        return seconds if self.cap is None else min(seconds, self.cap)

    def capped_threads(self, threads: int) -> int:
        """``threads``, or the thread cap if that is fewer."""
        return threads if self.thread_cap is None else min(threads, self.thread_cap)

    def stop(self) -> None:
        """Ask a ``choose`` running in another thread to end soon (its game was closed or the
        server stops); the move it returns then is its best so far. Players that think for
        long check ``stopped``; the rest are quick anyway."""
        self.stopped = True

    def close(self) -> None:
        """Free what the player holds outside Python (an engine's process); it may play again
        afterwards, starting afresh."""

    def accepts_end(self, state: State, seat: int | None = None) -> bool:
        """Whether this player, playing ``seat`` (by default the one not to move), agrees to
        end the game now by the rule for endless play (``State.stopped``): when the rule's
        result (win, draw or loss for it) is no worse than the one its own evaluation of the
        position expects (the material on the board for players that give no evaluation)."""
        seat = 1 - state.to_move if seat is None else seat
        ended = state.stopped().score
        by_rule = _sign(ended[seat] - ended[1 - seat])
        self.choose(state)
        value = self.last_info.get("value")
        if value is None:
            held = state.material
            expected = _sign(held[seat] - held[1 - seat])
        else:
            expected = _sign(value if seat == state.to_move else -value)  # the mover's
        return by_rule >= expected

    @property
    def spec(self) -> str:
        shown = {k: v for k, v in self.options.items() if v != self.option_specs[k].default}
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in shown.items()) if shown else "")

    def choose(self, state: State) -> int:
        raise NotImplementedError

    def choose_by_value(self, values: dict[int, int], started: float, lowest: bool = False) -> int:
        """The move of highest (``lowest``: lowest) value, the first in ``values``' order among
        equals; records the values in ``last_info``."""
        if not values:
            raise MancalabError("the game is over: there is no move to choose")
        move = (min if lowest else max)(values, key=lambda m: values[m])
        self.last_info = {"value": values[move], "values": values,
                          "seconds": time.perf_counter() - started}
        return move

    def __repr__(self) -> str:
        return f"mancalab.player({self.spec!r})"
