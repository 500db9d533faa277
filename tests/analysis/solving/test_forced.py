"""Urubugu's solver (a search for forced ends) against an independent brute force over the
State API (no table), and its proofs checked reply by reply."""

import json

import numpy as np
from hypothesis import given, settings, strategies as st
from typer.testing import CliRunner

import mancalab
from mancalab.analysis import solving
from mancalab.analysis.solving import forced
from mancalab.cli import app
from mancalab.players import player as make_player

URUBUGU = mancalab.variant("urubugu")
NOTHING = -(1 << 30)  # the brute force's "nothing forced within the depth"


def margin(state, player):
    a, b = state.score
    return a - b if player == 0 else b - a


def brute(state, player, depth):
    """The best final margin ``player`` forces from ``state`` within ``depth`` moves (NOTHING
    if none): plain minimax over the State API."""
    if state.is_over:
        return margin(state, player)
    if depth == 0:
        return NOTHING
    values = [brute(state.play(m), player, depth - 1) for m in state.legal_moves()]
    return max(values) if state.to_move == player else min(values)


def brute_bounds(state, depth):
    """Bounds on the value for the player to move, from what either side forces."""
    total = sum(state.cells)
    mine, theirs = brute(state, state.to_move, depth), brute(state, 1 - state.to_move, depth)
    return (mine if mine != NOTHING else -total), (-theirs if theirs != NOTHING else total)


def forces(state, player, target, depth):
    """Whether ``player`` makes the game end with a margin >= ``target`` within ``depth`` moves,
    trying the search's move first but every reply of the other side (a proof check)."""
    if state.is_over:
        return margin(state, player) >= target
    if depth == 0:
        return False
    moves = state.legal_moves()
    if state.to_move == player:
        _, move = forced.searcher().forced(URUBUGU.params, state.board, player, depth,
                                           sum(state.cells), None, solving.Cancel(), [0])
        ordered = [m for m in moves if m == move] + [m for m in moves if m != move]
        return any(forces(state.play(m), player, target, depth - 1) for m in ordered)
    return all(forces(state.play(m), player, target, depth - 1) for m in moves)


def test_the_start_is_a_forced_win_for_the_first_player_checked_reply_by_reply():
    start = URUBUGU.start()
    result = solving.solve(start, time=30)
    assert result.exact and result.value == 64
    assert forces(start, 0, 64, 7)
    assert not forces(start, 0, 64, 5)  # no shorter win: the depth reported is the first


@st.composite
def small_positions(draw):
    """Urubugu positions with a few beads on each side (the rules allow fewer than 64)."""
    cells = [0] * 32
    for side in (range(0, 16), range(16, 32)):
        for _ in range(draw(st.integers(1, 5))):
            cells[draw(st.sampled_from(list(side)))] += draw(st.integers(1, 3))
    return URUBUGU.state(cells, draw(st.integers(0, 1)))


@settings(max_examples=15, deadline=None)
@given(small_positions())
def test_bounds_agree_with_brute_force(state):
    if state.is_over:
        return
    low, high = brute_bounds(state, 4)
    result = solving.solve(state, time=1, moves=True)
    assert result.lower <= result.upper
    assert result.lower <= high and low <= result.upper  # both contain the value
    if low == high:  # every line ends within 4 moves: the brute force is exact
        assert result.exact and result.value == low
    if result.exact:
        assert low <= result.value <= high
        best = max(lower for lower, _ in result.moves.values())
        assert best == result.value
        assert result.best_moves == [m for m, (lo, _) in result.moves.items()
                                     if lo >= result.value]
    for move, (lower, upper) in result.moves.items():
        child = state.play(move)
        m_low, m_high = ((margin(child, state.to_move),) * 2 if child.is_over else
                         _for(brute_bounds(child, 3), child, state.to_move))
        assert lower <= m_high and m_low <= upper, move


def _for(bounds, child, player):
    """Bounds for the child's mover turned into bounds for ``player``."""
    low, high = bounds
    return (low, high) if child.to_move == player else (-high, -low)


def test_the_compiled_search_equals_the_brute_force_at_each_depth_on_a_fresh_table():
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 25:
        cells = [0] * 32
        for side in (0, 16):
            for cell in rng.integers(side, side + 16, size=int(rng.integers(1, 5))):
                cells[cell] += int(rng.integers(1, 4))
        state = URUBUGU.state(cells, int(rng.integers(0, 2)))
        if state.is_over:
            continue
        for depth in (1, 2, 3):
            for player in (0, 1):
                searcher = forced.Searcher(table_bits=12)
                got = searcher.forced(URUBUGU.params, state.board, player, depth,
                                      sum(cells), None, solving.Cancel(), [0])
                want = brute(state, player, depth)
                assert got[0] == (want if want != NOTHING else -forced.BIG), (cells, depth)
        checked += 1


def test_the_perfect_player_plays_a_forced_win():
    start = URUBUGU.start()
    player = make_player("perfect:time=2")
    move = player.choose(start)
    assert player.last_info["exact"] and player.last_info["value"] == 64
    assert move in solving.solve(start, time=10).best_moves


def test_command_line():
    runner = CliRunner()
    solved = runner.invoke(app, ["solve", "urubugu", "--json", "--time", "5"])
    assert solved.exit_code == 0, solved.output
    answer = json.loads(solved.stdout.strip().splitlines()[-1])
    assert answer["exact"] and answer["value"] == 64 and answer["depth"] >= 1
    built = runner.invoke(app, ["db", "build", "urubugu", "--seeds", "10"])
    assert built.exit_code == 2 and "no endgame databases" in built.output
    cut = runner.invoke(app, ["solve", "urubugu", "--position", ",".join(["2"] * 32),
                              "--to-move", "1", "--time", "0.01"])
    assert cut.exit_code == 0 and ("No forced end" in cut.output or "wins" in cut.output)
