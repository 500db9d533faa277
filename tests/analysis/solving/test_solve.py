"""The solver and the endgame databases against an independent brute-force negamax over the
game's rules (no table, no database), on small Kalah boards with every rule option."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis import solving
from mancalab.analysis.solving import databases, files
from mancalab.cli import app
from mancalab.core import ONGOING, InvalidPositionError

RULES = [dict(empty_capture=ec, end_rule=end) for ec in (True, False)
         for end in ("side_empty", "no_move")]


def board_margin(variant, board, player):
    """The margin of ``board`` (its scores so far) for ``player``."""
    a, b = variant.score_of(board)
    return a - b if player == 0 else b - a


def played(variant, board, move):
    """The board after ``move``, played by the game's own rule kernel (no State)."""
    child = board.copy()
    variant.kernels.play(variant.params, child, move)
    return child


def _negamax(variant, board, memo):
    """The margin for ``board``'s player to move under perfect play: every move played by
    the game's own rule kernels (through State objects a test took five times as long),
    memoised on boards."""
    key = board.tobytes()
    if key in memo:
        return memo[key]
    best = None
    for move in variant.legal_moves_of(board):
        child = played(variant, board, move)
        if child[-1] != ONGOING:
            v = board_margin(variant, child, board[-2])
        else:
            v = _negamax(variant, child, memo)
            v = v if child[-2] == board[-2] else -v
        best = v if best is None else max(best, v)
    memo[key] = best
    return best


_MEMOS = {}  # a game's (with its options) memo of solved boards


def brute(state):
    """The final margin for the player to move under perfect play: plain negamax over the
    game's rules, memoised on positions (no bounds, no database)."""
    if state.is_over:
        return board_margin(state.variant, state.board, state.to_move)
    return _negamax(state.variant, state.board, _MEMOS.setdefault(state.variant.key, {}))


def move_value(state, move):
    """The value of ``move`` for the player making it."""
    child = state.play(move)
    if child.is_over:
        a, b = child.score
        return a - b if state.to_move == 0 else b - a
    return brute(child) if child.to_move == state.to_move else -brute(child)


def positions(variant, count, seed):
    """Positions reached by random play from the start (none over)."""
    rng = np.random.default_rng(seed)
    found = []
    while len(found) < count:
        state = variant.start()
        for _ in range(int(rng.integers(0, 12))):
            if state.is_over:
                break
            state = state.play(int(rng.choice(state.legal_moves())))
        if not state.is_over:
            found.append(state)
    return found


def fresh_solver(variant, seeds, bits=14, threads=None):
    """A solver with a small table (collisions exercised) and a database of ``seeds``."""
    database = databases.build(variant, seeds) if seeds >= 0 else None
    return solving.Solver(variant, database, table_bits=bits, threads=threads), database


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("size", [(2, 3), (3, 2), (3, 3), (4, 2)])
def test_values_and_every_moves_value_equal_brute_force(rules, size):
    pits, seeds = size
    variant = mancalab.variant("kalah", pits=pits, seeds=seeds, **rules)
    for db_seeds in (-1, 5):
        solver, database = fresh_solver(variant, db_seeds)
        for state in [variant.start()] + positions(variant, 6, seed=pits * 10 + seeds):
            result = solving.solve(state, moves=True, database=database, solver=solver)
            assert result.exact and result.value == brute(state), state
            assert result.moves == {m: (move_value(state, m),) * 2 for m in state.legal_moves()}
            assert result.value == max(low for low, _ in result.moves.values())
            assert result.best_moves == [m for m, (low, _) in result.moves.items()
                                         if low == result.value]


def test_a_solvers_table_grows_with_the_positions_asked_within_its_size():
    """An endgame's solve takes a table for its seeds, not the one made for the start."""
    from mancalab.analysis.solving import kalah

    variant = mancalab.variant("kalah", pits=4, seeds=3)
    solver = solving.Solver(variant, None)
    assert (solver.table_bits, solver.most_bits) == (kalah.FIRST_TABLE_BITS, 20)
    assert solver.memory == 16 << 20  # the budget counts the size it may grow to
    endgame = variant.state([0, 2, 0, 1, 10, 1, 0, 0, 2, 8], 0)
    result = solving.solve(endgame, moves=True, solver=solver)
    assert result.exact and result.value == brute(endgame)
    assert solver.table_bits == kalah.FIRST_TABLE_BITS
    start, small = variant.start(), solving.Solver(variant, None, table_bits=12)
    grown, kept = (solving.solve(start, moves=True, solver=one) for one in (solver, small))
    assert (solver.table_bits, small.table_bits) == (20, 12)
    assert grown.exact and (grown.value, grown.moves) == (kept.value, kept.moves)


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("size", [(2, 3), (3, 2), (3, 3), (4, 2)])
def test_a_small_game_searched_to_its_end_has_every_moves_value(rules, size):
    """``solving.small``: the alpha-beta search to the end, for small games without the
    solver, equals brute force on every move."""
    from mancalab.analysis.solving import small

    pits, seeds = size
    variant = mancalab.variant("kalah", pits=pits, seeds=seeds, **rules)
    for state in [variant.start()] + positions(variant, 6, seed=pits * 10 + seeds + 1):
        assert small.is_small(state)
        result = small.solve(state)
        assert result.exact and result.value == brute(state), state
        assert result.moves == {m: (move_value(state, m),) * 2 for m in state.legal_moves()}
        assert result.best_moves == [m for m, (low, _) in result.moves.items()
                                     if low == result.value]


def test_the_command_searches_a_small_game_to_its_end_and_others_by_the_solver():
    from mancalab.analysis.solving import small

    assert not small.is_small(mancalab.variant("kalah").start())  # 48 seeds
    assert not small.is_small(mancalab.variant("gabata").start())  # positions repeat
    found = CliRunner().invoke(app, ["solve", "kalah", "-o", "pits=3", "-o", "seeds=2",
                                     "--moves"])
    assert found.exit_code == 0, found.output
    assert "(+4)" in found.output and "searched to the end" in found.output


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("size", [(2, 3), (3, 3)])
@pytest.mark.parametrize("bits", [6, 14])
def test_the_value_and_every_best_move_equal_brute_force(rules, size, bits):
    # without ``moves`` each move is only tested against the value: the best moves must be
    # exactly those that reach it; a tiny table overwrites entries all the time
    pits, seeds = size
    variant = mancalab.variant("kalah", pits=pits, seeds=seeds, **rules)
    solver, database = fresh_solver(variant, 3, bits=bits)
    for state in [variant.start()] + positions(variant, 8, seed=pits + seeds + bits):
        result = solving.solve(state, database=database, solver=solver)
        values = {m: move_value(state, m) for m in state.legal_moves()}
        assert result.exact and result.value == max(values.values()), state
        assert result.best_moves == [m for m, v in values.items() if v == result.value]


@pytest.mark.parametrize("threads", [1, 3])
def test_threads_sharing_tests_give_the_same_values(threads, monkeypatch):
    # three threads on each test and a tiny shared table: entries are replaced and
    # overwritten under the tests' feet all the time, and every value must still be exact
    monkeypatch.setattr(solving.kalah, "SPLIT_FROM_SEEDS", 0)  # small games split too
    variant = mancalab.variant("kalah", pits=3, seeds=3, empty_capture=False)
    solver, database = fresh_solver(variant, -1, bits=6, threads=threads)
    for state in [variant.start()] + positions(variant, 8, seed=threads):
        result = solving.solve(state, moves=True, database=database, solver=solver)
        assert result.value == brute(state), state
        assert result.moves == {m: (move_value(state, m),) * 2 for m in state.legal_moves()}


def test_thresholds_keep_the_parity_and_stay_inside_the_bounds():
    assert solving.kalah._threshold(-10, 10, 3) == 4
    assert solving.kalah._threshold(-10, 10, 4) == 4
    assert solving.kalah._threshold(-10, 10, 99) == 10
    assert solving.kalah._threshold(-11, 11, -20) == -9
    assert solving.kalah._threshold(4, 6, 0) == 6


@pytest.mark.parametrize("expect_fail", [True, False])
def test_threads_splitting_one_test_answer_it_soundly(expect_fail, monkeypatch):
    # two threads on one test put off the children the other is in: every answer must still
    # bound the value on the right side, whichever answer the split expected
    monkeypatch.setattr(solving.kalah, "SPLIT_FROM_SEEDS", 0)
    variant = mancalab.variant("kalah", pits=4, seeds=3)
    single, database = fresh_solver(variant, 4, bits=16, threads=1)
    for state in [variant.start()] + positions(variant, 6, seed=7):
        known = solving.solve(state, moves=True, database=database, solver=single)
        pits, base = solving.mover_pits(state), solving.store_margin(state)
        exact = known.value - base
        for gamma in range(-int(pits.sum()) - 1, int(pits.sum()) + 2):
            split = solving.Solver(variant, database, table_bits=10, threads=2)
            value, move = split._test(pits, gamma, None, parallel=True,
                                      expect_fail=expect_fail)
            assert value >= gamma and exact >= value or value < gamma and exact <= value
            if value >= gamma and move >= 0:  # the move proven to reach it does
                own = move if state.to_move == 0 else move + 5
                assert known.moves[own][0] >= value + base, (state, gamma)
            split.close()


@pytest.mark.parametrize("rules", RULES)
def test_database_entries_equal_search_values(rules):
    variant = mancalab.variant("kalah", pits=4, seeds=3, **rules)
    database = databases.build(variant, 9)
    plain = solving.Solver(variant, None, table_bits=12)
    rng = np.random.default_rng(7)
    for _ in range(60):
        pits = np.zeros(8, dtype=np.int64)
        for hole in rng.integers(0, 8, int(rng.integers(1, 10))):
            pits[hole] += 1
        if pits[:4].sum() == 0 or (rules["end_rule"] == "side_empty" and pits[4:].sum() == 0):
            continue  # over by the end rule: no search
        low, high, _ = plain.g(pits, None)
        assert low == high == database.value(pits), pits


def test_bounds_always_contain_the_value():
    variant = mancalab.variant("kalah", pits=4, seeds=3)
    exact = solving.solve(variant.start(), solver=fresh_solver(variant, 6)[0])
    for budget in (1, 100, 3000):  # node budgets that stop the search early
        solver, database = fresh_solver(variant, 6)
        solver.rate = budget / 1000  # (a budget is at least 1000 nodes a test)
        result = solving.solve(variant.start(), time=1e-6, database=database, solver=solver)
        assert result.lower <= exact.value <= result.upper
        if not result.exact:
            assert result.value is None and result.best_moves == []


def test_published_values_of_small_kalah():
    # Irving et al. (2000) with empty capture; without it: Kalah(6,2) +6 (shared notes)
    for seeds, empty_capture, value in [(1, True, 2), (2, True, 10), (2, False, 6)]:
        variant = mancalab.variant("kalah", seeds=seeds, empty_capture=empty_capture)
        solver, database = fresh_solver(variant, 10, bits=20)
        result = solving.solve(variant.start(), database=database, solver=solver)
        assert result.value == value, (seeds, empty_capture)


def test_a_finished_game_is_its_margin():
    variant = mancalab.variant("kalah", pits=2, seeds=2)
    state = variant.state([0, 0, 5, 0, 3, 0], 1)
    assert state.is_over
    result = solving.solve(state)
    assert result.exact and result.value == -5 + 3  # for B, to move


def test_bad_input_is_refused():
    variant = mancalab.variant("kalah", pits=2, seeds=2)
    with pytest.raises(InvalidPositionError):
        variant.state([1, 1, 1], 0)
    with pytest.raises(solving.SolveError, match="not gabata3"):
        solving.solve(mancalab.variant("gabata3").start())
    for seeds in (-1, 1000, True):
        with pytest.raises(files.DatabaseError, match="seeds"):
            databases.build(variant, seeds)
    with pytest.raises(solving.SolveError, match="time"):
        solving.solve(variant.start(), time=float("nan"))


def test_database_files_are_checked(tmp_path):
    variant = mancalab.variant("kalah", pits=3, seeds=2)
    path = databases.save(databases.build(variant, 6), tmp_path)
    loaded = databases.load(path, variant)
    assert loaded.value([1, 0, 0, 0, 0, 1]) == databases.build(variant, 6).value([1, 0, 0, 0,
                                                                                 0, 1])
    other = mancalab.variant("kalah", pits=3, seeds=2, empty_capture=False)
    with pytest.raises(files.DatabaseError, match="not"):
        databases.load(path, other)
    data = bytearray(path.read_bytes())
    data[-3] ^= 1
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(bytes(data))
    with pytest.raises(files.DatabaseError, match="corrupt"):
        databases.load(corrupt)
    truncated = tmp_path / "short.db"
    truncated.write_bytes(bytes(data[:-10]))
    with pytest.raises(files.DatabaseError, match="truncated"):
        databases.load(truncated)
    (tmp_path / "junk.db").write_bytes(b"hello\n")
    with pytest.raises(files.DatabaseError, match="not a mancalab database"):
        databases.load(tmp_path / "junk.db")
    assert any("error" in entry for entry in files.listing(tmp_path))


@pytest.mark.parametrize("name_length", range(8))
def test_a_file_written_aligned_starts_its_arrays_at_a_multiple_of_the_alignment(
        tmp_path, name_length):
    header = {"format": "test", "name": "x" * name_length}
    keys = np.arange(3, dtype=np.int64)
    files.write_whole(tmp_path / "f.db", header, [keys], align=8)
    read, offset = files.read_header(tmp_path / "f.db", "test")
    assert read == header and offset % 8 == 0
    assert np.array_equal(np.fromfile(tmp_path / "f.db", dtype=np.int64, offset=offset), keys)


def test_the_solve_command(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    runner = CliRunner()
    built = runner.invoke(app, ["db", "build", "kalah", "-o", "pits=3", "-o", "seeds=2",
                                "--seeds", "6"])
    assert built.exit_code == 0 and "Wrote" in built.output
    assert "kalah-3-ec-side_empty-6.db" in runner.invoke(app, ["db", "list"]).output
    solved = runner.invoke(app, ["solve", "kalah", "-o", "pits=3", "-o", "seeds=2", "--json",
                                 "--moves"])
    assert solved.exit_code == 0, solved.output
    answer = json.loads(solved.stdout.strip().splitlines()[-1])
    state = mancalab.variant("kalah", pits=3, seeds=2).start()
    assert answer["exact"] and answer["value"] == brute(state)
    assert {m["move"]: m["value"] for m in answer["moves"]} == {
        state.move_name(m): move_value(state, m) for m in state.legal_moves()}
    for args in (["solve", "gabata3"], ["solve", "kalah", "--position", "1,2"],
                 ["solve", "kalah", "--time", "-1"], ["db", "build", "kalah", "--seeds", "500"],
                 ["solve", "kalah", "--to-move", "3"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, args


def test_hint_perfect_shows_every_moves_exact_value(small_databases):
    result = CliRunner().invoke(app, ["play", "kalah", "-o", "pits=3", "-o", "seeds=2",
                                      "--a", "Ann", "--b", "Bo"],
                                input="hint perfect\n2\nhint perfect\nquit\n")
    assert result.exit_code == 0, result.output
    state = mancalab.variant("kalah", pits=3, seeds=2).start()
    for position in (state, state.play(state.variant.parse_move(state, "2"))):
        lines = [f"  {position.move_name(m)}: {solving.describe(move_value(position, m))}"
                 for m in position.legal_moves()]
        for line in lines:
            assert line in result.output, (line, result.output)
        value = brute(position)
        words = "it is a draw" if value == 0 else (
            f"you win by {value}" if value > 0 else f"you lose by {-value}")
        assert f"with perfect play {words}" in result.output
    assert "(best)" in result.output
    gebeta = CliRunner().invoke(app, ["play", "gebeta", "--a", "Ann", "--b", "Bo"],
                                input="hint perfect:time=0.2\nquit\n")
    assert "between" in gebeta.output and "(not proven)" in gebeta.output, gebeta.output  # 0.2 s
    assert "Hint from perfect" in gebeta.output  # a move all the same: the player's own
    rows = CliRunner().invoke(app, ["play", "gabata3", "--a", "Ann", "--b", "Bo"],
                              input="hint perfect:time=0.2\nquit\n")
    assert "Hint from perfect" in rows.output  # no exact solver: alpha-beta's move


def test_the_perfect_player_plays_a_best_move_and_says_when_it_falls_back(small_databases):
    from mancalab.players import player

    variant = mancalab.variant("kalah", pits=3, seeds=3, empty_capture=False)
    perfect = player("perfect:time=5,seed=3")
    for state in [variant.start()] + positions(variant, 5, seed=11):
        move = perfect.choose(state)
        assert perfect.last_info["exact"] and perfect.last_info["value"] == brute(state)
        assert move_value(state, move) == brute(state)
    big = mancalab.variant("kalah", seeds=6).start()  # far beyond 0.1 s
    perfect = player("perfect:time=0.2")
    assert perfect.choose(big) in big.legal_moves()
    assert not perfect.last_info["exact"] and perfect.last_info["fallback"].startswith("alphabeta:")
    gebeta = mancalab.variant("gebeta").start()
    assert player("perfect:time=0.2").choose(gebeta) in gebeta.legal_moves()


def test_a_sample_for_learning_is_exact_reproducible_and_resumes(tmp_path):
    from mancalab.analysis.research import samples

    first = samples.write(tmp_path / "a.csv", 12, seed=5, max_seeds=14)
    rows = [line.split(",") for line in first.read_text().splitlines()]
    assert rows[0] == samples.columns() and len(rows) == 13
    for cells in rows[1:]:
        row = dict(zip(rows[0], map(int, cells)))
        own = [row[f"pit{k}"] for k in range(1, 7)]
        other = [row[f"opp{k}"] for k in range(1, 7)]
        assert sum(own) + sum(other) <= 14 and sum(own) + sum(other) + row["store"] + \
            row["opp_store"] == 48
        # the position rebuilt from the row (the mover as A) has the row's value and best pits
        cells_a = own[::-1] + [row["store"]] + other[::-1] + [row["opp_store"]]
        state = mancalab.variant("kalah").state(cells_a, 0)
        solved = solving.solve(state, moves=True)
        assert solved.value == row["value"]
        assert [k for k in range(1, 7) if row[f"opt{k}"]] == sorted(
            state.variant.pit_number(m) for m in solved.best_moves)
    # the same seed gives the same file; a run stopped mid-line goes on where it was
    partial = tmp_path / "b.csv.partial"
    text = first.read_text()
    partial.write_text(text[: text.index("\n", len(text) // 2) + 7])
    again = samples.write(tmp_path / "b.csv", 12, seed=5, max_seeds=14)
    assert again.read_text() == text and not partial.exists()
    result = CliRunner().invoke(app, ["solve", "kalah", "--sample", "0", "--out",
                                      str(tmp_path / "c.csv")])
    assert result.exit_code == 2 and "--sample must be" in result.output
    result = CliRunner().invoke(app, ["solve", "kalah", "--sample", "3"])
    assert result.exit_code == 2 and "--out" in result.output


def test_one_solver_serves_every_seeds_per_pit_of_its_rules():
    small = mancalab.variant("kalah", pits=6, seeds=4)
    solver = solving.Solver(small, None, table_bits=16)
    big = mancalab.variant("kalah", pits=6, seeds=6).start()
    result = solving.solve(big, time=0.5, solver=solver)  # its guess needs a 72-seed game
    assert result.lower <= result.upper


def test_games_bigger_than_kalah_6_4_get_a_bigger_table(tmp_path):
    four = solving.kalah.table_bits_for(solving.kalah.table_memory(48), 48)
    five = solving.kalah.table_bits_for(solving.kalah.table_memory(60), 60)
    assert solving.kalah.table_memory(60) > solving.kalah.table_memory(48)
    assert five > four
    assert solving.kalah.table_bits_for(1 << 40, 60) > five  # capped by the memory, not the game
    from mancalab.web import app as web

    app = web.create_app(tmp_path / "games.db")  # a server keeps every solver table small
    with solving.kalah.budget(app.state.solvers):  # while it runs (its lifespan)
        assert solving.kalah.table_memory(60) <= web.SOLVER_TABLE_MEMORY
        assert solving.kalah.table_memory(48) <= web.SOLVER_TABLE_MEMORY
    assert solving.kalah.table_memory(48) > web.SOLVER_TABLE_MEMORY


@pytest.mark.parametrize("game", mancalab.variants())
def test_the_terminal_hint_names_a_legal_move_in_every_game(game, small_databases):
    start = mancalab.variant(game).start()
    names = {start.move_name(m) for m in start.legal_moves()}
    setting = "n\nn\n" if game == "urubugu" else ""  # Urubugu asks who arranges beads
    result = CliRunner().invoke(app, ["play", game, "--a", "Ann", "--b", "Bo"],
                                input=setting + "hint expert:time=0.3\nquit\n")
    hinted = [line for line in result.output.splitlines() if "Hint from" in line]
    assert hinted, result.output
    # "Hint from SPEC: MOVE" then "." or an estimate "(...)" or an exact value ": with ..."
    named = re.search(r"Hint from \S+: (\w+)", hinted[0])
    assert named and named.group(1) in names, hinted


def test_review_gives_each_moves_exact_value_and_verdict(tmp_path, small_databases):
    from mancalab.records import GameRecord

    variant = mancalab.variant("kalah", pits=3, seeds=2)
    record = GameRecord(variant, variant.start(), ("Ann", "Bo"))
    rng = np.random.default_rng(4)
    while not record.state.is_over:
        record.push(int(rng.choice(record.state.legal_moves())))
    record.save(tmp_path / "game.txt")
    result = CliRunner().invoke(app, ["review", str(tmp_path / "game.txt")],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:-1] for line in result.output.splitlines()
            if line.startswith("│")]
    assert len(rows) == len(record.moves)
    for (ply, _, played, value, _, verdict), state, move in zip(rows, record.states,
                                                                record.moves):
        assert played.strip() == state.move_name(move)
        assert value.strip() == solving.describe(move_value(state, move))
        lost = brute(state) - move_value(state, move)
        assert verdict.strip() == "best" if lost == 0 else f"(-{lost})" in verdict
    bad = CliRunner().invoke(app, ["review", str(tmp_path / "game.txt"), "--time", "nan"])
    assert bad.exit_code == 2


def test_a_game_naming_a_solver_mancalab_lacks_is_refused_by_name():
    import dataclasses

    from mancalab.analysis.solving.dispatch import METHODS, method_of

    odd = mancalab.variant("kalah", pits=2, seeds=1)
    odd.solving = dataclasses.replace(odd.solving, method="telepathy")
    with pytest.raises(solving.SolveError, match="telepathy.*search"):
        solving.solve(odd.start())
    from mancalab.variants import VARIANTS

    methods = {cls.solving.method for cls in VARIANTS.values()}
    assert methods - {None} <= set(METHODS)
    assert method_of(mancalab.variant("gebeta")) is METHODS["retrograde"]
