"""The one entry to exact values: each game is solved by the method its ``Variant.solving.method``
names (``search``: Kalah's MTD(f) over endgame databases; ``retrograde``: Gebeta's and
Gabata's graphs over retrograde databases; ``forced``: Urubugu's search for forced ends)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ...core import State, Variant
from . import book, databases, forced, kalah, repeating, retrograde
from .results import Cancel, SolveError, SolveResult, check_solvable, over, unsolvable


@dataclass(frozen=True)
class Request:
    """What a solve is asked, in one object (``solve`` documents each field)."""

    time: float | None = None
    moves: bool = False
    database: databases.Database | retrograde.Database | None = None
    on_bounds: Callable[[int, int], None] | None = None
    solver: kalah.Solver | None = None
    build: bool = True
    cancel: Cancel | None = None
    parallel: bool = True
    exact_only: bool = False
    settle: bool = False


@dataclass(frozen=True)
class Database:
    """A kind's endgame databases by seeds in play: where one is kept, how many entries it
    has, and how it is built (``on_progress(level, done, total)`` told as it goes)."""

    path_of: Callable[[Variant, int], Path]
    entries: Callable[[Variant, int], int]
    ensure: Callable[..., object]


@dataclass(frozen=True)
class Method:
    """How one kind of game (``Variant.solving.method``) is solved: the solve, the database its
    solves use, what to open again after a background build, and its facts: whether its
    positions repeat (a graph walked, questions to settle, a start book), its endgame
    databases (None: it has none), the group of kernels (``_cache.compile_one``) that a
    first solve compiles in another process while its database builds, and what a server
    makes ready before a first capped move (``ready``)."""

    solve: Callable[[State, Request], SolveResult]
    database_for: Callable[[State, Callable | None], object]
    renew: Callable[[Variant], None]
    repeats: bool = False
    databases: Database | None = None
    compiles: str | None = None
    ready: Callable[[Variant], object] = lambda variant: None


def _search(state: State, r: Request) -> SolveResult:
    return kalah.solve(state, r.time, r.moves, r.database, r.on_bounds, r.solver, r.build,
                       r.cancel, r.parallel)


def _search_database(state: State, on_progress):
    return databases.best_available(state.variant) or databases.ensure(
        state.variant, state.variant.solving.on_demand_seeds, on_progress=on_progress)


def _repeating(state: State, r: Request) -> SolveResult:
    return repeating.solve(state, r.time, r.moves, r.database, r.build, r.cancel, r.on_bounds,
                           r.exact_only, r.parallel, r.settle)


def _renew_repeating(variant: Variant) -> None:
    retrograde.renew(variant)
    book.renew(variant)


METHODS: dict[str, Method] = {
    "search": Method(_search, _search_database, kalah.renew, compiles="solve",
                     databases=Database(
                         databases.path_of,
                         lambda variant, seeds: databases.entries(variant.options["pits"],
                                                                  seeds),
                         databases.ensure),
                     ready=kalah.solver_for),
    "retrograde": Method(_repeating, lambda state, on_progress: retrograde.database_for(
        state.variant, on_progress=on_progress), _renew_repeating, repeats=True,
        databases=Database(retrograde.path_of,
                           lambda variant, seeds: int(retrograde.plan(variant, seeds)[2]),
                           retrograde.ensure),
        ready=lambda variant: retrograde.database_for(variant)),
    "forced": Method(lambda state, r: forced.solve(state, r.time, r.moves, r.cancel,
                                                   r.on_bounds),
                     lambda state, on_progress: None, lambda variant: None),
}


def method_of(variant: Variant) -> Method:
    """The method of ``variant``'s kind; SolveError for a kind no method has."""
    method = METHODS.get(variant.solving.method)
    if method is None:
        raise SolveError(f"{variant.title} names the solver {variant.solving.method!r}, which "
                         f"mancalab does not have (solvers: {', '.join(METHODS)})")
    return method


def no_databases(variant: Variant) -> str | None:
    """Why ``variant`` has no endgame databases, or None."""
    reason = unsolvable(variant)
    if reason is None and method_of(variant).databases is None:
        return (f"{variant.name} keeps every bead in play, so there are no endgame databases "
                "by beads in play: `mancalab solve` searches for forced ends instead")
    return reason


def ready(variant: Variant) -> None:
    """Make ready what a first exact move of ``variant`` needs (its solver, its small
    database), so that no capped move spends its time on it; nothing for a game with no
    solver."""
    if variant.solving.method is not None:
        method_of(variant).ready(variant)


def repeats(variant: Variant) -> bool:
    """Whether ``variant``'s positions repeat, for its solver (a graph walked; ``settle``
    and a start book apply): False for a game with no solver."""
    return variant.solving.method is not None and method_of(variant).repeats


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
    (``threshold``: minutes and gigabytes for an opening position). The game's kind of
    solver (``Variant.solving.method``) picks the method (``METHODS``)."""
    check_solvable(state, time)
    if state.is_over:
        return over(state)
    return method_of(state.variant).solve(state, Request(
        time, moves, database, on_bounds, solver, build, cancel, parallel, exact_only, settle))


def database_for(state: State, on_progress: Callable[[int, int, int], None] | None = None):
    """The endgame database the solve of ``state`` uses: the largest built for its rules,
    else a small one built now (``on_progress(level, done, total)`` told as it goes)."""
    reason = unsolvable(state.variant)
    if reason:
        raise SolveError(reason)
    return method_of(state.variant).database_for(state, on_progress)


def renew(variant: Variant) -> None:
    """Open the files built for ``variant``'s rules since they were last looked for (a
    server's background build): the solvers kept take the largest database (their tables
    stay warm), and Gebeta's and Gabata's databases and book are looked for again."""
    if variant.solving.method is not None:
        method_of(variant).renew(variant)

