"""Retrograde solving of Gebeta and Gabata (positions can repeat) against an independent
fixed point computed over the game's rules: no ranking, no edge table, no database."""

import json
import random

import numpy as np
import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.cli import app
from mancalab.core import ONGOING
from mancalab.players import player
from mancalab.analysis import solving
from mancalab.analysis.solving import book as books, graph, repeating, retrograde
from mancalab.analysis.solving.files import DatabaseError
from mancalab.ranking import pits_of, unrank

from .test_solve import board_margin, played

GAMES = {"gebeta": 4, "gabata": 1}  # seeds a point of value takes at most


def margin(state, player):
    a, b = state.score
    return a - b if player == 0 else b - a


def fixed_point(root):
    """(L, U) of every position ``root`` can reach, for the player to move there: from
    margin -/+ (seeds in play // unit), every position's bounds are set to the best of its
    moves' (never loosened) over and over until nothing changes (numpy over the edges).
    The moves are played on boards by the game's rule kernels (through State objects the
    walk took five times as long)."""
    variant = root.variant
    unit = GAMES[variant.name]
    index, boards, queue = {root.board.tobytes(): 0}, [root.board], [root.board]
    source, kind, target, end = [], [], [], []  # kind 0: the game ends (margin ``end``);
    while queue:  # 1: the same player moves again at ``target``; 2: the opponent moves
        board = queue.pop()
        mover = board[-2]
        for move in variant.legal_moves_of(board):
            child = played(variant, board, move)
            source.append(index[board.tobytes()])
            if child[-1] != ONGOING:
                kind.append(0), target.append(0)
                end.append(board_margin(variant, child, mover))
                continue
            key = child.tobytes()
            if key not in index:
                index[key] = len(boards)
                boards.append(child)
                queue.append(child)
            kind.append(1 if child[-2] == mover else 2)
            target.append(index[key]), end.append(0)
    order = np.argsort(source, kind="stable")
    source, kind, target, end = (np.array(a)[order] for a in (source, kind, target, end))
    starts = np.flatnonzero(np.r_[True, source[1:] != source[:-1]])
    scores = np.array([variant.score_of(b) for b in boards])
    stacked = np.array(boards)
    movers, cells = stacked[:, -2], stacked[:, :variant.n_cells]
    base = np.where(movers == 0, 1, -1) * (scores[:, 0] - scores[:, 1])
    seeds = (cells.sum(axis=1) - scores.sum(axis=1)) // unit
    low, high = base - seeds, base + seeds
    while True:
        best_low = np.maximum.reduceat(
            np.select([kind == 0, kind == 1], [end, low[target]], -high[target]), starts)
        best_high = np.maximum.reduceat(
            np.select([kind == 0, kind == 1], [end, high[target]], -low[target]), starts)
        new_low, new_high = np.maximum(low, best_low), np.minimum(high, best_high)
        if np.array_equal(new_low, low) and np.array_equal(new_high, high):
            break
        low, high = new_low, new_high
    return ({key: int(low[i]) for key, i in index.items()},
            {key: int(high[i]) for key, i in index.items()})


def random_position(variant, seeds, rng):
    """A position with ``seeds`` in the pits, the rest banked, that is not over."""
    name = variant.name
    while True:
        pits = [0] * 12
        for _ in range(seeds):
            pits[rng.randrange(12)] += 1
        banked = (48 - seeds) // GAMES[name]
        a = rng.randint(0, banked)
        cells = pits + [a, banked - a] if name == "gebeta" else (
            pits[:6] + [a] + pits[6:] + [banked - a])
        state = variant.state(cells, rng.randint(0, 1))
        if not state.is_over:
            return state


@pytest.fixture(scope="module")
def empty_databases():
    """Databases of no seeds: every position is solved over its own graph."""
    return {name: retrograde.build(mancalab.variant(name), 0) for name in GAMES}


@pytest.mark.parametrize("game, seeds", [("gebeta", 4), ("gabata", 3), ("gabata", 5)])
def test_bounds_and_every_moves_bounds_equal_the_fixed_point(game, seeds, empty_databases):
    variant = mancalab.variant(game)
    rng = random.Random(seeds)
    small = retrograde.build(variant, seeds - 4 if game == "gebeta" else seeds - 2)
    for _ in range(4):
        check_against_the_fixed_point(random_position(variant, seeds, rng),
                                      [empty_databases[game], small])


def check_against_the_fixed_point(state, databases):
    low, high = fixed_point(state)
    for database in databases:
        result = solving.solve(state, moves=True, database=database)
        key = state.board.tobytes()
        assert (result.lower, result.upper) == (low[key], high[key]), state.cells
        assert result.exact == (low[key] == high[key])
        for move, bounds in result.moves.items():
            child = state.play(move)
            if child.is_over:
                expected = (margin(child, state.to_move),) * 2
            elif child.to_move == state.to_move:
                expected = (low[child.board.tobytes()], high[child.board.tobytes()])
            else:
                expected = (-high[child.board.tobytes()], -low[child.board.tobytes()])
            assert bounds == expected, (state.cells, move)
            assert sorted(result.replies[move]) == reply_values(state, child, low, high)


def reply_values(state, child, low, high):
    """The mover's lower bounds after each of the opponent's replies to ``child``."""
    if child.is_over or child.to_move == state.to_move:
        key = child.board.tobytes()
        return [margin(child, state.to_move) if child.is_over else low[key]]
    values = []
    for reply in child.legal_moves():
        after = child.play(reply)
        key = after.board.tobytes()
        values.append(margin(after, state.to_move) if after.is_over else
                      low[key] if after.to_move == state.to_move else -high[key])
    return sorted(values)


def test_positions_that_depend_on_the_rule_for_endless_play_equal_the_fixed_point(
        empty_databases):
    variant = mancalab.variant("gabata")
    seeds = 7  # the fewest marbles with such positions
    database = retrograde.build(variant, seeds)
    assert np.all(database.low <= database.high)
    assert np.count_nonzero(database.low != database.high) > 0
    for state, _ in zip(endless_positions(seeds), range(1)):
        check_against_the_fixed_point(state, [empty_databases["gabata"],
                                              retrograde.build(variant, 5)])
        assert not solving.solve(state, database=database).exact


@pytest.mark.parametrize("game", GAMES)
def test_a_solved_value_is_the_best_of_its_moves(game):
    variant = mancalab.variant(game)
    database = retrograde.build(variant, 8)
    rng = random.Random(3)
    for _ in range(3):
        state = random_position(variant, 12, rng)
        result = repeating.solve(state, moves=True, database=database)
        assert sorted(result.moves) == state.legal_moves()
        assert result.lower == max(low for low, _ in result.moves.values())
        assert result.upper == max(high for _, high in result.moves.values())
        if result.exact:
            assert result.best_moves == [m for m, (low, _) in result.moves.items()
                                         if low == result.value]
            assert result.best_move_names == [state.move_name(m) for m in result.best_moves]
        else:
            assert result.value is None and result.best_moves == []


@pytest.mark.parametrize("game", GAMES)
def test_database_entries_equal_the_solve_of_their_position(game, empty_databases):
    variant = mancalab.variant(game)
    seeds = 8
    database = retrograde.build(variant, seeds)
    rng = random.Random(5)
    checked = 0
    while checked < 6:
        state = random_position(variant, seeds if game == "gebeta" else rng.randint(1, seeds),
                                rng)
        result = repeating.solve(state, database=empty_databases[game])
        base = margin(state, state.to_move)
        assert database.bounds(graph.mover_view(state)) == (result.lower - base,
                                                                 result.upper - base)
        checked += 1


def test_bounds_under_a_limit_contain_the_value():
    variant = mancalab.variant("gabata")
    database = retrograde.build(variant, 6)
    state = random_position(variant, 14, random.Random(11))
    exact = repeating.solve(state, database=database)
    for limit in (1e-6, 0.01):
        result = repeating.solve(state, time=limit, database=database)
        assert result.lower <= exact.lower <= exact.upper <= result.upper


def test_database_files_are_checked(tmp_path):
    variant = mancalab.variant("gabata")
    built = retrograde.build(variant, 5)
    path = retrograde.save(built, tmp_path)
    assert path.name == "gabata-max_laps10000-5.db"
    loaded = retrograde.load(path, variant)
    assert np.array_equal(loaded.low, built.low) and np.array_equal(loaded.high, built.high)
    with pytest.raises(DatabaseError, match="not"):
        retrograde.load(path, mancalab.variant("gabata", max_laps=500))
    with pytest.raises(DatabaseError, match="not"):
        retrograde.load(path, mancalab.variant("gebeta"))
    data = bytearray(path.read_bytes())
    data[-3] ^= 1
    (tmp_path / "corrupt.db").write_bytes(bytes(data))
    with pytest.raises(DatabaseError, match="corrupt"):
        retrograde.load(tmp_path / "corrupt.db")
    (tmp_path / "short.db").write_bytes(bytes(data[:-10]))
    with pytest.raises(DatabaseError, match="truncated"):
        retrograde.load(tmp_path / "short.db")
    assert retrograde.best_available(variant, tmp_path).seeds == 5


def test_bad_input_is_refused():
    for game, seeds in [("gebeta", 49), ("gabata", -1), ("gabata", True), ("gebeta", 4.0)]:
        with pytest.raises(DatabaseError, match="seeds"):
            retrograde.build(mancalab.variant(game), seeds)
    with pytest.raises(DatabaseError, match="no retrograde"):
        retrograde.build(mancalab.variant("kalah"), 4)


def test_the_commands(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr("mancalab.cluster.CONNECT_SECONDS", 0.5)  # nowhere is not reached
    runner = CliRunner()
    built = runner.invoke(app, ["db", "build", "gabata", "--seeds", "6"])
    assert built.exit_code == 0 and "Wrote" in built.output, built.output
    assert "gabata-max_laps10000-6.db  gabata" in runner.invoke(app, ["db", "list"]).output
    state = random_position(mancalab.variant("gabata"), 8, random.Random(2))
    position = ",".join(map(str, state.cells))
    solved = runner.invoke(app, ["solve", "gabata", "--position", position, "--to-move",
                                 str(state.to_move), "--json", "--moves"])
    assert solved.exit_code == 0, solved.output
    answer = json.loads(solved.stdout.strip().splitlines()[-1])
    low, high = fixed_point(state)
    key = state.board.tobytes()
    assert (answer["lower"], answer["upper"]) == (low[key], high[key])
    assert answer["database_seeds"] == 6
    for args in (["db", "build", "gebeta", "--seeds", "49"],
                 ["db", "build", "gebeta", "--seeds", "8", "--cluster", "tcp://nowhere:1"],
                 ["solve", "gabata", "--position", "1,2,3"],
                 ["solve", "gebeta", "--time", "nan"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, args


def endless_positions(seeds=7):
    """Gabata positions with ``seeds`` marbles whose value depends on the rule for endless
    play, from the database (A to move, the rest banked)."""
    variant = mancalab.variant("gabata")
    database = retrograde.build(variant, seeds)
    loops = np.flatnonzero(database.low != database.high)
    bars, pits = np.empty(11, dtype=np.int64), np.empty(12, dtype=np.int64)
    for entry in loops[loops >= database.offsets[seeds]]:
        unrank(int(entry - database.offsets[seeds]), seeds, 12, database.binom, bars)
        pits_of(bars, seeds, pits)
        cells = [int(p) for p in pits[:6]] + [20] + [int(p) for p in pits[6:]] + [21]
        yield variant.state(cells, 0)


@pytest.mark.parametrize("game, seeds", [("gebeta", 24), ("gabata", 18)])
def test_a_players_short_walk_finds_the_whole_solves_value_and_best_moves(game, seeds):
    """The perfect player's solve (``exact_only``) walks at most ``PLAYER_WALK`` positions
    and asks the proof search the rest: where it is exact, its value is the whole solve's,
    its best moves are best, and a best move it leaves out is one whose bounds it left apart
    (how many it settles depends on the database: the one a player has is made first)."""
    variant = mancalab.variant(game)
    retrograde.database_for(variant)  # the player's database, whichever test came first
    rng, compared, bigger = random.Random(5), 0, 0
    for _ in range(4):
        state = random_position(variant, seeds, rng)
        whole = solving.solve(state, moves=True, build=False)
        short = solving.solve(state, moves=True, build=False, exact_only=True)
        bigger += whole.nodes > repeating.PLAYER_WALK  # the short walk was cut there
        if short.exact:
            compared += 1
            assert short.value == whole.value and short.best_moves, state
            assert set(short.best_moves) <= set(whole.best_moves), state
            for move in set(whole.best_moves) - set(short.best_moves):
                low, high = short.moves[move]
                assert low < high and low <= whole.value <= high, (state, move)
    assert compared >= 3 and bigger >= 2


def test_the_perfect_player_plays_the_best_bounds_where_endless_play_decides(tmp_path,
                                                                             monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    state = next(endless_positions())
    result = solving.solve(state, moves=True)
    assert result.endless and not result.exact
    perfect = player("perfect:time=5,seed=1", game="gabata")
    move = perfect.choose(state)
    assert result.moves[move] == max(result.moves.values())
    assert perfect.last_info["endless"] and perfect.last_info["value"] is None
    fallback = player("perfect:time=0.2,fallback=mcts,threads=2", game="gabata3")
    fallback.choose(mancalab.variant("gabata3").start())
    assert fallback.last_info["fallback"].startswith("mcts: exact solving covers")
    with pytest.raises(mancalab.MancalabError, match="fallback"):
        player("perfect:fallback=greedy")


@pytest.mark.parametrize("game, seeds, database_seeds", [("gabata", 6, 3), ("gebeta", 16, 8)])
def test_a_book_answers_as_the_walk_does(game, seeds, database_seeds, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # no book yet
    monkeypatch.setattr(books, "_BOOKS", {})
    variant = mancalab.variant(game)
    database = retrograde.build(variant, database_seeds)
    rng = random.Random(seeds)
    root = random_position(variant, seeds, rng)
    book = books.build_book(variant, database, root)
    assert np.all(np.diff(book.keys) > 0) and book.seeds == database_seeds
    if game == "gabata":  # against the independent fixed point
        low, high = fixed_point(root)
        base = margin(root, root.to_move)
        lo, hi = book.bounds(graph.mover_view(root))
        assert (base + lo, base + hi) == (low[root.board.tobytes()], high[root.board.tobytes()])
    walked = []
    state = root
    while not state.is_over and len(walked) < 30:
        walked.append((state, repeating.solve(state, moves=True, database=database)))
        state = state.play(rng.choice(state.legal_moves()))
    monkeypatch.setattr(books, "_BOOKS", {})
    path = books.save_book(book)
    assert path == books.book_path(variant) and path.name.endswith("-start.db")
    for state, expected in walked:
        looked_up = repeating.solve(state, moves=True, database=database)
        assert looked_up.nodes <= 1 + 6 + 36 < expected.nodes or expected.nodes <= 43
        for field in ("value", "lower", "upper", "best_moves", "moves", "replies", "endless"):
            assert getattr(looked_up, field) == getattr(expected, field), (field, state)


def test_book_files_are_checked(tmp_path):
    variant = mancalab.variant("gabata")
    database = retrograde.build(variant, 5)
    book = books.build_book(variant, database,
                                 random_position(variant, 9, random.Random(5)))
    path = books.save_book(book, tmp_path)
    loaded = books.load_book(path, variant)
    assert np.array_equal(loaded.keys, book.keys) and np.array_equal(loaded.low, book.low)
    with pytest.raises(DatabaseError, match="not the book"):
        books.load_book(path, mancalab.variant("gabata", max_laps=500))
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseError, match="corrupt"):
        books.load_book(path, variant)
    path.write_bytes(bytes(data[:-4]))
    with pytest.raises(DatabaseError, match="truncated"):
        books.load_book(path, variant)
    with pytest.raises(DatabaseError, match="not a mancalab database"):
        books.load_book(retrograde.save(database, tmp_path), variant)


def test_the_book_command(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(books, "_BOOKS", {})
    variant = mancalab.variant("gabata")
    root = random_position(variant, 10, random.Random(8))
    build_book = books.build_book
    monkeypatch.setattr(books, "build_book",  # the real start's graph takes minutes
                        lambda variant, database: build_book(variant, database, root))
    runner = CliRunner()
    built = runner.invoke(app, ["db", "build", "gabata", "--seeds", "4", "--start"])
    words = " ".join(built.output.split())  # rich wraps to the terminal, path and all
    assert built.exit_code == 0 and "start reaches above 4 seeds" in words, built.output
    listed = runner.invoke(app, ["db", "list"]).output
    assert "gabata-max_laps10000-start.db  gabata  max_laps=10000  the start's book" in listed
    state = root.play(root.legal_moves()[0])
    position = ",".join(map(str, state.cells))
    solved = runner.invoke(app, ["solve", "gabata", "--position", position, "--to-move",
                                 str(state.to_move), "--json"])
    answer = json.loads(solved.stdout.strip().splitlines()[-1])
    low, high = fixed_point(state)
    assert (answer["lower"], answer["upper"]) == (low[state.board.tobytes()],
                                                  high[state.board.tobytes()])
    assert answer["nodes"] <= 43  # looked up, not walked
    monkeypatch.setattr(books, "capacity_for", lambda time: 1000)
    monkeypatch.setattr(books, "build_book", build_book)
    for args in (["db", "build", "gabata", "--seeds", "4", "--start"],
                 ["db", "build", "kalah", "--seeds", "4", "--start"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, result.output
        said = " ".join(result.output.split())
        assert "memory" in said or "Kalah is searched" in said, said


def test_the_perfect_player_moves_on_among_equal_moves(tmp_path, monkeypatch):
    """Moves of equal value can go round in circles: of them it takes one to a position the
    game has seen the fewest times, and a position with more seeds begins a new game."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    variant = mancalab.variant("gabata")
    database = retrograde.build(variant, 8)
    rng = random.Random(4)
    while True:
        state = random_position(variant, 8, rng)
        result = repeating.solve(state, moves=True, database=database)
        if result.exact and len(result.best_moves) >= 2:
            break
    perfect = player("perfect:traps=false,seed=3", game="gabata")
    chosen = [perfect.choose(state) for _ in range(len(result.best_moves))]
    assert sorted(chosen) == sorted(result.best_moves)  # each child seen once, then the next
    fuller = random_position(variant, 10, rng)
    perfect.choose(fuller)
    assert sum(perfect._seen.values()) == 2  # a new game: only its position and the child


def test_play_says_how_to_build_the_book_the_perfect_player_lacks(small_databases,
                                                                  monkeypatch):
    def play(bot):
        return CliRunner().invoke(app, ["play", "gebeta", "--a", "Ann", "--b", "Computer",
                                        "--bot", bot], input="quit\n")

    said = " ".join(play("expert").output.split())
    assert "mancalab db build gebeta --seeds 16 --start" in said, said
    assert "db build" not in play("mcts").output  # only the perfect player uses the book
    other_rules = books.book_advice(mancalab.variant("gebeta", lap_limit=10))
    assert "mancalab db build gebeta --seeds 16 --start -o lap_limit=10'" in other_rules
    assert books.book_advice(mancalab.variant("gabata")) is None
    monkeypatch.setattr(books, "book_for", lambda variant: object())  # one is built
    assert "db build" not in play("expert").output
    assert books.book_advice(mancalab.variant("gebeta", lap_limit=10)) is None
