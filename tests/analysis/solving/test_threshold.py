"""Yes-or-no questions about a Gebeta or Gabata value against the independent fixed point
over the State API (``test_retrograde.fixed_point``): every threshold, both semantics of
endless play, either side to move at the root, with and without a database."""

import random

import numpy as np
import pytest

import mancalab
from mancalab.analysis.solving import graph, repeating, retrograde, threshold

from .test_retrograde import GAMES, endless_positions, fixed_point, margin, random_position


def question_facts(state):
    """What the threshold tests ask about ``state``: the fixed point's L and U, the state's
    key in them, the mover's banked margin, the units in play and the pits as the mover sees
    them."""
    low, high = fixed_point(state)
    own = margin(state, state.to_move)
    seeds = (sum(state.cells) - sum(state.score)) // GAMES[state.variant.name]
    return low, high, state.board.tobytes(), own, seeds, graph.mover_view(state)


def check_every_threshold(state, databases, moves_first=True):
    """``at_least`` agrees with L and U of the fixed point at every target, asked of the side
    to move (``moves_first``) or of the other side with the mover's reply still to come."""
    low, high, key, own, seeds, pits = question_facts(state)
    for database in databases:
        for target in range(own - seeds - 1, own + seeds + 2):
            if moves_first:  # A moves: A's L and U
                answer = threshold.at_least(state.variant, pits, target, database,
                                            banked=own, capacity=200_000)
                expected = (low[key] >= target, high[key] >= target)
            else:  # A is the side not to move: A's margin is -(the mover's)
                answer = threshold.at_least(state.variant, pits, -target + 1, database,
                                            side=1, banked=-own, capacity=200_000)
                expected = (-high[key] >= -target + 1, -low[key] >= -target + 1)
            assert (answer.under_l, answer.under_u) == expected, (state.cells, target)
            assert answer.complete


@pytest.mark.parametrize("game, seeds", [("gebeta", 4), ("gabata", 5), ("gabata", 6)])
def test_every_threshold_equals_the_fixed_point(game, seeds):
    variant = mancalab.variant(game)
    rng = random.Random(seeds)
    databases = [None, retrograde.build(variant, seeds - 4 if game == "gebeta" else 3)]
    for turn in range(3):
        check_every_threshold(random_position(variant, seeds, rng), databases, turn != 1)


def test_thresholds_where_endless_play_decides_equal_the_fixed_point():
    variant = mancalab.variant("gabata")
    state = next(endless_positions(7))
    check_every_threshold(state, [None, retrograde.build(variant, 7)])
    check_every_threshold(state, [retrograde.build(variant, 5)], moves_first=False)


def test_a_walk_cut_short_proves_only_what_it_proves():
    variant = mancalab.variant("gabata")
    pits = np.array([2, 1, 0, 3, 1, 0, 1, 2, 0, 1, 3, 1], dtype=np.int64)
    whole = graph.reachable(variant, pits, None, 10**6, np.ones(4, np.int64),
                            np.ones(4, np.int64))
    assert whole.final
    value_low, value_high = int(whole.low[0]), int(whole.high[0])
    for target in (value_low, value_high + 1):
        for capacity in (1000, 5000):
            answer = threshold.at_least(variant, pits, target, capacity=capacity)
            assert not answer.complete
            assert answer.under_l in (None, value_low >= target)
            assert answer.under_u in (None, value_high >= target)


def test_a_margin_too_wide_for_its_nodes_is_refused():
    with pytest.raises(ValueError, match="margins"):
        threshold.at_least(mancalab.variant("gabata"), np.full(12, 4), 200)


def _cut_walk(state, database):
    """The bounds of the walk alone, with room for 500 positions: the value's and moves'."""
    cut = graph.reachable(state.variant, graph.mover_view(state), database, 500,
                          np.ones(4, np.int64), np.ones(4, np.int64))
    return (int(cut.low[0]), int(cut.high[0])), cut.final


@pytest.mark.parametrize("settle", [False, True])
def test_questions_close_what_a_walk_cut_short_left_open(monkeypatch, settle):
    """With room for 500 positions the walk leaves bounds apart; the questions (the proof
    search, and with ``settle`` the attractor walk where it finds no answer) close them, the
    value's and every move's, to the whole walk's, and prove the same best moves."""
    variant = mancalab.variant("gabata")
    database = retrograde.build(variant, 4)
    rng = random.Random(11)
    opened = 0
    for _ in range(4):
        state = random_position(variant, 9, rng)
        whole = repeating.solve(state, moves=True, database=database)
        (low, high), final = _cut_walk(state, database)
        opened += not final and low < high
        monkeypatch.setattr(graph, "capacity_for", lambda time: 500)
        settled = repeating.solve(state, moves=True, database=database, settle=settle)
        alone = repeating.solve(state, database=database, settle=settle)  # best moves asked
        monkeypatch.undo()
        assert alone.best_moves == whole.best_moves, state.cells
        assert (settled.lower, settled.upper) == (whole.lower, whole.upper), state.cells
        assert settled.moves == whole.moves, state.cells
        if whole.exact:
            assert settled.best_moves == whole.best_moves, state.cells
    assert opened >= 2


def test_questions_close_moves_left_apart_under_an_exact_value(monkeypatch):
    """A walk cut short can prove the value yet leave some moves' bounds apart: the
    questions close those too (and so find every best move)."""
    variant = mancalab.variant("gabata")
    database = retrograde.build(variant, 4)
    rng = random.Random(5)
    for _ in range(60):
        state = random_position(variant, 9, rng)
        cut = graph.reachable(variant, graph.mover_view(state), database, 3000,
                              np.ones(4, np.int64), np.ones(4, np.int64))
        edges = [repeating._edge_bounds(cut, database, j) for j in range(6)
                 if cut.kinds[0, j] != retrograde.NONE]
        if cut.low[0] != cut.high[0] or all(low == high for low, high in edges):
            continue
        monkeypatch.setattr(graph, "capacity_for", lambda time: 3000)
        settled = repeating.solve(state, moves=True, database=database)
        alone = repeating.solve(state, database=database)
        monkeypatch.undo()
        whole = repeating.solve(state, moves=True, database=database)
        assert settled.moves == whole.moves
        assert settled.best_moves == alone.best_moves == whole.best_moves
        return
    raise AssertionError("no walk cut short left a move apart under an exact value")
