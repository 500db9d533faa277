"""Oware Abapa: the spec's vectors (docs/rules/oware.md), its invariants, and OpenSpiel's own
``oware`` move for move over thousands of random games."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mancalab
from mancalab import IllegalMoveError, InvalidPositionError, UnknownOptionError
from mancalab.records import GameRecord

oware = mancalab.variant("oware")


def played(moves, variant=oware):
    """The record after ``moves`` (action ids of the mover's row, as OpenSpiel numbers them)."""
    record = GameRecord.new(variant)
    for action in moves:
        record.push(variant.action_cells(record.state.to_move)[action])
    return record


def shown(state):
    """The position as OpenSpiel's observation string writes it."""
    n = state.variant.houses
    cells = state.cells
    return (f"{state.to_move} | {cells[2 * n]} {cells[2 * n + 1]} | "
            + " ".join(map(str, cells[:2 * n])))


def actions(state):
    return sorted(state.variant.action_cells(state.to_move).index(m) for m in state.legal_moves())


def letters(text):
    """Moves in OpenSpiel's letters ("D d F b") as action ids."""
    return ["ABCDEFabcdef".index(letter) % 6 for letter in text.split()]


# (moves, the position after them, legal actions, over)
VECTORS = [
    ([3], "1 | 0 0 | 4 4 4 0 5 5 5 5 4 4 4 4", [0, 1, 2, 3, 4, 5], False),  # plain sow
    ([1, 0, 5, 0, 2, 0, 4, 0, 3, 1], "0 | 0 0 | 5 1 1 1 2 4 2 0 10 9 8 5",
     [0, 1, 2, 3, 4, 5], False),  # a lap of 12 skips the emptied house
    ([1, 0, 0, 2], "0 | 0 2 | 1 0 6 6 6 5 0 5 0 6 6 5", [0, 2, 3, 4, 5], False),
    ([1, 0, 2, 0, 0, 1], "0 | 0 4 | 1 0 0 7 7 6 0 0 6 6 6 5", [0, 3, 4, 5], False),
    ([5, 5, 1, 1, 4, 2, 3, 3, 0, 0, 0, 4, 4], "1 | 14 0 | 1 6 11 4 0 7 0 0 0 0 0 5", [5],
     False),  # four houses taken, the chain stopped by an empty house
    ([5, 5, 1, 1, 4, 2, 3, 3, 0, 0, 0, 4, 4, 5], "0 | 14 0 | 2 7 12 5 1 7 0 0 0 0 0 0",
     [1, 2, 3, 5], False),  # the feeding rule
    ([3, 3, 5, 1, 4, 2, 0, 0, 3, 4, 5, 5, 4], "1 | 15 0 | 3 11 9 2 0 2 2 2 2 0 0 0",
     [0, 1, 2], False),  # the grand slam takes nothing
    ([2, 5, 5, 0, 4, 1, 1, 2, 5, 5, 0, 0, 3, 4, 3, 0, 4, 2, 2, 0, 4, 1, 1, 5, 0, 2, 5, 3, 4,
      5, 1, 4, 5, 5], "0 | 30 18 | " + " ".join(["0"] * 12), [], True),  # no move can feed
    ([4, 1, 5, 1, 2, 5, 3, 2, 0, 4, 2, 3, 1, 0], "0 | 8 40 | " + " ".join(["0"] * 12), [],
     True),  # more than 24, then the sweep
    ([2, 4, 2, 3, 5, 5, 1, 2, 3, 2, 0, 0, 4, 2, 1, 1, 2, 3, 5, 4, 0, 1, 1, 2, 5, 4, 2, 3, 3, 4,
      4, 5, 5, 4, 4, 5, 3, 3, 2, 4, 1, 5, 5, 0, 4, 1, 0, 2],
     "0 | 24 24 | " + " ".join(["0"] * 12), [], True),  # the first recurrence sweeps
    ([0, 0, 1, 2, 1, 3, 2, 4, 1, 5, 0, 1, 4, 5, 3, 5, 4, 4, 2, 5, 4, 0, 0, 3, 3, 4, 5, 3, 4, 2],
     "0 | 4 44 | " + " ".join(["0"] * 12), [], True),  # OpenSpiel's random game, seed 2
]


@pytest.mark.parametrize("moves, position, legal, over", VECTORS)
def test_spec_vectors(moves, position, legal, over):
    state = played(moves).state
    assert shown(state) == position
    assert actions(state) == legal
    assert state.is_over == over


def test_endings_and_results():
    assert played(VECTORS[7][0]).state.outcome == mancalab.Outcome("win", 0, (30, 18))
    assert played(VECTORS[8][0]).state.outcome == mancalab.Outcome("win", 1, (8, 40))
    draw = played(VECTORS[9][0])
    assert draw.termination == "repetition" and draw.state.outcome.kind == "draw"
    before = played(VECTORS[9][0][:36]).state  # the position that recurs, first seen here
    assert shown(before) == "0 | 20 23 | 0 1 1 1 0 1 0 0 0 1 0 0"


def test_sizes_and_the_spec_notation():
    small = mancalab.variant("oware", houses=3, seeds=2)
    assert shown(small.start()) == "0 | 0 0 | 2 2 2 2 2 2"
    after = played([2], small).state
    assert shown(after) == "1 | 6 0 | 2 2 0 0 0 2" and actions(after) == [2]
    assert not after.is_over  # 6 is not more than half of 12
    record = played(letters("B a A c"))
    assert [record.states[i].move_name(m) for i, m in enumerate(record.moves)] == \
        ["B", "a", "A", "c"]
    assert oware.start().parse_move("d") == oware.start().parse_move("D") == 3


def test_move_cap_refuses_the_next_move():
    capped = mancalab.variant("oware", move_cap=3)
    record = played([0, 0, 1], capped)
    assert record.at_cap
    with pytest.raises(IllegalMoveError, match="cap of 3 moves"):
        record.push(record.state.legal_moves()[0])
    assert len(record.moves) == 3
    record.end("agreement")
    assert record.state.is_over


def test_bad_input():
    with pytest.raises(InvalidPositionError, match="must be 48"):
        oware.state([4] * 12 + [1, 0])
    with pytest.raises(UnknownOptionError, match="houses"):
        mancalab.variant("oware", houses=31)
    fed = played(VECTORS[5][0]).state
    with pytest.raises(IllegalMoveError, match="give the opponent seeds"):
        fed.parse_move("A")
    with pytest.raises(IllegalMoveError, match="not a house"):
        oware.start().parse_move("G")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 5), max_size=200))
def test_seeds_are_kept_and_stores_never_shrink(choices):
    state = oware.start()
    for choice in choices:
        legal = state.legal_moves()
        if not legal:
            break
        after = state.play(legal[choice % len(legal)])
        assert sum(after.cells) == 48
        assert after.score[0] >= state.score[0] and after.score[1] >= state.score[1]
        if not after.is_over:
            opponent = range(6 * after.to_move, 6 * after.to_move + 6)
            assert sum(after.cells[i] for i in range(12) if i not in opponent) > 0 or \
                after.legal_moves()
        state = after


SIZES = [(6, 4, 1500), (2, 2, 200), (3, 3, 200), (4, 1, 200), (5, 5, 200), (1, 3, 100),
         (6, 1, 200)]


@pytest.mark.slow
@pytest.mark.parametrize("houses, seeds, games", SIZES)
def test_openspiels_oware_move_for_move(houses, seeds, games):
    """Random games through OpenSpiel's ``oware`` and mancalab's side by side: the position,
    the legal moves, the end and the result after every move."""
    pyspiel = pytest.importorskip("pyspiel")
    theirs = pyspiel.load_game("oware", {"num_houses_per_player": houses,
                                         "num_seeds_per_house": seeds})
    ours = mancalab.variant("oware", houses=houses, seeds=seeds)
    rng = random.Random(houses * 100 + seeds)
    for _ in range(games):
        state, record = theirs.new_initial_state(), GameRecord.new(ours)
        while True:
            assert state.observation_string(0) == shown(record.state)
            assert state.is_terminal() == record.state.is_over
            if state.is_terminal():
                outcome = record.state.outcome
                mine = 0 if outcome.kind == "draw" else (1 if outcome.winner == 0 else -1)
                assert state.returns() == [mine, -mine]
                break
            if len(record.moves) == ours.history.move_cap:
                assert record.at_cap
                break
            legal = state.legal_actions()
            assert actions(record.state) == legal
            action = rng.choice(legal)
            state.apply_action(action)
            record.push(ours.action_cells(record.state.to_move)[action])


def test_a_record_of_letters_reads_back():
    """Moves named A, B, D are letters, not results: only the last word is the result."""
    record = played(VECTORS[8][0])
    again = GameRecord.from_text(record.to_text())
    assert again.moves == record.moves and again.result == "B"
    going = played(letters("B a A c"))
    assert GameRecord.from_text(going.to_text()).moves == going.moves
    assert going.to_text().split()[-5:] == ["B", "a", "A", "c", "*"]


def test_every_driver_ends_a_game_at_its_cap():
    """The arena adjudicates a game stopped at the cap; the terminal ends it by the rule for
    endless play; the server takes no move past it and the computer agrees to end it."""
    from typer.testing import CliRunner

    from mancalab.analysis.compete.arena import GameSpec, play_game
    from mancalab.cli import app

    result = play_game(GameSpec(1, "oware", {"move_cap": 6}, "random:seed=1", "random:seed=2",
                                True, ()))
    assert result.how == "adjudicated" and result.plies == 6
    out = CliRunner().invoke(app, ["play", "oware", "-o", "move_cap=2"],
                             input="A\nB\nA\nB\nquit\n")
    assert "cap of 2 moves" in out.output and out.exit_code == 0
