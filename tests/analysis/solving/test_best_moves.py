"""A move named best is a move proven to reach the exact value, in every solvable game,
whatever the time budget and however warm the search tables are: an exact value shown with a
losing "best" move misleads a player who trusts it."""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import mancalab
from mancalab.analysis import solving
from mancalab.analysis.solving import retrograde

from .test_solve import brute, move_value, positions

KALAH = mancalab.variant("kalah", pits=3, seeds=2)
BUDGETS = st.sampled_from([0.001, 0.003, 0.01, 0.03, 0.1])


def solvable_games():
    return [name for name in mancalab.variants()
            if solving.unsolvable(mancalab.variant(name)) is None]


def test_every_solvable_game_is_covered_here():
    assert set(solvable_games()) == {"kalah", "gebeta", "gabata", "urubugu"}


def test_a_root_settled_by_the_table_names_no_unproven_move():
    """The second test of a position finds its bound in the table and must not return the
    move slot's leftover as the move that proves it."""
    for state in positions(KALAH, 6, seed=5):
        solver = solving.Solver(KALAH, None, table_bits=12, threads=1)
        pits = solving.mover_pits(state)
        for _ in range(3):
            lower, upper, move = solver.g(pits, None, parallel=False)
            assert lower == upper == brute(state) - solving.store_margin(state)
            if move >= 0:
                cell = move if state.to_move == 0 else KALAH.options["pits"] + 1 + move
                assert move_value(state, cell) == brute(state), (state.cells, move)


def check_best_moves(result, state, value_of):
    """Every best move of an exact ``result`` reaches its value, by ``value_of(state, move)``
    (an independent reference; None when it could not tell) and by its own bounds when they
    were given."""
    if not result.exact:
        assert result.best_moves == []
        return
    for move in result.best_moves:
        assert move in state.legal_moves()
        assert value_of(state, move) in (result.value, None), (state.cells, state.to_move,
                                                               move)
        if move in result.moves:
            assert result.moves[move][0] == result.value


BIGGER = mancalab.variant("kalah", pits=4, seeds=4)  # short budgets run out here


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), budget=BUDGETS, repeats=st.integers(1, 4),
       moves=st.booleans())
def test_kalah_best_moves_are_proven_under_any_budget(seed, budget, repeats, moves):
    state = positions(BIGGER, 1, seed)[0]
    solver = solving.Solver(BIGGER, None, table_bits=12, threads=1)  # collisions too
    reference = solving.Solver(BIGGER, None, table_bits=16, threads=1)

    def value_of(state, move):
        child = state.play(move)
        if child.is_over:
            a, b = child.score
            return a - b if state.to_move == 0 else b - a
        value = solving.solve(child, solver=reference, parallel=False).value
        return value if child.to_move == state.to_move else -value

    for _ in range(repeats):  # a warm table settles the root at once
        result = solving.solve(state, time=budget, moves=moves, solver=solver,
                               parallel=False)
        check_best_moves(result, state, value_of)


def _exact_move_value(state, move, time=None):
    """The move's value from a solve of the position after it (a reference), or None when
    that solve did not finish."""
    child = state.play(move)
    result = solving.solve(child, time=time)
    if not result.exact:
        return None
    return result.value if child.to_move == state.to_move else -result.value


def _late_position(game, rng):
    """A position of ``game`` with a few seeds in play more than its small database holds,
    the rest banked."""
    from .test_retrograde import random_position

    seeds = rng.choice([8, 12]) if game == "gebeta" else rng.randint(5, 9)
    return random_position(mancalab.variant(game), seeds, rng)


@pytest.mark.parametrize("game", ["gebeta", "gabata"])
@settings(max_examples=4, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), budget=BUDGETS, moves=st.booleans())
def test_retrograde_best_moves_are_proven_under_any_budget(game, seed, budget, moves,
                                                           small_databases):
    state = _late_position(game, random.Random(seed))
    database = retrograde.database_for(state.variant)
    for _ in range(2):
        result = solving.solve(state, time=budget, moves=moves, database=database)
        check_best_moves(result, state, _exact_move_value)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), budget=BUDGETS, moves=st.booleans())
def test_urubugu_best_moves_are_proven_under_any_budget(seed, budget, moves):
    rng = random.Random(seed)
    cells = [0] * 32
    for side in (0, 16):
        for _ in range(rng.randint(1, 4)):
            cells[rng.randrange(side, side + 16)] += rng.randint(1, 3)
    state = mancalab.variant("urubugu").state(cells, rng.randint(0, 1))
    if state.is_over:
        return
    for _ in range(2):
        result = solving.solve(state, time=budget, moves=moves)
        check_best_moves(result, state, lambda s, m: _exact_move_value(s, m, time=0.5))
