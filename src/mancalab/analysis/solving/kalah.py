"""Exact values of positions: MTD(f) over a compiled null-window alpha-beta, with a
transposition table of bounds, enhanced transposition cutoffs, futility bounds and probes
into the endgame databases (``databases``).

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
- Move order: the table's best move, then the extra turns, then by an estimate: what the
  move banks and the middle of the child's bounds left in the table by earlier tests
  (MTD(f)'s tests order each other: on Kalah(6,3) a quarter to a third fewer nodes than by
  gain alone); among equals the move nearest the store first (it keeps the other pits'
  extra turns and captures for later: Kalah(6,4) from the start, 20-seed database, one
  thread, 11.2 M nodes instead of 164 M; extra turns first, 9.8 M).
- Work is counted in nodes; a solve given ``time`` stops a test when its node budget (from
  the measured rate) runs out or a timer cancels it, and reports the bounds proven so far,
  never a guess.
- Two threads (a core each) share each of MTD(f)'s tests, and then each move's, on one
  lock-free table (see the table's comment), splitting the children of the nodes where
  every child is searched (``test``): MTD(f)'s tests depend on each other, so splitting one
  keeps both cores busy where tests side by side left one idle.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time as _time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from concurrent.futures import ThreadPoolExecutor, as_completed

import numpy as np
from numba import njit

from ... import kernels
from ...borrow import borrowed
from ...core import State, Variant
from ...memory import available_memory, large_zeros
from ...prefetch import prefetch_row
from ...search import Search, margin_of
from ...variants.kalah import Kalah
from ...variants.rules import kalah
from . import databases
from .databases import child_of, to_board
from ...ranking import binomials, index
from .results import (ABORTED, DEEP, LIMIT, NODES, Cancel, SolveError, SolveResult, check_solvable,
                      hashes, over, settle_moves, spent, store_margin, timed)

MAX_PLY = 1024  # far deeper than any line of play between database positions
EXTRA_TURN_FIRST = 1000  # added to an extra turn's estimate: above any margin, so that the
# extra turns are searched before the other moves (about 12% fewer nodes on Kalah(6,4))
EMPTY_LOW, EMPTY_HIGH = -32000, 32000
SPLIT_FROM_SEEDS = 30  # a test of fewer seeds in play takes milliseconds: one thread
BUSY_MARKS = 1 << 16  # the slots of the marks by which threads working on one test meet
LARGE_GAME_SEEDS = 48  # games with more seeds than Kalah(6,4) take LARGE_TABLE_MEMORY
LARGE_TABLE_MEMORY = 4 << 30  # Kalah(6,5) searches billions of nodes; a table too small for
# a search multiplies its nodes (docs/solving.md)
FIRST_TABLE_BITS = 16  # a solver's first table (1 MiB), grown with the positions asked
TABLE_MEMORY = 1 << 30  # the largest table a solver takes otherwise (bytes), at most a quarter
# of the memory available: 2^26 entries, the fastest size measured for Kalah(6,4)


# ----- the transposition table --------------------------------------------------------
# Buckets of four entries, each two 64-bit words (the check xor the data; the data: bounds,
# best move and work): one bucket is one 64-byte cache line, so a probe costs one memory
# access. Two threads share the table without locks: an entry torn by a write of the other
# thread fails the xor and is missed, never misread (Hyatt and Mann's lockless hashing).
# A new position replaces the entry of its bucket that cost the least work to find (log2 of
# the nodes of its search): the expensive results near the root stay.
BUCKET = 4
OFFSET = 32768  # bounds are kept as unsigned 16-bit fields
WORD_LOW, WORD_HIGH, WORD_MOVE, WORD_WORK = 0, 16, 32, 40


@njit(cache=True, inline="always")
def _find(table, bucket, check):
    """The entry of ``bucket`` holding ``check``, or -1."""
    for e in range(BUCKET):
        if table[bucket, 2 * e] ^ table[bucket, 2 * e + 1] == check:
            return e
    return -1


@njit(cache=True, inline="always")
def _low(word):
    return np.int64(word & np.uint64(0xFFFF)) - OFFSET


@njit(cache=True, inline="always")
def _high(word):
    return np.int64((word >> np.uint64(WORD_HIGH)) & np.uint64(0xFFFF)) - OFFSET


@njit(cache=True, inline="always")
def _move(word):
    return np.int64((word >> np.uint64(WORD_MOVE)) & np.uint64(0xFF)) - 1


@njit(cache=True, inline="always")
def _work(word):
    return np.int64(word >> np.uint64(WORD_WORK))


@njit(cache=True, inline="always")
def _pack(low, high, move, work):
    return (np.uint64(low + OFFSET) | (np.uint64(high + OFFSET) << np.uint64(WORD_HIGH))
            | (np.uint64(move + 1) << np.uint64(WORD_MOVE))
            | (np.uint64(work) << np.uint64(WORD_WORK)))


@njit(cache=True, inline="always")
def _log2(count):
    bits = 0
    while count > 1:
        count >>= 1
        bits += 1
    return bits


@njit(cache=True, inline="always")
def _store(table, bucket, check, value, gamma, move, work):
    """Keep what a test of ``gamma`` proved: a lower bound ``value`` with its best ``move``
    when it reached gamma, else an upper bound."""
    e = _find(table, bucket, check)
    if e >= 0:
        word = table[bucket, 2 * e + 1]
        low, high, best = _low(word), _high(word), _move(word)
        work = max(work, _work(word))
    else:  # the cheapest entry of the bucket makes room (an empty one costs 0)
        e, cheapest = 0, _work(table[bucket, 1])
        for i in range(1, BUCKET):
            w = _work(table[bucket, 2 * i + 1])
            if w < cheapest:
                e, cheapest = i, w
        low, high, best = EMPTY_LOW, EMPTY_HIGH, -1
    if value >= gamma:
        low, best = max(low, value), move
    else:
        high = min(high, value)
    data = _pack(low, high, best, min(work, 255))
    table[bucket, 2 * e] = check ^ data
    table[bucket, 2 * e + 1] = data


def new_table(bits: int) -> np.ndarray:
    """An empty table of 2**bits entries (16 bytes each; pages are only taken when used)."""
    return large_zeros((1 << max(bits - 2, 0), 2 * BUCKET), np.uint64)


def table_bytes(bits: int) -> int:
    """The bytes of ``new_table(bits)``."""
    return 16 << bits


@dataclass(frozen=True)
class Budget:
    """The memory the solvers of a process may take, in bytes: each solver's table at most
    ``table``, the solvers kept together at most ``kept`` (the least recently used rule sets
    let go first, the one in use always kept); None: as much as the game's size asks."""

    table: int | None = None
    kept: int | None = None


_BUDGET = [Budget()]  # the budget in force (``budget``): a server's, or none


@contextlib.contextmanager
def budget(limits: Budget) -> Iterator[Budget]:
    """Solvers made and kept within ``limits`` while it lasts (a server's lifetime), the
    budget before it in force again after."""
    before, _BUDGET[0] = _BUDGET[0], limits
    try:
        yield limits
    finally:
        _BUDGET[0] = before


def table_memory(seeds: int) -> int:
    """The most memory a solver's table takes for a game of ``seeds`` (within the budget)."""
    memory = LARGE_TABLE_MEMORY if seeds > LARGE_GAME_SEEDS else TABLE_MEMORY
    cap = _BUDGET[0].table
    return memory if cap is None else min(memory, cap)


def table_bits_for(memory: int, seeds: int = 1000) -> int:
    """The largest table that fits in ``memory`` bytes and that a game of ``seeds`` can use:
    2^(12 + seeds/3) entries, 2^24 for Kalah(6,3), 2^28 for Kalah(6,4) when ``memory`` allows
    (a Solver gives at most ``table_memory(seeds)``; a big table costs its page faults: 2^27
    entries make a solve of Kalah(3,2) 0.9 s instead of 2 ms)."""
    bits = 10
    while table_bytes(bits + 1) <= memory and bits < min(32, 12 + seeds // 3):
        bits += 1
    return bits


def test(params, root, gamma, db, binom, db_seeds, table, stats, busy, me, expect_fail):
    """Is g(``root``) >= ``gamma``? Returns (v, best move): v >= gamma and g >= v, or
    v < gamma and g <= v. The move is one proven to reach v when v >= gamma, -1 otherwise
    or when the root was settled by the table alone (its stored move is an ordering hint,
    not a proof). ``root`` is in play and holds more seeds than the database.
    (0, -1) with ``stats[ABORTED]`` when the node budget ``stats[LIMIT]`` runs out.
    An explicit stack, one frame a ply: numba cannot cache a recursive function.

    Several threads may run the same test on one table, thread ``me`` marking in row ``me``
    of ``busy`` the nodes on its stack: a child another thread is searching is put off to
    the end of its siblings (except the eldest, which a cut needs first), so the threads
    split the siblings of nodes where every child must be searched and meet the others'
    results in the table (Weill's ABDADA). Which nodes those are follows from
    ``expect_fail`` (the root's expected answer): the type flips with the mover.

    A node's own work is written out here rather than in one helper: numba's inliner takes a
    reference on every array a helper is given, and a helper that returns from several
    places keeps them — some twenty arrays a node (each an atomic count unless the array is
    lent, ``mancalab.borrow``). The single-exit helpers it calls show no such cost."""
    m = params[kalah.P_PITS]
    n = 2 * m
    work = (np.zeros(MAX_PLY, dtype=np.bool_), np.empty((MAX_PLY, n), dtype=np.int64),
            np.empty((MAX_PLY, m, n), dtype=np.int64), np.empty((4, MAX_PLY, m), dtype=np.int64),
            np.empty((MAX_PLY, m), dtype=np.bool_), np.empty((MAX_PLY, m), dtype=np.uint64),
            np.empty(m, dtype=np.int64), np.empty((MAX_PLY, 2 * m), dtype=np.int64),
            np.zeros((7, MAX_PLY), dtype=np.int64), np.zeros(MAX_PLY, dtype=np.uint64),
            np.empty(n + 4, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64))
    return _test_in(params, root, gamma, db, binom, db_seeds, table, stats, busy, me,
                    expect_fail, work)


@njit(cache=True, nogil=True)
def _test_in(params, root, gamma, db, binom, db_seeds, table, stats, busy, me, expect_fail,
             work):
    """``test``'s loop in the work space ``test`` makes in Python (no allocation compiled
    here), every array lent (``mancalab.borrow``)."""
    params, root, db, binom = borrowed(params), borrowed(root), borrowed(db), borrowed(binom)
    table, stats, busy = borrowed(table), borrowed(stats), borrowed(busy)
    (all_node, pits, kids, per_kid, kid_again, kid_check, kid_est, order, per_ply, checks,
     board, here, kid) = borrowed(work)
    # all_node: expected to fail, every child searched; order: a child put off is again + m;
    # kid_slot: a bucket, or the database index; here: the node's pits; started: the node
    # count when each ply began
    kid_gain, kid_move, kid_left, kid_slot = per_kid[0], per_kid[1], per_kid[2], per_kid[3]
    gam, n_kids, next_kid, best = per_ply[0], per_ply[1], per_ply[2], per_ply[3]
    best_move, slots, started = per_ply[4], per_ply[5], per_ply[6]
    m = params[kalah.P_PITS]
    n = 2 * m
    mask = np.uint64(table.shape[0] - 1)
    marks = np.uint64(busy.shape[1] - 1)
    busy[me, :] = 0
    all_node[0] = expect_fail
    kernels.copy_into(pits[0], root)
    gam[0] = gamma
    h1, checks[0] = hashes(root)
    slots[0] = np.int64(h1 & mask)
    ply = 0
    entering = True
    value = 0
    while True:
        if entering:
            if spent(stats):
                return 0, -1
            # the node's own work: futility, the table, then every child played and looked
            # at (the end of the game, the database, a bound in the table: an enhanced
            # transposition cutoff); settled, or the children left to search in ``order``
            g, slot, check = gam[ply], slots[ply], checks[ply]
            best_move[ply] = -1  # a node settled without playing a move proves no move
            settled = True
            seeds = 0
            for j in range(n):
                here[j] = pits[ply, j]
                seeds += here[j]
            low, high, first = -seeds, seeds, -1  # futility: -seeds <= g(node) <= seeds
            if low < g <= high:
                e = _find(table, slot, check)
                if e >= 0:
                    word = table[slot, 2 * e + 1]
                    low, high = max(low, _low(word)), min(high, _high(word))
                    first = _move(word)
            if low >= g:
                value = low
            elif high < g:
                value = high
            else:
                count = _play_children(params, here, ply, db_seeds, binom, db, table, mask,
                                       board, kid, kids, kid_gain, kid_again, kid_move,
                                       kid_left, kid_slot, kid_check)
                # the children settled without a search first (every move was asked for)
                top, top_move, searched = np.int64(-EMPTY_HIGH), np.int64(-1), 0
                for i in range(count):
                    gain, again, left = kid_gain[ply, i], kid_again[ply, i], kid_left[ply, i]
                    known = True
                    if left < 0:
                        v = gain
                    elif left <= db_seeds:
                        stored = np.int64(db[kid_slot[ply, i]])
                        v = gain + stored if again else gain - stored
                    else:
                        known = False
                        kid_est[i] = gain + (EXTRA_TURN_FIRST if again else 0)  # the order
                        ce = _find(table, kid_slot[ply, i], kid_check[ply, i])
                        if ce >= 0:
                            word = table[kid_slot[ply, i], 2 * ce + 1]
                            c_low, c_high = _low(word), _high(word)
                            if again and gain + c_low >= g:
                                v, known = gain + c_low, True
                            elif not again and gain - c_high >= g:
                                v, known = gain - c_high, True
                            else:  # order by what earlier tests left in the table
                                middle = (max(c_low, -left) + min(c_high, left)) // 2
                                kid_est[i] = (gain + middle + EXTRA_TURN_FIRST if again
                                              else gain - middle)
                    if known:
                        if v > top:
                            top, top_move = v, kid_move[ply, i]
                        if top >= g:
                            break
                    else:
                        order[ply, searched] = i
                        searched += 1
                best[ply], best_move[ply] = top, top_move
                if top >= g or searched == 0:
                    _store(table, slot, check, top, g, top_move, 0)
                    value = top
                else:
                    _sort_children(order, ply, searched, kid_move, kid_est, first)
                    n_kids[ply] = searched
                    settled = False
            if settled:
                if ply == 0:
                    return value, (best_move[0] if value >= gamma else -1)
                ply -= 1
                entering = False
                continue
            started[ply] = stats[NODES]
            next_kid[ply] = 0
            busy[me, slots[ply] & marks] += 1
        else:  # the child searched last returned ``value``
            i = order[ply, next_kid[ply] - 1] % m
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
            # a child another thread is in waits for the end, except the eldest of a node
            # expected to cut (the root's eldest included: every thread starts there)
            while ((next_kid[ply] > 0 or (ply > 0 and all_node[ply])) and i < m
                   and _busy_elsewhere(busy, me, kid_slot[ply, i] & marks)):
                order[ply, n_kids[ply]] = i + m  # after the others, searched whatever
                n_kids[ply] += 1
                next_kid[ply] += 1
                i = order[ply, next_kid[ply]]
            i %= m
            next_kid[ply] += 1
            for j in range(n):
                pits[ply + 1, j] = kids[ply, i, j]
            slots[ply + 1], checks[ply + 1] = kid_slot[ply, i], kid_check[ply, i]
            gain = kid_gain[ply, i]
            gam[ply + 1] = gam[ply] - gain if kid_again[ply, i] else gain - gam[ply] + 1
            all_node[ply + 1] = all_node[ply] if kid_again[ply, i] else not all_node[ply]
            ply += 1
            entering = True
            continue
        value = best[ply]
        _store(table, slots[ply], checks[ply], value, gam[ply], best_move[ply],
               _log2(stats[NODES] - started[ply]))
        busy[me, slots[ply] & marks] -= 1
        if ply == 0:
            return value, (best_move[0] if value >= gamma else -1)
        ply -= 1
        entering = False


@njit(cache=True, inline="always")
def _busy_elsewhere(busy, me, mark):
    """Whether a thread other than ``me`` has a node of this mark on its stack."""
    if busy.shape[0] == 1:
        return False
    for other in range(busy.shape[0]):
        if other != me and busy[other, mark] > 0:
            return True
    return False


@njit(cache=True, inline="always")
def _play_children(params, here, ply, db_seeds, binom, db, table, mask, board, kid, kids,
                   kid_gain, kid_again, kid_move, kid_left, kid_slot, kid_check):
    """Play every move of ``here`` into row ``ply`` of the children's arrays, asking for the
    memory each child will be looked up in (its database entry or table bucket) so that
    the misses overlap; the number of children."""
    m = params[kalah.P_PITS]
    n = 2 * m
    count = 0
    for move in range(m):
        if here[move] == 0:
            continue
        to_board(params, here, board)
        kalah.play(params, board, move)
        gain, again, left, over = child_of(params, board, kid)
        for j in range(n):
            kids[ply, count, j] = kid[j]
        kid_gain[ply, count], kid_again[ply, count], kid_move[ply, count] = gain, again, move
        kid_left[ply, count] = -1 if over else left
        if over:
            pass
        elif left <= db_seeds:
            kid_slot[ply, count] = index(kid, left, binom)
            prefetch_row(db, kid_slot[ply, count])
        else:
            c1, kid_check[ply, count] = hashes(kid)
            kid_slot[ply, count] = np.int64(c1 & mask)
            prefetch_row(table, kid_slot[ply, count])
        count += 1
    return count


@njit(cache=True, inline="always")
def _sort_children(order, ply, searched, kid_move, kid_est, first):
    """The table's move first, then by the estimate (an insertion sort: six at most)."""
    for i in range(1, searched):
        key = order[ply, i]
        j = i - 1
        while j >= 0 and _rank_before(kid_move[ply, key], kid_est[key],
                                      kid_move[ply, order[ply, j]], kid_est[order[ply, j]],
                                      first):
            order[ply, j + 1] = order[ply, j]
            j -= 1
        order[ply, j + 1] = key


@njit(cache=True, inline="always")
def _rank_before(move_a, estimate_a, move_b, estimate_b, first):
    """Whether child a is searched before child b: the table's best move first, then by the
    estimate (extra turns first, then what the move banks and the child's bounds in the
    table), and among equal estimates the move nearer the store."""
    if move_a == first:
        return move_b != first
    if move_b == first:
        return False
    return estimate_a > estimate_b or (estimate_a == estimate_b and move_a > move_b)


def _read_only(values: np.ndarray) -> np.ndarray:
    """A read-only view: built and opened databases then compile to one search."""
    view = values.view(np.ndarray)
    view.flags.writeable = False
    return view


def warm_up() -> None:
    """Compile (or load from the cache) the search now, not inside the first timed solve."""
    variant = Kalah(pits=1, seeds=2)
    stats = np.zeros(4, dtype=np.int64)
    stats[LIMIT] = 10
    test(variant.params, np.array([2, 2], dtype=np.int64), 0,
         _read_only(np.zeros(1, dtype=np.int8)), binomials(4), -1, new_table(4),
         stats, np.zeros((1, 1), dtype=np.int32), 0, True)


class Solver:
    """The search tables of one rule set, kept between solves (a batch of positions does not
    pay a table reset each time), and the endgame database it probes. With ``threads`` > 1
    that many null-window tests run at once on the shared table (MTD(f) needs a test just
    above and one at the value to prove it: they are run side by side)."""

    def __init__(self, variant: Variant, database: databases.Database | None,
                 table_bits: int | None = None, threads: int | None = None) -> None:
        self.variant = variant
        if table_bits is None:
            table_bits = table_bits_for(min(table_memory(variant.total_seeds),
                                            available_memory() // 4), variant.total_seeds)
        self.most_bits = table_bits
        self.table = new_table(min(table_bits, FIRST_TABLE_BITS))
        self.use(database)
        warm_up()
        self.threads = max(1, threads if threads is not None else min(2, os.cpu_count() or 1))
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self.rate = 2e6  # nodes a second per thread, measured as it goes
        self.nodes = 0  # searched since the last solve began

    def use(self, database: databases.Database | None) -> None:
        """Probe ``database`` from now on (the table stays: its bounds hold with any)."""
        self.database = database
        if database is None:
            self.db, self.db_seeds = _read_only(np.zeros(1, dtype=np.int8)), -1
            self.binom = binomials(2 * self.variant.options["pits"] + 2)
        else:
            self.db, self.db_seeds = _read_only(database.values), database.seeds
            self.binom = database.binom

    @property
    def memory(self) -> int:
        """Bytes of the table and the database (at most: the table grows to its full size
        with the positions asked, and its pages are taken when first used)."""
        return table_bytes(self.most_bits) + (0 if self.database is None
                                              else self.database.nbytes)

    def fit_table(self, seeds: int) -> None:
        """Grow the table to what a position of ``seeds`` in play can use, within the
        solver's size: a first solve of an endgame does not take (and zero) the huge pages
        of a table made for the start, 1 GiB for Kalah(6,4), and a process that solves
        only endgames keeps a small one."""
        wanted = min(self.most_bits, table_bits_for(table_bytes(self.most_bits), seeds))
        with self._lock:
            if wanted > self.table_bits:
                self.table = new_table(wanted)  # what the old one held is searched again

    @property
    def table_bits(self) -> int:
        """The table's size now: 2^table_bits entries."""
        return (int(self.table.nbytes) // table_bytes(0)).bit_length() - 1

    def close(self) -> None:
        """Let the threads go; the tables go with the last reference."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.threads, thread_name_prefix="mancalab-solve")
        return self._pool

    def g(self, pits: np.ndarray, deadline: float | None,
          progress: Callable[[int, int], None] | None = None,
          parallel: bool = True, cancel: Cancel | None = None) -> tuple[int, int, int]:
        """Bounds on the mover's future gain from ``pits`` (mover's pits first), and a best
        move (-1 if none proven): (lower, upper, move). Exact when lower == upper.
        ``parallel`` False: all in the calling thread."""
        seeds = int(pits.sum())
        if seeds <= self.db_seeds:
            value = int(self.db[index(pits, seeds, self.binom)])
            return value, value, -1
        # g has the parity of the seeds in play (what both sides will bank adds up to them)
        bounds = {"lower": -seeds, "upper": seeds, "move": -1}
        guess = self.guess(pits, deadline)
        while bounds["lower"] < bounds["upper"]:
            gamma = _threshold(bounds["lower"], bounds["upper"], guess)
            value, move = self._test(pits, gamma, deadline, cancel=cancel, parallel=parallel,
                                     expect_fail=gamma > guess)
            if value is None:
                break
            _narrow(bounds, gamma, value, move)
            guess = value
            if progress:
                progress(bounds["lower"], bounds["upper"])
        return bounds["lower"], bounds["upper"], bounds["move"]

    def guess(self, pits: np.ndarray, deadline: float | None = None) -> int:
        """MTD(f)'s first guess of g: a short alpha-beta search (a good guess saves whole
        null-window tests: from 0, Kalah(6,4)'s +10 took seven)."""
        if pits.sum() < self.guess_from_seeds:  # small positions: a test costs less
            return 0
        m = self.variant.options["pits"]
        # the solver serves every seeds-per-pit of its rules: the smallest game that holds
        # the pits, with stores that make the count right
        per_pit = -(-int(pits.sum()) // (2 * m))
        rules = {k: v for k, v in self.variant.options.items() if k not in ("seeds", "board")}
        variant = Kalah(**rules, seeds=per_pit)
        cells = list(pits[:m]) + [0] + list(pits[m:]) + [0]
        rest = variant.total_seeds - int(pits.sum())
        cells[m], cells[2 * m + 1] = rest - rest // 2, rest // 2
        state = variant.state(cells, 0)
        if state.is_over:
            return 0
        seconds = self.guess_time(int(pits.sum()))
        if deadline is not None:  # a short solve spends a quarter of its time on the guess
            seconds = min(seconds, max(0.01, (deadline - _time.perf_counter()) / 4))
        if len(state.legal_moves()) == 1:
            return 0
        _move, value, _depth, _nodes = Search().deepen(state, seconds, keep_time=True)
        return margin_of(value) - (cells[m] - cells[2 * m + 1])

    guess_seconds = 0.3
    guess_from_seeds = 30

    @staticmethod
    def guess_time(seeds: int) -> float:
        """Seconds for the first guess: 0.3, or about 1% of the search when that is more.
        The search doubles with every two seeds in play (Kalah(6,4), 48 seeds: about 20 s;
        Kalah(6,5), 60: about 30 min), and a shallow guess is low by 2 to 4 on Kalah's
        starts (+6 at 0.3 s for Kalah(6,5)'s +10, +9 at 10 s): a round of tests too many."""
        # past ~2,100 seeds the power overflows a float; a day is beyond any budget anyway
        return max(Solver.guess_seconds, 0.2 * 2.0 ** ((min(seeds, 400) - 48) / 2))

    def _test(self, pits, gamma, deadline, cancel=None, parallel=False, expect_fail=False):
        """One null-window test, on every thread with ``parallel`` (the first to answer
        stops the others; ``expect_fail``: the answer expected, where the threads split
        the work); (None, -1) when its budget ran out or it was stopped."""
        self.fit_table(int(pits.sum()))
        workers = self.threads if parallel and pits.sum() >= SPLIT_FROM_SEEDS else 1
        limit = (np.iinfo(np.int64).max if deadline is None
                 else max(1000, int((deadline - _time.perf_counter()) * self.rate)))
        stats = [np.zeros(4, dtype=np.int64) for _ in range(workers)]
        busy = np.zeros((workers, BUSY_MARKS if workers > 1 else 1), dtype=np.int32)
        for own in stats:
            own[LIMIT] = limit
        tracked = [own for own in stats if cancel is None or cancel.track(own)]
        started = _time.perf_counter()
        try:
            if len(tracked) < workers:
                return None, -1
            if workers == 1:
                answers = [self._run(pits, gamma, stats[0], busy, 0, expect_fail)]
            else:
                answers = self._race(pits, gamma, stats, busy, expect_fail)
        finally:
            if cancel is not None:
                for own in tracked:
                    cancel.untrack(own)
        spent = _time.perf_counter() - started
        nodes = sum(int(own[NODES]) for own in stats)
        answered = [answer for answer, own in zip(answers, stats) if not own[ABORTED]]
        with self._lock:
            self.nodes += nodes
            if nodes > 100_000 and answered:
                self.rate = nodes / workers / max(spent, 1e-6)
        if any(own[DEEP] for own in stats):
            raise SolveError(f"a line of play deeper than {MAX_PLY} moves: not solvable here")
        if not answered:
            return None, -1
        value, move = answered[0]
        return int(value), int(move)

    def _run(self, pits, gamma, stats, busy, me, expect_fail):
        return test(self.variant.params, pits, gamma, self.db, self.binom, self.db_seeds,
                    self.table, stats, busy, me, expect_fail)

    def _race(self, pits, gamma, stats, busy, expect_fail):
        """The test on one thread each, the first answer stopping the others; each thread's
        answer, in the order of ``stats`` (a stopped one's is marked in its stats)."""
        running = [self.pool().submit(self._run, pits, gamma, own, busy, me, expect_fail)
                   for me, own in enumerate(stats)]
        for future in as_completed(running):
            if not stats[running.index(future)][ABORTED]:
                for own in stats:
                    own[LIMIT] = 0
        return [future.result() for future in running]


def _threshold(lower: int, upper: int, guess: int) -> int:
    """The next threshold of MTD(f): ``guess`` moved into (lower, upper] and to the values'
    parity (that of ``lower`` and ``upper``)."""
    gamma = min(max(guess, lower + 1), upper)
    if (gamma - upper) % 2:
        gamma += 1 if gamma < upper else -1
    return gamma


def _narrow(bounds: dict, gamma: int, value: int, move: int) -> None:
    """What a test of ``gamma`` answered ``value`` proves."""
    if value >= gamma:
        if value > bounds["lower"]:
            bounds["lower"], bounds["move"] = value, int(move)
    elif value < bounds["upper"]:
        bounds["upper"] = value


_SOLVERS: OrderedDict[tuple, Solver] = OrderedDict()  # the least recently used first
_SOLVERS_LOCK = threading.Lock()


def kept_solver_memory() -> int:
    """Bytes the solvers kept in this process hold (tables and databases)."""
    return sum(solver.memory for solver in list(_SOLVERS.values()))


def solver_for(variant: Variant, database: databases.Database | None = None,
               build: bool = True) -> Solver:
    """The solver of ``variant``'s rules, made once per process: it opens the largest
    database built for those rules, or (``build``) builds a small one
    (``Variant.solving.on_demand_seeds``)."""
    databases.check_variant(variant)
    key = tuple(sorted(databases._rules(variant).items()))
    if database is not None:
        key += (database.seeds,)
    kept = _BUDGET[0].kept
    with _SOLVERS_LOCK:
        if key not in _SOLVERS:
            database = database or databases.best_available(variant)
            if database is None and build:  # built first: the table takes the room left
                database = databases.ensure(variant, variant.solving.on_demand_seeds)
            bits = None
            if kept is not None:  # the table and the database within the budget
                room = kept - (database.nbytes if database else 0)
                bits = table_bits_for(min(table_memory(variant.total_seeds), room,
                                          available_memory() // 4), variant.total_seeds)
            _SOLVERS[key] = Solver(variant, database, table_bits=bits)
        solver = _SOLVERS[key]
        _SOLVERS.move_to_end(key)
        if solver.database is None and build:
            solver.use(databases.ensure(variant, variant.solving.on_demand_seeds))
        while kept is not None and len(_SOLVERS) > 1 and kept_solver_memory() > kept:
            _SOLVERS.popitem(last=False)[1].close()  # a search running on it finishes first
    return solver


def mover_pits(state: State) -> np.ndarray:
    """The pits as the player to move sees them: their own m first, then the opponent's."""
    m = state.variant.options["pits"]
    cells = state.cells
    own = cells[:m] if state.to_move == 0 else cells[m + 1: 2 * m + 1]
    other = cells[m + 1: 2 * m + 1] if state.to_move == 0 else cells[:m]
    return np.array(list(own) + list(other), dtype=np.int64)


def decide(state: State, target: int = 0, time: float | None = None,
           solver: Solver | None = None, cancel: Cancel | None = None) -> SolveResult:
    """Whether the value of ``state`` (for the player to move) is ``target``, by at most two
    null-window tests: "is it at least target?", then "at least target + 1?". Cheaper than
    the exact value, which needs the tests around the value itself. The result's bounds
    either pin the value at ``target`` (``exact``), or exclude it (then ``exact`` only if
    they happen to meet), or, when ``time`` ran out, are what was proven."""
    check_solvable(state, time)
    started = _time.perf_counter()
    if state.is_over:
        return over(state)
    solver = solver or solver_for(state.variant)
    solver.nodes = 0
    base, pits = store_margin(state), mover_pits(state)
    lower = upper = None
    seeds = int(pits.sum())
    if seeds <= solver.db_seeds:
        lower = upper = int(solver.db[index(pits, seeds, solver.binom)])
    else:
        lower, upper = -seeds, seeds
        cancel = cancel or Cancel()
        with timed(time, cancel) as deadline:
            for gamma in (target - base, target - base + 1):
                if not lower < gamma <= upper:
                    break
                value, _ = solver._test(pits, gamma, deadline, cancel=cancel, parallel=True,
                                        expect_fail=gamma > target - base)
                if value is None:
                    break
                if value >= gamma:
                    lower = value
                else:
                    upper = value
    exact = lower == upper
    return SolveResult(base + lower if exact else None, exact, base + lower, base + upper, [],
                       [], nodes=solver.nodes, seconds=_time.perf_counter() - started,
                       database_seeds=None if solver.database is None
                       else solver.database.seeds)


def solve(state: State, time: float | None = None, moves: bool = False,
          database: databases.Database | None = None,
          on_bounds: Callable[[int, int], None] | None = None,
          solver: Solver | None = None, build: bool = True,
          cancel: Cancel | None = None, parallel: bool = True) -> SolveResult:
    """A Kalah position (not over) solved by MTD(f): see ``solving.solve``."""
    started = _time.perf_counter()
    solver = solver or solver_for(state.variant, database, build)
    solver.nodes = 0
    cancel = cancel or Cancel()
    with timed(time, cancel) as deadline:  # the time starts after a first build
        return _solve(state, solver, deadline, moves, on_bounds, cancel, parallel, started)


def renew(variant: Variant) -> None:
    """Let the solvers kept for ``variant``'s rules take the largest database built since
    (their tables stay warm)."""
    rules = tuple(sorted(databases._rules(variant).items()))
    with _SOLVERS_LOCK:
        kept = [solver for key, solver in _SOLVERS.items() if key[:len(rules)] == rules]
    if not kept:
        return
    best = databases.best_available(variant)
    for solver in kept:
        if best is not None and (solver.database is None
                                 or solver.database.seeds < best.seeds):
            solver.use(best)


def _solve(state, solver, deadline, moves, on_bounds, cancel, parallel, started) -> SolveResult:
    base = store_margin(state)

    def told(lower, upper):
        if on_bounds:
            on_bounds(base + lower, base + upper)

    lower, upper, proving = solver.g(mover_pits(state), deadline, told, parallel, cancel)
    result = SolveResult(base + lower if lower == upper else None, lower == upper,
                         base + lower, base + upper, [], [],
                         database_seeds=None if solver.database is None
                         else solver.database.seeds)
    legal = state.legal_moves()
    if result.exact or moves:
        target = None if moves else result.value

        found = [_move_bounds(solver, state, move, deadline, target, cancel, parallel)
                 for move in legal]
        for move, bounds in zip(legal, found):
            if moves:
                result.moves[move] = bounds
                result.move_names[move] = state.move_name(move)
            if result.exact and bounds[0] >= result.value:
                result.best_moves.append(move)
    if result.exact and not result.best_moves and proving >= 0:
        # the moves' own tests ran out of time: the move that proved the value is one
        m = state.variant.options["pits"]
        result.best_moves.append(proving if state.to_move == 0 else m + 1 + proving)
    settle_moves(result)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    result.nodes = solver.nodes
    result.seconds = _time.perf_counter() - started
    return result


def _move_bounds(solver: Solver, state: State, move: int, deadline: float | None,
                 target: int | None, cancel: Cancel | None = None,
                 parallel: bool = False) -> tuple[int, int]:
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
        value, _ = solver._test(pits, gamma, deadline, cancel=cancel, parallel=parallel,
                                expect_fail=same)  # most moves do not reach the value
        if value is None:
            return -seeds - abs(base), seeds + abs(base)
        proven_high = value >= gamma  # g(child) >= value, else g(child) <= value
        if same:
            return (base + value, base + seeds) if proven_high else (base - seeds, base + value)
        return ((-(base + seeds), -(base + value)) if proven_high
                else (-(base + value), -(base - seeds)))
    lower, upper, _ = solver.g(pits, deadline, parallel=parallel, cancel=cancel)
    if same:
        return base + lower, base + upper
    return -(base + upper), -(base + lower)
