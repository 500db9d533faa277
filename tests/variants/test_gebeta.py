"""Gebeta: every test vector of docs/rules/gebeta.md, the API's checks, and properties."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancalab
from mancalab import IllegalMoveError, InvalidPositionError, UnknownOptionError

g = mancalab.variant("gebeta")


def render_lines(state):
    """The board as the terminal draws it for the player to move, without names and spaces."""
    from rich.console import Console
    from mancalab.draw.text import board
    console = Console(width=100, record=True)
    console.print(board(state, ("", "")))
    return [line.replace(" ", "") or line for line in console.export_text().splitlines()]


def test_start():
    s = g.start()
    assert s.cells == tuple([4] * 12 + [0, 0])
    assert s.to_move == 0
    assert s.legal_moves() == [0, 1, 2, 3, 4, 5]
    assert s.outcome is None


def test_vector_1_relays_end_in_the_emptied_home():
    t = g.start().play(0)
    assert list(t.cells) == [2, 7, 1, 6, 1, 6, 6, 6, 0, 1, 6, 6, 0, 0]
    assert t.to_move == 1
    lines = render_lines(t)
    assert lines[0].split("|")[1:] == ["6", "1", "6", "1", "7", "2"]  # A's row, turned
    assert lines[1].split("|")[1:] == ["6", "6", "0", "1", "6", "6"]  # B's own row below
    assert lines[2] == "FEDCBA"


def test_vector_2_last_counter_family_goes_to_the_mover():
    s = g.start()
    t = s.play(0)
    assert g.parse_move(t, "a") == 11
    u = t.play(11)
    assert list(u.cells) == [0, 8, 2, 7, 2, 0, 7, 7, 1, 2, 7, 1, 0, 1]
    assert [g.move_name(s, 0), g.move_name(t, 11)] == ["A1", "A2"]


def test_vector_3_family_during_sowing_goes_to_the_row_owner():
    t = g.start().play(0).play(10)
    assert list(t.cells) == [1, 0, 3, 8, 1, 8, 1, 8, 2, 3, 0, 9, 1, 0]
    assert t.to_move == 0


def test_vector_4_opponent_row_empty_ends_with_remainder():
    s = g.state([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 3, 8], to_move=1)
    t = s.play(7)
    assert t.cells[:12] == (0,) * 9 + (2, 1, 1)
    assert t.outcome == mancalab.Outcome("win", 1, (3, 9))
    assert t.legal_moves() == []


def test_vector_5_draw():
    s = g.state([1, 0, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6], to_move=0)
    t = s.play(2)
    assert t.cells[:6] == (1, 0, 0, 2, 1, 0)
    assert t.outcome == mancalab.Outcome("draw", None, (6, 6))
    assert g.result_code(t.outcome) == "D"


def test_mover_emptying_own_row_does_not_end_the_game():
    s = g.state([0, 0, 0, 0, 0, 1, 3, 1, 3, 0, 0, 0, 5, 5], to_move=0)
    t = s.play(5)  # the counter lands in index 6: 3 -> 4, a family by the last counter
    assert t.cells[12] == 6 and t.outcome is None and t.to_move == 1
    assert t.legal_moves() == [7, 8]


def test_timeout_after_the_lap_limit():
    # With a lap limit of 1 the start move (which needs 5 laps) times out.
    short = mancalab.variant("gebeta", lap_limit=1)
    t = short.start().play(0)
    assert t.outcome.kind == "timeout" and t.outcome.winner is None
    assert short.result_code(t.outcome) == "T"
    assert g.start().play(0).outcome is None


def test_given_position_with_empty_mover_row_is_over():
    s = g.state([0] * 6 + [1, 0, 0, 0, 0, 3, 5, 6], to_move=0)
    assert s.outcome == mancalab.Outcome("win", 1, (5, 7))
    assert s.legal_moves() == []


def test_states_are_immutable_and_hashable():
    s = g.start()
    t = s.play(0)
    assert s == g.start() and hash(s) == hash(g.start())
    assert t != s and len({s, t, g.start()}) == 2
    with pytest.raises(ValueError):
        s._board[0] = 9


@pytest.mark.parametrize("move", [6, 12, -1, 99, "a", None])
def test_illegal_moves_raise_and_change_nothing(move):
    s = g.start()
    with pytest.raises(IllegalMoveError):
        s.play(move)
    assert s == g.start()


def test_empty_home_is_illegal():
    t = g.start().play(0)  # index 8 is empty, B to move
    with pytest.raises(IllegalMoveError, match="empty"):
        t.play(8)
    with pytest.raises(IllegalMoveError, match="empty"):
        g.parse_move(t, "D")


@pytest.mark.parametrize("text", ["G", "", "AB", "7", "A2"])
def test_bad_notation_raises(text):
    with pytest.raises(IllegalMoveError):
        g.parse_move(g.start(), text)


def test_notation_round_trip():
    s = g.start().play(0)
    for m in s.legal_moves():
        assert g.parse_move(s, g.move_name(s, m)) == m
        assert g.parse_move(s, g.move_name(s, m)[0].lower()) == m


@pytest.mark.parametrize("cells", [
    [4] * 13,                          # wrong length
    [4] * 11 + [-4, 2, 0],             # negative
    [4] * 12 + [1, 0],                 # counters do not add up
    [4] * 11 + ["x", 0, 0],            # not integers
])
def test_malformed_positions(cells):
    with pytest.raises(InvalidPositionError):
        g.state(cells, to_move=0)


def test_bad_to_move():
    with pytest.raises(InvalidPositionError):
        g.state([4] * 12 + [0, 0], to_move=2)


def test_unknown_game_and_option():
    with pytest.raises(UnknownOptionError, match="unknown game"):
        mancalab.variant("chess")
    with pytest.raises(UnknownOptionError, match="unknown option"):
        mancalab.variant("gebeta", pits=7)
    with pytest.raises(UnknownOptionError, match="lap_limit"):
        mancalab.variant("gebeta", lap_limit=0)
    assert issubclass(UnknownOptionError, ValueError)
    assert "gebeta" in mancalab.variants()


# ----- properties: random legal play from random reachable positions -----------------

def _play_randomly(data, steps):
    s = g.start()
    history = [s]
    for _ in range(steps):
        if s.outcome is not None:
            break
        legal = s.legal_moves()
        s = s.play(data.draw(st.sampled_from(legal)))
        history.append(s)
    return history


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(1, 120))
def test_invariants_along_random_games(data, steps):
    history = _play_randomly(data, steps)
    for before, after in zip(history, history[1:]):
        assert min(after.cells) >= 0
        if after.outcome is None:
            assert sum(after.cells[:12]) + 4 * (after.cells[12] + after.cells[13]) == 48
            assert after.legal_moves(), "a game that goes on must have a legal move"
            assert after.to_move == 1 - before.to_move
        else:
            assert after.legal_moves() == []
            # families only grow; the remainder left in the homes is at most what was there
            assert after.cells[12] >= before.cells[12] and after.cells[13] >= before.cells[13]


def _laps_needed(cells, move, mover):
    """Count the laps of one move with an independent, plain-Python sower (no lap limit)."""
    cells = list(cells)
    pit, laps = move, 0
    while laps < 10_000:
        laps += 1
        seeds, cells[pit] = cells[pit], 0
        while seeds:
            pit = (pit + 1) % 12
            cells[pit] += 1
            seeds -= 1
            if cells[pit] == 4:
                cells[pit] = 0
                if seeds == 0:
                    return laps
        if cells[pit] == 1:
            return laps
    return laps


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(0, 120))
def test_timeout_only_after_50_laps(data, steps):
    s = _play_randomly(data, steps)[-1]
    for m in s.legal_moves():
        t = s.play(m)
        timed_out = t.outcome is not None and t.outcome.kind == "timeout"
        assert timed_out == (_laps_needed(s.cells, m, s.to_move) > 50)


def test_the_families_belong_to_their_player_and_have_no_letter():
    s = g.start()
    assert [g.cell_owner(s, i) for i in (0, 5, 6, 11, 12, 13)] == [0, 0, 1, 1, 0, 1]
    assert g.cell_label(s, 0, 12) is None and g.cell_label(s, 1, 13) is None


def test_letters_name_columns_as_seen_from_a_everywhere():
    """One convention (docs/gebeta.md): B's home "A" faces A's home "A" — on the board's
    labels, in the log, when typed, and in the page's view."""
    from mancalab.draw.html import board_view

    state = mancalab.variant("gebeta").start().play(0)  # B to move
    grid = state.variant.grid(state)
    top_left, bottom_left = grid[0][0], grid[-1][0]
    assert state.variant.cell_label(state, 1, top_left) == "A"
    assert state.variant.cell_label(state, 0, bottom_left) == "A"
    assert state.move_name(top_left) == "A2" and state.parse_move("A") == top_left
    assert board_view(state)["labels"][1][top_left] == "A"
