"""Helpers several games share: reading a hole number, option converters, board shapes."""

from __future__ import annotations

from ..core import IllegalMoveError


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


def store_grid(m: int) -> list[list[int | None]]:
    """Two rows of ``m`` pits with a store at each end, seen from player 0's seat.

    Cells ``0..m-1`` (bottom, left to right), store ``m`` (right), ``m+1..2m`` (top, right to
    left), store ``2m+1`` (left): the layout of Kalah and Gabata.
    """
    top = [None] + list(range(2 * m, m, -1)) + [None]
    middle = [2 * m + 1] + [None] * m + [m]
    bottom = [None] + list(range(m)) + [None]
    return [top, middle, bottom]
