"""Legal moves as a 64-bit mask: bit ``c`` is set when the move from cell ``c`` is legal.

Every game's ``legal_mask`` kernel returns one machine word instead of writing a list: the
compiled switch over the games (``mancalab.kernels``) costs almost nothing this way, whereas
writing the moves into an array through the switch made the tree statistics ~40% slower.
Cell indices of moves stay below 64 in every game (Kalah allows at most 30 pits a side).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

ONE = np.uint64(1)
NONE = np.uint64(0)


@njit(cache=True, inline="always")
def bit(cell):
    """The mask with only ``cell`` set."""
    return ONE << np.uint64(cell)


@njit(cache=True)
def count(mask):
    """The number of legal moves."""
    n = 0
    while mask != NONE:
        mask &= mask - ONE
        n += 1
    return n


@njit(cache=True, inline="always")
def lowest(mask):
    """The lowest set cell of a non-empty mask (one CPU instruction: count trailing zeros)."""
    return np.int64(trailing_zeros(np.uint64(mask)))


@njit(cache=True)
def nth(mask, n):
    """The ``n``-th set cell (from 0) in cell order."""
    for _ in range(n):
        mask &= mask - ONE
    return lowest(mask)


@njit(cache=True)
def to_array(mask, out):
    """Write the set cells to ``out`` in cell order; return how many."""
    n = 0
    while mask != NONE:
        out[n] = lowest(mask)
        mask &= mask - ONE
        n += 1
    return n


LISTS: dict[int, tuple[int, ...]] = {}  # masks seen, their cells (to_list is asked often)
LISTS_KEPT = 1 << 16


def to_list(mask: int) -> list[int]:
    """The set cells of a mask, in cell order (from Python): a new list each call."""
    cells = LISTS.get(mask)
    if cells is None:
        left, found = int(mask), []
        while left:
            low = left & -left
            found.append(low.bit_length() - 1)
            left ^= low
        if len(LISTS) >= LISTS_KEPT:
            LISTS.clear()
        cells = LISTS[int(mask)] = tuple(found)
    return list(cells)
