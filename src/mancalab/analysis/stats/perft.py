"""perft: the move sequences of a given length from a position, counted in compiled code.

As in chess programs, ``perft(state, depth)`` counts the sequences of exactly ``depth``
moves (a game that ends sooner contributes nothing): a check of a game's move generation
against another program's, and a measure of its speed. The count is of the rules the
kernels hold: the end by a repeated position (a record's rule, ``Variant.history.repetitions``) is
not applied, as chess's perft ignores repetition. Walked depth first with one board a ply,
the last ply counted from its legal moves without playing them.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from numba import njit

from ... import kernels, movemask
from ...borrow import borrowed
from ...core import MAX_MOVES, ONGOING, MancalabError, State

MAX_DEPTH = 64  # far past what finishes: Kalah(6,4) grows about sevenfold a ply


class Perft(NamedTuple):
    depth: int
    sequences: int  # move sequences of exactly ``depth`` moves
    nodes: int  # positions reached by fewer moves (the moves played to count them)
    seconds: float

    @property
    def per_second(self) -> float:
        """Sequences counted a second."""
        return self.sequences / self.seconds if self.seconds else 0.0


@njit(cache=True)
def _perft(params, root, depth, boards, moves, counts, nexts):
    """The sequences of ``depth`` moves from ``root`` (at least 1) and the positions walked.
    ``boards`` (depth, board), ``moves`` (depth, MAX_MOVES), ``counts`` and ``nexts``
    (depth) are work space."""
    params, root, boards, moves = (borrowed(params), borrowed(root), borrowed(boards),
                                   borrowed(moves))
    counts, nexts = borrowed(counts), borrowed(nexts)
    kernels.copy_into(boards[0], root)
    counts[0] = movemask.to_array(kernels.legal_mask_inlined(params, boards[0]), moves[0])
    nexts[0] = 0
    sequences, nodes, ply = 0, 1, 0
    if depth == 1:
        return counts[0], nodes
    while ply >= 0:
        if nexts[ply] == counts[ply]:
            ply -= 1
            continue
        move = moves[ply, nexts[ply]]
        nexts[ply] += 1
        child = ply + 1
        kernels.copy_into(boards[child], boards[ply])
        kernels.play_inlined(params, boards[child], move)
        nodes += 1
        if boards[child, -1] != ONGOING:
            continue
        found = movemask.to_array(kernels.legal_mask_inlined(params, boards[child]), moves[child])
        if child == depth - 1:  # the last ply: its moves are the sequences
            sequences += found
            continue
        counts[child], nexts[child] = found, 0
        ply = child
    return sequences, nodes


def perft(state: State, depth: int) -> Perft:
    """The move sequences of exactly ``depth`` moves from ``state`` (0..MAX_DEPTH)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= MAX_DEPTH:
        raise MancalabError(f"depth must be a whole number 0..{MAX_DEPTH}, got {depth!r}")
    started = time.perf_counter()
    if depth == 0 or state.is_over:
        sequences, nodes = int(depth == 0), 1
    else:
        width = state.board.shape[0]
        sequences, nodes = _perft(
            state.variant.params, state.board.copy(), depth,
            np.zeros((depth, width), dtype=np.int64), np.zeros((depth, MAX_MOVES), np.int64),
            np.zeros(depth, np.int64), np.zeros(depth, np.int64))
    return Perft(depth, int(sequences), int(nodes), time.perf_counter() - started)


def warm_up(state: State) -> None:
    """Compile (or load) the walk for ``state``'s game."""
    perft(state, 2)


__all__ = ["Perft", "perft"]
