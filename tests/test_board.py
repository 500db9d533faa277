"""``mancalab.Board``: a position stepped in place, its moves taken back, bad moves refused.
(Every game's boards follow its records move for move: ``mancalab.testing.simulate``.)"""

import sys
from pathlib import Path

import numpy as np
import pytest

import mancalab
from mancalab import Board, IllegalMoveError


@pytest.mark.parametrize("move", [-1, 64, 10**30, True, 2.0, "3", None, 6])
def test_a_move_not_legal_is_refused_by_name_and_changes_nothing(move):
    board = Board(mancalab.variant("kalah"))  # cell 6 is a store
    before = board.state
    with pytest.raises(IllegalMoveError, match="not legal|empty hole|no move"):
        board.push(move)
    assert board.state == before and board.moves == [] and board.legal_moves() == list(range(6))


def test_a_numpy_integer_is_a_move_and_the_game_over_refuses_every_move():
    board = Board(mancalab.variant("kalah"))
    board.push(np.int64(2))
    assert board.moves == [2] and type(board.moves[0]) is int
    over = Board(mancalab.variant("kalah").state([0] * 6 + [24] + [0] * 6 + [24]))
    assert over.is_over and over.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        over.push(0)


def test_pop_takes_back_to_where_the_board_began_and_no_further():
    start = mancalab.variant("oware").start().play(3)
    board = Board(start)
    board.push(7)
    board.push(1)
    assert board.pop() == 1 and board.pop() == 7
    assert board.state == start and board.to_move == 1
    with pytest.raises(IllegalMoveError, match="no move to take back"):
        board.pop()


def test_a_copy_is_independent_and_the_state_is_a_snapshot():
    board = Board(mancalab.variant("gebeta"))
    board.push(board.legal_moves()[0])
    snapshot, twin = board.state, board.copy()
    twin.push(twin.legal_moves()[-1])
    assert board.state == snapshot and len(board.moves) == 1 and len(twin.moves) == 2
    assert twin.pop() and twin.state == snapshot
    board.push(board.legal_moves()[0])
    assert snapshot != board.state and snapshot.play(board.moves[-1]) == board.state


def test_a_board_starts_only_from_a_state_or_a_variant():
    with pytest.raises(TypeError, match="a State or a Variant"):
        Board("kalah")


def test_a_game_longer_than_the_first_stack_is_taken_back_position_by_position():
    variant = mancalab.variant("oware")
    board, states, rng = Board(variant), [variant.start()], np.random.default_rng(5)
    while len(states) < 300 and not board.is_over:  # Oware's kernels play on past repetitions
        board.push(int(rng.choice(board.legal_moves())))
        states.append(states[-1].play(board.moves[-1]))
        assert board.state == states[-1] and board.legal_moves() == states[-1].legal_moves()
    assert len(states) > 2 * 64
    while board.moves:
        board.pop()
        states.pop()
        assert board.state == states[-1] and board.legal_moves() == states[-1].legal_moves()


def test_a_game_the_compiled_switch_does_not_know_steps_by_its_own_kernels():
    sys.path.insert(0, str(Path(__file__).parent / "plugin"))
    try:  # the example plugin's game, not registered in this process
        from mancalab_tiny import Tiny
    finally:
        sys.path.pop(0)
    variant = Tiny()
    assert Tiny.game_id not in mancalab.kernels.GAME_IDS
    board, state = Board(variant), variant.start()
    for _ in range(4):
        move = state.legal_moves()[-1]
        board.push(move)
        state = state.play(move)
        assert board.state.cells == state.cells and board.legal_moves() == state.legal_moves()
    with pytest.raises(IllegalMoveError):
        board.push(99)
    assert board.pop() == move and len(board.moves) == 3
