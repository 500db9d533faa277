"""What the tree statistics report, whichever way they count: a level's row, its totals'
slots and their multi-word numbers (``tree``: levels of positions; ``tree_paths``: path by
path)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...core import Variant

# Totals slots, in the order of the reference file's columns where possible.
TURNS, GAMES, AGENCY, A_WINS, B_WINS, DRAWS, TIMEOUTS = range(7)
N_TOTALS = 7
STATUS_SLOT = (-1, A_WINS, B_WINS, DRAWS, TIMEOUTS)  # indexed by the status code
HEADER = "turns, level, games, agency, Awins, Bwins, draws, timeouts"
TOTAL_WORDS = 4  # the words of each level total (256 bits: Gebeta to about level 145)


class TreeRow(NamedTuple):
    """One level of the table; the counts are cumulative over levels 1..level."""

    level: int
    turns: int
    games: int
    agency: int
    a_wins: int
    b_wins: int
    draws: int
    timeouts: int
    positions: int | None  # distinct positions at this level whose game goes on (None for
    # the last level asked for: it is counted, never stored; ask one level deeper for it)
    seconds: float  # time spent on this level
    peak_bytes: int  # memory held by this level's tables at its peak
    details: dict | None = None  # seconds spent expanding, merging and growing tables, and
    # compiling on a first run (left out of ``seconds``); on a cluster, the bytes moved
    # between workers and their peak memory

    def csv(self) -> str:
        return ", ".join(str(v) for v in (self.turns, self.level, self.games, self.agency,
                                          self.a_wins, self.b_wins, self.draws, self.timeouts))


def words_of(number: int, words: int) -> np.ndarray:
    """``number`` as ``words`` 64-bit words, the lowest first."""
    return np.array([(number >> (64 * w)) & (2**64 - 1) for w in range(words)], dtype=np.uint64)


def number_of(words) -> int:
    """The number held in 64-bit words, the lowest first."""
    return sum(int(word) << (64 * w) for w, word in enumerate(words))


def shared_params(game: Variant) -> np.ndarray:
    """``game``'s params as a plain array: the tree's kernels are compiled once for every
    game (the rules chosen at run time), not once a game as a first move wants them
    (``mancalab.params``): a run is long, and the tests walk every game's tree."""
    return np.asarray(game.params)
