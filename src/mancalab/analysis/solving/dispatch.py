"""The one entry to exact values: each game is solved by the method its ``Variant.solver``
names (``search``: Kalah's MTD(f) over endgame databases; ``retrograde``: Gebeta's and
Gabata's graphs over retrograde databases; ``forced``: Urubugu's search for forced ends)."""

from __future__ import annotations

from collections.abc import Callable

from ...core import State, Variant
from . import book, databases, forced, kalah, repeating, retrograde
from .results import Cancel, SolveError, SolveResult, check_solvable, over, unsolvable


def solve(state: State, time: float | None = None, moves: bool = False,
          database: databases.Database | retrograde.Database | None = None,
          on_bounds: Callable[[int, int], None] | None = None,
          solver: kalah.Solver | None = None, build: bool = True,
          cancel: Cancel | None = None, parallel: bool = True,
          exact_only: bool = False, settle: bool = False) -> SolveResult:
    """The exact value of ``state`` for the player to move (its final margin under perfect
    play, the stores banked included), its best moves, and with ``moves`` every legal move's
    value. ``time`` (seconds) bounds the search (a database built first on demand is not
    counted; Urubugu's search, which has no end of its own, takes ``forced.DEFAULT_TIME``
    when none is given): what is not proven by then is returned as bounds, ``exact`` False.
    ``on_bounds(lower, upper)`` is told as the bounds tighten.
    By default the solver of the game's rules kept in this process is used (its table warm
    from earlier solves), with the largest database built for those rules (``build``: a
    small one is built if there is none). ``cancel`` stops it from another thread;
    ``exact_only`` (Gebeta, Gabata) does not settle the bounds of a walk cut short, and asks
    only the proof search in what is left of ``time`` (a player that only uses exact values); ``parallel`` False keeps all the work in
    the calling thread (a server's own low-priority search threads). Gebeta and Gabata:
    bounds a walk leaves apart are closed by yes-or-no questions to the proof search; with
    ``settle`` also by the attractor walk where the proof search finds no answer
    (``threshold``: minutes and gigabytes for an opening position)."""
    check_solvable(state, time)
    if state.is_over:
        return over(state)
    if state.variant.solver == "forced":
        return forced.solve(state, time, moves, cancel, on_bounds)
    if state.variant.solver == "retrograde":
        return repeating.solve(state, time, moves, database, build, cancel, on_bounds,
                               exact_only, parallel, settle)
    return kalah.solve(state, time, moves, database, on_bounds, solver, build, cancel, parallel)


def database_for(state: State, on_progress: Callable[[int, int, int], None] | None = None):
    """The endgame database the solve of ``state`` uses: the largest built for its rules,
    else a small one built now (``on_progress(level, done, total)`` told as it goes)."""
    reason = unsolvable(state.variant)
    if reason:
        raise SolveError(reason)
    if state.variant.solver == "forced":
        return None
    if state.variant.solver == "retrograde":
        return retrograde.database_for(state.variant, on_progress=on_progress)
    # 16 seeds: Kalah(6,4)'s start is solved soonest end to end over 15 or 16 (5 s to build,
    # 8 s to search on 2 cores; over 18 seeds, 15 s and 7 s)
    return databases.best_available(state.variant) or databases.ensure(
        state.variant, kalah.ON_DEMAND_SEEDS, on_progress=on_progress)


def renew(variant: Variant) -> None:
    """Open the files built for ``variant``'s rules since they were last looked for (a
    server's background build): the solvers kept take the largest database (their tables
    stay warm), and Gebeta's and Gabata's databases and book are looked for again."""
    if variant.solver == "retrograde":
        retrograde.renew(variant)
        book.renew(variant)
    elif variant.solver == "search":
        kalah.renew(variant)


def solved_by(kind: str) -> tuple[str, ...]:
    """The games whose exact values are found by ``kind`` (``Variant.solver``)."""
    from ...variants import VARIANTS

    return tuple(name for name, cls in VARIANTS.items() if cls.solver == kind)
