"""Numbering the distributions of k seeds over n pits (stars and bars): the combinatorial
number system gives each a rank from 0 to C(k + n - 1, n - 1) - 1, so a database of every
position up to K seeds is one array (one block per k) with no index to store. Shared by
Kalah's databases, the retrograde databases of Gebeta and Gabata, and Oware's tables (whose
rules rank a board for the search: ``rank_from``)."""

from __future__ import annotations

import functools

import numpy as np
from numba import njit


def binomials(n: int) -> np.ndarray:
    """``C[a, b]`` for a, b < n, as int64 (exact while they fit: C(130, 12) < 2^63): a copy
    of a table built once per size, as every graph walk and proof question asks for one."""
    return _pascal(n).copy()


@functools.lru_cache(maxsize=32)
def _pascal(n: int) -> np.ndarray:
    table = np.zeros((n, n), dtype=np.int64)
    for a in range(n):
        table[a, 0] = 1
        for b in range(1, a + 1):
            table[a, b] = table[a - 1, b - 1] + table[a - 1, b]
    return table


@njit(cache=True, inline="always")
def rank(pits, binom):
    """The rank of a distribution among those with the same number of seeds: the bars of
    its stars-and-bars picture, ranked by the combinatorial number system."""
    return rank_from(pits, 0, pits.shape[0], binom)


@njit(cache=True, inline="always")
def rank_from(cells, first, n, binom):
    """``rank`` of the ``n`` pits ``cells[first]``, ``cells[first + 1]``, ... taken round
    the ``n`` cells from ``first`` (a board as the player whose row starts there sees it)."""
    r = 0
    total = 0
    at = first
    for j in range(n - 1):
        total += cells[at]
        r += binom[total + j, j + 1]
        at = at + 1 if at + 1 < n else 0
    return r


@njit(cache=True, inline="always")
def index(pits, seeds, binom):
    """The database index of ``pits`` holding ``seeds`` in all (blocks by seed count)."""
    n = pits.shape[0]
    return (binom[seeds - 1 + n, n] if seeds > 0 else 0) + rank(pits, binom)


@njit(cache=True)
def unrank(r, seeds, n, binom, bars):
    """The bars (an increasing combination) of rank ``r`` among distributions of ``seeds``."""
    top = seeds + n - 2
    for j in range(n - 2, -1, -1):
        c = top
        while binom[c, j + 1] > r:
            c -= 1
        bars[j] = c
        r -= binom[c, j + 1]
        top = c - 1


@njit(cache=True, inline="always")
def pits_of(bars, seeds, pits):
    n = pits.shape[0]
    last = -1
    for j in range(n - 1):
        pits[j] = bars[j] - last - 1
        last = bars[j]
    pits[n - 1] = seeds + n - 2 - last


@njit(cache=True, inline="always")
def next_bars(bars, limit):
    """The next combination in colexicographic order (the order of the ranks)."""
    t = bars.shape[0]
    for j in range(t):
        if j + 1 < t and bars[j] + 1 < bars[j + 1] or j + 1 == t and bars[j] + 1 < limit:
            bars[j] += 1
            for i in range(j):
                bars[i] = i
            return True
    return False


@njit(cache=True, inline="always")
def chunk_range(chunk, chunks, begin, end):
    """The part first..last (last excluded; empty when first >= last) of ``begin``..``end``
    that thread chunk ``chunk`` of ``chunks`` takes: equal slices, the last ones short."""
    per = (end - begin + chunks - 1) // chunks
    first = begin + chunk * per
    return first, min(end, first + per)
