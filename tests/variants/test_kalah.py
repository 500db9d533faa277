"""Kalah: every test vector of docs/rules/kalah.md (the solver values are for issue 5), perft
for both capture rules, the FairKalah boards, options and properties."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancalab
from mancalab import kernels
from mancalab import IllegalMoveError, InvalidPositionError, Outcome, UnknownOptionError
from mancalab.variants.kalah import fair_boards

k = mancalab.variant("kalah")
no_empty = mancalab.variant("kalah", empty_capture=False)
starve = mancalab.variant("kalah", end_rule="no_move")


def perft(state, depth):
    if depth == 0:
        return 1
    return sum(perft(state.play(m), depth - 1) for m in state.legal_moves())


def test_vector_1_standard_start():
    s = k.start()
    assert s.cells == (4,) * 6 + (0,) + (4,) * 6 + (0,)
    assert s.to_move == 0 and s.legal_moves() == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("number, cells", [
    (1, [4, 4, 5, 4, 3, 4, 0, 4, 4, 4, 4, 4, 4, 0]),
    (2, [4, 4, 5, 4, 4, 4, 0, 4, 3, 4, 4, 4, 4, 0]),
    (3, [4, 5, 4, 4, 4, 4, 0, 4, 4, 3, 4, 4, 4, 0]),
])
def test_vectors_2_to_4_fairkalah_boards(number, cells):
    s = mancalab.variant("kalah", board=number).start()
    assert list(s.cells) == cells
    assert s.to_move == 0 and s.legal_moves() == [0, 1, 2, 3, 4, 5]


def test_the_254_shipped_boards():
    boards = fair_boards()
    assert sorted(boards) == list(range(1, 255))
    assert len(set(boards.values())) == 254
    standard = k.start().cells
    for number, cells in boards.items():
        assert sum(cells) == 48
        moved = sum(abs(a - b) for a, b in zip(cells, standard)) // 2
        assert moved == (1 if number <= 3 else 2)


def test_random_board_is_one_of_the_254_and_recorded():
    v = mancalab.variant("kalah", board="random")
    assert 1 <= v.options["board"] <= 254
    assert v.start().cells == fair_boards()[v.options["board"]]
    assert v.non_default_options() == {"board": v.options["board"]}


def test_vector_5_extra_turn_and_6_second_half():
    t = k.start().play(2)
    assert list(t.cells) == [4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    assert t.to_move == 0
    u = t.play(5)
    assert list(u.cells) == [4, 4, 0, 5, 5, 0, 2, 5, 5, 5, 5, 4, 4, 0]
    assert u.to_move == 1


def test_vector_7_capture():
    t = k.state([0, 1, 0, 3, 3, 3, 10, 3, 3, 3, 3, 4, 3, 9]).play(1)
    assert list(t.cells) == [0, 0, 0, 3, 3, 3, 14, 3, 3, 3, 0, 4, 3, 9]
    assert t.to_move == 1


def test_vector_8_empty_capture_both_ways():
    cells = [0, 1, 0, 3, 3, 3, 10, 3, 3, 3, 0, 4, 6, 9]
    t = k.state(cells).play(1)
    assert list(t.cells) == [0, 0, 0, 3, 3, 3, 11, 3, 3, 3, 0, 4, 6, 9] and t.to_move == 1
    u = no_empty.state(cells).play(1)
    assert list(u.cells) == [0, 0, 1, 3, 3, 3, 10, 3, 3, 3, 0, 4, 6, 9] and u.to_move == 1


def test_vector_9_capture_by_player_1():
    t = k.state([4, 4, 4, 4, 4, 4, 0, 0, 1, 0, 5, 5, 5, 8], to_move=1).play(8)
    assert list(t.cells) == [4, 4, 4, 0, 4, 4, 0, 0, 0, 0, 5, 5, 5, 13]
    assert t.to_move == 0


def test_vector_10_end_rules_differ():
    cells = [0, 0, 0, 0, 0, 2, 20, 4, 4, 4, 4, 4, 4, 2]
    t = k.state(cells).play(5)
    assert list(t.cells) == [0] * 6 + [21] + [0] * 6 + [27]
    assert t.outcome == Outcome("win", 1, (21, 27))
    assert kernels.margin(k.params, t.board) == -6
    u = starve.state(cells).play(5)
    assert list(u.cells) == [0, 0, 0, 0, 0, 0, 21, 5, 4, 4, 4, 4, 4, 2]
    assert u.outcome is None and u.to_move == 1


@pytest.mark.parametrize("variant, counts", [
    (k, [6, 35, 185, 942, 4685, 23169]),
    (no_empty, [6, 35, 185, 942, 4690, 23233]),
    (starve, [6, 35, 185, 942, 4685, 23169]),
])
def test_vector_11_perft(variant, counts):
    from mancalab.analysis import perft as compiled_perft

    s = variant.start()
    assert [perft(s, d) for d in range(1, 7)] == counts
    assert [compiled_perft(s, d).sequences for d in range(1, 7)] == counts


def test_perft_agrees_with_the_tree_statistics():
    from mancalab.analysis import tree_stats
    rows = tree_stats("kalah", 6, empty_capture=False)
    # the tree counts every sequence that is still going or just ended; perft only the
    # sequences of exactly d moves, so the turns column is the sum of perft(1..d)
    assert rows[-1].turns == sum([6, 35, 185, 942, 4690, 23233])


def test_notation_counts_from_the_store():
    s = k.start()
    assert k.parse_move(s, "4") == 2 and k.move_name(s, 2) == "4"
    t = s.play(0)
    assert t.to_move == 1 and k.parse_move(t, "1") == 12 and k.move_name(t, 7) == "6"
    with pytest.raises(IllegalMoveError, match="no pit 7"):
        k.parse_move(s, "7")
    with pytest.raises(IllegalMoveError, match="not a pit"):
        k.parse_move(s, "x")
    with pytest.raises(IllegalMoveError, match="empty"):
        k.parse_move(s.play(2), "4")


def test_options_are_checked():
    with pytest.raises(UnknownOptionError, match=r"no fair boards are known for Kalah\(4,4\)"):
        mancalab.variant("kalah", pits=4, board=3)
    with pytest.raises(UnknownOptionError, match="board must be 1..254"):
        mancalab.variant("kalah", board=255)
    with pytest.raises(UnknownOptionError, match="board"):
        mancalab.variant("kalah", board=0)
    with pytest.raises(UnknownOptionError, match="end_rule"):
        mancalab.variant("kalah", end_rule="sometimes")
    with pytest.raises(UnknownOptionError, match="empty_capture"):
        mancalab.variant("kalah", empty_capture="maybe")
    with pytest.raises(InvalidPositionError, match="add up"):
        k.state([4] * 14)


def test_other_sizes():
    v = mancalab.variant("kalah", pits=3, seeds=2)
    s = v.start()
    assert s.cells == (2, 2, 2, 0, 2, 2, 2, 0) and s.legal_moves() == [0, 1, 2]
    assert v.parse_move(s, "1") == 2


def test_a_position_already_over_is_swept():
    s = k.state([0] * 6 + [20] + [4, 4, 4, 4, 4, 4] + [4])
    assert s.outcome == Outcome("win", 1, (20, 28))



@settings(max_examples=60, deadline=None)
@given(st.sampled_from([k, no_empty, starve, mancalab.variant("kalah", pits=4, seeds=3)]),
       st.lists(st.integers(0, 10**6), max_size=150))
def test_properties_seeds_conserved_and_moves_exist(variant, picks):
    s = variant.start()
    total = sum(s.cells)
    for pick in picks:
        moves = s.legal_moves()
        if s.is_over:
            assert moves == [] and sum(s.cells[:variant.pits]) == 0
            break
        assert moves
        s = s.play(moves[pick % len(moves)])
        assert sum(s.cells) == total and min(s.cells) >= 0


@pytest.mark.parametrize("pits, seeds, empty_capture, count", [
    (6, 3, True, 796), (6, 3, False, 872), (5, 4, True, 214), (5, 4, False, 310)])
def test_fair_boards_of_other_sizes(pits, seeds, empty_capture, count):
    boards = fair_boards(pits, seeds, empty_capture)
    assert sorted(boards) == list(range(1, count + 1)) and len(set(boards.values())) == count
    rules = dict(pits=pits, seeds=seeds, empty_capture=empty_capture)
    v = mancalab.variant("kalah", board=count, **rules)
    assert v.start().cells == boards[count] and sum(boards[count]) == 2 * pits * seeds
    drawn = mancalab.variant("kalah", board="random", **rules).options["board"]
    assert 1 <= drawn <= count
    with pytest.raises(UnknownOptionError, match=f"board must be 1..{count}"):
        mancalab.variant("kalah", board=count + 1, **rules)


def test_shipped_fair_boards_are_drawn_and_their_neighbours_are_not(small_databases):
    from mancalab.analysis import solving
    from mancalab.analysis.research import fair

    for rules in (dict(pits=6, seeds=3, empty_capture=True),
                  dict(pits=5, seeds=4, empty_capture=False)):
        boards = fair_boards(**rules)
        variant = mancalab.variant("kalah", **rules)
        unfair = next(b for b in fair.candidates(variant, 1) if b not in set(boards.values()))
        for cells in (boards[1], boards[len(boards)], unfair):
            result = solving.decide(variant.state(list(cells), 0), 0)
            assert (result.lower == result.upper == 0) == (cells != unfair)


@pytest.mark.parametrize("options", [{}, *mancalab.variant("kalah").examples,
                                     {"board": 17}, {"pits": 2, "seeds": 1}])
def test_no_position_occurs_twice(options):
    """``Kalah.history.recurs`` is False (compiled random play counts no positions): in random
    games of every kind of board no position occurs twice."""
    rng = random.Random(3)
    variant = mancalab.variant("kalah", **options)
    for _ in range(200):
        state, seen = variant.start(), set()
        while not state.is_over:
            assert state not in seen
            seen.add(state)
            state = state.play(rng.choice(state.legal_moves()))
