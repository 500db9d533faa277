"""Exact values of positions: MTD(f) over a compiled null-window alpha-beta, with a
transposition table of bounds, enhanced transposition cutoffs, futility bounds and probes
into the endgame databases (``mancalab.analysis.databases``).

The value of a position is the final margin of the game's score for the player to move under
perfect play, the stores already banked included. For Kalah the stores do not change how the
game is played, so the search works on the pits alone and values *the future net gain* g of
the mover (the value is the store difference plus g): the table, the databases and every
transposition are shared by positions that differ only in their stores.

- ``test(pits, gamma)`` answers "is g >= gamma?" with a fail-soft bound (a null window);
  MTD(f) narrows [lower, upper] with such tests until they meet.
- An extra turn is not a ply for the opponent: the child's value is added, not negated, and
  its window is shifted by what the move banked, not flipped.
- Futility: |g| <= the seeds in play, so a window outside that range is answered at once.
- Enhanced transposition cutoffs: before searching any child, children already settled by
  the end of the game, the database or a bound in the table are looked at for a cutoff.
- Move order: the table's best move, then by an estimate: what the move banks, an extra turn,
  and the middle of the child's bounds left in the table by earlier tests (MTD(f)'s tests
  order each other: on Kalah(6,3) a quarter to a third fewer nodes than by gain alone).
- Work is counted in nodes; a solve given ``time`` stops a test when its node budget (from
  the measured rate) runs out and reports the bounds proven so far, never a guess.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from numba import njit

from ..core import MancalabError, State, Variant
from ..variants import kalah
from . import databases
from .databases import child_of, index, to_board

MAX_PLY = 1024  # far deeper than any line of play between database positions
NODES, LIMIT, ABORTED, DEEP = 0, 1, 2, 3  # stats slots
EMPTY_LOW, EMPTY_HIGH = -32000, 32000
DEFAULT_TABLE_BITS = 24  # 16 M entries, 13 bytes each
ON_DEMAND_SEEDS = 16  # a database built when none exists (6 s for Kalah(6,*) on 2 cores)


class SolveError(MancalabError):
    """A position that cannot be solved here (the message says why)."""


@njit(cache=True, inline="always")
def _hashes(pits):
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
def _store(tt_check, tt_low, tt_high, tt_move, slot, check, value, gamma, move):
    if tt_check[slot] != check:
        tt_check[slot] = check
        tt_low[slot], tt_high[slot] = EMPTY_LOW, EMPTY_HIGH
    if value >= gamma:
        if value > tt_low[slot]:
            tt_low[slot] = value
        tt_move[slot] = move
    elif value < tt_high[slot]:
        tt_high[slot] = value


@njit(cache=True, nogil=True)
def test(params, root, gamma, db, binom, db_seeds, tt_check, tt_low, tt_high, tt_move, stats):
    """Is g(``root``) >= ``gamma``? Returns (v, best move): v >= gamma and g >= v, or
    v < gamma and g <= v. ``root`` is in play and holds more seeds than the database.
    (0, -1) with ``stats[ABORTED]`` when the node budget ``stats[LIMIT]`` runs out.
    An explicit stack, one frame a ply: numba cannot cache a recursive function."""
    m = params[kalah.P_PITS]
    n = 2 * m
    mask = np.uint64(tt_check.shape[0] - 1)
    pits = np.empty((MAX_PLY, n), dtype=np.int64)
    gam = np.empty(MAX_PLY, dtype=np.int64)
    kids = np.empty((MAX_PLY, m, n), dtype=np.int64)
    kid_gain = np.empty((MAX_PLY, m), dtype=np.int64)
    kid_est = np.empty((MAX_PLY, m), dtype=np.int64)
    kid_again = np.empty((MAX_PLY, m), dtype=np.bool_)
    kid_move = np.empty((MAX_PLY, m), dtype=np.int64)
    order = np.empty((MAX_PLY, m), dtype=np.int64)
    n_kids = np.zeros(MAX_PLY, dtype=np.int64)
    next_kid = np.zeros(MAX_PLY, dtype=np.int64)
    best = np.zeros(MAX_PLY, dtype=np.int64)
    best_move = np.zeros(MAX_PLY, dtype=np.int64)
    slots = np.zeros(MAX_PLY, dtype=np.int64)
    checks = np.zeros(MAX_PLY, dtype=np.uint64)
    board = np.empty(n + 4, dtype=np.int64)
    child = np.empty(n, dtype=np.int64)
    pits[0] = root
    gam[0] = gamma
    ply = 0
    entering = True
    value = 0
    while True:
        if entering:
            stats[NODES] += 1
            if stats[NODES] > stats[LIMIT]:
                stats[ABORTED] = 1
                return 0, -1
            p = pits[ply]
            g = gam[ply]
            seeds = 0
            for i in range(n):
                seeds += p[i]
            settled = True
            if seeds < g:  # futility: -seeds <= g(p) <= seeds
                value = seeds
            elif -seeds >= g:
                value = -seeds
            else:
                h1, check = _hashes(p)
                slot = np.int64(h1 & mask)
                slots[ply], checks[ply] = slot, check
                low, high, first = -seeds, seeds, -1
                if tt_check[slot] == check:
                    low = max(low, np.int64(tt_low[slot]))
                    high = min(high, np.int64(tt_high[slot]))
                    first = tt_move[slot]
                if low >= g:
                    value = low
                elif high < g:
                    value = high
                else:  # expand: look at every child, cut at once if one settles it
                    top, top_move, count = np.int64(-EMPTY_HIGH), np.int64(-1), 0
                    for move in range(m):
                        if p[move] == 0:
                            continue
                        to_board(params, p, board)
                        kalah.play(params, board, move)
                        gain, again, left, over = child_of(params, board, child)
                        known = False
                        estimate = gain + (1 if again else 0)  # for the move order
                        if over:
                            v, known = gain, True
                        elif left <= db_seeds:
                            stored = np.int64(db[index(child, left, binom)])
                            v, known = (gain + stored if again else gain - stored), True
                        else:
                            c1, c2 = _hashes(child)
                            cs = np.int64(c1 & mask)
                            if tt_check[cs] == c2:  # enhanced transposition cutoff
                                if again and gain + tt_low[cs] >= g:
                                    v, known = gain + np.int64(tt_low[cs]), True
                                elif not again and gain - tt_high[cs] >= g:
                                    v, known = gain - np.int64(tt_high[cs]), True
                                # else order by what earlier tests left in the table
                                middle = (max(np.int64(tt_low[cs]), -left)
                                          + min(np.int64(tt_high[cs]), left)) // 2
                                estimate = gain + middle if again else gain - middle
                        if known:
                            if v > top:
                                top, top_move = v, move
                            if top >= g:
                                break
                        else:
                            kids[ply, count] = child
                            kid_gain[ply, count] = gain
                            kid_est[ply, count] = estimate
                            kid_again[ply, count] = again
                            kid_move[ply, count] = move
                            count += 1
                    best[ply], best_move[ply] = top, top_move
                    if top >= g:
                        value = top
                        _store(tt_check, tt_low, tt_high, tt_move, slot, check, value, g,
                               top_move)
                    elif count == 0:
                        value = top
                        _store(tt_check, tt_low, tt_high, tt_move, slot, check, value, g,
                               top_move)
                    else:
                        for i in range(count):  # the table's move, then by the estimate
                            order[ply, i] = i
                        for i in range(1, count):
                            key_i = order[ply, i]
                            j = i - 1
                            while j >= 0 and _rank_before(kid_move[ply, key_i],
                                                          kid_est[ply, key_i],
                                                          kid_move[ply, order[ply, j]],
                                                          kid_est[ply, order[ply, j]],
                                                          first):
                                order[ply, j + 1] = order[ply, j]
                                j -= 1
                            order[ply, j + 1] = key_i
                        n_kids[ply] = count
                        next_kid[ply] = 0
                        settled = False
            if settled:
                if ply == 0:
                    return value, (best_move[0] if value >= gamma else -1)
                ply -= 1
                entering = False
                continue
        else:  # the child searched last returned ``value``
            i = order[ply, next_kid[ply] - 1]
            v = kid_gain[ply, i] + value if kid_again[ply, i] else kid_gain[ply, i] - value
            if v > best[ply]:
                best[ply], best_move[ply] = v, kid_move[ply, i]
            if best[ply] >= gam[ply]:
                next_kid[ply] = n_kids[ply]  # cut: no more children here
        if next_kid[ply] < n_kids[ply]:
            if ply + 1 >= MAX_PLY:
                stats[DEEP] = 1
                stats[ABORTED] = 1
                return 0, -1
            i = order[ply, next_kid[ply]]
            next_kid[ply] += 1
            pits[ply + 1] = kids[ply, i]
            gain = kid_gain[ply, i]
            gam[ply + 1] = gam[ply] - gain if kid_again[ply, i] else gain - gam[ply] + 1
            ply += 1
            entering = True
            continue
        value = best[ply]
        _store(tt_check, tt_low, tt_high, tt_move, slots[ply], checks[ply], value, gam[ply],
               best_move[ply])
        if ply == 0:
            return value, (best_move[0] if value >= gamma else -1)
        ply -= 1
        entering = False


@njit(cache=True, inline="always")
def _rank_before(move_a, estimate_a, move_b, estimate_b, first):
    """Whether child a is searched before child b: the table's best move first, then by the
    estimate (what the move banks, an extra turn, and the child's bounds in the table)."""
    if move_a == first:
        return move_b != first
    if move_b == first:
        return False
    return estimate_a > estimate_b


# ----- the Python side ----------------------------------------------------------------
@dataclass
class SolveResult:
    """What ``solve`` found: the exact value when ``exact``, else the proven bounds."""

    value: int | None  # the final margin for the player to move (None when not proven)
    exact: bool
    lower: int
    upper: int
    best_moves: list[int]  # cells; empty when not proven
    best_move_names: list[str]
    moves: dict[int, tuple[int, int]] = field(default_factory=dict)  # move: (lower, upper)
    move_names: dict[int, str] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    database_seeds: int | None = None

    def to_dict(self) -> dict:
        out = {"value": self.value, "exact": self.exact, "lower": self.lower,
               "upper": self.upper, "best_moves": self.best_move_names, "nodes": self.nodes,
               "seconds": round(self.seconds, 4), "database_seeds": self.database_seeds}
        if self.moves:
            out["moves"] = [{"move": self.move_names[m], "value": lo if lo == hi else None,
                             "lower": lo, "upper": hi} for m, (lo, hi) in self.moves.items()]
        return out


class Solver:
    """The search tables of one rule set, kept between solves (a batch of positions does not
    pay a table reset each time), and the endgame database it probes."""

    def __init__(self, variant: Variant, database: databases.Database | None,
                 table_bits: int = DEFAULT_TABLE_BITS) -> None:
        self.variant = variant
        self.database = database
        size = 1 << table_bits
        self.tt_check = np.zeros(size, dtype=np.uint64)
        self.tt_low = np.zeros(size, dtype=np.int16)
        self.tt_high = np.zeros(size, dtype=np.int16)
        self.tt_move = np.zeros(size, dtype=np.int8)
        if database is None:
            self.db, self.db_seeds = np.zeros(1, dtype=np.int8), -1
            self.binom = databases.binomials(2 * variant.options["pits"] + 2)
        else:
            self.db, self.db_seeds, self.binom = database.values, database.seeds, database.binom
        self.rate = 2e6  # nodes a second, measured as it goes
        self.stats = np.zeros(4, dtype=np.int64)
        self.nodes = 0  # searched since the last solve began

    def g(self, pits: np.ndarray, deadline: float | None,
          progress: Callable[[int, int], None] | None = None) -> tuple[int, int, int]:
        """Bounds on the mover's future gain from ``pits`` (mover's pits first), and a best
        move (-1 if none proven): (lower, upper, move). Exact when lower == upper."""
        seeds = int(pits.sum())
        if seeds <= self.db_seeds:
            value = int(self.db[index(pits, seeds, self.binom)])
            return value, value, -1
        lower, upper, move = -seeds, seeds, -1
        guess = self.guess(pits)
        while lower < upper:
            gamma = min(max(guess, lower + 1), upper)
            value, found = self._test(pits, gamma, deadline)
            if value is None:
                break
            if value >= gamma:
                lower, move = value, int(found)
            else:
                upper = value
            guess = value
            if progress:
                progress(lower, upper)
        return lower, upper, move

    def guess(self, pits: np.ndarray) -> int:
        """MTD(f)'s first guess of g: a short alpha-beta search (a good guess saves whole
        null-window tests: from 0, Kalah(6,4)'s +10 took seven)."""
        from ..players.alphabeta import WIN, AlphaBetaPlayer

        if pits.sum() < self.guess_from_seeds:  # small positions: a test costs less
            return 0
        m = self.variant.options["pits"]
        cells = list(pits[:m]) + [0] + list(pits[m:]) + [0]
        rest = self.variant.total_seeds - int(pits.sum())  # stores that make the count right
        cells[m], cells[2 * m + 1] = rest - rest // 2, rest // 2
        state = self.variant.state(cells, 0)
        if state.is_over:
            return 0
        adviser = AlphaBetaPlayer(time=self.guess_seconds)
        adviser.choose(state)
        value = adviser.last_info.get("value")
        if value is None:
            return 0
        if abs(value) > WIN // 2:  # a won or lost game: the margin is what is left
            value -= WIN if value > 0 else -WIN
        return int(value) - (cells[m] - cells[2 * m + 1])

    guess_seconds = 0.3
    guess_from_seeds = 30

    def _test(self, pits, gamma, deadline):
        stats = self.stats
        stats[:] = 0
        stats[LIMIT] = (np.iinfo(np.int64).max if deadline is None
                        else max(1000, int((deadline - _time.perf_counter()) * self.rate)))
        started = _time.perf_counter()
        value, move = test(self.variant.params, pits, gamma, self.db, self.binom, self.db_seeds,
                           self.tt_check, self.tt_low, self.tt_high, self.tt_move, stats)
        spent = _time.perf_counter() - started
        self.nodes += int(stats[NODES])
        if stats[NODES] > 100_000:
            self.rate = stats[NODES] / max(spent, 1e-6)
        if stats[DEEP]:
            raise SolveError(f"a line of play deeper than {MAX_PLY} moves: not solvable here")
        if stats[ABORTED]:
            return None, -1
        return int(value), int(move)


_SOLVERS: dict[tuple, Solver] = {}


def solver_for(variant: Variant, database: databases.Database | None = None,
               build: bool = True) -> Solver:
    """The solver of ``variant``'s rules, made once per process: it opens the largest
    database built for those rules, or builds a small one (``ON_DEMAND_SEEDS``)."""
    databases.check_variant(variant)
    key = tuple(sorted(databases._rules(variant).items()))
    if database is not None:
        key += (database.seeds,)
    if key not in _SOLVERS:
        if database is None:
            database = databases.best_available(variant)
        if database is None and build:
            database = databases.ensure(variant, ON_DEMAND_SEEDS)
        _SOLVERS[key] = Solver(variant, database)
    return _SOLVERS[key]


def mover_pits(state: State) -> np.ndarray:
    """The pits as the player to move sees them: their own m first, then the opponent's."""
    m = state.variant.options["pits"]
    cells = state.cells
    own = cells[:m] if state.to_move == 0 else cells[m + 1: 2 * m + 1]
    other = cells[m + 1: 2 * m + 1] if state.to_move == 0 else cells[:m]
    return np.array(list(own) + list(other), dtype=np.int64)


def store_margin(state: State) -> int:
    a, b = state.score
    return a - b if state.to_move == 0 else b - a


def solve(state: State, time: float | None = None, moves: bool = False,
          database: databases.Database | None = None,
          on_bounds: Callable[[int, int], None] | None = None,
          solver: Solver | None = None) -> SolveResult:
    """The exact value of ``state`` for the player to move (its final margin under perfect
    play, the stores banked included), its best moves, and with ``moves`` every legal move's
    value. ``time`` (seconds) bounds the work: what is not proven by then is returned as
    bounds, ``exact`` False. ``on_bounds(lower, upper)`` is told as the bounds tighten.
    By default the solver of the game's rules kept in this process is used (its table warm
    from earlier solves), with the largest database built for those rules."""
    if not isinstance(state, State):
        raise SolveError(f"solve takes a State, got {type(state).__name__}")
    if time is not None and not (isinstance(time, (int, float)) and 0 < time < 1e9):
        raise SolveError(f"time must be a number of seconds above 0, got {time!r}")
    started = _time.perf_counter()
    deadline = None if time is None else started + time
    if state.is_over:
        margin = store_margin(state)
        return SolveResult(margin, True, margin, margin, [], [], seconds=0.0)
    solver = solver or solver_for(state.variant, database)
    solver.nodes = 0
    base = store_margin(state)

    def told(lower, upper):
        if on_bounds:
            on_bounds(base + lower, base + upper)

    lower, upper, _move = solver.g(mover_pits(state), deadline, told)
    result = SolveResult(base + lower if lower == upper else None, lower == upper,
                         base + lower, base + upper, [], [],
                         database_seeds=None if solver.database is None
                         else solver.database.seeds)
    legal = state.legal_moves()
    if result.exact or moves:
        for move in legal:
            bounds = _move_bounds(solver, state, move, deadline,
                                  None if moves else result.value)
            if moves:
                result.moves[move] = bounds
                result.move_names[move] = state.move_name(move)
            if result.exact and bounds[0] >= result.value:
                result.best_moves.append(move)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    result.nodes = solver.nodes
    result.seconds = _time.perf_counter() - started
    return result


def _move_bounds(solver: Solver, state: State, move: int, deadline: float | None,
                 target: int | None) -> tuple[int, int]:
    """Bounds on the value of ``move`` for the player to move in ``state``; with ``target``
    only whether it reaches ``target`` is settled (one null-window test)."""
    child = state.play(move)
    if child.is_over:
        a, b = child.score
        margin = a - b if state.to_move == 0 else b - a
        return margin, margin
    same = child.to_move == state.to_move
    base = store_margin(child)
    pits = mover_pits(child)
    seeds = int(pits.sum())
    if target is not None and seeds > solver.db_seeds:
        # does the move reach the value? one test: g(child) >= target - base (same mover),
        # or g(child) <= base - target (the opponent moves next)
        gamma = target - base if same else -target - base + 1
        value, _ = solver._test(pits, gamma, deadline)
        if value is None:
            return -seeds - abs(base), seeds + abs(base)
        proven_high = value >= gamma  # g(child) >= value, else g(child) <= value
        if same:
            return (base + value, base + seeds) if proven_high else (base - seeds, base + value)
        return ((-(base + seeds), -(base + value)) if proven_high
                else (-(base + value), -(base - seeds)))
    lower, upper, _ = solver.g(pits, deadline)
    if same:
        return base + lower, base + upper
    return -(base + upper), -(base + lower)
