"""Helpers several games share: row scans for the kernels, option helpers, reading a hole
number, board shapes."""

from __future__ import annotations

from numba import njit

from ..core import IllegalMoveError, Option, State, whole_range
from ..movemask import NONE, bit
from ..sowing import BANK, CAPTURE, note


@njit(cache=True, inline="always")
def nonempty_pits(board, first, count):
    """The mask of the non-empty pits ``first .. first+count-1`` (see ``mancalab.movemask``)."""
    mask = NONE
    for pit in range(first, first + count):
        if board[pit] > 0:
            mask |= bit(pit)
    return mask


@njit(cache=True, inline="always")
def pit_sum(board, first, count):
    """The counters in pits ``first .. first+count-1``."""
    total = 0
    for pit in range(first, first + count):
        total += board[pit]
    return total


@njit(cache=True, inline="always")
def bank_hole(board, hole, store, trace):
    """Move the seeds of ``hole`` into ``store`` (the sweep at the end of a game or round)."""
    seeds = board[hole]
    if seeds > 0:
        board[hole] = 0
        note(trace, CAPTURE, board, hole, seeds)
        board[store] += seeds
        note(trace, BANK, board, store, 0)


def parse_number(text: str, low: int, high: int, what: str) -> int:
    """A whole number in ``low..high`` typed by a person, or IllegalMoveError saying why not."""
    token = text.strip()
    if not token.isdigit():
        raise IllegalMoveError(f"{token!r} is not a {what}: type a number {low}-{high}")
    number = int(token)
    if not low <= number <= high:
        raise IllegalMoveError(f"there is no {what} {number}: type a number {low}-{high}")
    return number


def bool_option(value) -> bool:
    """An on/off option from Python (True/False/1/0) or from text ("true"/"false")."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word not in ("true", "false"):
            raise ValueError(value)
        return word == "true"
    if value not in (True, False):
        raise ValueError(value)
    return bool(value)


def flag(default: bool) -> Option:
    """An on/off game option."""
    return Option(default, bool_option, lambda v: True, "true or false")


MAX_LAPS = 10_000  # the most laps any lap option allows: a real game's relay ends within
# a few dozen, and a move of 10,000 laps still takes milliseconds (a billion took a minute)


def laps_option(default: int, why: str = "") -> Option:
    """An option that cuts a move off after so many laps: bounded by ``MAX_LAPS``, since the
    work of one move grows with it."""
    return whole_range(default, 1, MAX_LAPS, f"a whole number of laps, 1..{MAX_LAPS:,}{why}")


def lap_guard(default: int = MAX_LAPS) -> Option:
    """The ``max_laps`` option: a move still going after this many laps is cut off."""
    return laps_option(default)


class SeedStores:
    """What games share whose score is the seeds in each player's store, every seed counted
    (Kalah, Oware): a class before ``Variant`` in their bases, with ``total_seeds``."""

    total_seeds: int

    def can_win(self, state: State, player: int) -> bool:
        """``player`` could still win unless the other holds half the seeds already."""
        return 2 * state.score[1 - player] < self.total_seeds

    def key_widths(self) -> list[int]:
        return [self.total_seeds.bit_length()] * self.n_cells + [1]


def store_grid(m: int) -> list[list[int | None]]:
    """Two rows of ``m`` pits with a store at each end, seen from player 0's seat.

    Cells ``0..m-1`` (bottom, left to right), store ``m`` (right), ``m+1..2m`` (top, right to
    left), store ``2m+1`` (left): the layout of Kalah and Gabata.
    """
    top = [None] + list(range(2 * m, m, -1)) + [None]
    middle = [2 * m + 1] + [None] * m + [m]
    bottom = [None] + list(range(m)) + [None]
    return [top, middle, bottom]
