"""Puzzles: the shipped ones proven again, the rule that makes a puzzle, the command."""

import json
import random
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.teach import puzzles
from mancalab.analysis import solving
from mancalab.cli import app

SAMPLE = 4  # shipped puzzles of each game proven again, drawn at random
# seeds in play at most for the sample: proven in seconds anywhere, with small databases
EASY_TO_PROVE = {"kalah": 24, "gebeta": 24, "gabata": 12}


@pytest.mark.parametrize("game", puzzles.GAMES)
def test_the_shipped_puzzles_are_many_distinct_and_rated(game):
    shipped = puzzles.shipped(game)
    assert len(shipped) >= 300
    assert len({(tuple(p.cells), p.to_move) for p in shipped}) == len(shipped)
    assert len({p.id for p in shipped}) == len(shipped)
    for puzzle in shipped:
        state = puzzle.state()
        assert set(map(int, puzzle.values)) == set(state.legal_moves())
        assert puzzle.best in state.legal_moves() and puzzle.best_name == state.move_name(
            puzzle.best)
        assert 800 <= puzzle.rating <= 1800
    ratings = {p.rating for p in shipped}
    assert len(ratings) >= (2 if game == "urubugu" else 3)  # easier and harder ones


def test_each_urubugu_puzzle_has_one_move_that_takes_every_bead_at_once():
    shipped = puzzles.shipped("urubugu")
    for puzzle in shipped:  # proven by playing every legal move with the game's own rules
        state = puzzle.state()
        assert puzzle.kind == "wipeout" and puzzles.wipeouts(state) == [puzzle.best]
        assert puzzle.values[str(puzzle.best)] == puzzle.value == 64
    assert len({p.best for p in shipped}) >= 12  # the winning hole varies


def test_each_capture_puzzle_is_the_one_move_that_captures_clearly_the_most():
    """A game without a solver has capture puzzles (``Variant.teaching.puzzles``): each proven again
    by playing every legal move with the game's own rules."""
    games = [g for g in puzzles.GAMES if mancalab.variant(g).teaching.puzzles == "capture"]
    assert games
    for game in games:
        margin = puzzles.clear_margin(mancalab.variant(game))
        for puzzle in puzzles.shipped(game):
            state = puzzle.state()
            best, gains = puzzles.captures(state)
            assert puzzle.kind == "capture" and best == puzzle.best == max(gains, key=gains.get)
            assert {int(cell): value for cell, value in puzzle.values.items()} == gains
            assert puzzle.value == gains[best] >= margin
            assert all(gain <= gains[best] - margin for move, gain in gains.items()
                       if move != best)
            assert "capture" in puzzles.themes(puzzle)


def test_each_oware_puzzle_is_the_one_move_the_endgame_tables_prove_wins():
    """Proven again with tables built here: one move wins whatever the moves before it
    (every other proven not to win), by the game's end or the bounds over every history."""
    from mancalab import search
    from mancalab.analysis.solving import oware_tables

    variant = mancalab.variant("oware")
    built = oware_tables.build(variant, variant.teaching.puzzle_seeds)
    tables = search.read_only(built.low, built.high, built.binom)
    shipped = puzzles.shipped("oware")
    for puzzle in shipped:
        state = puzzle.state()
        assert sum(state.cells[:12]) <= variant.teaching.puzzle_seeds
        best, words = puzzles.proven_wins(state, tables)
        assert puzzle.kind == "win" and best == puzzle.best and puzzle.value == 1
        assert {int(cell): word for cell, word in puzzle.values.items()} == words
        assert sum(words.values()) == 1
    assert len({p.best for p in shipped}) >= 4  # the winning house varies


def test_oware_puzzles_are_made_only_with_its_endgame_tables(small_databases):
    with pytest.raises(mancalab.MancalabError, match="db build oware"):
        puzzles.generate("oware", 1)


@pytest.mark.parametrize("game", [g for g in puzzles.GAMES
                                  if mancalab.variant(g).teaching.puzzles == "best"])
def test_a_sample_of_the_shipped_puzzles_is_proven_again(game, small_databases):
    variant = mancalab.variant(game)
    small = [p for p in puzzles.shipped(game)
             if sum(p.cells) - sum(p.state().score) <= EASY_TO_PROVE[game]]
    assert len(small) >= SAMPLE
    for puzzle in random.Random(game).sample(small, SAMPLE):
        state = puzzle.state()
        result = solving.solve(state, moves=True)
        assert result.exact and result.value == puzzle.value
        values = {move: low for move, (low, high) in result.moves.items() if low == high}
        assert values == {int(cell): value for cell, value in puzzle.values.items()}
        best = [move for move, value in values.items() if value == result.value]
        assert best == [puzzle.best]
        margin = puzzles.clear_margin(variant)
        for move, value in values.items():
            assert move == puzzle.best or value <= result.value - margin or (
                (value > 0) - (value < 0) < (result.value > 0) - (result.value < 0))


def result_of(value, moves):
    return SimpleNamespace(exact=True, value=value, moves=moves)


def test_a_puzzle_has_one_best_move_and_the_rest_clearly_worse():
    state = mancalab.variant("kalah").start()
    margin = puzzles.clear_margin(state.variant)
    assert margin == 4  # more than an inaccuracy (3 seeds)
    clear = {0: (6, 6), 1: (2, 2), 2: (-3, -3), 3: (2, 2), 4: (0, 0), 5: (1, 1)}
    assert puzzles.judge(state, result_of(6, clear)) == (0, {m: v for m, (v, _) in
                                                             clear.items()})
    assert puzzles.judge(state, result_of(6, {**clear, 1: (3, 3)})) is None  # 3 is not clear
    assert puzzles.judge(state, result_of(6, {**clear, 1: (6, 6)})) is None  # two best
    assert puzzles.judge(state, result_of(6, {**clear, 1: (-10, 2)})) is None  # not proven
    turned = {0: (1, 1), 1: (-1, -1), 2: (-5, -5)}  # a win by 1 into a loss by 1: clear
    assert puzzles.judge(state, result_of(1, turned))[0] == 0
    assert puzzles.judge(state, SimpleNamespace(exact=False, value=None, moves=clear)) is None


def test_the_command_writes_proven_puzzles_and_goes_on_after_a_stop(tmp_path, small_databases):
    out = tmp_path / "kalah.jsonl"
    first = CliRunner().invoke(app, ["puzzles", "kalah", "--out", str(out), "--count", "2",
                                     "--seed", "5"])
    assert first.exit_code == 0, first.output
    lines = out.read_text().splitlines()
    assert len(lines) == 2
    out.write_text(lines[0] + "\n" + lines[1][:10])  # a stop in the middle of a line
    again = CliRunner().invoke(app, ["puzzles", "kalah", "--out", str(out), "--count", "3",
                                     "--seed", "5"])
    assert again.exit_code == 0, again.output
    made = puzzles.read(out)
    assert len(made) == 3 and made[0].to_json() == lines[0]
    assert made[1].source["game"] > made[0].source["game"]  # went on from the games played
    for puzzle in made:
        state = puzzle.state()
        assert puzzles.judge(state, solving.solve(state, moves=True)) == (
            puzzle.best, {int(c): v for c, v in puzzle.values.items()})
    assert set(puzzles.GAMES) == set(mancalab.variants())  # every game has puzzles
    for bad in (["puzzles", "chess", "--out", str(out)],
                ["puzzles", "kalah", "--out", str(out), "--count", "0"],
                ["puzzles", "kalah", "--out", str(out), "--time", "nan"],
                ["puzzles", "kalah", "--out", str(tmp_path / "missing" / "p.jsonl")]):
        refused = CliRunner().invoke(app, bad)
        assert refused.exit_code == 2, (bad, refused.output)
    assert json.loads(out.read_text().splitlines()[0])["game"] == "kalah"
