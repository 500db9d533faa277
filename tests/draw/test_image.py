"""Pictures of positions (mancalab.draw.image): a board drawn on axes, or straight on a
figure in a rectangle (the worksheets), is the same picture in the same place."""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import mancalab
from mancalab.draw import image

RECT = (0.1, 0.2, 0.5, 0.3)  # left, bottom, width, height: fractions of the figure


def extents(figure, artists) -> list[tuple[float, ...]]:
    """The pixel boxes of ``artists`` once ``figure`` is drawn, in a fixed order."""
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    return sorted(tuple(round(v, 1) for v in artist.get_window_extent(renderer).extents)
                  for artist in artists())


@pytest.mark.parametrize("game, size", [("kalah", (8, 10)), ("gabata3", (12, 3)),
                                        ("urubugu", (4, 12)), ("oware", (12, 4))])
def test_a_board_on_a_figure_is_drawn_where_axes_would_draw_it(game, size):
    """Boards narrower and wider than their rectangle (``size``: the figure's inches)."""
    state = mancalab.variant(game).start()
    on_axes = Figure(figsize=size, dpi=50)
    axes = on_axes.add_axes(RECT)
    image.draw(state, axes, all_labels=True)
    straight = Figure(figsize=size, dpi=50)
    image.draw(state, (straight, RECT), all_labels=True)
    cells = extents(straight, lambda: straight.artists)
    assert cells == extents(on_axes, lambda: axes.patches)
    left, bottom = RECT[0] * straight.bbox.width, RECT[1] * straight.bbox.height
    right = left + RECT[2] * straight.bbox.width
    top = bottom + RECT[3] * straight.bbox.height
    xs = [v for box in cells for v in box[::2]]
    ys = [v for box in cells for v in box[1::2]]
    assert left <= min(xs) and max(xs) <= right and bottom <= min(ys) and max(ys) <= top
    # as large as fits: the board reaches two opposite sides of its rectangle, less the
    # small gap around each hole
    assert max(xs) - min(xs) > 0.9 * (right - left) or max(ys) - min(ys) > 0.9 * (top - bottom)
