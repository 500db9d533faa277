"""Position strings (``mancalab.fen``): PlayStrategy's Oware strings read as it reads them,
every game's positions read back (also in ``mancalab.testing.simulate``), bad strings named."""

from __future__ import annotations

import pytest

import mancalab
from mancalab import InvalidPositionError
from mancalab.testing import simulate
from mancalab.variants import examples


def test_playstrategy_oware_strings_mean_the_same_position():
    oware = mancalab.variant("oware")
    assert oware.start().fen() == "4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 1"
    # PlayStrategy's own test: South's row is [4,4,1,1,4,4], North's read backwards
    state = oware.from_fen("1s,1s,4s,4s,4s,4s/4s,4s,1s,1s,4s,4s 4 8 N 11")
    assert state.cells == (4, 4, 1, 1, 4, 4, 4, 4, 4, 4, 1, 1, 4, 8)
    assert state.to_move == 1


def test_runs_of_empty_holes_and_the_move_number():
    kalah = mancalab.variant("kalah")
    state = kalah.state([0, 0, 0, 5, 0, 1, 20, 2, 0, 0, 0, 0, 0, 20], to_move=1)
    assert state.fen(12) == "5,2S/3,5S,1,1S 20 20 N 12"
    assert kalah.from_fen("5,2S/3,5S,1,1S 20 20 N") == state  # the move number may be left out


def test_the_extra_state_and_a_game_without_stores():
    gabata3 = mancalab.variant("gabata3", race="none")
    start = gabata3.start()
    assert start.fen().endswith("0 0 S 1 owner=0,0,0,0,0,0,1,1,1,0,0,0,1,1,1,1,1,1 round=1")
    urubugu = mancalab.variant("urubugu")
    assert urubugu.start().fen() == "/".join(["2S," * 7 + "2S"] * 4) + " - - S 1"


@pytest.mark.parametrize("variant", examples(), ids=repr)
def test_positions_of_every_game_read_back(variant):
    simulate(variant, games=1, seed=7)


@pytest.mark.parametrize("text, says", [
    ("", "a position string has"),
    ("4S,4S,4S,4S,4S,4S 0 0 S 1", "2 rows of holes"),
    ("4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 1", "row 1 of oware has 6 holes, got 5"),
    ("4S,4S,4S,4S,4S,4X/4S,4S,4S,4S,4S,4S 0 0 S 1", "'4X' is neither seeds"),
    ("4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 W 1", "S or N"),
    ("4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 x S 1", "a score is a whole number"),
    ("4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 0", "move number"),
    ("4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 1 0 S 1", "49"),
    ("4S,4S,4S,4S,4S,4S/4S,4S,4S,4S,4S,4S 0 0 S 1 round=2", "no 'round'"),
    ("999S/6 0 0 S 1" + "x" * 5000, "at most 4096"),
])
def test_a_bad_string_is_named_and_refused(text, says):
    with pytest.raises(InvalidPositionError, match=says.replace("(", r"\(")):
        mancalab.variant("oware").from_fen(text)
