"""The board from either seat (Variant.turned, action_cells, observation): the rules look the
same from both, so a learner's observation and actions mean the same whoever moves."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import mancalab
from mancalab.variants import examples
from mancalab.core import State

VARIANTS = examples()  # every game, with its default rules and its examples


def _turned(state: State) -> State:
    return State(state.variant, state.variant.turned(state.board))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.lists(st.integers(0, 10**6), max_size=80))
def test_a_game_and_its_turned_copy_play_alike(variant, picks):
    """Every position's turned copy has the turned legal moves, and each move leads to the
    turned copy of its result: the same game with the seats swapped."""
    turn = variant.turn_cells()
    state = variant.start()
    for pick in picks:
        if state.is_over:
            break
        copy = _turned(state)
        assert _turned(copy) == state  # turning twice changes nothing
        assert sorted(turn[m] for m in state.legal_moves()) == sorted(copy.legal_moves())
        seen, seen_copy = variant.observation(state.board), variant.observation(copy.board)
        shared = len(seen) - (not variant.seat_symmetric)  # all but the seat
        assert np.array_equal(seen[:shared], seen_copy[:shared])
        move = state.legal_moves()[pick % len(state.legal_moves())]
        after = state.play(move)
        round_over = "round" in state.extra and after.extra["round"] != state.extra["round"]
        if variant.seat_symmetric or not (round_over or after.is_over):
            assert copy.play(turn[move]) == _turned(after)
        state = after


def test_the_observation_is_the_movers_view():
    """Each player sees their own holes where player 0 sees theirs; actions name the same
    holes from both seats, in the game's notation."""
    kalah = mancalab.variant("kalah")
    state = kalah.state([1, 2, 3, 4, 5, 6, 0, 7, 6, 5, 4, 3, 2, 0], to_move=1)
    assert kalah.observation(state.board).tolist() == [7, 6, 5, 4, 3, 2, 0,
                                                        1, 2, 3, 4, 5, 6, 0]
    for player in (0, 1):
        names = [kalah.move_name(state, c) for c in kalah.action_cells(player)]
        assert names == ["1", "2", "3", "4", "5", "6"]
    urubugu = mancalab.variant("urubugu")
    start = urubugu.start()
    for player in (0, 1):
        holes = [urubugu.move_name(start, c) for c in urubugu.action_cells(player)]
        assert holes == [str(h) for h in range(1, 17)]


def test_every_observation_fits_its_bounds():
    for variant in VARIANTS:
        high = variant.observation_high()
        observation = variant.observation(variant.start().board)
        assert len(high) == len(observation)
        assert (observation >= 0).all() and (observation <= high).all()
        for player in (0, 1):
            cells = variant.action_cells(player)
            assert len(set(cells)) == len(cells) == len(variant.action_cells(1 - player))
            assert [variant.turn_cells()[c] for c in variant.action_cells(0)] == \
                variant.action_cells(1)
