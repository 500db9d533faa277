"""Gabata (2x6 with deposits): every test vector of docs/rules/gabata.md (the bot vectors are
with the classic player), the lap guard, notation and properties."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancalab
from mancalab import IllegalMoveError, Outcome

g = mancalab.variant("gabata")


def test_start():
    s = g.start()
    assert s.cells == (4,) * 6 + (0,) + (4,) * 6 + (0,)
    assert s.to_move == 0 and s.legal_moves() == [0, 1, 2, 3, 4, 5]


def test_vector_1_extra_turn_and_2_relay_through_both_rows():
    t = g.start().play(2)
    assert list(t.cells) == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert t.to_move == 0
    u = t.play(5)
    assert list(u.cells) == [5, 5, 1, 5, 5, 0, 2, 5, 5, 5, 0, 5, 5, 0]
    assert u.to_move == 1


def test_vector_3_long_relay_chain():
    t = g.start().play(0)
    assert list(t.cells) == [1, 4, 1, 10, 1, 1, 5, 3, 0, 2, 9, 2, 9, 0]
    assert t.to_move == 1


def test_vector_8_lap_guard():
    t = mancalab.variant("gabata", max_laps=5).start().play(0)
    assert list(t.cells) == [2, 0, 6, 6, 1, 6, 2, 0, 6, 1, 6, 6, 6, 0]
    assert t.outcome == Outcome("timeout", None, (2, 0))


def test_carry_across_banks_nothing():
    # player 0's last marble falls into the empty own pit 1 facing 3 marbles in pit 11:
    # it is carried across and the 4 marbles are sown on from pit 12 (13 is skipped).
    s = g.state([1, 0, 0, 0, 0, 0, 20, 0, 0, 0, 0, 3, 0, 24])
    t = s.play(0)
    assert list(t.cells) == [1, 1, 1, 0, 0, 0, 20, 0, 0, 0, 0, 0, 1, 24]
    assert t.to_move == 1


def test_pass_rule_and_game_end():
    # player 1's row is empty, so player 0 keeps moving
    s = g.state([0, 0, 0, 0, 2, 0, 22, 0, 0, 0, 0, 0, 0, 24], to_move=1)
    assert s.to_move == 0
    t = s.play(4)  # 5, 6: the last marble in the own deposit, both rows... pit 5 holds 1
    assert list(t.cells) == [0, 0, 0, 0, 0, 1, 23, 0, 0, 0, 0, 0, 0, 24] and t.to_move == 0
    u = t.play(5)
    assert u.outcome == Outcome("draw", None, (24, 24))
    assert g.result_code(u.outcome) == "D"


def test_notation_from_the_movers_left():
    s = g.start()
    assert g.parse_move(s, "1") == 0 and g.move_name(s, 5) == "6"
    t = s.play(0)
    assert g.parse_move(t, "1") == 7 and g.move_name(t, 12) == "6"
    with pytest.raises(IllegalMoveError, match="empty"):
        g.parse_move(g.start().play(2), "3")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 10**6), max_size=200))
def test_properties(picks):
    s = g.start()
    for pick in picks:
        moves = s.legal_moves()
        if s.is_over:
            assert moves == [] and s.cells[6] + s.cells[13] == 48
            break
        assert moves, "the player to move always has a move while the game goes on"
        s = s.play(moves[pick % len(moves)])
        assert sum(s.cells) == 48 and min(s.cells) >= 0
