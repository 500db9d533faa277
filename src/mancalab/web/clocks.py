"""Clocks kept by the server: Fischer (base time plus an increment after each move) or
correspondence (so many seconds, days in practice, for each move).

The server is the only authority: a clock stores each side's time left at the start of the
running turn and when that turn began (seconds since the epoch, so a restart goes on where
it stopped). The clock runs from the first move on (the first move is not timed, as on
lichess); a side whose time runs out loses even if nobody sends anything (``Hub`` keeps a
timer per clocked game), at the moment the time ran out.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field


@dataclass
class Clock:
    base: float
    increment: float
    per_move: bool = False  # correspondence: ``base`` seconds for each move, not in all
    remaining: list[float] = field(default_factory=list)  # each side's time at turn start
    running: int | None = None  # the side whose time runs, None before the first move/after
    since: float | None = None  # when the running side's turn began
    flagged: int | None = None  # the side whose time ran out
    ended_at: float | None = None  # when the game ended (by the clock: when time ran out)

    def __post_init__(self) -> None:
        if not self.remaining:
            self.remaining = [float(self.base), float(self.base)]

    @classmethod
    def of(cls, stored: dict | None) -> Clock | None:
        return None if stored is None else cls(**stored)

    def stored(self) -> dict:
        return asdict(self)

    def left(self, side: int, now: float | None = None) -> float:
        """``side``'s time left at ``now``."""
        now = time.time() if now is None else now
        spent = now - self.since if side == self.running and self.since is not None else 0.0
        return self.remaining[side] - spent

    def budget(self, side: int) -> float:
        """Seconds a computer playing ``side`` may think now: most of its increment and a
        fortieth of its time left, never more than half of it."""
        left = max(0.0, self.left(side))
        return max(0.05, min(left / 2, 0.8 * self.increment + left / 40))

    def deadline(self) -> float | None:
        """When the running side's time runs out (seconds since the epoch), or None."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.remaining[self.running]

    def moved(self, side: int, to_move: int | None, now: float | None = None) -> bool:
        """``side`` moved at ``now``: its time is charged (False when it had run out, and
        nothing changes) and its increment added; ``to_move``'s time runs next (None: the
        game is over, the clock stops)."""
        now = time.time() if now is None else now
        if side == self.running:
            left = self.left(side, now)
            if left <= 0:
                return False
            self.remaining[side] = self.base if self.per_move else left + self.increment
        self.running, self.since = to_move, (now if to_move is not None else None)
        if to_move is None:
            self.ended_at = now
        return True

    def flag(self) -> int:
        """The running side's time has run out: the clock stops at that moment."""
        side = self.running
        self.ended_at = self.deadline()
        self.remaining[side] = 0.0
        self.flagged, self.running, self.since = side, None, None
        return side

    def stop(self, now: float | None = None) -> None:
        """The game ended otherwise (a resignation, an agreement): the clock stops."""
        now = time.time() if now is None else now
        if self.running is not None:
            self.remaining[self.running] = max(0.0, self.left(self.running, now))
        self.running, self.since, self.ended_at = None, None, now

    def view(self, now: float | None = None) -> dict:
        now = time.time() if now is None else now
        return {"base": self.base, "increment": self.increment, "per_move": self.per_move,
                "remaining": [round(max(0.0, self.left(side, now)), 3) for side in (0, 1)],
                "running": self.running, "flagged": self.flagged, "ended_at": self.ended_at}
