"""Yes-or-no questions about Gebeta and Gabata positions by depth-first proof search.

"Can A force a final margin of at least v?" needs a strategy, not every position the root
reaches: a depth-first AND-OR search proves it by following the prover's most promising
moves and answering every reply, and disproves it by one refutation at each of the prover's
moves. Gabata's start is worth +48 for pit 2 by a strategy of about ten thousand positions,
where the retrograde walk (``graph``) visits a hundred million without closing its bounds.

The nodes are ``threshold``'s (pits as the mover sees them, who moves, the margin d banked so
far) and every move is played by the game's own kernels (``retrograde._moves``); a child whose
margin is settled whatever follows, or which the database holds, answers at once.

Positions repeat. A repetition of a position on the current path counts as a failure for the
prover: endless play does not prove anything, so a "yes" is a strategy that reaches the end
(the answer under L, ``threshold``), and the dual question, asked for B, is the answer under
U. A proven result is kept in a table (it holds on any path); a failure is kept only when it
did not rest on a repetition of a position above it on the path (the graph-history
interaction problem: such a failure may be a win reached by another path).
"""

from __future__ import annotations

import threading
import time as clock
from dataclasses import dataclass

import numpy as np
from numba import njit

from ...borrow import borrowed
from ...core import Variant
from .graph import _slot
from ...ranking import rank
from .results import LIMIT, Cancel
from .retrograde import (END, NODE, NODE_SAME, NOT_OVER, PITS, Database, _moves, move_buffers,
                         slots_of)
from .threshold import (NO, SIDE_SHIFT, YES, _key, child_answer, node_of, question_tables,
                        root_key)

PROVEN, FAILED, UNKNOWN = 1, 0, -1  # a search's answer, for the prover
NOT_FOUND = 2  # a quick search's failure: no proof found, nothing proven
OPEN, ON_PATH, WON, LOST = 0, 1, 2, 3  # a table entry's status
FREE_DEPTH = 1 << 30  # a failure that rests on no repetition above it
ENTRY_BYTES = 8 + 1 + 4  # a table entry: its key, status and path depth
MAX_DEPTH = 20_000  # a path longer than this is given up (an unknown, never a failure)
NODES, TABLE_FULL, DEEPEST, FILLED = 0, 1, 2, 3  # the slots of a search's counters


@njit(cache=True, inline="always")
def _prover_wins(answer, prover):
    """Whether a settled child's ``threshold`` answer (for A) is a win for the prover: A
    needs a yes that holds with endless play against A, B needs a no."""
    if prover == 0:
        return answer == YES
    return answer == NO


@njit(cache=True, inline="always")
def _find(keys, key):
    mask = keys.shape[0] - 1
    s = _slot(key, mask)
    while keys[s] != 0 and keys[s] != key:
        s = (s + 1) & mask
    return s


@njit(cache=True)
def _expand(params, slots, key, prover, target, unit, big_binom, stored_seeds, offsets, binom,
            stored_low, stored_high, keys, status, depths, bufs, kid_keys, scores):
    """The children of node ``key`` that need a search, in ``kid_keys`` (best first), their
    count; or the node's answer at once: (-1, won, repeated depth) when it is settled by a
    child (a win at the prover's move, a failure at the opponent's), by its table or by the
    end of the game. ``repeated``: the shallowest path depth a failure rested on."""
    pits, board, kid_pits, kid_seeds, kinds, gains = bufs
    bars = np.empty(PITS - 1, dtype=np.int64)
    d, side = node_of(key, big_binom, bars, pits)
    over = _moves(params, slots, pits, board, kinds, gains, kid_pits, kid_seeds)
    if over != NOT_OVER:
        final = d + over if side == 0 else d - over
        return -1, _prover_wins(YES if final >= target else NO, prover), FREE_DEPTH
    provers_move = side == prover
    repeated = FREE_DEPTH
    count = 0
    for j in range(6):
        kind = kinds[j]
        if kind != END and kind != NODE and kind != NODE_SAME:
            continue
        kid_d = d + gains[j] if side == 0 else d - gains[j]
        won = False
        settled = True
        if kind == END:
            won = _prover_wins(YES if kid_d >= target else NO, prover)
        else:
            kid_side = side if kind == NODE_SAME else 1 - side
            k = kid_seeds[j]
            answer = child_answer(kid_side, kid_d, k, kid_pits[j], unit, target, stored_seeds,
                                  offsets, binom, stored_low, stored_high)
            if answer != 0:
                won = _prover_wins(answer, prover)
            else:
                kid = _key(big_binom[k - 1 + PITS, PITS] + rank(kid_pits[j], big_binom),
                           kid_side, kid_d)
                s = _find(keys, kid)
                if keys[s] == kid and status[s] == WON:
                    won = True
                elif keys[s] == kid and status[s] == LOST:
                    won = False
                elif keys[s] == kid and status[s] == ON_PATH:  # a repetition: no proof
                    won = False
                    repeated = min(repeated, np.int64(depths[s]))
                else:
                    settled = False
                    kid_keys[count] = kid
                    # the prover's margin after the move: the prover tries its best first,
                    # the opponent its most damaging
                    margin = kid_d if prover == 0 else -kid_d
                    scores[count] = -margin if provers_move else margin
                    count += 1
        if settled and won == provers_move:  # a winning move, or a refuting reply
            return -1, won, repeated if not won else FREE_DEPTH
    if count == 0:  # every move settled the other way
        return -1, not provers_move, repeated if provers_move else FREE_DEPTH
    _sort_children(kid_keys, scores, count)
    return count, False, repeated


@njit(cache=True, inline="always")
def _sort_children(kid_keys, scores, count):
    """Order the first ``count`` children by score, ties kept in move order: an insertion
    sort of at most six, not ``np.argsort`` and a slice assignment, which would compile
    numba's sort and its shape-mismatch message into every game's search (seconds)."""
    for i in range(1, count):
        key, score = kid_keys[i], scores[i]
        j = i - 1
        while j >= 0 and scores[j] > score:
            kid_keys[j + 1], scores[j + 1] = kid_keys[j], scores[j]
            j -= 1
        kid_keys[j + 1], scores[j + 1] = key, score


def search(params, slots, root, prover, target, unit, big_binom, stored_seeds, offsets, binom,
           stored_low, stored_high, keys, status, depths, max_nodes, quick, halt, counters):
    """Whether the prover (0: A, 1: B) can force the question's answer from node ``root``:
    A a final margin of at least ``target``, B one below it; repetitions count against the
    prover. PROVEN, FAILED, or UNKNOWN when ``max_nodes`` expansions, the table (three
    quarters full), the path depth or ``halt[LIMIT]`` (a timer) ran out first. ``quick``
    keeps every failure, also one that rested on a repetition above it: each node is then
    searched once, a proof is still a proof, but a failure proves nothing (a position
    failed on one path may be won on another)."""
    work = (np.zeros((MAX_DEPTH, 6), dtype=np.uint64), np.zeros(6, dtype=np.int64),
            np.zeros((4, MAX_DEPTH), dtype=np.int64), np.zeros(MAX_DEPTH, dtype=np.bool_))
    return _search(params, slots, root, prover, target, unit, big_binom, stored_seeds, offsets,
                   binom, stored_low, stored_high, keys, status, depths, max_nodes, quick,
                   halt, counters, move_buffers(slots), work)


@njit(cache=True, nogil=True)
def _search(params, slots, root, prover, target, unit, big_binom, stored_seeds, offsets,
            binom, stored_low, stored_high, keys, status, depths, max_nodes, quick, halt,
            counters, bufs, work):
    """``search``'s loop in the work space ``search`` makes in Python (no allocation compiled
    here), every array lent (``mancalab.borrow``)."""
    params, slots, big_binom = borrowed(params), borrowed(slots), borrowed(big_binom)
    offsets, binom, stored_low = borrowed(offsets), borrowed(binom), borrowed(stored_low)
    stored_high, keys, status = borrowed(stored_high), borrowed(keys), borrowed(status)
    depths, halt, counters = borrowed(depths), borrowed(halt), borrowed(counters)
    bufs, (kid_keys, scores, frames, provers_move) = borrowed(bufs), borrowed(work)
    counts, nexts, slots_at, repeats = frames[0], frames[1], frames[2], frames[3]
    capacity = keys.shape[0]
    filled = counters[FILLED]
    s = _find(keys, root)
    if keys[s] == root and (status[s] == WON or status[s] == LOST):
        return PROVEN if status[s] == WON else FAILED
    if keys[s] != root:
        keys[s] = root
        filled += 1
    status[s], depths[s] = ON_PATH, 0
    slots_at[0] = s
    depth = 0
    fresh = True  # the node at ``depth`` is new: expand it
    won, repeated = False, FREE_DEPTH  # the last decided node's answer, for its parent
    while True:
        if fresh:
            fresh = False
            if halt[LIMIT] == 0 or counters[NODES] >= max_nodes:
                counters[FILLED] = filled
                return UNKNOWN
            counters[NODES] += 1
            counters[DEEPEST] = max(counters[DEEPEST], depth)
            key = keys[slots_at[depth]]
            provers_move[depth] = ((key >> SIDE_SHIFT) & np.uint64(1)) == prover
            n, won, repeated = _expand(params, slots, key, prover, target, unit, big_binom,
                                       stored_seeds, offsets, binom, stored_low, stored_high,
                                       keys, status, depths, bufs, kid_keys[depth], scores)
            repeats[depth] = repeated
            decided = n < 0
            counts[depth], nexts[depth] = max(n, 0), 0
        else:  # a child's answer ``won``, ``repeated``
            if not won:
                repeats[depth] = min(repeats[depth], repeated)
            decided = won == provers_move[depth]  # a winning move, or a refuting reply
            repeated = FREE_DEPTH if won else repeats[depth]
        while not decided and nexts[depth] < counts[depth]:
            kid = kid_keys[depth, nexts[depth]]
            nexts[depth] += 1
            s = _find(keys, kid)
            known = keys[s] == kid
            if known and (status[s] == WON or status[s] == LOST):  # answered since
                if (status[s] == WON) == provers_move[depth]:
                    decided, won, repeated = True, status[s] == WON, FREE_DEPTH
                continue
            if known and status[s] == ON_PATH:  # on the path since: a repetition
                repeats[depth] = min(repeats[depth], np.int64(depths[s]))
                if not provers_move[depth]:
                    decided, won, repeated = True, False, repeats[depth]
                continue
            if depth + 1 >= MAX_DEPTH:  # too deep: no answer here, and none kept above
                repeats[depth] = -1
                if not provers_move[depth]:
                    decided, won, repeated = True, False, -1
                continue
            if not known:
                if 4 * (filled + 1) > 3 * capacity:
                    counters[TABLE_FULL] = 1
                    counters[FILLED] = filled
                    return UNKNOWN
                keys[s] = kid
                filled += 1
            depth += 1
            status[s], depths[s] = ON_PATH, depth
            slots_at[depth] = s
            fresh = True
            break
        if fresh:
            continue
        if not decided:  # every child answered, none deciding: the other way
            won = not provers_move[depth]
            repeated = FREE_DEPTH if won else repeats[depth]
        # the node at ``depth`` is decided: keep what holds on any path, hand it up
        s = slots_at[depth]
        if won:
            status[s] = WON
        elif repeated >= depth or (quick and repeated >= 0):
            status[s] = LOST
            repeated = FREE_DEPTH
        else:
            status[s] = OPEN
        if depth == 0:
            counters[FILLED] = filled
            if won:
                return PROVEN
            return FAILED if repeated >= 0 else UNKNOWN
        depth -= 1


DEFAULT_MEMORY = 256 << 20  # a question's table: 20 million entries
DEFAULT_NODES = 50_000_000


@dataclass
class Question:
    """One yes-or-no question about a position, asked of one prover: its answer (PROVEN,
    FAILED, NOT_FOUND or UNKNOWN within the budget), the positions expanded and the seconds
    taken."""

    target: int
    prover: int
    answer: int
    nodes: int
    seconds: float
    table_full: bool = False


def _table(memory: int, max_nodes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A question's table: what ``memory`` holds, but no more than twice the entries its
    node budget can fill (one a node): a small question does not touch (and zero) pages
    of a big table all over, which cost more than its search."""
    fits = (memory // ENTRY_BYTES).bit_length() - 1
    needed = (2 * (max_nodes + 2) - 1).bit_length()
    entries = 1 << max(10, min(fits, needed))
    return (np.zeros(entries, dtype=np.uint64), np.zeros(entries, dtype=np.int8),
            np.zeros(entries, dtype=np.int32))


def ask(variant: Variant, pits, target: int, database: Database | None = None, *,
        prover: int = 0, side: int = 0, banked: int = 0, time: float | None = None,
        max_nodes: int = DEFAULT_NODES, memory: int = DEFAULT_MEMORY,
        quick: bool = False, cancel: Cancel | None = None) -> Question:
    """Can the prover force it from ``pits`` as the side to move sees them (``side`` 1: B
    moves first), with ``banked`` the margin A has banked so far: A (``prover`` 0) a final
    margin of at least ``target``, B (1) one below it? Repetitions count against the prover,
    so A's yes is the answer under L and B's yes a no under U (``threshold``). ``quick``:
    each position searched once (``search``), a failure answered NOT_FOUND. ``cancel``
    stops it from another thread (UNKNOWN)."""
    started = clock.monotonic()
    pits = np.asarray(pits, dtype=np.int64)
    unit, stored_seeds, offsets, binom, stored_low, stored_high, big_binom = question_tables(
        variant, pits, target, banked, database)
    root = root_key(pits, side, banked, big_binom)
    halt = np.ones(4, dtype=np.int64)
    if cancel is not None and not cancel.track(halt):
        halt[LIMIT] = 0
    timer = None
    if time is not None:
        timer = threading.Timer(max(0.0, time), halt.__setitem__, (LIMIT, 0))
        timer.daemon = True
        timer.start()
    keys, status, depths = _table(memory, max_nodes)
    counters = np.zeros(4, dtype=np.int64)
    try:
        answer = search(variant.params, slots_of(variant), root, prover, target, unit,
                        big_binom, stored_seeds, offsets, binom, stored_low, stored_high,
                        keys, status, depths, max_nodes, quick, halt, counters)
    finally:
        if timer is not None:
            timer.cancel()
        if cancel is not None:
            cancel.untrack(halt)
    if quick and answer == FAILED:
        answer = NOT_FOUND
    return Question(target, prover, int(answer), int(counters[NODES]),
                    clock.monotonic() - started, bool(counters[TABLE_FULL]))
