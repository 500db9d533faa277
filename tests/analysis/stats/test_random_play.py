"""Random play solved exactly: against the chain over whole states built with the State API
and solved another way, and against sampled random games."""

import json
import random

import numpy as np
import pytest

import mancalab
from mancalab.analysis.stats.random_sampled import random_play_stats
from mancalab.analysis.stats.random_exact import solve_random_play
from mancalab.analysis.solving.graph import mover_view


def random_position(game: str, in_play: int, seed: int, **options) -> mancalab.State:
    """A position of random play with at most ``in_play`` seeds left in the pits."""
    rng = random.Random(seed)
    board = {key: value for key, value in options.items() if key in ("pits", "seeds")}
    while True:
        state = mancalab.variant(game, **board).start()
        while not state.is_over and mover_view(state).sum() > in_play:
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over:
            return mancalab.variant(game, **options).state(list(state.cells), state.to_move)


def chain_chances(root: mancalab.State) -> dict:
    """A wins, B wins, draws, timeouts and expected moves from ``root``: the chain over whole
    states (what is banked included) built move by move with the State API, and solved by
    Jacobi iteration in numpy (independent of the module's graph, order and sweeps)."""
    index, states, frontier = {root: 0}, [root], [root]
    sources, targets, weights = [], [], []
    while frontier:
        state = frontier.pop()
        for move in state.legal_moves():
            child = state.play(move)
            if not child.is_over and child not in index:
                index[child] = len(states)
                states.append(child)
                frontier.append(child)
    ends = np.zeros((len(states), 5))  # A, B, draw, timeout, moves
    for i, state in enumerate(states):
        legal = state.legal_moves()
        ends[i, 4] = 1.0
        for move in legal:
            child = state.play(move)
            if child.is_over:
                outcome = child.outcome
                column = (3 if outcome.kind == "timeout" else 2 if outcome.kind == "draw"
                          else outcome.winner)
                ends[i, column] += 1 / len(legal)
            else:
                sources.append(i)
                targets.append(index[child])
                weights.append(1 / len(legal))
    sources, targets, weights = np.array(sources), np.array(targets), np.array(weights)
    x = ends.copy()
    for _ in range(200_000):
        following = ends + np.stack([np.bincount(sources, weights * x[targets, c],
                                                 minlength=len(states)) for c in range(5)], 1)
        change = np.abs(following - x).max()
        x = following
        if change < 1e-14:
            break
    return dict(zip(["A wins", "B wins", "draws", "timeouts", "moves"], x[0]))


@pytest.mark.parametrize("game,in_play,seed,options", [
    ("gebeta", 4, 1, {}), ("gebeta", 4, 2, {"lap_limit": 2}), ("gabata", 7, 1, {}),
    ("gabata", 6, 7, {"max_laps": 3}), ("kalah", 9, 1, {}),
    ("kalah", 9, 2, {"empty_capture": True}), ("kalah", 12, 3, {"pits": 4, "seeds": 3}),
    ("kalah", 8, 4, {"pits": 1, "seeds": 5}), ("kalah", 10, 5, {"pits": 3, "empty_capture": True})])
def test_the_chances_equal_an_iterative_solve_of_the_whole_state_chain(game, in_play, seed,
                                                                        options):
    root = random_position(game, in_play, seed, **options)
    exact = solve_random_play(root)
    dense = chain_chances(root)
    found = exact.for_players()
    for key, value in dense.items():
        assert found[key] == pytest.approx(value, abs=1e-9), (key, root)
    assert exact.win + exact.loss + exact.draw + exact.timeout == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("in_play,seed,empty_capture,pits", [(10, 3, False, 6), (10, 4, True, 6),
                                                              (12, 5, False, 6), (14, 6, True, 4)])
def test_kalah_pushed_forward_equals_the_equations_solved_backward(in_play, seed,
                                                                   empty_capture, pits):
    root = random_position("kalah", in_play, seed, empty_capture=empty_capture, pits=pits)
    forward = solve_random_play(root, forward=True)
    backward = solve_random_play(root, forward=False)
    assert forward.positions == backward.positions
    for margin in set(forward.margins) | set(backward.margins):
        assert forward.margins.get(margin, 0) == pytest.approx(
            backward.margins.get(margin, 0), abs=1e-12), margin
    assert forward.moves == pytest.approx(backward.moves, rel=1e-12)
    assert sum(forward.margins.values()) == pytest.approx(1, abs=1e-12)


def test_kalah_pushed_forward_with_its_edges_on_disk_gives_the_same_chances():
    import time

    from mancalab.analysis.stats.random_exact import _solve_forward

    root = random_position("kalah", 12, 6)
    in_memory = _solve_forward(root, None, None, time.perf_counter(), spill=False)
    on_disk = _solve_forward(root, None, None, time.perf_counter(), spill=True)
    assert on_disk.margins == in_memory.margins and on_disk.moves == in_memory.moves


def test_only_acyclic_games_are_pushed_forward():
    with pytest.raises(mancalab.MancalabError, match="come round again"):
        solve_random_play(mancalab.variant("gebeta").start(), forward=True)
    # an edge that would lead back in the order is counted (the pass would lose its mass)
    from mancalab.analysis.stats.random_exact import _to_places
    from mancalab.analysis.solving.retrograde import NODE, NONE
    kinds = np.full((2, 6), NONE, dtype=np.int8)
    kinds[0, 0] = kinds[1, 0] = NODE
    targets = np.zeros((2, 6), dtype=np.int32)
    targets[0, 0], targets[1, 0] = 1, 0  # 0 -> 1 and 1 -> 0: a cycle
    assert _to_places(targets, kinds, np.array([0, 1], dtype=np.int32)) == 1


def test_sampled_random_games_fall_within_their_interval():
    root = random_position("gabata", 9, 3)
    exact = solve_random_play(root).for_players()
    games = 20_000
    sampled = random_play_stats(root, games, seed=1)
    for key, count in (("A wins", sampled.wins_0), ("B wins", sampled.wins_1),
                       ("draws", sampled.draws), ("timeouts", sampled.timeouts)):
        p = exact[key]
        spread = 4 * (p * (1 - p) / games) ** 0.5 + 1 / games
        assert abs(count / games - p) <= spread, key


def test_games_without_the_layout_and_finished_games_are_refused():
    for game, options in (("kalah", {"pits": 7}), ("urubugu", {})):
        with pytest.raises(mancalab.MancalabError, match="at most six pits a side"):
            solve_random_play(mancalab.variant(game, **options).start())
    over = mancalab.variant("gebeta").state([0] * 6 + [0, 1, 1, 1, 0, 1] + [3, 8], 1)
    over = over.play(7)
    with pytest.raises(mancalab.MancalabError, match="over"):
        solve_random_play(over)
    with pytest.raises(mancalab.MancalabError, match="memory"):
        solve_random_play(mancalab.variant("gebeta").start(), capacity=1000)


def test_timeouts_are_counted_where_the_lap_limit_is_short():
    root = random_position("gebeta", 4, 2, lap_limit=2)
    assert solve_random_play(root).timeout > 0.01


def test_the_command_prints_the_chances_and_refuses_bad_values():
    from typer.testing import CliRunner

    from mancalab.cli import app

    root = random_position("gabata", 6, 7)
    position = ",".join(map(str, root.cells))
    runner = CliRunner()
    found = runner.invoke(app, ["random-play", "gabata", "--position", position, "--to-move",
                                str(root.to_move), "--json"])
    assert found.exit_code == 0, found.output
    answer = json.loads(found.stdout.strip().splitlines()[-1])
    exact = solve_random_play(root).for_players()
    assert answer["A wins"] == pytest.approx(exact["A wins"], abs=1e-12)
    small = runner.invoke(app, ["random-play", "kalah", "-o", "pits=3", "-o", "seeds=2",
                                "--json"])
    assert small.exit_code == 0, small.output
    answer = json.loads(small.stdout.strip().splitlines()[-1])
    exact = solve_random_play(mancalab.variant("kalah", pits=3, seeds=2).start()).for_players()
    assert answer["A wins"] == pytest.approx(exact["A wins"], abs=1e-12)
    for args in (["random-play", "urubugu"], ["random-play", "gebeta", "--to-move", "3"],
                 ["random-play", "kalah", "-o", "pits=7"],
                 ["random-play", "gebeta", "--position", "1,2,x"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2 and "Traceback" not in result.output, args


@pytest.mark.parametrize("compiled_here", [0.0, 0.3])
def test_the_command_names_a_first_runs_compiling_apart(monkeypatch, compiled_here):
    """The seconds the command prints say how much of them numba spent compiling (a first
    run's), and nothing of it when nothing was compiled."""
    import time

    from numba.core import event
    from typer.testing import CliRunner

    from mancalab.analysis.stats import random_exact
    from mancalab.cli import app

    solve = random_exact.solve_random_play

    def compiling_first(*args, **kwargs):
        if compiled_here:  # what numba tells of a compile, timed by its listeners
            with event.trigger_event("numba:compile", data={"dispatcher": None, "args": (),
                                                            "return_type": None}):
                time.sleep(compiled_here)
        return solve(*args, **kwargs)

    args = ["random-play", "kalah", "-o", "pits=2", "-o", "seeds=2"]
    assert CliRunner().invoke(app, args).exit_code == 0  # compiled here first, if not before
    monkeypatch.setattr(random_exact, "solve_random_play", compiling_first)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    said = " ".join(result.output.split())
    assert ("s of it compiling: a first run" in said) == bool(compiled_here), said
    if compiled_here:
        assert f"({compiled_here:.1f} s of it compiling" in said


@pytest.mark.parametrize("options, games", [({}, 300), ({"houses": 3, "seeds": 2}, 2000)])
def test_compiled_play_ends_oware_at_a_recurrence_as_its_record_does(options, games):
    """Issue 87: compiled random play did not know Oware's end at the first recurrence of a
    position (0.83% of random games cycled to the move limit). Random games played by the
    record are replayed by the compiled loop's rules (``kernels.play_moves``, whose end
    check ``random_moves`` shares): the same moves taken, the same final board."""
    from mancalab import kernels
    from mancalab.records import GameRecord

    variant = mancalab.variant("oware", **options)
    rng = random.Random(87)
    repeated = 0
    for _ in range(games):
        record = GameRecord.new(variant)
        while not record.state.is_over and not record.at_cap:
            record.push(rng.choice(record.state.legal_moves()))
        board = variant.start().board.copy()
        played = kernels.play_moves(variant.params, board, np.array(record.moves, np.int64),
                                    kernels.repetitions_of(variant))
        assert played == len(record.moves) and list(board) == list(record.state.board)
        repeated += record.termination == "repetition"
    assert repeated > games // 100  # the rule ended games


def test_random_oware_games_all_end():
    """Issue 87: the sampled statistics count every random Oware game to its end (none cut
    at the move limit by a cycle)."""
    stats = random_play_stats(mancalab.variant("oware").start(), 3000, seed=1)
    assert stats.unfinished == 0 and stats.wins_0 + stats.wins_1 + stats.draws == 3000
