"""A move step by step (State.sowing): the steps replay to the next position exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import mancalab
from mancalab.variants import examples
from mancalab import IllegalMoveError
from mancalab.sowing import Step

import pytest

VARIANTS = examples()  # every game, with its default rules and its examples


def _weights(variant) -> list[int]:
    """What a cell's count is worth in seeds: a Gebeta family holds four counters."""
    weights = [1] * variant.n_cells
    if variant.name == "gebeta":
        weights[12] = weights[13] = 4
    return weights


def _check_move(state, move) -> None:
    steps = state.sowing(move)
    after = state.play(move)
    cells = list(state.cells)
    weights = _weights(state.variant)
    total = sum(w * c for w, c in zip(weights, cells))
    # a Gebeta game ends by counting the families left in a row: the counters stay drawn
    counted = len(steps) - (1 if state.variant.name == "gebeta" and after.is_over else 0)
    reloading = False
    for at, step in enumerate(steps):
        assert step.hand >= 0 and step.count >= 0
        if step.kind == "drop":
            assert step.count == cells[step.cell] + 1, step
        if step.kind == "lift":
            assert step.count < cells[step.cell], step
        if step.kind == "capture":
            assert step.count < cells[step.cell], step
        if step.kind == "bank":
            assert step.count >= cells[step.cell], step
        cells[step.cell] = step.count
        reloading = reloading or step.kind == "set"  # a new round refills the board
        if not reloading and at < counted:  # every seed is in a hole, a store or the hand
            assert sum(w * c for w, c in zip(weights, cells)) + step.hand == total, step
    assert cells == list(after.cells)
    if after.outcome is None or after.outcome.kind != "timeout":
        assert steps[-1].hand == 0  # every seed lifted was sown


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.lists(st.integers(0, 10**6), max_size=120))
def test_steps_replay_to_the_next_position(variant, picks):
    s = variant.start()
    for pick in picks:
        moves = s.legal_moves()
        if not moves:
            break
        move = moves[pick % len(moves)]
        _check_move(s, move)
        s = s.play(move)


def test_kalah_capture_step_by_step():
    k = mancalab.variant("kalah", pits=6, seeds=4)
    # player 0 sows pit 1's single seed into the empty pit 2, facing 5 seeds in pit 10
    s = k.state(cells=[4, 1, 0, 4, 4, 4, 3, 4, 4, 4, 5, 4, 4, 3], to_move=0)
    assert s.sowing(1) == [
        Step("lift", 1, 0, 1), Step("drop", 2, 1, 0),
        Step("capture", 10, 0, 5), Step("capture", 2, 0, 6), Step("bank", 6, 9, 0)]


def test_gebeta_family_step_by_step():
    g = mancalab.variant("gebeta")
    # A sows home 4's two counters: the first makes a family of the 3 in home 5 (not the
    # last counter, so the family goes to the row's owner, A); the last lands in B's empty
    # home 6 and the turn ends
    cells = [4, 4, 4, 4, 2, 3, 0, 4, 4, 4, 4, 3, 1, 1]
    s = g.state(cells=cells, to_move=0)
    assert s.sowing(4) == [
        Step("lift", 4, 0, 2), Step("drop", 5, 4, 1), Step("capture", 5, 0, 5),
        Step("bank", 12, 2, 1), Step("drop", 6, 1, 0)]


def test_a_move_longer_than_the_limit_gives_none():
    s = mancalab.variant("gebeta").start()
    assert len(s.sowing(0)) == 31
    assert s.sowing(0, limit=30) is None


def test_an_illegal_move_is_refused():
    s = mancalab.variant("kalah").start()
    with pytest.raises(IllegalMoveError):
        s.sowing(7)


def test_every_game_traces_its_first_moves():
    for variant in VARIANTS:
        s = variant.start()
        for move in s.legal_moves():
            _check_move(s, move)
