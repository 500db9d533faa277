"""Pictures of positions with matplotlib: for environments (``render_mode="rgb_array"``), the
research pages, the worksheets and anyone who wants a board in a report. A picture draws the
one view (``draw.rows``), the viewer's side at the bottom; the viewer's holes are green, the
opponent's blue."""

from __future__ import annotations

import numpy as np

from ..core import State
from . import rows

OWN, OTHER, BLANK = "#cfe8c8", "#c8dcef", "#eeeeee"


def _figure(state: State):
    """A figure sized for the game's grid (no pyplot: no global state, safe in any thread)."""
    from matplotlib.figure import Figure

    grid = state.variant.grid(state)
    return Figure(figsize=(0.7 * max(len(row) for row in grid) + 0.4, 0.7 * len(grid) + 0.6),
                  dpi=80)


def draw(state: State, ax, viewer: int | None = None, marks: set[int] = frozenset(),
         all_labels: bool = False, title: str | None = None, answers: set[int] = frozenset(),
         way: list[int] = (), label_size: float = 7) -> None:
    """Draw ``state`` on the matplotlib axes ``ax``, or straight on a figure in a rectangle
    (``ax`` = ``(figure, (left, bottom, width, height))`` in the figure's fractions: a
    worksheet's dozens of boards need no axes, whose making took a quarter of its time), as
    ``viewer`` (default: the player to move) sees it, with the cells in ``marks`` outlined
    in red and those in ``answers`` in green; ``all_labels``: every hole named for its owner
    (a worksheet's questions name holes on both sides), else the viewer's, in ``label_size``
    points; ``title`` replaces the scores line above the board; ``way``: cells an arrow runs
    through (the way a move sows)."""
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    variant = state.variant
    viewer = state.to_move if viewer is None else viewer
    board = rows(state, viewer, each_owner=all_labels)
    width, height = max(len(row) for row in board), len(board)
    canvas, cells = _canvas(ax, width, height)
    # add_artist, not add_patch: no patch needs to update the limits
    for y, row in enumerate(reversed(board)):
        for x, cell in enumerate(row):
            if cell is None:
                continue
            colour = BLANK if cell.owner is None else OWN if cell.owner == viewer else OTHER
            edge = "red" if cell.index in marks else "green" if cell.index in answers else None
            canvas.add_artist(FancyBboxPatch((x + 0.08, y + 0.08), 0.84, 0.84,
                                             boxstyle="round,pad=0,rounding_size=0.4",
                                             facecolor=colour, edgecolor=edge or "#555555",
                                             linewidth=2.5 if edge else 1, transform=cells))
            canvas.text(x + 0.5, y + 0.5, str(cell.count), ha="center", va="center",
                        fontsize=13, transform=cells)
            if cell.label:
                canvas.text(x + 0.5, y + 0.02, cell.label, ha="center", va="bottom",
                            fontsize=label_size, color="#333333", transform=cells)
    centres = {cell.index: (x + 0.5, y + 0.72) for y, row in enumerate(reversed(board))
               for x, cell in enumerate(row) if cell is not None}
    points = [centres[cell] for cell in way if cell in centres]
    for start, end in zip(points, points[1:]):
        canvas.add_artist(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=9,
                                          color="#333333", linewidth=1.2, transform=cells))
    score = state.score
    # a text above the board, not an axes title: placing a title measures the hidden ticks
    canvas.text(width / 2, height * 1.02, title if title is not None else
                f"A {score[0]} · B {score[1]} {variant.texts.score_noun}"
                + ("" if state.is_over else f" · {'AB'[state.to_move]} to move"),
                fontsize=10, ha="center", va="bottom", transform=cells)


def _canvas(ax, width: int, height: int):
    """Where a board ``width`` by ``height`` cells is drawn, and the transform of its cell
    coordinates: the axes (their limits the board, cells square), or a figure's rectangle
    (the board as large as fits, centred, as the axes would place it)."""
    from matplotlib.transforms import Affine2D

    if not isinstance(ax, tuple):
        ax.axis("off")  # before drawing: no ticks are made
        ax.set_xlim(0, width)
        ax.set_ylim(0, height)
        ax.set_aspect("equal")
        return ax, ax.transData
    figure, (left, bottom, across, up) = ax
    figure_width, figure_height = figure.get_size_inches()
    across, up = across * figure_width, up * figure_height  # inches
    cell = min(across / width, up / height)
    x = left * figure_width + (across - cell * width) / 2
    y = bottom * figure_height + (up - cell * height) / 2
    return figure, Affine2D().scale(cell).translate(x, y) + figure.dpi_scale_trans


def rgb(state: State, viewer: int | None = None, marks: set[int] = frozenset()) -> np.ndarray:
    """The picture of ``state`` as an array of pixels (height, width, 3) of uint8."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = _figure(state)
    canvas = FigureCanvasAgg(figure)
    draw(state, figure.add_subplot(), viewer, marks)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def save(state: State, path: str, viewer: int | None = None,
         marks: set[int] = frozenset()) -> None:
    """Write the picture of ``state`` to ``path`` (PNG, SVG or PDF by the file's suffix)."""
    figure = _figure(state)
    draw(state, figure.add_subplot(), viewer, marks)
    figure.savefig(path, bbox_inches="tight")
