"""Position strings: every game's position as one line of text (docs/ugi.md, "Positions").

The format extends PlayStrategy's mancala FEN (its Oware start is
``4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 1``), so that an Oware or Kalah position reads
the same in both::

    ROWS SCORE0 SCORE1 SIDE MOVE [KEY=VALUE ...]

- ROWS: the holes as drawn from player 0's seat (player 0, "South", at the bottom), top row
  first, rows split by ``/``, holes left to right split by ``,``; a hole with n seeds is
  ``nS``, a run of k empty holes is the number ``k`` (``2`` is two empty holes);
- SCORE0, SCORE1: the cells that hold each player's score (stores; Gebeta's families), ``-``
  for a game that counts its score on the board (Urubugu);
- SIDE: ``S`` when player 0 is to move, ``N`` for player 1;
- MOVE: the full move number, from 1, raised after each move of player 1 (it is read and not
  kept: a ``State`` has no history);
- the game's extra state, where it has one (3-row Gabata: ``owner=`` each hole's owner in cell
  order, ``round=``).

The game and its options are not in the string, as a chess FEN does not name chess.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .core import InvalidPositionError, _short

if TYPE_CHECKING:
    from .core import State, Variant

SIDES = "SN"
MAX_LENGTH = 4096  # longer than any game's string; more is refused before it is read


def hole_rows(variant: Variant, state: State | None = None) -> list[list[int]]:
    """The cells of the holes row by row, as the string lists them: the game's drawing
    without its blanks and score cells."""
    state = state or variant.layout_state()
    scores = set(variant.score_cells() or ())
    rows = [[i for i in row if i is not None and i not in scores] for row in variant.grid(state)]
    return [row for row in rows if row]


def write(state: State, move_number: int = 1) -> str:
    """The position string of ``state`` (its full move number given, else 1)."""
    variant = state.variant
    cells = state.cells
    rows = "/".join(_row([cells[i] for i in row]) for row in hole_rows(variant, state))
    scores = variant.score_cells()
    score_words = [str(cells[i]) for i in scores] if scores else ["-", "-"]
    extra = [f"{key}={_value(value)}" for key, value in state.extra.items()]
    return " ".join([rows, *score_words, SIDES[state.to_move], str(move_number), *extra])


def _row(counts: list[int]) -> str:
    words, empty = [], 0
    for count in counts:
        if count == 0:
            empty += 1
            continue
        if empty:
            words.append(str(empty))
            empty = 0
        words.append(f"{count}S")
    if empty:
        words.append(str(empty))
    return ",".join(words)


def _value(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)


def read(variant: Variant, text: str) -> State:
    """The position of ``text`` in ``variant``: checked as ``Variant.state`` checks cells
    (InvalidPositionError naming the part that is wrong)."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position string is text, got {_short(text)}")
    if len(text) > MAX_LENGTH:
        raise InvalidPositionError(f"a position string has at most {MAX_LENGTH} characters")
    fields = text.split()
    if len(fields) < 4:
        raise InvalidPositionError(
            f"a position string has the holes, two scores, the side to move and the move "
            f"number (e.g. {write(variant.layout_state())!r}), got {_short(text)}")
    rows, score0, score1, side, *rest = fields
    if rest and "=" not in rest[0]:
        _move_number(rest.pop(0))
    cells = [0] * variant.n_cells
    _read_holes(variant, rows, cells)
    _read_scores(variant, score0, score1, cells)
    if side.upper() not in ("S", "N"):
        raise InvalidPositionError(f"the side to move is S or N, not {_short(side)}")
    extra = {}
    for word in rest:
        key, eq, value = word.partition("=")
        if not eq or not key:
            raise InvalidPositionError(f"expected KEY=VALUE after the move number, got "
                                       f"{_short(word)}")
        extra[key] = value.split(",") if "," in value else value
    return variant.state(cells, to_move=SIDES.index(side.upper()), **extra)


def _move_number(word: str) -> int:
    if not re.fullmatch(r"\d{1,9}", word) or int(word) < 1:
        raise InvalidPositionError(f"the move number is a whole number from 1, not "
                                   f"{_short(word)}")
    return int(word)


def _read_holes(variant: Variant, text: str, cells: list[int]) -> None:
    layout = hole_rows(variant)
    rows = text.split("/")
    if len(rows) != len(layout):
        raise InvalidPositionError(f"{variant.name} has {len(layout)} rows of holes split by "
                                   f"'/', got {len(rows)}")
    for number, (row, indices) in enumerate(zip(rows, layout), start=1):
        counts = _counts(row, number)
        if len(counts) != len(indices):
            raise InvalidPositionError(f"row {number} of {variant.name} has {len(indices)} "
                                       f"holes, got {len(counts)} in {_short(row)}")
        for index, count in zip(indices, counts):
            cells[index] = count


def _counts(row: str, number: int) -> list[int]:
    counts: list[int] = []
    for word in row.split(","):
        seeds = re.fullmatch(r"(\d{1,9})[Ss]", word)
        if seeds:
            counts.append(int(seeds.group(1)))
        elif re.fullmatch(r"\d{1,3}", word) and int(word) > 0:
            counts.extend([0] * int(word))
        else:
            raise InvalidPositionError(f"row {number}: {_short(word)} is neither seeds (as 4S) "
                                       f"nor a run of empty holes (as 2)")
        if len(counts) > MAX_LENGTH:
            raise InvalidPositionError(f"row {number} is too long")
    return counts


def _read_scores(variant: Variant, score0: str, score1: str, cells: list[int]) -> None:
    scores = variant.score_cells()
    if scores is None:
        if (score0, score1) != ("-", "-"):
            raise InvalidPositionError(f"{variant.name} keeps no score apart from the board: "
                                       f"write - - for the scores")
        return
    for index, word in zip(scores, (score0, score1)):
        if not re.fullmatch(r"\d{1,9}", word):
            raise InvalidPositionError(f"a score is a whole number, not {_short(word)}")
        cells[index] = int(word)
