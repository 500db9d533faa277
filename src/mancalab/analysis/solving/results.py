"""What every solver answers with and shares: the result of a solve, its errors, how a
solve is cancelled or timed, which games have a solver, and the position hash of the search
tables."""

from __future__ import annotations

import contextlib
import threading
import time as _time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ...core import MancalabError, State, Variant

NODES, LIMIT, ABORTED, DEEP = 0, 1, 2, 3  # the slots of a search's stats array


class SolveError(MancalabError):
    """A position that cannot be solved here (the message says why)."""


@dataclass
class SolveResult:
    """What ``solve`` found: the exact value when ``exact``, else the proven bounds."""

    value: int | None  # the final margin for the player to move (None when not proven)
    exact: bool
    lower: int
    upper: int
    # cells of moves proven to reach ``value`` (each one's own lower bound is the value);
    # empty when the value is not exact, or is but no move's proof finished in time
    best_moves: list[int]
    best_move_names: list[str]
    moves: dict[int, tuple[int, int]] = field(default_factory=dict)  # move: (lower, upper)
    move_names: dict[int, str] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    database_seeds: int | None = None
    # the search finished: bounds still apart (of the position or a move) are those of the
    # rule for endless play (Gebeta, Gabata: ``solving.repeating``)
    endless: bool = False
    # with ``moves`` (Gebeta, Gabata): per move, what it guarantees after each legal reply
    # (lower bounds): what a fallible opponent can give away after it
    replies: dict[int, list[int]] = field(default_factory=dict)
    # a search for forced ends (Urubugu: ``solving.forced``): the plies it reached
    depth: int | None = None

    def to_dict(self) -> dict:
        out = {"value": self.value, "exact": self.exact, "lower": self.lower,
               "upper": self.upper, "endless": self.endless and not self.exact,
               "best_moves": self.best_move_names, "nodes": self.nodes,
               "seconds": round(self.seconds, 4), "database_seeds": self.database_seeds}
        if self.depth is not None:
            out["depth"] = self.depth
        if self.moves:
            out["moves"] = [{"move": self.move_names[m], "value": lo if lo == hi else None,
                             "lower": lo, "upper": hi, "endless": self.endless and lo != hi}
                            for m, (lo, hi) in self.moves.items()]
        return out

    def answer(self) -> dict:
        """As a server's analysis says it: ``to_dict``, the best moves' cells and each
        move's cell."""
        out = self.to_dict()
        out["best_cells"] = list(self.best_moves)
        for entry, cell in zip(out.get("moves", []), self.moves):
            entry["cell"] = cell
        return out


class Cancel:
    """Stops the tests of one solve from another thread (a game closed, a server stopping):
    each running test gives up at its next node and the solve returns the bounds it has."""

    def __init__(self) -> None:
        self.cancelled = False
        self._running: list[np.ndarray] = []
        self._lock = threading.Lock()

    def cancel(self) -> None:
        with self._lock:
            self.cancelled = True
            for stats in self._running:
                stats[LIMIT] = 0

    def track(self, stats: np.ndarray) -> bool:
        """Follow a test about to run; False if the solve is cancelled already."""
        with self._lock:
            if self.cancelled:
                return False
            self._running.append(stats)
            return True

    def untrack(self, stats: np.ndarray) -> None:
        with self._lock:
            self._running = [s for s in self._running if s is not stats]


@contextlib.contextmanager
def timed(time: float | None, cancel: Cancel):
    """The deadline of a search given ``time`` seconds (None: no limit). The node budgets
    follow a measured rate; a timer cancelling the search makes the time sure."""
    if time is None:
        yield None
        return
    deadline = _time.perf_counter() + time
    timer = threading.Timer(time, cancel.cancel)
    timer.daemon = True
    timer.start()
    try:
        yield deadline
    finally:
        timer.cancel()


def settle_moves(result: SolveResult) -> None:
    """What an exact value proves of the moves' bounds: no move is worth more than the value,
    and a best move (proven by the root's own search) is worth exactly the value."""
    if not result.exact:
        return
    for move, (lower, upper) in result.moves.items():
        result.moves[move] = ((result.value if move in result.best_moves else lower),
                              min(upper, result.value))


def describe(value: int) -> str:
    """A value for the player it belongs to, in words."""
    return "draw" if value == 0 else (f"wins by {value}" if value > 0 else f"loses by {-value}")


def describe_bounds(lower: int, upper: int, endless: bool = False) -> str:
    """Bounds on a value, in words ("wins by 4", "between -2 and +4 (not proven)"); with
    ``endless`` the bounds are final and the rest depends on the rule for endless play."""
    if lower == upper:
        return describe(lower)
    why = "by the rule for endless play" if endless else "not proven"
    return f"between {lower:+d} and {upper:+d} ({why})"


def store_margin(state: State) -> int:
    a, b = state.score
    return a - b if state.to_move == 0 else b - a


def over(state: State) -> SolveResult:
    """A finished position's value: its final margin."""
    margin = store_margin(state)
    return SolveResult(margin, True, margin, margin, [], [], seconds=0.0)


def unsolvable(variant: Variant) -> str | None:
    """Why ``variant`` has no exact solver yet, or None."""
    if variant.solving.method is not None:
        return None
    from ...variants import VARIANTS

    covered = [cls.title.split(" (")[0] for cls in VARIANTS.values() if cls.solving.method]
    return (f"exact solving covers {', '.join(covered[:-1])} and {covered[-1]}; not "
            f"{variant.name}: {variant.solving.not_solved}")


def check_solvable(state: State, time: float | None) -> None:
    """SolveError unless ``state`` is a position of a game with a solver and ``time`` a
    number of seconds (or None)."""
    if not isinstance(state, State):
        raise SolveError(f"solve takes a State, got {type(state).__name__}")
    if time is not None and not (isinstance(time, (int, float)) and 0 < time < 1e9):
        raise SolveError(f"time must be a number of seconds above 0, got {time!r}")
    reason = unsolvable(state.variant)
    if reason:
        raise SolveError(reason)


@njit(cache=True, inline="always")
def hashes(pits):
    """Two independent 64-bit hashes of ``pits``: the slot, and the check kept there (a wrong
    match needs both to collide)."""
    h1 = np.uint64(0x9E3779B97F4A7C15)
    h2 = np.uint64(0xC2B2AE3D27D4EB4F)
    for i in range(pits.shape[0]):
        v = np.uint64(pits[i] + 1)
        h1 = (h1 ^ v) * np.uint64(0xBF58476D1CE4E5B9)
        h1 ^= h1 >> np.uint64(29)
        h2 = (h2 ^ (v * np.uint64(0x94D049BB133111EB))) * np.uint64(0x100000001B3)
        h2 ^= h2 >> np.uint64(31)
    return h1, h2 | np.uint64(1)  # never 0, the empty slot


@njit(cache=True, inline="always")
def spent(stats):
    """Count a node of a search; True (and ``stats[ABORTED]`` set) when that passes the
    node budget ``stats[LIMIT]`` (a timer or ``Cancel`` sets it to 0)."""
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
        return True
    return False
