"""The round robin (mancalab tournament): pairings, clocks, ratings, resuming, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from mancalab.analysis.compete import tournament
from mancalab.cli import app

EXAMPLES = Path(__file__).parents[3] / "docs" / "examples"
SLOW_PLAYER = '''\
import time
from mancalab.players import Player


class Slow(Player):
    name = "slow"

    def choose(self, state):
        time.sleep(0.2)
        return state.legal_moves()[0]
'''


def test_every_ordered_pair_meets_on_every_board():
    games = tournament.pairings(["a", "b", "c"], "kalah", {}, 4, seed=1)
    assert len(games) == 4 * 3 * 2
    pairs = [(g.first, g.second) for g in games]
    assert all(pairs.count((i, j)) == 4 for i in range(3) for j in range(3) if i != j)
    boards = {g.options["board"] for g in games}
    assert len(boards) == 4  # FairKalah boards, each played by every ordered pair


def test_ratings_follow_the_results():
    even = [{"first": 0, "second": 1, "score_first": s} for s in (1, 0, 0.5, 0.5)]
    assert tournament.ratings(2, even) == pytest.approx([0, 0], abs=1e-6)
    sweep = [{"first": 0, "second": 1, "score_first": 1.0}] * 10 + \
        [{"first": 1, "second": 2, "score_first": 1.0}] * 10
    elo = tournament.ratings(3, sweep)
    assert elo[0] > elo[1] > elo[2] and all(abs(e) < 1000 for e in elo)
    assert sum(elo) == pytest.approx(0, abs=1e-6)


def test_clocked_specs():
    assert tournament.clocked("alphabeta", 150, "kalah") == "alphabeta:clock=135.0"
    assert tournament.clocked("mcts:seed=3", 100, "gebeta") == "mcts:seed=3,time=2.5"
    assert tournament.clocked("alphabeta:time=1", 150, "kalah") == "alphabeta:time=1"
    assert tournament.clocked("greedy", 150, "kalah") == "greedy"
    assert tournament.clocked("engine:cmd=x", 150, "kalah") == "engine:cmd=x"


def test_a_player_out_of_time_loses_and_the_round_robin_goes_on(tmp_path, monkeypatch):
    (tmp_path / "slow.py").write_text(SLOW_PLAYER)
    monkeypatch.chdir(tmp_path)
    event = tournament.Tournament(["slow.py:Slow", "random"], "kalah", {"pits": 4, "seeds": 2},
                                  boards=1, clock=0.3, seed=1, folder=tmp_path / "out")
    games = event.run()
    assert len(games) == 2
    slow = [g for g in games if g["how"] == "time"]
    assert slow and all("ran out" in g["error"] for g in slow)
    table = {s.player: s for s in event.write_results(games)}
    assert table["slow.py:Slow"].forfeits == len(slow)
    assert table["random"].points >= len(slow)


def test_a_stopped_tournament_goes_on_without_playing_a_game_twice(tmp_path):
    folder = tmp_path / "event"
    event = tournament.Tournament(["greedy", "random"], "gabata", {}, boards=2, clock=10,
                                  seed=4, folder=folder)
    full = event.run()
    lines = event.games_path.read_text().splitlines()
    # a stop after two games, in the middle of writing the third
    event.games_path.write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])
    played = []
    again = tournament.Tournament(["greedy", "random"], "gabata", {}, boards=2, clock=10,
                                  seed=4, folder=folder).run(on_game=played.append)
    assert len(played) == 2 and [g["number"] for g in again] == [1, 2, 3, 4]
    assert [g["record"] for g in again[:2]] == [g["record"] for g in full[:2]]
    with pytest.raises(Exception, match="another tournament"):
        tournament.Tournament(["greedy", "mcts"], "gabata", {}, boards=2, clock=10, seed=4,
                              folder=folder).done()


def test_three_players_one_an_engine_from_one_command(tmp_path):
    """As a new user runs it: a real process, an engine program among the players."""
    engine = f"engine:cmd={sys.executable} {EXAMPLES / 'random_engine.py'}"
    out = tmp_path / "event"
    done = subprocess.run(
        [sys.executable, "-m", "mancalab", "tournament", "greedy", "random", engine,
         "--game", "kalah", "--clock", "20", "--boards", "1", "--out", str(out)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Elo" in done.stdout and "greedy" in done.stdout
    results = json.loads((out / "results.json").read_text())
    assert len(results["games"]) == 6 and {g["error"] for g in results["games"]} == {""}
    assert [s["games"] for s in results["standings"]] == [4, 4, 4]
    assert (out / "standings.csv").read_text().startswith("player,games,wins")
    assert (out / "records.txt").read_text().count("[Result") == 6


@pytest.mark.parametrize("args, words", [
    (["greedy"], "at least two"),
    (["greedy", "greedy"], "once"),
    (["greedy", "random", "--clock", "0"], "--clock"),
    (["greedy", "random", "--clock", "nan"], "--clock"),
    (["greedy", "random", "--boards", "0"], "--boards"),
    (["greedy", "nobody"], "unknown player"),
    (["greedy", "random", "-o", "pits=0"], "pits"),
])
def test_bad_tournaments_are_refused(args, words, tmp_path):
    result = CliRunner().invoke(app, ["tournament", *args, "--out", str(tmp_path / "t")])
    assert result.exit_code == 2 and words in result.output, result.output
    assert not (tmp_path / "t").exists()
