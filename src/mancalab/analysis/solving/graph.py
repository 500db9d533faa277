"""The graph a Gebeta or Gabata position reaches above a retrograde database: found by a
breadth-first walk (a hash table of the positions' keys), then settled by the database's
sweeps with the database at its boundary. When a budget of positions or time runs out, the
positions not yet expanded count as [-B, +B]: the bounds stay sound, only wider."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

import numpy as np
from numba import njit

from ... import kernels
from ...borrow import borrowed
from ...core import State, Variant
from ...memory import available_memory
from ...ranking import binomials, rank
from .results import LIMIT, Cancel
from .retrograde import (NODE, NODE_SAME, PITS, STORED, Database, _in_database, _moves,
                         _start_bounds, _stored_index, layout_of, move_buffers, settle_bounds,
                         slots_of, total_seeds)


@njit(cache=True, inline="always")
def _slot(key, mask):
    mixed = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)
    return np.int64(mixed & np.uint64(mask))


@njit(cache=True, inline="always")
def find_or_add(keys, ids, key, count):
    """The id of ``key`` in the open-addressing table ``keys`` (0: a free slot) and ``ids``,
    added with the id ``count`` when it is not there; and whether it was added."""
    mask = keys.shape[0] - 1
    s = _slot(key, mask)
    while keys[s] != 0 and keys[s] != key:
        s = (s + 1) & mask
    if keys[s] == 0:
        keys[s] = key
        ids[s] = count
        return count, True
    return ids[s], False


@njit(cache=True, inline="always")
def graph_key(pits, seeds, big_binom):
    """A position's key above the database, unique over all seed counts (never 0)."""
    return big_binom[seeds - 1 + PITS, PITS] + rank(pits, big_binom) + 1


@njit(cache=True, nogil=True)
def explore(params, slots, root, big_binom, stored_seeds, offsets, binom, unit, capacity,
            keys, ids, node_pits, kinds, targets, gains, low, high, fixed, halt, work):
    """Walk the positions ``root`` can reach above the database breadth first, at most
    ``capacity`` of them, until ``halt[LIMIT]`` is 0 (``Cancel``): their edge table.
    Returns (positions, expanded); the positions not expanded are fixed at [-B, +B].
    ``work``: the caller's ``move_buffers`` (lent here: ``mancalab.borrow``)."""
    params, slots, root = borrowed(params), borrowed(slots), borrowed(root)
    big_binom, offsets, binom = borrowed(big_binom), borrowed(offsets), borrowed(binom)
    keys, ids, node_pits = borrowed(keys), borrowed(ids), borrowed(node_pits)
    kinds, targets, gains, low = borrowed(kinds), borrowed(targets), borrowed(gains), borrowed(low)
    high, fixed, halt = borrowed(high), borrowed(fixed), borrowed(halt)
    pits, board, kid_pits, kid_seeds, move_kinds, move_gains = borrowed(work)
    count = 1
    kernels.copy_into(node_pits[0], root)
    head = 0
    while head < count and count + 6 <= capacity and halt[LIMIT] != 0:
        for i in range(PITS):
            pits[i] = node_pits[head, i]
        over = _moves(params, slots, pits, board, move_kinds, move_gains, kid_pits, kid_seeds)
        _start_bounds(head, over, pits.sum() // unit, low, high, fixed)
        for j in range(6):
            kind = move_kinds[j]
            gains[head, j] = move_gains[j]
            if kind == NODE or kind == NODE_SAME:
                seeds = kid_seeds[j]
                if _in_database(seeds, stored_seeds, offsets):
                    targets[head, j] = _stored_index(kid_pits[j], seeds, offsets, binom)
                    kind += STORED - NODE
                else:
                    kid, added = find_or_add(keys, ids, graph_key(kid_pits[j], seeds,
                                                                  big_binom), count)
                    if added:
                        kernels.copy_into(node_pits[count], kid_pits[j])
                        count += 1
                    targets[head, j] = kid
            kinds[head, j] = kind
        head += 1
    for i in range(head, count):  # the frontier: not expanded
        bound = node_pits[i].sum() // unit
        low[i], high[i] = -bound, bound
        fixed[i] = 1
    return count, head


BYTES_PER_POSITION = 12 + 6 * 6 + 3 + 2 * 16  # pits, edges, bounds, two hash slots


MOST_POSITIONS = 200_000_000


RATE_GUESS = 3_000_000  # positions expanded a second, to size the table to a time limit


def mover_view(state: State) -> np.ndarray:
    """The pits as the player to move sees them (theirs first; empty past the board's)."""
    slots = layout_of(state.variant).slots
    cells, n = state.cells, len(slots)
    shift = n // 2 if state.to_move == 1 else 0
    view = [cells[slots[(i + shift) % n]] for i in range(n)] + [0] * (PITS - n)
    return np.array(view, dtype=np.int64)


@dataclass
class Graph:
    """The positions a root can reach above the database, with their edges and bounds."""

    count: int
    expanded: int
    kinds: np.ndarray
    targets: np.ndarray
    gains: np.ndarray
    low: np.ndarray
    high: np.ndarray
    settled: bool  # swept until nothing changed
    keys: np.ndarray | None = None  # each position's ``graph_key`` when asked for

    @property
    def final(self) -> bool:
        """Every position walked and settled: bounds apart are the rule for endless play's."""
        return self.expanded == self.count and self.settled


@dataclass
class Walk:
    """A walk's tables: ``count`` positions found and ``expanded`` of them, per position
    its pits, its moves (kind, target, gain) and its first bounds; the hash table of their
    keys (``keys``, ``ids``)."""

    count: int
    expanded: int
    keys: np.ndarray
    ids: np.ndarray
    node_pits: np.ndarray
    kinds: np.ndarray
    targets: np.ndarray
    gains: np.ndarray
    low: np.ndarray
    high: np.ndarray
    fixed: np.ndarray


def walk_from(variant: Variant, pits: np.ndarray, database: Database | None, capacity: int,
              halt: np.ndarray) -> Walk:
    """Walk the positions ``pits`` reaches above ``database`` (None: every position),
    breadth first, at most ``capacity`` of them, until ``halt[LIMIT]`` is 0. The tables hold
    no more positions than can exist below ``pits`` (seeds in play never increase, so every
    position is a placing of at most that many seeds in the pits; the root's twin and the last
    expansion's children aside): touching a fresh page of a table of gigabytes costs far more
    than its share of the work."""
    capacity = min(capacity, math.comb(int(pits.sum()) + PITS, PITS) + 8)
    size = 1 << max(4, (2 * capacity - 1).bit_length())
    found = Walk(0, 0, np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int32),
                 np.zeros((capacity, PITS), dtype=np.int8),
                 np.zeros((capacity, 6), dtype=np.int8), np.zeros((capacity, 6), dtype=np.int32),
                 np.zeros((capacity, 6), dtype=np.int8), np.zeros(capacity, dtype=np.int8),
                 np.zeros(capacity, dtype=np.int8), np.zeros(capacity, dtype=np.uint8))
    if database is None:
        stored_seeds, offsets, binom = -1, np.full(1, -1, dtype=np.int64), binomials(PITS + 1)
    else:
        stored_seeds, offsets, binom = database.seeds, database.offsets, database.binom
    slots = slots_of(variant)
    found.count, found.expanded = explore(
        variant.params, slots, pits, binomials(total_seeds(variant) + PITS + 1),
        stored_seeds, offsets, binom, layout_of(variant).unit, capacity, found.keys, found.ids,
        found.node_pits, found.kinds, found.targets, found.gains, found.low, found.high,
        found.fixed, halt, move_buffers(slots))
    return found


def reachable(variant: Variant, pits: np.ndarray, database: Database | None,
              capacity: int, explore_halt: np.ndarray, sweep_halt: np.ndarray,
              exact_only: bool = False, parallel: bool = True,
              with_keys: bool = False) -> Graph:
    """Walk the graph of ``pits`` (at most ``capacity`` positions) and settle its bounds;
    with ``exact_only`` a walk cut short is not settled (it cannot give an exact value);
    ``with_keys``: the graph holds its positions' keys."""
    found = walk_from(variant, pits, database, capacity, explore_halt)
    count, expanded = found.count, found.expanded
    if database is None:
        stored_low = stored_high = np.zeros(1, dtype=np.int8)
    else:
        stored_low, stored_high = database.low, database.high
    node_keys = None
    if with_keys:  # the root is not in the hash table: a cycle back to it makes a twin
        node_keys = np.empty(count, dtype=np.int64)
        taken = found.keys != 0
        node_keys[found.ids[taken]] = found.keys[taken]
        node_keys[0] = graph_key(pits, int(pits.sum()),
                                 binomials(total_seeds(variant) + PITS + 1))
    kinds, targets, gains = found.kinds[:count], found.targets[:count], found.gains[:count]
    low, high, fixed = found.low[:count], found.high[:count], found.fixed[:count]
    del found
    settled = False
    if expanded == count or not exact_only:
        settled = settle_bounds(kinds, targets, gains, low, high, fixed, stored_low,
                                stored_high, sweep_halt, parallel)
    return Graph(count, expanded, kinds, targets, gains, low, high, settled, node_keys)


def capacity_for(time: float | None) -> int:
    """The positions a walk may hold: what a third of the free memory holds and what can be
    walked in ``time``."""
    most = min(MOST_POSITIONS, available_memory() // 3 // BYTES_PER_POSITION)
    if time is not None:
        most = min(most, int(RATE_GUESS * time) + 1000)
    return max(1000, most)


def walk(state: State, time: float | None, database: Database | None,
          cancel: Cancel | None, exact_only: bool, parallel: bool,
          most: int | None = None) -> Graph:
    """The graph ``state`` reaches above ``database``, walked and settled within ``time``
    and ``most`` positions."""
    cancel = cancel or Cancel()
    explore_halt = np.ones(4, dtype=np.int64)
    sweep_halt = np.ones(4, dtype=np.int64)
    if not (cancel.track(explore_halt) and cancel.track(sweep_halt)):
        explore_halt[LIMIT] = sweep_halt[LIMIT] = 0
    timers = []
    if time is not None:  # half the time to walk the graph, the rest to settle it
        for share, halt in ((0.5, explore_halt), (1.0, sweep_halt)):
            timer = threading.Timer(time * share, halt.__setitem__, (LIMIT, 0))
            timer.daemon = True
            timer.start()
            timers.append(timer)
    try:
        capacity = capacity_for(time) if most is None else min(most, capacity_for(time))
        return reachable(state.variant, mover_view(state), database, capacity,
                         explore_halt, sweep_halt, exact_only, parallel)
    finally:
        for timer in timers:
            timer.cancel()
        cancel.untrack(explore_halt)
        cancel.untrack(sweep_halt)
