"""The arena: fair schedules, results from A's side, crashes and illegal moves, Elo."""

import json
import math

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.compete import arena
from mancalab.core import MancalabError
from mancalab.cli import app
from mancalab.players import PLAYERS, Player, parse_spec
from mancalab.records import GameRecord


class CrashingPlayer(Player):
    name = "crasher"

    def choose(self, state):
        raise RuntimeError("out of ideas")


class IllegalPlayer(Player):
    name = "cheater"

    def choose(self, state):
        return 99


@pytest.fixture(autouse=True)
def broken_players():
    PLAYERS.update(crasher=CrashingPlayer, cheater=IllegalPlayer)
    yield
    del PLAYERS["crasher"], PLAYERS["cheater"]


def test_each_start_is_played_with_both_colours():
    specs = arena.schedule("greedy", "random", "gebeta", {}, 6, seed=3)
    assert [s.a_is_first_player for s in specs] == [True, False] * 3
    assert specs[0].opening == specs[1].opening and specs[0].opening != specs[2].opening
    assert [parse_spec(s.first)[0] for s in specs[:2]] == ["greedy", "random"]
    assert all(len(s.opening) == arena.OPENING_PLIES for s in specs)


def test_the_same_seed_plays_the_same_games():
    def records(seed, a="random"):
        return [r.record for r in arena.run(arena.schedule(a, "random", "gabata", {}, 4, seed))]

    assert records(5) == records(5) and records(5) != records(6)
    seeds = {parse_spec(s.first)[1]["seed"] for s in arena.schedule("random", "mcts", "gabata",
                                                                        {}, 4, seed=5)}
    assert len(seeds) == 4  # each game its own
    specs = arena.schedule("random:seed=9", "crasher", "gabata", {}, 2, seed=5)
    assert specs[0].first == "random:seed=9" and specs[0].second == "crasher"  # no seed option


def test_kalah_starts_from_fairkalah_boards():
    specs = arena.schedule("greedy", "random", "kalah", {}, 4, seed=1)
    boards = [s.options["board"] for s in specs]
    assert boards[0] == boards[1] and boards[2] == boards[3] and boards[0] != boards[2]
    assert all(1 <= b <= 254 and s.opening == () for b, s in zip(boards, specs))


def test_the_starts_come_from_the_game_and_keep_their_order():
    """Random and balanced starts are each game's own (``Variant.random_starts``,
    ``fair_starts``), drawn in the order a seed has always given, so that a run replays."""
    import random

    from mancalab.variants import VARIANTS

    order = list(range(1, 255))
    random.Random(7).shuffle(order)
    drawn = [options["board"] for options, _ in arena.openings("kalah", {}, 5, seed=7)]
    assert drawn == order[:5]
    assert mancalab.variant("kalah", board=3).fair_starts() == []
    assert len(mancalab.variant("kalah", seeds=3).fair_starts()) == 796
    assert mancalab.variant("kalah", seeds=3).random_starts() == []
    assert all(mancalab.variant(name).fair_starts() == mancalab.variant(name).random_starts()
               == [] for name in VARIANTS if name != "kalah")


@pytest.mark.slow
def test_results_are_scored_from_a_side_and_records_replay():
    results = arena.run(arena.schedule("classic:level=3", "random", "gabata", {}, 4, seed=2))
    for r in results:
        record = GameRecord.from_text(r.record)
        outcome = record.state.outcome
        first_won = outcome.winner == 0 if outcome.kind == "win" else None
        a_won = first_won if r.a_is_first_player else (None if first_won is None
                                                       else not first_won)
        assert r.score_for_a == (0.5 if a_won is None else float(a_won))
        margin = outcome.score[0] - outcome.score[1]
        assert r.margin_for_a == (margin if r.a_is_first_player else -margin)


@pytest.mark.parametrize("bad, how", [("crasher", "error"), ("cheater", "illegal")])
def test_a_broken_player_loses_and_the_arena_goes_on(bad, how):
    results = arena.run(arena.schedule(bad, "random", "gebeta", {}, 4, seed=1))
    assert len(results) == 4 and all(r.how == how and r.score_for_a == 0 for r in results)
    summary = arena.summarize(results)
    assert summary.losses == 4 and len(summary.errors) == 4 and bad in summary.errors[0]


def test_unending_games_are_adjudicated_by_the_margin_of_seeds_held():
    specs = arena.schedule("random", "random", "gabata3", {}, 6, seed=1)
    results = arena.run([s.__class__(**{**s.__dict__, "max_plies": 30}) for s in specs])
    assert all(r.how == "adjudicated" and r.plies == 30 for r in results)
    for r in results:
        assert r.score_for_a == (1.0 if r.margin_for_a > 0 else 0.0 if r.margin_for_a < 0
                                 else 0.5)
        held = GameRecord.from_text(r.record).state.material  # the seeds held, not the stores
        margin = held[0] - held[1]
        assert r.margin_for_a == (margin if r.a_is_first_player else -margin)


def test_elo_and_its_interval():
    assert arena.elo(0.5) == 0 and math.isinf(arena.elo(1.0)) and math.isinf(arena.elo(0.0))
    assert arena.elo(0.75) == pytest.approx(190.85, abs=0.01)
    make = lambda s: arena.GameResult(0, True, s, 0, 1, "win")  # noqa: E731
    summary = arena.summarize([make(1.0)] * 6 + [make(0.5)] * 2 + [make(0.0)] * 2)
    assert (summary.wins, summary.draws, summary.losses) == (6, 2, 2)
    assert summary.score == 0.7 and summary.elo == pytest.approx(arena.elo(0.7))
    half = 1.96 * math.sqrt((6 * 0.3**2 + 2 * 0.2**2 + 2 * 0.7**2) / 10 / 10)
    assert summary.elo_low == pytest.approx(arena.elo(0.7 - half))
    assert summary.elo_high == pytest.approx(arena.elo(0.7 + half))


def test_arena_command_json_and_records(tmp_path):
    out = tmp_path / "games.txt"
    result = CliRunner().invoke(app, ["arena", "greedy", "random", "--game", "gebeta",
                                      "--games", "4", "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout[result.stdout.index("{"):])
    assert data["games"] == 4 and data["wins"] + data["draws"] + data["losses"] == 4
    texts = out.read_text().split("\n[Variant")
    assert len(texts) == 4


@pytest.mark.parametrize("args, message", [
    (["arena", "greedy", "nobody"], "unknown player"),
    (["arena", "greedy", "random", "--game", "chess"], "unknown game"),
    (["arena", "greedy", "random", "--games", "0"], "--games"),
    (["arena", "mcts:speed=3", "random"], "speed"),
])
def test_arena_bad_input(args, message):
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and message in result.output


def test_balanced_openings_are_shipped_and_played():
    from mancalab.analysis.compete import openings

    for game in ("urubugu", "gabata3"):
        shipped = openings.shipped(game)
        assert len(shipped) >= 50
        specs = arena.schedule("random", "greedy", game, {}, 6, seed=2, opening_kind="balanced")
        assert {spec.opening for spec in specs} <= set(shipped)
        assert specs[0].opening == specs[1].opening  # each opening from both seats
    with pytest.raises(MancalabError, match="standard rules"):
        arena.schedule("random", "greedy", "urubugu", {"wipeout_ends_move": False}, 2, 1, "balanced")
    fair = arena.schedule("random", "greedy", "kalah", {"seeds": 3}, 4, 1, "balanced")
    assert all(1 <= spec.options["board"] <= 796 and spec.options["seeds"] == 3 for spec in fair)
    assert fair[0].options == fair[1].options  # each board from both seats
    with pytest.raises(MancalabError, match="no fair starts are shipped for kalah"):
        arena.schedule("random", "greedy", "kalah", {"seeds": 2}, 2, 1, "balanced")
    with pytest.raises(MancalabError, match="no balanced openings"):
        arena.schedule("random", "greedy", "gebeta", {}, 2, 1, "balanced")
    with pytest.raises(MancalabError, match="random or balanced"):
        arena.schedule("random", "greedy", "kalah", {}, 2, 1, "lopsided")


@pytest.mark.slow
def test_a_balanced_opening_is_valued_near_zero_by_its_search():
    from mancalab.analysis.compete import openings

    found = openings.make("gabata3", 3, depth=4, margin=6, seed=5)
    assert len({moves for moves, _ in found}) == 3
    for moves, value in found:
        state = mancalab.variant("gabata3").start()
        for move in moves:
            state = state.play(move)
        assert abs(value) <= 6 and openings.value_of(state, 4) == value
