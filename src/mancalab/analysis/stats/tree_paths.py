"""Game-tree statistics path by path, for a game whose end by repetition is a rule.

Oware ends at the first recurrence of a position (OpenSpiel's rule): whether a move ends the
game depends on the positions before it, so two sequences that reach one position may go on
differently, and the level tables of ``tree`` (one row a position) cannot hold them. Here
every move sequence is walked depth first with the positions of its path on a stack: a child
that occurs for the game's ``repetitions``-th time on its path ends the game by the game's
rule for endless play (``Kernels.stop``), as a game record ends it. Oware's positions merge
little anyway (at level 8, 683,970 positions for 711,414 sequences), and the walk holds no
table, so it goes as deep as time allows.

Parallel: the walk stops at a frontier ply and keeps those paths; the threads then walk from
them, each with its own stack and its own totals a level.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numba import get_num_threads, njit, prange, set_num_threads

from ... import kernels, movemask
from ...core import MAX_MOVES, ONGOING, Variant
from .rows import (AGENCY, GAMES, N_TOTALS, STATUS_SLOT, TOTAL_WORDS, TURNS, TreeRow,
                   shared_params, words_of)

FRONTIER_PATHS = 512  # paths the threads share out: the frontier is the first ply with more
BATCH = 64  # frontier paths walked between two progress reports
FRONTIER_BYTES = 1 << 26  # the most the frontier's paths may take
ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _occurrences(boards, hashes, ply):
    """How often the position at ``ply`` occurs on the path ``boards[0..ply]`` (itself
    included): earlier positions compared whole where their keys agree."""
    seen = 1
    for earlier in range(ply - 1, -1, -1):
        if hashes[earlier] == hashes[ply]:
            same = True
            for cell in range(boards.shape[1]):
                if boards[earlier, cell] != boards[ply, cell]:
                    same = False
                    break
            if same:
                seen += 1
    return seen


@njit(cache=True)
def _walk(params, boards, hashes, base, depth, repetitions, frontier_ply, totals, frontier,
          found):
    """Walk every sequence from the path ``boards[0..base]`` (``hashes``: their keys) to
    ``depth`` moves from the start. ``totals[level]`` gets each level's turns, agency and
    finished games. A going-on child at ``frontier_ply`` (-1: none) is not walked further:
    its path goes into ``frontier[found]``; the paths found are returned."""
    moves = np.empty((depth + 1, MAX_MOVES), dtype=np.int64)
    counts = np.zeros(depth + 1, dtype=np.int64)
    nexts = np.zeros(depth + 1, dtype=np.int64)
    counts[base] = movemask.to_array(kernels.legal_mask(params, boards[base]), moves[base])
    ply = base
    while ply >= base:
        if nexts[ply] == counts[ply]:
            nexts[ply] = 0
            ply -= 1
            continue
        move = moves[ply, nexts[ply]]
        nexts[ply] += 1
        child = ply + 1
        kernels.copy_into(boards[child], boards[ply])
        kernels.play(params, boards[child], move)
        if boards[child, -1] == ONGOING and repetitions:
            hashes[child] = kernels.position_key(boards[child])
            if _occurrences(boards, hashes, child) >= repetitions:
                kernels.stop(params, boards[child])
        status = boards[child, -1]
        if status != ONGOING:
            totals[child, GAMES] += ONE
            totals[child, STATUS_SLOT[status]] += ONE
            continue
        totals[child, TURNS] += ONE
        replies = kernels.legal_mask(params, boards[child])
        if replies & (replies - movemask.ONE) != movemask.NONE:
            totals[child, AGENCY] += ONE
        if child == frontier_ply:
            for earlier in range(child + 1):
                kernels.copy_into(frontier[found, earlier], boards[earlier])
            found += 1
        elif child < depth:
            counts[child] = movemask.to_array(replies, moves[child])
            ply = child
    return found


@njit(cache=True, parallel=True)
def _walk_frontier(params, frontier, first, last, base, depth, repetitions, stacks, hashes,
                   thread_totals):
    """Walk from the frontier paths first..last-1 (each ``base`` moves long), a path a
    task; ``thread_totals[path - first]`` gets its levels' totals."""
    no_frontier = np.empty((0, 0, 0), dtype=np.int64)
    for task in prange(last - first):
        boards, keys, totals = stacks[task], hashes[task], thread_totals[task]
        for ply in range(base + 1):
            kernels.copy_into(boards[ply], frontier[first + task, ply])
            keys[ply] = kernels.position_key(boards[ply])
        totals[:, :] = 0
        _walk(params, boards, keys, base, depth, repetitions, -1, totals,
              no_frontier, 0)


def _frontier(game: Variant, depth: int, repetitions: int, totals: np.ndarray):
    """The first ply below ``depth`` with more than FRONTIER_PATHS going-on paths (or the
    last one), and those paths, the levels up to it counted into ``totals``; (depth, None)
    when the whole walk is made here (depth 1, or paths too many to keep)."""
    params, width = shared_params(game), game.board_size
    boards = np.zeros((depth + 1, width), dtype=np.int64)
    boards[0] = game.start().board
    hashes = np.zeros(depth + 1, dtype=np.uint64)
    hashes[0] = kernels.position_key(boards[0])
    going_on = 1
    for ply in range(1, depth):
        room = going_on * game.max_moves
        if room * (ply + 1) * width * 8 > FRONTIER_BYTES:
            break
        paths = np.zeros((room, ply + 1, width), dtype=np.int64)
        totals[:] = 0
        going_on = _walk(params, boards, hashes, 0, depth, repetitions, ply, totals, paths, 0)
        if going_on > FRONTIER_PATHS or ply == depth - 1:
            return ply, paths[:going_on]
    totals[:] = 0
    _walk(params, boards, hashes, 0, depth, repetitions, -1, totals,
          np.empty((0, 0, 0), dtype=np.int64), 0)
    return depth, None


def tree_by_paths(game: Variant, depth: int, *, jobs: int | None = None,
                  on_progress: Callable[[int, int, int, int], None] | None = None,
                  on_level: Callable[[TreeRow], None] | None = None,
                  repetitions: int | None = None) -> list[TreeRow]:
    """The cumulative statistics of levels 1..depth from ``game``'s start, every sequence
    walked with its path (``repetitions``: the occurrence that ends a game, by default the
    record's, ``kernels.repetitions_of``). Rows as ``tree.tree_stats`` gives them, but with
    no count of distinct positions (``positions`` None) and the walk's seconds on the last
    row. ``on_progress(depth, paths_done, paths, 0)`` follows the frontier's paths."""
    repetitions = kernels.repetitions_of(game) if repetitions is None else repetitions
    started = time.perf_counter()
    per_level = np.zeros((depth + 1, N_TOTALS), dtype=np.uint64)
    base, paths = _frontier(game, depth, repetitions, per_level)
    if paths is not None:
        threads_before = get_num_threads()
        set_num_threads(max(1, min(jobs or threads_before, threads_before)))
        try:
            _walk_all(game, paths, base, depth, repetitions, per_level, on_progress)
        finally:
            set_num_threads(threads_before)
    seconds = time.perf_counter() - started
    return _rows(per_level, depth, seconds, paths, on_level)


def _walk_all(game, paths, base, depth, repetitions, per_level, on_progress) -> None:
    """Walk from every frontier path in batches, adding their totals to ``per_level``."""
    width = game.board_size
    stacks = np.zeros((BATCH, depth + 1, width), dtype=np.int64)
    hashes = np.zeros((BATCH, depth + 1), dtype=np.uint64)
    thread_totals = np.zeros((BATCH, depth + 1, N_TOTALS), dtype=np.uint64)
    for first in range(0, len(paths), BATCH):
        last = min(len(paths), first + BATCH)
        _walk_frontier(shared_params(game), paths, first, last, base, depth, repetitions, stacks,
                       hashes, thread_totals)
        per_level += thread_totals[:last - first].sum(axis=0, dtype=np.uint64)
        if on_progress:
            on_progress(depth, last, len(paths), 0)


def _rows(per_level, depth, seconds, paths, on_level) -> list[TreeRow]:
    """Cumulative rows of the per-level totals (each total kept in TOTAL_WORDS words, as
    ``tree`` reports them)."""
    rows, running = [], [0] * N_TOTALS
    peak = 0 if paths is None else paths.nbytes
    for level in range(1, depth + 1):
        running = [a + int(b) for a, b in zip(running, per_level[level])]
        for total in running:
            words_of(total, TOTAL_WORDS)  # a count past the words would raise there
        row = TreeRow(level, *running, None, seconds if level == depth else 0.0, peak)
        rows.append(row)
        if on_level:
            on_level(row)
    return rows


__all__ = ["tree_by_paths"]
