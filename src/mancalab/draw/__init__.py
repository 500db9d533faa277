"""One drawing of a position, with three back ends.

``rows(state, viewer)`` is the one view every back end draws: the game's ``grid`` (rows of
cells seen from player 0's seat) turned so that ``viewer``'s side is at the bottom, each cell
with its count, owner and the label its reader uses. The back ends:

- ``text``: the terminal's board with rich (the mover's side at the bottom);
- ``image``: matplotlib pictures (environments, research pages, worksheets);
- ``html``: what the browser draws (``board_view``, the page's own ``board.js``), the same
  board in a notebook and a results page of replayable games.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from ..core import State


class Cell(NamedTuple):
    """A cell as drawn: its index, count, owner (None: nobody's) and label (None: unnamed)."""

    index: int
    count: int
    owner: int | None
    label: str | None


def rows(state: State, viewer: int = 0, reader: int | None = None,
         each_owner: bool = False) -> list[list[Cell | None]]:
    """The board as ``viewer`` sees it, top row first (None for a blank), labelled in
    ``reader``'s notation (default the viewer's), or each cell in its owner's
    (``each_owner``: a worksheet's questions name holes on both sides)."""
    variant = state.variant
    grid = variant.grid(state)
    if viewer == 1:  # player 1 sits across the board: turned by 180 degrees
        grid = [list(reversed(row)) for row in reversed(grid)]
    reader = viewer if reader is None else reader
    cells = state.cells

    def cell(index: int) -> Cell:
        owner = variant.cell_owner(state, index)
        named = owner if each_owner and owner is not None else reader
        return Cell(index, int(cells[index]), owner, variant.cell_label(state, named, index))

    return [[None if index is None else cell(index) for index in row] for row in grid]
