"""Random play solved exactly: the probabilities that uniformly random play from a position
ends in a win of either player, a draw or a timeout, and the expected number of moves,
computed over the graph of positions it can reach (an absorbing Markov chain), not sampled.

Every position of the graph is the pits as its mover sees them (what is banked already
does not change how the game goes on). Its unknown is the distribution of what the mover
will still bank minus what the opponent will (-B..B, B the most the seeds can make), plus
the chance of a timeout, and the expected number of moves left:
    dist(p)[k] = mean over p's moves m of: a move that ends the game, 1 at its final gain (or
    at the timeout); else dist(child)[gain(m) - k] (the opponent moves next) or
    dist(child)[k - gain(m)] (the mover moves again);
    moves(p) = 1 + mean over m of moves(child) (0 for a move that ends the game).
Seeds in play never increase, so the levels (seeds in play) are solved from the fewest up;
within a level positions can repeat, and the equations are solved by Gauss-Seidel sweeps
until no entry changes by more than ``TOLERANCE`` (the level's own moves keep a share of
the probability in the level each sweep, so the error left is below the last change times
that share over one minus it; the result reports the last change). Every move is played by
the game's own kernels (``mancalab.kernels``, through the retrograde layout of the game).
Games with such a layout: Gebeta, Gabata and Kalah with at most six pits a side. Gebeta's start
reaches about 47 million positions (about 13 GB here); Gabata's and Kalah(6,4)'s reach more
than this machine holds.

Where no position comes round again (Kalah: a move banks a seed or moves seeds nearer their
owner's store), the chances are pushed *forward* instead, in one pass: the positions in an
order where every move leads later (seeds in play, then the seeds' summed distance to their
stores, both falling), each holding the probability that random play reaches it with each
banked margin, for each player to move. A position passes its mass to its children, a move
that ends the game adds it to the final margins, and the expected number of moves is the sum
of the chances of reaching each position that is not over (none is reached twice). This holds
``2 (T - s + 1)`` numbers a position of s seeds in play (T seeds in all) where the backward
equations hold ``2T + 2``. The edges are read in the pass's order, from disk when they and
the chances do not both fit in memory: Kalah(6,2)'s 120 and 170 million positions (with and
without empty capture) are solved on this 23.5 GB machine.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit, prange

from ... import kernels
from ...core import TIMEOUT, MancalabError, State
from ...memory import available_memory
from ..solving.graph import mover_view, walk_from
from ...ranking import chunk_range
from ..solving.retrograde import (END, NODE_SAME, NONE, PITS, _to_board, layout_of, slots_of,
                                  total_seeds)

TOLERANCE = 1e-13  # the largest change of a sweep that ends a level's sweeps
MAX_SWEEPS = 100_000
FIRST_CAPACITY = 1 << 20  # positions a walk first makes room for
BYTES_PER_POSITION = 12 + 6 * 6 + 3 + 2 * 12  # the walk: pits, edges, bounds, hash slots
SPILL_CHUNK = 1 << 22  # positions rearranged at a time into a file on disk
WALK_BYTES = BYTES_PER_POSITION + 24  # the walk's hash table is a power of two: up to four
# slots a position


@dataclass
class RandomPlay:
    """What uniformly random play from a position comes to, for the player to move there
    (``mover``) and the other; exact up to ``residual`` (the largest change of the last
    sweep of any level)."""

    variant_name: str
    mover: int
    win: float  # the mover wins (banked seeds of the position included)
    loss: float
    draw: float
    timeout: float
    moves: float  # expected moves to the end
    margins: dict[int, float] = field(default_factory=dict)  # final margin: probability
    positions: int = 0
    residual: float = 0.0
    sweeps: int = 0
    seconds: float = 0.0
    forward: bool = False  # pushed forward in one pass (no sweeps, nothing left over)

    @property
    def how(self) -> str:
        """How it was solved, in words."""
        if self.forward:
            return "pushed forward in one pass"
        return f"{self.sweeps:,} sweeps (the last change {self.residual:.0e})"

    def for_players(self) -> dict:
        """The chances by player, A (who moves first from the start) and B."""
        a_wins, b_wins = (self.win, self.loss) if self.mover == 0 else (self.loss, self.win)
        return {"A wins": a_wins, "B wins": b_wins, "draws": self.draw,
                "timeouts": self.timeout, "moves": self.moves}


@njit(cache=True)
def _ended(params, slots, node_pits, kinds, count, timeouts, over, finals):
    """How the game ends where it ends: the moves that end it by a timeout
    (``timeouts[i, j]``: the walk records an ending move's final gain, not how it ended), and
    the positions over before any move (``over``: 1, or 2 by a timeout) with the mover's
    final gain there (``finals``)."""
    board = np.empty(slots[-1], dtype=np.int64)
    pits = np.empty(PITS, dtype=np.int64)
    for i in range(count):
        for k in range(PITS):
            pits[k] = node_pits[i, k]
        playable = False
        for j in range(6):
            if kinds[i, j] == NONE:
                continue
            playable = True
            if kinds[i, j] == END:
                _to_board(slots, pits, board)
                kernels.settle(params, board)
                kernels.play(params, board, slots[j])
                timeouts[i, j] = 1 if board[-1] == TIMEOUT else 0
        if not playable:
            _to_board(slots, pits, board)
            kernels.settle(params, board)
            over[i] = 2 if board[-1] == TIMEOUT else 1
            finals[i] = kernels.margin(params, board)


@njit(cache=True)
def _outcomes(over, finals, dist, bound):
    """The positions over before any move, fixed at their outcome."""
    width = 2 * bound + 2
    for i in range(over.shape[0]):
        if over[i] == 2:
            dist[i, width - 1] = 1.0
        elif over[i] == 1:
            dist[i, finals[i] + bound] = 1.0


@njit(cache=True, parallel=True, nogil=True)
def _sweep(order, first, last, kinds, targets, gains, timeouts, over, dist, moves, bound,
           chunks):
    """One Gauss-Seidel pass over the positions ``order[first:last]`` (one level): their
    distributions and expected moves from their children's; the largest change (of the
    expected moves, relative)."""
    width = 2 * bound + 2  # margins -bound..bound, then the timeout
    changes = np.zeros(chunks)
    for chunk in prange(chunks):
        new = np.empty(width)
        begin, end = chunk_range(chunk, chunks, first, last)
        most = 0.0
        for o in range(begin, end):
            i = order[o]
            if over[i] != 0:
                continue
            new[:] = 0.0
            expected = 0.0
            options = 0
            for j in range(6):
                kind = kinds[i, j]
                if kind == NONE:
                    continue
                options += 1
                gain = np.int64(gains[i, j])
                if kind == END:
                    if timeouts[i, j]:
                        new[width - 1] += 1.0
                    else:
                        new[gain + bound] += 1.0
                    continue
                t = targets[i, j]
                expected += moves[t]
                new[width - 1] += dist[t, width - 1]
                # the mover's final gain k: the child's mover banks k - gain (the mover
                # again) or gain - k (the opponent); k runs where that is in -bound..bound
                low, high = max(-bound, gain - bound), min(bound, gain + bound)
                if kind == NODE_SAME:
                    for k in range(low, high + 1):
                        new[k + bound] += dist[t, k - gain + bound]
                else:
                    for k in range(low, high + 1):
                        new[k + bound] += dist[t, gain - k + bound]
            share = 1.0 / options
            for k in range(width):
                value = new[k] * share
                most = max(most, abs(value - dist[i, k]))
                dist[i, k] = value
            value = 1.0 + expected * share
            most = max(most, abs(value - moves[i]) / value)  # relative: moves run high
            moves[i] = value
        changes[chunk] = most
    return changes.max()


@njit(cache=True)
def _order_keys(node_pits, total, side):
    """A key per position that sorts every move's child after it: seeds in play falling,
    then the seeds' summed distance to their owners' stores falling (a move that banks
    nothing moves seeds nearer their store); and each position's seeds in play. ``side``:
    the pits a side."""
    count = node_pits.shape[0]
    farthest = side * total  # every seed ``side`` pits from its store
    keys = np.empty(count, dtype=np.int64)
    seeds = np.empty(count, dtype=np.int16)
    for i in range(count):
        s, distance = 0, 0
        for k in range(2 * side):
            s += node_pits[i, k]
            distance += node_pits[i, k] * (side - k % side)
        seeds[i] = s
        keys[i] = (total - s) * (farthest + 1) + (farthest - distance)
    return keys, seeds


@njit(cache=True, nogil=True)
def _push(first, last, s, seeds, level_first, level_base, total, kinds, targets, gains, over,
          finals, mass, margins):
    """Pass the mass of the positions at places ``first..last-1`` (all of ``s`` seeds in
    play) on to their children and to the final margins (``margins[m + total]``: the root's
    mover ends ``m`` ahead); the summed chance of reaching those of them that are not over
    (the moves they add). Every array is in the order of the pass; ``targets`` hold the
    children's places. A position's mass: for the root's mover to move, then the other, the
    chance of each banked margin d (-(T-s)..T-s in steps of 2)."""
    moves = 0.0
    w = total - s + 1
    for p in range(first, last):
        at = level_base[s] + (p - level_first[s]) * 2 * w
        options = 0
        for j in range(6):
            if kinds[p, j] != NONE:
                options += 1
        for flag in range(2):
            sign = 1 if flag == 0 else -1
            for k in range(w):
                m = mass[at + flag * w + k]
                if m == 0.0:
                    continue
                d = 2 * k - (total - s)
                if over[p]:
                    margins[sign * (d + finals[p]) + total] += m
                    continue
                moves += m
                share = m / options
                for j in range(6):
                    kind = kinds[p, j]
                    if kind == NONE:
                        continue
                    after = d + gains[p, j]
                    if kind == END:
                        margins[sign * after + total] += share
                        continue
                    t = targets[p, j]
                    ts = seeds[t]
                    tw = total - ts + 1
                    t_flag, t_d = (flag, after) if kind == NODE_SAME else (1 - flag, -after)
                    mass[level_base[ts] + (t - level_first[ts]) * 2 * tw + t_flag * tw
                         + (t_d + total - ts) // 2] += share
    return moves


@njit(cache=True)
def _to_places(targets, kinds, place):
    """Each edge's target from a walk id to its place in the order, in place; the number of
    edges that do not lead later in the order (0, or the game is not acyclic as assumed)."""
    backward = 0
    for i in range(targets.shape[0]):
        for j in range(6):
            if kinds[i, j] != NONE and kinds[i, j] != END:
                targets[i, j] = place[targets[i, j]]
                if targets[i, j] <= place[i]:
                    backward += 1
    return backward


def _in_order(values: np.ndarray, order: np.ndarray, folder: str | None) -> np.ndarray:
    """``values`` rearranged into ``order``: in memory, or in a file in ``folder`` (read back
    in the pass's order, so the system's page cache streams it)."""
    if folder is None:
        return values[order]
    path = Path(folder) / f"{len(list(Path(folder).iterdir()))}.npy"
    out = np.lib.format.open_memmap(path, "w+", values.dtype, values.shape)
    for begin in range(0, len(order), SPILL_CHUNK):
        out[begin:begin + SPILL_CHUNK] = values[order[begin:begin + SPILL_CHUNK]]
    out.flush()
    return out.view(np.ndarray)


def _forward_graph(variant, root: np.ndarray, total: int, most: int):
    """The graph ``root`` reaches, its edges' targets turned into places in the pass's order
    (checked to lead later); (count, kinds, targets, gains, over, finals, seeds, order, the
    root's place). The arrays are indexed by walk id, ``order`` lists the ids by place."""
    count, node_pits, kinds, targets, gains = _walk(variant, root, most)
    # the walk's arrays hold room for ``most``: keep ``count`` rows, one array at a time
    node_pits = node_pits[:count].copy()
    kinds = kinds[:count].copy()
    gains = gains[:count].copy()
    targets = targets[:count].copy()
    timeouts = np.zeros((count, 6), dtype=np.uint8)
    over = np.zeros(count, dtype=np.uint8)
    finals = np.zeros(count, dtype=np.int16)
    _ended(variant.params, slots_of(variant), node_pits, kinds, count, timeouts, over, finals)
    if timeouts.any() or (over == 2).any():
        raise MancalabError(f"{variant.title} can end by a timeout: not an acyclic game")
    del timeouts
    keys, seeds = _order_keys(node_pits, total, len(layout_of(variant).slots) // 2)
    del node_pits
    order = np.argsort(keys, kind="stable").astype(np.int32)
    del keys
    place = np.empty(count, dtype=np.int32)
    place[order] = np.arange(count, dtype=np.int32)
    if _to_places(targets, kinds, place):
        raise MancalabError(f"a move of {variant.title} leads back in the order: its random "
                            "play is not solved forward")
    return count, kinds, targets, gains, over, finals, seeds, order, int(place[0])


def _levels(seeds: np.ndarray, total: int):
    """Per level (seeds in play): its positions, its first place in the pass's order (the
    most seeds first), where its chances begin; and the chances' total size."""
    per_level = np.bincount(seeds, minlength=total + 1)
    level_first = np.zeros(total + 1, dtype=np.int64)
    level_base = np.zeros(total + 1, dtype=np.int64)
    placed = size = 0
    for s in range(total, -1, -1):
        level_first[s], level_base[s] = placed, size
        placed += int(per_level[s])
        size += int(per_level[s]) * 2 * (total - s + 1)
    return per_level, level_first, level_base, size


def _solve_forward(state: State, capacity: int | None, on_level, started: float,
                   spill: bool | None = None, memory: int | None = None) -> RandomPlay:
    """Random play from ``state`` pushed forward over an acyclic graph (see the module);
    ``spill``: the edges on disk during the pass (None: when memory calls for it)."""
    variant = state.variant
    root = mover_view(state)
    a, b = state.score
    banked = a - b if state.to_move == 0 else b - a
    total = int(root.sum()) + a + b
    room = memory or available_memory()
    most = capacity or int(room // WALK_BYTES * 0.9)
    count, kinds, targets, gains, over, finals, seeds, order, root_place = _forward_graph(
        variant, root, total, most)
    per_level, level_first, level_base, size = _levels(seeds, total)
    # the edges go into the pass's order: a copy in memory beside the chances, or on disk
    # (then only the chances stay in memory, and the edges' memory is given back)
    edges = sum(array.nbytes for array in (kinds, targets, gains, over, finals, seeds))
    if size * 8 > (room + edges + order.nbytes) * 0.9:
        raise MancalabError(f"the {variant.name} position reaches {count:,} positions, whose "
                            f"chances take {size * 8 / 2**30:.1f} GiB: more than the "
                            f"{room / 2**30:.1f} GiB of memory it may take")
    with tempfile.TemporaryDirectory(prefix="mancalab-random-play-") as disk:
        if spill is None:
            spill = size * 8 + edges > room * 0.9
        folder = disk if spill else None
        kinds, targets, gains, over, finals, seeds = (
            _in_order(array, order, folder) for array in (kinds, targets, gains, over,
                                                          finals, seeds))
        del order
        mass = np.zeros(size)
        s0 = int(root.sum())
        mass[level_base[s0] + (root_place - level_first[s0]) * 2 * (total - s0 + 1)
             + (banked + total - s0) // 2] = 1.0
        margins = np.zeros(2 * total + 1)
        moves = 0.0
        for s in range(total, -1, -1):
            if per_level[s] == 0:
                continue
            first = int(level_first[s])
            moves += _push(first, first + int(per_level[s]), s, seeds, level_first,
                           level_base, total, kinds, targets, gains, over, finals, mass,
                           margins)
            if on_level:
                on_level(s, int(per_level[s]), 0, time.perf_counter() - started)
        del kinds, targets, gains, over, finals, seeds
    found = {m - total: float(p) for m, p in enumerate(margins) if p}
    return _result(state, found, 0.0, moves, count, 0.0, 0, started, forward=True)


def _result(state: State, margins: dict[int, float], timeout: float, moves: float,
            positions: int, residual: float, sweeps: int, started: float,
            forward: bool = False) -> RandomPlay:
    """The chances for the mover of ``state`` from its final margins (banked included)."""
    win = sum(p for m, p in margins.items() if m > 0)
    loss = sum(p for m, p in margins.items() if m < 0)
    return RandomPlay(state.variant.name, state.to_move, win, loss, margins.get(0, 0.0),
                      timeout, moves, margins, positions, residual, sweeps,
                      time.perf_counter() - started, forward)


def solve_random_play(state: State, capacity: int | None = None,
                      tolerance: float = TOLERANCE,
                      on_level: Callable[[int, int, int, float], None] | None = None,
                      forward: bool | None = None, memory: int | None = None) -> RandomPlay:
    """The exact chances of uniformly random play from ``state`` (not over): see the module.
    ``on_level(seeds, positions, sweeps, seconds)`` is told as each level is solved (0
    sweeps: pushed forward).
    ``forward``: push the chances forward (None: where the game is acyclic, Kalah), else
    solve the equations backward level by level. MancalabError for a game without the
    layout, forward for a game that is not acyclic, or a graph larger than ``capacity``
    positions (default: what ``memory`` bytes hold, by default the memory available now).
    The walk grows its tables step by step, so a position too large stops there."""
    if state.is_over:
        raise MancalabError("the game is over: random play from here has nothing to do")
    variant = state.variant
    try:
        layout = layout_of(variant)
    except MancalabError:
        raise MancalabError("random play is solved exactly for Gebeta, Gabata and Kalah with "
                            f"at most six pits a side, not {variant.title}") from None
    started = time.perf_counter()
    if forward is None:
        forward = layout.acyclic
    if forward:
        if not layout.acyclic:
            raise MancalabError(f"{variant.title}'s positions can come round again: its "
                                "random play is solved backward, not forward")
        return _solve_forward(state, capacity, on_level, started, memory=memory)
    bound = total_seeds(variant) // layout.unit
    width = 2 * bound + 2
    most = capacity or int((memory or available_memory()) // (BYTES_PER_POSITION
                                                              + 8 * (width + 1)) * 0.9)
    count, node_pits, kinds, targets, gains = _walk(variant, mover_view(state), most)
    timeouts = np.zeros((count, 6), dtype=np.uint8)
    over = np.zeros(count, dtype=np.uint8)
    finals = np.zeros(count, dtype=np.int16)
    _ended(variant.params, slots_of(variant), node_pits, kinds, count, timeouts, over, finals)
    dist = np.zeros((count, width))
    moves = np.zeros(count)
    _outcomes(over, finals, dist, bound)
    seeds = node_pits[:count].sum(axis=1, dtype=np.int64)
    # by level, and within a level the positions found last first: the walk finds a
    # position before its children, and a sweep that reads the children's new values
    # first carries them further (a quarter to a half fewer sweeps)
    order = np.lexsort((-np.arange(count), seeds))
    levels = np.unique(seeds)
    edges = np.searchsorted(seeds[order], levels, side="left").tolist() + [count]
    residual, sweeps = 0.0, 0
    for level, first, last in zip(levels.tolist(), edges[:-1], edges[1:]):
        chunks = max(1, min(1024, (last - first) // 4096))
        for done in range(1, MAX_SWEEPS + 1):
            change = _sweep(order, first, last, kinds, targets, gains, timeouts, over, dist,
                            moves, bound, chunks)
            if change <= tolerance:
                break
        sweeps += done
        residual = max(residual, change)
        if on_level:
            on_level(level, last - first, done, time.perf_counter() - started)
    root = dist[0]
    a, b = state.score
    banked = a - b if state.to_move == 0 else b - a
    margins = {k - bound + banked: float(root[k]) for k in range(2 * bound + 1) if root[k]}
    return _result(state, margins, float(root[width - 1]), float(moves[0]), count, residual,
                   sweeps, started)


def _walk(variant, root: np.ndarray, most: int):
    """Every position ``root`` reaches (no database: all levels walked), with its moves; the
    walk starts small and is made again eight times as large until it fits (at most
    ``most`` positions)."""
    capacity = min(most, FIRST_CAPACITY)
    while True:
        count, expanded, walked = _walk_within(variant, root, capacity)
        if expanded == count:
            return walked
        if capacity >= most:
            raise MancalabError(f"the {variant.name} position reaches more than {count:,} "
                                "positions: more than the memory it may take holds (random-"
                                "play --memory)")
        capacity = min(most, 8 * capacity)


def _walk_within(variant, root: np.ndarray, capacity: int):
    found = walk_from(variant, root, None, capacity, np.ones(4, dtype=np.int64))
    return found.count, found.expanded, (found.count, found.node_pits, found.kinds,
                                         found.targets, found.gains)
