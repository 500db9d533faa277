"""Players: spec strings, reproducible seeds, legal choices, MCTS finding the obvious move."""

import time

import pytest

import mancalab
from mancalab import UnknownOptionError
from mancalab.players.mcts import SearchTree

g = mancalab.variant("gebeta")


@pytest.mark.parametrize("spec, name, options", [
    ("mcts:time=1.5", "mcts", {"time": 1.5}),
    ("mcts:playouts=20000,seed=1", "mcts", {"playouts": 20000, "seed": 1}),
    ("random:seed=3", "random", {"seed": 3}),
    (" MCTS ", "mcts", {"time": 1.5, "playouts": 0}),
])
def test_spec_strings(spec, name, options):
    p = mancalab.player(spec)
    assert p.name == name
    for key, value in options.items():
        assert p.options[key] == value


@pytest.mark.parametrize("name", sorted(set(mancalab.players.PLAYERS) - {"engine", "ugi"}))
def test_every_player_takes_a_seed(name):
    """Every mancalab player (an engine program's randomness is its own business)."""
    assert mancalab.player(f"{name}:seed=5").options["seed"] == 5
    assert mancalab.player(f"{name}:seed=5").spec == f"{name}:seed=5"


@pytest.mark.parametrize("spec, words", [
    ("alpha", "unknown player"),
    ("mcts:depth=3", "unknown option 'depth'"),
    ("mcts:time=-1", "option 'time'"),
    ("mcts:time=soon", "option 'time'"),
    ("mcts:time", "key=value"),
    ("random:seed=x", "option 'seed'"),
    ("perfect:turn=-1", "option 'turn'"),
])
def test_bad_specs(spec, words):
    with pytest.raises(UnknownOptionError, match=words):
        mancalab.player(spec)


def test_a_turn_of_several_moves_shares_the_turns_time():
    """With ``turn``, a move that goes on with the player's turn (its extra move) gets half of
    what the turn has left, and at least ``MIN_SHARE`` of its time, ``LAST_SHARE`` once the
    turn has less than that left; a new turn (the opponent moved) gets the whole ``time``
    again; without ``turn``, every move does."""
    from mancalab.players.perfect import LAST_SHARE, MIN_SHARE

    start = mancalab.variant("gabata").start()
    extra = start.legal_moves()[2]  # its last marble in the mover's deposit: it moves again
    again = start.play(extra)
    assert again.to_move == start.to_move
    perfect = mancalab.player("perfect:time=1,turn=2")
    assert perfect._budget(start) == 1
    perfect._played(start, extra, time.perf_counter() - 1)  # the turn's first move took 1 s
    assert perfect._budget(again) == pytest.approx(0.5, abs=0.01)
    perfect._played(again, again.legal_moves()[0], time.perf_counter() - 0.92)  # 0.08 left
    beyond = again.play(again.legal_moves()[0])
    assert perfect._budget(beyond) == pytest.approx(MIN_SHARE, abs=0.001)
    perfect._played(beyond, beyond.legal_moves()[0], time.perf_counter() - 0.08)  # all spent
    last = beyond.play(beyond.legal_moves()[0])
    assert perfect._budget(last) == pytest.approx(LAST_SHARE, abs=0.001)
    assert perfect._budget(start.play(start.legal_moves()[0])) == 1  # another turn
    unlimited = mancalab.player("perfect:time=1")
    unlimited._played(start, extra, time.perf_counter() - 5)
    assert unlimited._budget(again) == 1


def _game(pa, pb, limit=400):
    s, moves = g.start(), []
    while s.outcome is None and len(moves) < limit:
        m = (pa if s.to_move == 0 else pb).choose(s)
        assert m in s.legal_moves()
        moves.append(m)
        s = s.play(m)
    return moves


def test_seeds_make_games_reproducible():
    first = _game(mancalab.player("mcts:playouts=300,seed=7"), mancalab.player("random:seed=3"))
    second = _game(mancalab.player("mcts:playouts=300,seed=7"), mancalab.player("random:seed=3"))
    assert first == second
    third = _game(mancalab.player("mcts:playouts=300,seed=8"), mancalab.player("random:seed=3"))
    assert third != first


def test_mcts_counts_playouts_and_visits():
    p = mancalab.player("mcts:playouts=2000,seed=1")
    p.choose(g.start())
    assert p.last_info["playouts"] == 2000
    tree = SearchTree(g.start().board)
    tree.run(g, 2000, 2 ** 0.5)
    children = tree.root_children()
    assert sorted(m for m, *_ in children) == [0, 1, 2, 3, 4, 5]
    assert sum(v for _, v, *_ in children) == 2000
    assert tree.visits[0] == 2000


def test_mcts_takes_the_winning_move():
    # A to move: index 5 (1 counter) or index 4 (2 counters) completes a family in index 6
    # with the last counter, empties B's row and wins; index 3 relays on and does not.
    s = g.state([0, 0, 0, 2, 2, 1, 3, 0, 0, 0, 0, 0, 5, 5], to_move=0)
    winning = {m for m in s.legal_moves()
               if s.play(m).outcome is not None and s.play(m).outcome.winner == 0}
    assert winning == {4, 5}
    for seed in range(3):
        assert mancalab.player(f"mcts:playouts=3000,seed={seed}").choose(s) in winning


def test_mcts_by_time_honours_the_budget():
    p = mancalab.player("mcts:time=0.2,seed=1")
    p.choose(g.start())
    assert p.last_info["seconds"] < 1.0 and p.last_info["playouts"] > 0


def test_a_full_tree_stops_where_growing_it_would_pass_the_deadline(monkeypatch):
    """A search by time whose tree is out of room stops rather than grow it when the
    doubling (twice the last one's time) would end past the deadline: the second doubling
    of a tree whose doublings take 0.3 s is not started with 0.5 s left of 0.8."""
    from mancalab.players import mcts

    grows, grow, init = [], SearchTree.grow, SearchTree.__init__

    def slow_grow(tree):
        grow(tree)
        time.sleep(0.3)
        tree.grown_in += 0.3
        grows.append(tree.boards.shape[0])

    monkeypatch.setattr(SearchTree, "__init__",
                        lambda tree, board: init(tree, board, capacity=2 * mcts.MAX_MOVES + 1))
    monkeypatch.setattr(SearchTree, "grow", slow_grow)
    monkeypatch.setattr(mcts._kept, "tree", None, raising=False)  # a new tree, not a kept one
    player = mancalab.player("mcts:time=0.8,seed=1")
    start = mancalab.variant("gabata").start()
    tree, done = player._search(start, 1, time.perf_counter() + 0.8, 0)
    assert len(grows) == 1 and done > 0
    assert tree.room_seconds() >= 0.6
    assert SearchTree(start.board).room_seconds() == 0  # room left: nothing to make


def test_players_refuse_finished_games():
    over = g.state([0] * 6 + [1, 0, 0, 0, 0, 3, 5, 6], to_move=0)
    for spec in ("random", "mcts:playouts=10"):
        with pytest.raises(ValueError, match="over"):
            mancalab.player(spec).choose(over)


@pytest.mark.parametrize("game", mancalab.variants())
def test_mcts_plays_every_game(game):
    s = mancalab.variant(game).start()
    p = mancalab.player("mcts:playouts=500,seed=2")
    for _ in range(4):
        if s.is_over:
            break
        move = p.choose(s)
        assert move in s.legal_moves()
        s = s.play(move)


def test_mcts_takes_a_kalah_capture_that_wins():
    # player 0 to move: pit index 0 (1 seed) lands in the empty index 1 opposite 11 seeds and
    # ends the game 24+ to less; every other move loses the 11 seeds' column
    k = mancalab.variant("kalah")
    s = k.state([1, 0, 0, 0, 0, 1, 22, 0, 0, 0, 0, 11, 0, 13], to_move=0)
    best = s.play(0)
    assert best.outcome is not None and best.outcome.winner == 0
    assert mancalab.player("mcts:playouts=3000,seed=1").choose(s) == 0


def test_mcts_solver_proves_a_win_and_stops():
    # Kalah with 2 pits of 1 seed is solved in a few hundred playouts
    s = mancalab.variant("kalah", pits=2, seeds=1).start()
    solving = mancalab.player("mcts:playouts=100000,seed=1")
    move = solving.choose(s)
    assert solving.last_info["playouts"] < 100000 and solving.last_info["proven"] == "win"
    bot = mancalab.player("alphabeta:depth=20")
    bot.choose(s)
    assert bot.last_info["value"] >= 1_000_000  # alpha-beta agrees the start is won
    child = s.play(move)  # and the move MCTS proved keeps the win
    follow = mancalab.player("alphabeta:depth=20")
    follow.choose(child) if not child.is_over else None
    if not child.is_over:
        value = follow.last_info["value"]
        assert (value if child.to_move == s.to_move else -value) >= 1_000_000


def test_mcts_solver_can_be_turned_off():
    s = mancalab.variant("kalah", pits=2, seeds=1).start()
    plain = mancalab.player("mcts:playouts=3000,seed=1,solver=false")
    plain.choose(s)
    assert plain.last_info["playouts"] == 3000 and plain.last_info["proven"] is None
