"""Is a Gebeta or Gabata position worth at least v? A yes-or-no question, answered over the
positions it needs, not over every position the root reaches.

A retrograde walk (``graph``) bounds the value of every position the root can reach; when
that graph does not fit in memory its bounds stay apart (Gabata's start: +46 or +48). The
question "can the root's mover, A, force a final margin of at least v?" needs much less: a
position where the margin already banked, d, settles it whatever happens next (d minus the
seeds in play already reaches v, or d plus them cannot) is a leaf, and so is one the
database holds. Gabata's "+48?" is "can A shut B out?": every position where B may bank a
marble is a leaf, and what is left is small.

The walk's nodes are (pits as the mover sees them, which side moves, d); each move is played
by the game's own kernels (``retrograde._moves``). Two answers come out, as for the graph's
bounds:
- under L, endless play counts against A: yes when A can force reaching v by the game's end
  (A's attractor of the winning leaves);
- under U, endless play counts for A: no when B can force the margin below v (B's attractor
  of the losing leaves).
So L >= v follows from a yes under L, and U < v from a no under U. Each is a least fixed
point reached by sweeps, sound at every step, so a walk cut short by its budget still proves
what it proves; when the walk was complete, a position in neither attractor is one whose
answer the rule for endless play decides.

The depth-first proof search (``proof``) answers the same questions first, over the positions
one strategy needs; this walk is the last resort where it finds no answer (positions that
cycle long without progress), taking minutes and gigabytes for an opening position.
"""

from __future__ import annotations

import threading
import time as clock
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ...borrow import borrowed
from ...core import Variant
from ...memory import available_memory
from ...ranking import binomials, chunk_range, rank, unrank, pits_of
from .graph import find_or_add
from .results import LIMIT
from .retrograde import (END, NODE, NODE_SAME, NOT_OVER, PITS, Database, _moves, layout_of,
                         slots_of, total_seeds, walk_buffers)

# a child that is not a node: the answer it gives
YES, NO, YES_UNDER_U, NO_MOVE, UNEXPANDED = -1, -2, -3, -4, -5
UNKNOWN, WON, LOST = 0, 1, 2  # a node's answer while sweeping (for A)
D_OFFSET = 128  # d is kept as d + D_OFFSET in 8 bits
SIDE_SHIFT = np.uint64(8)
PITS_SHIFT = np.uint64(9)
BYTES_PER_NODE = 8 + 6 * 4 + 2 + 2 * 12  # its key, its children, two answers, hash slots


@njit(cache=True, inline="always")
def _key(pits_key, side, d):
    return (np.uint64(pits_key) << PITS_SHIFT) | (np.uint64(side) << SIDE_SHIFT) | \
        np.uint64(d + D_OFFSET)


@njit(cache=True, inline="always")
def node_of(key, big_binom, bars, pits):
    """Node ``key``'s margin banked d and side to move; its pits into ``pits``."""
    d = np.int64(key & np.uint64(255)) - D_OFFSET
    side = np.int64((key >> SIDE_SHIFT) & np.uint64(1))
    global_rank = np.int64(key >> PITS_SHIFT)
    seeds = 1
    while big_binom[seeds + PITS, PITS] <= global_rank:
        seeds += 1
    unrank(global_rank - big_binom[seeds - 1 + PITS, PITS], seeds, PITS, big_binom, bars)
    pits_of(bars, seeds, pits)
    return d, side


@njit(cache=True, inline="always")
def _leaf(side, d, seeds, unit, target, stored_low, stored_high, index):
    """What a child of ``seeds`` seeds in play answers without a walk: YES, NO or
    YES_UNDER_U when the margin is settled or the database holds it, else 0 (walk it)."""
    left = seeds // unit
    if d - left >= target:
        return YES
    if d + left < target:
        return NO
    if index < 0:
        return 0
    if side == 0:  # A moves: A's bounds are the mover's (L with endless against A)
        worst, best = d + np.int64(stored_low[index]), d + np.int64(stored_high[index])
    else:  # B moves: against A, endless play counts for B under L
        worst, best = d - np.int64(stored_high[index]), d - np.int64(stored_low[index])
    if worst >= target:
        return YES
    if best >= target:
        return YES_UNDER_U
    return NO


@njit(cache=True, inline="always")
def child_answer(side, d, seeds, pits, unit, target, stored_seeds, offsets, binom, stored_low,
                 stored_high):
    """``_leaf`` of a child: looked up in the database when it holds the child's seeds."""
    index = -1
    if seeds <= stored_seeds and offsets[seeds] >= 0:
        index = offsets[seeds] + rank(pits, binom)
    return _leaf(side, d, seeds, unit, target, stored_low, stored_high, index)


@njit(cache=True, nogil=True)
def explore(params, slots, target, unit, big_binom, stored_seeds, offsets, binom,
            stored_low, stored_high, count, head, table, ids, node_keys, children, halt, work):
    """Walk on from node ``head`` of ``count`` (node 0 is the root), breadth first, until the
    tables are full or ``halt[LIMIT]`` is 0. Returns (nodes, expanded). ``work``: the
    caller's ``walk_buffers`` (lent here: ``mancalab.borrow``)."""
    params, slots, big_binom = borrowed(params), borrowed(slots), borrowed(big_binom)
    offsets, binom, stored_low = borrowed(offsets), borrowed(binom), borrowed(stored_low)
    stored_high, table, ids = borrowed(stored_high), borrowed(table), borrowed(ids)
    node_keys, children, halt = borrowed(node_keys), borrowed(children), borrowed(halt)
    capacity = node_keys.shape[0]
    pits, board, kid_pits, kid_seeds, kinds, gains, bars = borrowed(work)
    while head < count and halt[LIMIT] != 0:
        if count + 6 > capacity:
            break
        key = node_keys[head]
        d, side = node_of(key, big_binom, bars, pits)
        over = _moves(params, slots, pits, board, kinds, gains, kid_pits, kid_seeds)
        if over != NOT_OVER:  # over already by the end rule: its margin answers
            final = d + over if side == 0 else d - over
            children[head, :] = NO_MOVE
            children[head, 0] = YES if final >= target else NO
            head += 1
            continue
        for j in range(6):
            kind = kinds[j]
            if kind != END and kind != NODE and kind != NODE_SAME:
                children[head, j] = NO_MOVE
                continue
            kid_d = d + gains[j] if side == 0 else d - gains[j]
            if kind == END:
                children[head, j] = YES if kid_d >= target else NO
                continue
            kid_side = side if kind == NODE_SAME else 1 - side
            k = kid_seeds[j]
            answer = child_answer(kid_side, kid_d, k, kid_pits[j], unit, target, stored_seeds,
                                  offsets, binom, stored_low, stored_high)
            if answer != 0:
                children[head, j] = answer
                continue
            kid = _key(big_binom[k - 1 + PITS, PITS] + rank(kid_pits[j], big_binom),
                       kid_side, kid_d)
            children[head, j], added = find_or_add(table, ids, kid, count)
            if added:
                node_keys[count] = kid
                count += 1
        head += 1
    return count, head


@njit(cache=True)
def rehash(node_keys, count, table, ids):
    """Fill an empty, bigger hash table with the first ``count`` nodes."""
    for i in range(1, count):  # the root is not in the table
        find_or_add(table, ids, node_keys[i], i)


@njit(cache=True, parallel=True, nogil=True)
def sweep(children, node_keys, answers, under_u, chunks):
    """One pass over the nodes not answered yet: A's node is won when one child is won and
    lost when every child is lost; B's node the other way round. How many were answered."""
    changed = 0
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, 0, answers.shape[0])
        for i in range(last - 1, first - 1, -1):  # deeper nodes first
            if answers[i] != UNKNOWN or children[i, 0] == UNEXPANDED:
                continue
            won = lost = moves = 0
            for j in range(6):
                c = children[i, j]
                if c == NO_MOVE:
                    continue
                moves += 1
                if c >= 0:
                    a = answers[c]
                elif c == YES or (c == YES_UNDER_U and under_u):
                    a = WON
                else:
                    a = LOST
                won += a == WON
                lost += a == LOST
            b_moves = (node_keys[i] >> SIDE_SHIFT) & np.uint64(1)
            mine, theirs = (lost, won) if b_moves else (won, lost)
            if mine > 0:
                answers[i] = LOST if b_moves else WON
            elif theirs == moves:
                answers[i] = WON if b_moves else LOST
            else:
                continue
            changed += 1
    return changed


@dataclass
class Answer:
    """Whether the root's value reaches ``target`` (for A, the side to move at the start of
    the question): under L (endless play against A) and under U (endless play for A); None
    where the walk did not settle it within its budget."""

    target: int
    under_l: bool | None
    under_u: bool | None
    nodes: int
    expanded: int
    seconds: float

    @property
    def complete(self) -> bool:
        return self.expanded == self.nodes


def _settle(children, node_keys, under_u: bool, halt: np.ndarray) -> np.ndarray:
    answers = np.zeros(node_keys.shape[0], dtype=np.uint8)
    chunks = max(1, min(4096, answers.shape[0] // 4096))
    while halt[LIMIT] != 0 and sweep(children, node_keys, answers, under_u, chunks):
        pass
    return answers


def root_key(pits, side: int, banked: int, big_binom) -> np.uint64:
    seeds = int(pits.sum())
    return _key(big_binom[seeds - 1 + PITS, PITS] + rank(pits, big_binom), side, banked)


def _grown(array: np.ndarray, size: int) -> np.ndarray:
    bigger = np.zeros((size,) + array.shape[1:], dtype=array.dtype)
    bigger[:array.shape[0]] = array
    return bigger


def capacity_for(memory: int | None = None) -> int:
    """The nodes a walk may hold in ``memory`` bytes (default: half the free memory)."""
    memory = available_memory() // 2 if memory is None else memory
    return max(1000, memory // BYTES_PER_NODE)


def question_tables(variant: Variant, pits: np.ndarray, target: int, banked: int,
                    database: Database | None) -> tuple:
    """What a question's kernels read: the unit of value, the database's seeds, offsets,
    binomials and bounds (empty without one) and the binomials of every seed count; a
    ValueError when the question's margins do not fit its nodes."""
    unit = layout_of(variant).unit
    if abs(banked) + int(pits.sum()) // unit > D_OFFSET - 1 or abs(target) > D_OFFSET - 1:
        raise ValueError("the margins of this question do not fit its nodes")
    if database is None:
        stored_seeds, offsets, binom = -1, np.full(1, -1, dtype=np.int64), binomials(PITS + 1)
        stored_low = stored_high = np.zeros(1, dtype=np.int8)
    else:
        stored_seeds, offsets, binom = database.seeds, database.offsets, database.binom
        stored_low, stored_high = database.low, database.high
    return (unit, stored_seeds, offsets, binom, stored_low, stored_high,
            binomials(total_seeds(variant) + PITS + 1))


def at_least(variant: Variant, pits, target: int, database: Database | None = None, *,
             side: int = 0, banked: int = 0, capacity: int | None = None,
             time: float | None = None) -> Answer:
    """Can A force a final margin (A minus B, from now on, plus ``banked``) of at least
    ``target`` from ``pits`` as the side to move sees them (``side`` 1: B moves first)?
    Over the nodes the question needs, at most ``capacity`` of them, within ``time`` s."""
    started = clock.monotonic()
    pits = np.asarray(pits, dtype=np.int64)
    unit, stored_seeds, offsets, binom, stored_low, stored_high, big_binom = question_tables(
        variant, pits, target, banked, database)
    capacity = min(capacity or capacity_for(), 2**31 - 1)
    halt = np.ones(4, dtype=np.int64)
    timer = None
    if time is not None:
        timer = threading.Timer(time, halt.__setitem__, (LIMIT, 0))
        timer.daemon = True
        timer.start()
    try:
        size = min(capacity, 1 << 16)  # grown as the walk needs: fresh memory is slow
        cells = slots_of(variant)  # (``slots`` below: the hash table's)
        work = walk_buffers(cells)
        node_keys = np.zeros(size, dtype=np.uint64)
        children = np.zeros((size, 6), dtype=np.int32)
        node_keys[0] = root_key(pits, side, banked, big_binom)
        count, expanded = 1, 0
        while True:
            slots = 1 << (2 * size - 1).bit_length()  # a power of two, at most half full
            table = np.zeros(slots, dtype=np.uint64)
            ids = np.zeros(slots, dtype=np.int32)
            rehash(node_keys, count, table, ids)
            count, expanded = explore(
                variant.params, cells, target, unit, big_binom, stored_seeds,
                offsets, binom, stored_low, stored_high, count, expanded, table, ids,
                node_keys, children, halt, work)
            if expanded == count or halt[LIMIT] == 0 or size == capacity:
                break
            size = min(capacity, 2 * size)
            node_keys = _grown(node_keys, size)
            children = _grown(children, size)
        children[expanded:count, 0] = UNEXPANDED
        del table, ids
        children, node_keys = children[:count], node_keys[:count]
        complete = expanded == count
        verdicts = []
        for under_u in (False, True):
            answers = _settle(children, node_keys, under_u, halt)
            settled = halt[LIMIT] != 0
            root = answers[0]
            if root == WON:
                verdicts.append(True)
            elif root == LOST:
                verdicts.append(False)
            elif complete and settled:  # in neither attractor: endless play decides
                verdicts.append(under_u)
            else:
                verdicts.append(None)
    finally:
        if timer is not None:
            timer.cancel()
    return Answer(target, verdicts[0], verdicts[1], count, expanded,
                  clock.monotonic() - started)
