"""perft: the move sequences of exactly d moves, counted in compiled code, against a walk of
the State API over every game and against OpenSpiel's own games."""

import pytest

import mancalab
from mancalab import MancalabError
from mancalab.analysis import perft


def walked(state, depth):
    if depth == 0:
        return 1
    return sum(walked(state.play(move), depth - 1) for move in state.legal_moves())


@pytest.mark.parametrize("game", mancalab.variants())
def test_perft_counts_what_the_state_api_walks(game):
    variant = mancalab.variant(game)
    for options in ({}, *variant.examples):
        start = mancalab.variant(game, **options).start()
        for depth in range(5):
            assert perft(start, depth).sequences == walked(start, depth), (options, depth)


def test_perft_equals_openspiel_move_for_move():
    """OpenSpiel's ``mancala`` is Kalah without empty capture; its ``oware`` is Oware."""
    pyspiel = pytest.importorskip("pyspiel")

    def spiel_walk(state, depth):
        if depth == 0:
            return 1
        if state.is_terminal():
            return 0
        return sum(spiel_walk(state.child(action), depth - 1)
                   for action in state.legal_actions())

    for ours, theirs in (({"game": "kalah", "empty_capture": False}, "mancala"),
                         ({"game": "oware"}, "oware")):
        start = mancalab.variant(ours.pop("game"), **ours).start()
        root = pyspiel.load_game(theirs).new_initial_state()
        assert perft(start, 5).sequences == spiel_walk(root, 5), theirs


def test_perft_of_an_ended_game_and_bad_depths():
    start = mancalab.variant("kalah").start()
    result = perft(start, 6)
    assert (result.depth, result.sequences) == (6, 23169) and result.nodes > 1
    assert perft(start, 0).sequences == 1
    with pytest.raises(MancalabError, match="depth must be"):
        perft(start, -1)
    with pytest.raises(MancalabError, match="depth must be"):
        perft(start, 10**9)
