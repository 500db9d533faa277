"""Opening books (issue 88): grown by drop-out expansion, written and read back, played by
alpha-beta where they hold the position and never where they must not."""

import pytest

import mancalab
from mancalab.players import book as books
from mancalab.players.alphabeta import AlphaBetaPlayer


@pytest.fixture(scope="module")
def grown():
    """A small Oware book: leaves valued by depth-2 searches for a second."""
    return books.build(mancalab.variant("oware"), depth=2, seconds=1.0)


def test_a_grown_book_plays_each_positions_best_child_and_reads_back_as_written(grown,
                                                                                tmp_path):
    start = grown.variant.start()
    assert len(grown) > 6 and start in grown.moves
    # the start was expanded first: each of its moves leads to a position the book valued
    assert all(start.play(move) in grown.lines for move in start.legal_moves())
    for state, (move, value) in grown.moves.items():
        children = {m: state.play(m) for m in state.legal_moves()}
        valued = {m: -grown.moves[c][1] for m, c in children.items() if c in grown.moves}
        assert move in children
        if len(valued) == len(children):  # every child an inner position: negamax exactly
            assert value == max(valued.values()) == valued[move]
    path = tmp_path / "oware.txt"
    books.write(grown, path, "a test")
    again = books.read(grown.variant, path.read_text())
    assert again.moves == grown.moves and again.lines == grown.lines


@pytest.mark.parametrize("text, problem", [
    ("not a book\n", "is not a mancalab opening book"),
    (books.FORMAT + "\n- 0\n", "line 2"),
    (books.FORMAT + "\n0,x 1 0\n", "line 2"),
    (books.FORMAT + "\n- 0 0\n0 0 0\n", "line 3"),  # house 0 is empty after move 0
])
def test_a_malformed_book_is_refused_naming_the_line(text, problem):
    with pytest.raises(books.BookError, match=problem):
        books.read(mancalab.variant("oware"), text)


def test_alphabeta_plays_the_book_where_it_holds_the_position(grown, monkeypatch):
    monkeypatch.setattr("mancalab.players.alphabeta.opening_book",
                        lambda variant: grown if variant.key == grown.variant.key else None)
    start = grown.variant.start()
    player = AlphaBetaPlayer(time=5)
    assert player.choose(start) == grown.moves[start][0]
    assert player.last_info["book"] and player.last_info["nodes"] == 0
    for spec in ({"depth": 2}, {"book": 0}):  # a fixed depth searches; book=0 turns it off
        player = AlphaBetaPlayer(**spec, time=0.05)
        player.choose(start)
        assert not player.last_info["book"] and player.last_info["nodes"] > 0
    # a book's move that would repeat a position of the game is not played from the book
    move = grown.moves[start][0]
    player = AlphaBetaPlayer(time=0.05)
    player.game = [start.play(move), start]  # (as if) the position after it came before
    assert player.book_move(start) is None


def test_oware_ships_a_book_for_its_default_rules_only():
    shipped = books.for_variant(mancalab.variant("oware"))
    assert shipped is not None and len(shipped) >= 100  # read whole: every move legal
    assert any("Made by: mancalab db book oware" in line for line in shipped.header)
    assert books.for_variant(mancalab.variant("oware", seeds=3)) is None  # other rules
    assert books.for_variant(mancalab.variant("kalah")) is None  # no book shipped
