"""Engine matches: clocks with increments, exact adjudication (checked against the solver),
the SPRT's ratio and its stop, the record file, and bad command-line values."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis import solving
from mancalab.analysis.compete import arena, match
from mancalab.cli import app
from mancalab.core import MancalabError
from mancalab.players import Player
from mancalab.records import GameRecord


def test_time_controls_read_and_bad_ones_are_named():
    assert match.TimeControl.parse("10+0.1") == match.TimeControl(10.0, 0.1)
    assert str(match.TimeControl.parse(" 60 ")) == "60+0"
    for bad in ("", "ten", "10+", "-5+1", "0+1", "1e9", "10+1000", "inf"):
        with pytest.raises(MancalabError, match="clock"):
            match.TimeControl.parse(bad)


def test_the_likeliest_distribution_has_the_mean_asked_and_the_ratio_its_sign():
    observed = [0.1, 0.2, 0.4, 0.2, 0.1]
    for mean in (0.3, 0.5, 0.62):
        q = match._likeliest(observed, mean)
        assert abs(sum(q) - 1) < 1e-9 and abs(sum(p * k / 4 for k, p in enumerate(q)) - mean) \
            < 1e-9
    assert match._likeliest(observed, 0.5) == pytest.approx(observed)
    test = match.SPRT(0, 50)
    assert test.llr([1, 0.75] * 20) > test.bounds[1]  # far better than H1: accepted
    assert test.llr([0.5] * 40) < test.bounds[0]  # even games: H0
    assert 0 < test.llr([1]) < test.bounds[1]  # one pair decides nothing
    with pytest.raises(MancalabError, match="ELO0 < ELO1"):
        match.SPRT(10, 0)
    with pytest.raises(MancalabError, match="alpha"):
        match.SPRT.parse("0,10", alpha=0.7)


class SlowPlayer(Player):
    """Takes 0.15 s a move: out of time within a 0.3 s clock unless an increment comes."""

    name = "slow"

    def choose(self, state):
        time.sleep(0.15)
        return state.legal_moves()[0]


def test_the_increment_is_added_after_each_move_and_players_are_told_it():
    variant = mancalab.variant("kalah")
    told = []

    class Listening(SlowPlayer):
        def choose(self, state):
            told.append(self.clock)
            return super().choose(state)

    played = arena._play_out(GameRecord.new(variant), [Listening(), SlowPlayer()], 8,
                             clock=0.3, increment=0.2)
    assert played.how == "" and len(told) >= 3  # alive after more than 0.3 s of thinking
    assert told[1][0] > 0.3  # the first move's increment is on A's clock
    flagged = arena._play_out(GameRecord.new(variant), [SlowPlayer(), SlowPlayer()], 8,
                              clock=0.3)
    assert flagged.how == "time" and "ran out of its 0.3 s" in flagged.error


def test_adjudicated_games_end_with_the_solvers_exact_result_and_read_back(tmp_path,
                                                                          monkeypatch):
    # the checks' time allowance is wall time, which a loaded machine eats: not this test's
    # point (the games run in this process, jobs=1)
    monkeypatch.setattr(arena, "JUDGING_ALLOWANCE", 5.0)
    out = tmp_path / "match.txt"
    result = CliRunner().invoke(app, ["match", "greedy", "random", "--game", "kalah",
                                      "--games", "4", "--clock", "20+0.1", "--out", str(out),
                                      "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout[result.stdout.index("{"):])
    assert summary["games"] == 4 and summary["adjudicated"] >= 3
    records = GameRecord.all_from_text(out.read_text())
    assert len(records) == 4
    for record, text in zip(records, out.read_text().split("\n\n[Variant")):
        if record.termination != "adjudication":
            continue
        before = _before_end(record)
        exact = solving.solve(before, time=30)
        assert exact.exact
        margin = exact.value if before.to_move == 0 else -exact.value
        assert record.result == ("A" if margin > 0 else "B" if margin < 0 else "D")
        assert f"exact margin {margin:+d} for the first player" in text


def _before_end(record: GameRecord):
    """The position an adjudicated game stopped at, as it was before the referee ended it."""
    state = record.states[len(record.moves)]
    board = state.board
    board[-1] = 0
    return mancalab.State._after(record.variant, board)


def test_the_sprt_stops_a_match_once_decided():
    specs = match.schedule("greedy", "random", "kalah", {}, 60, match.TimeControl(20, 0.1),
                           seed=3)
    decided = match.run(specs, match.SPRT(0, 300))
    assert decided.verdict == "H1" and len(decided.results) < 60
    assert decided.llr >= match.SPRT(0, 300).bounds[1]


@pytest.mark.parametrize("args, says", [
    (["--clock", "soon"], "BASE+INCREMENT"),
    (["--clock", "0"], "above 0"),
    (["--sprt", "10,0"], "ELO0 < ELO1"),
    (["--sprt", "ten"], "ELO0,ELO1"),
    (["--alpha", "0.9", "--sprt", "0,10"], "alpha"),
    (["--openings", "lucky"], "random, fair or balanced"),
    (["--games", "0"], "at least 1"),
])
def test_bad_values_exit_2_with_the_value_named(args, says):
    result = CliRunner().invoke(app, ["match", "greedy", "random", *args])
    assert result.exit_code == 2 and says in result.output, result.output
