"""Glicko-2: the paper's worked example, and one game by the formula written out."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mancalab.analysis.compete.glicko import Rating, after_game, update


def test_the_papers_worked_example():
    player = Rating(1500, 200, 0.06)
    games = [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)]
    rating, deviation, volatility = update(player, games)
    assert rating == pytest.approx(1464.06, abs=0.01)
    assert deviation == pytest.approx(151.52, abs=0.01)
    assert volatility == pytest.approx(0.05999, abs=0.00001)


def test_one_game_by_the_formula():
    """Two new players, one game: the rating change is phi'^2 g (s - E) with v from the one
    game (the volatility barely moves in one game, so phi* is checked with the new sigma)."""
    first, second = after_game(Rating(), Rating(), 1)
    scale = 173.7178
    phi = 350 / scale
    g = 1 / math.sqrt(1 + 3 * phi ** 2 / math.pi ** 2)
    v = 1 / (g * g * 0.25)
    phi_star = math.sqrt(phi ** 2 + first.volatility ** 2)
    phi_new = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    assert first.rating == pytest.approx(1500 + scale * phi_new ** 2 * g * 0.5, abs=1e-6)
    assert first.deviation == pytest.approx(scale * phi_new, abs=1e-6)
    assert second.rating == pytest.approx(3000 - first.rating, abs=1e-6)  # symmetric
    assert first.provisional and Rating(1500, 100).provisional is False


@given(st.floats(800, 2500), st.floats(40, 350), st.floats(800, 2500), st.floats(40, 350),
       st.sampled_from([0, 0.5, 1]))
def test_a_win_never_lowers_and_a_loss_never_raises(r1, d1, r2, d2, score):
    before = Rating(r1, d1)
    after, _ = after_game(before, Rating(r2, d2), score)
    if score == 1:
        assert after.rating >= before.rating
    if score == 0:
        assert after.rating <= before.rating
    assert 0 < after.deviation <= 350
