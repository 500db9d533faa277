"""The atomic operations the tree's threads share their table with."""

import numpy as np
from numba import njit, prange

from mancalab.atomic import compare_and_swap, fetch_add, load_acquire, store_release


@njit(cache=True)
def _one_thread(words):
    held = compare_and_swap(words, 0, 1, np.uint64(0), np.uint64(7))  # 0 -> 7
    refused = compare_and_swap(words, 0, 1, np.uint64(0), np.uint64(9))  # holds 7: unchanged
    before = fetch_add(words, 1, 0, np.uint64(5))
    store_release(words, 1, 1, np.uint64(11))
    return held, refused, before, load_acquire(words, 0, 1), load_acquire(words, 1, 1)


def test_each_operation_does_what_it_says():
    words = np.zeros((2, 2), dtype=np.uint64)
    words[1, 0] = 2**64 - 2
    assert _one_thread(words) == (0, 7, 2**64 - 2, 7, 11)
    assert words.tolist() == [[0, 7], [3, 11]]  # the add wrapped at 2**64


@njit(cache=True, parallel=True)
def _race(words, rounds):
    """Every thread adds 1 to one word ``rounds`` times and tries to claim each of 64 more."""
    claims = np.zeros(64, dtype=np.int64)
    for chunk in prange(64):
        for _ in range(rounds):
            fetch_add(words, 0, 0, np.uint64(1))
        won = 0
        for k in range(64):
            if compare_and_swap(words, 1, k, np.uint64(0), np.uint64(chunk + 1)) == 0:
                won += 1
        claims[chunk] = won
    return claims


def test_threads_lose_no_add_and_each_word_is_claimed_once():
    words = np.zeros((2, 64), dtype=np.uint64)
    claims = _race(words, 100_000)
    assert words[0, 0] == 64 * 100_000
    assert claims.sum() == 64 and (words[1] > 0).all()
