"""Game metrics (mancalab metrics): what is counted in a game, the summary's intervals,
resuming, and the command."""

from __future__ import annotations

import json

import pytest

from typer.testing import CliRunner

from mancalab.analysis.research import metrics
from mancalab.cli import app


@pytest.mark.slow
def test_a_measured_game_counts_what_happened():
    row = metrics.play_measured("kalah", {}, "random", seed=3)
    again = metrics.play_measured("kalah", {}, "random", seed=3)
    assert row == again  # seeded: the same game
    assert row["ended"] in ("win", "draw") and 20 <= row["plies"] <= 200
    assert abs(row["margin"]) <= 48 and row["relays"] == 0  # Kalah never relays
    assert 1 <= row["branching"] <= 6 and 0 < row["agency"] <= 1
    assert row["winner"] == (0 if row["margin"] > 0 else 1 if row["margin"] < 0 else None)
    gabata = metrics.play_measured("gabata", {}, "random", seed=3)
    assert gabata["relays"] > 0 and gabata["captures"] == 0  # relays, and no captures
    cut = metrics.play_measured("gabata3", {}, "greedy", seed=1, max_plies=30)
    assert cut["plies"] == 30 and cut["ended"] == "move cap" and cut["rounds"] >= 1


def test_openings_make_deterministic_self_play_differ():
    games = {metrics.play_measured("kalah", {}, "greedy", seed)["plies"] for seed in range(6)}
    assert len(games) > 1
    fixed = {metrics.play_measured("kalah", {}, "greedy", seed, opening=0)["plies"]
             for seed in range(3)}
    assert len(fixed) == 1


def test_summary_and_resume(tmp_path):
    path = tmp_path / "m.jsonl"
    first = metrics.measure("gebeta", {}, "random", 4, 1, path)
    more = metrics.measure("gebeta", {}, "random", 6, 1, path, jobs=2)
    assert more[:4] == first and [r["index"] for r in more] == list(range(6))
    result = metrics.summary(more)
    assert result["games"]["mean"] == 6
    balance = result["balance"]
    assert balance["low"] <= balance["mean"] <= balance["high"]
    assert 0 <= result["draws"]["low"] <= result["draws"]["high"] <= 1


def test_the_command(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["metrics", "gabata", "--games", "3", "--player", "greedy",
                                 "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data["metrics"]) == {"greedy", "random"}
    assert set(metrics.METRICS) <= set(data["metrics"]["greedy"])
    for args, words in ((["chess"], "unknown game"), (["kalah", "--games", "0"], "--games"),
                        (["kalah", "--player", "nobody"], "unknown player"),
                        (["kalah", "--opening", "-1"], "--opening"),
                        (["kalah", "-o", "pits=99"], "pits")):
        bad = runner.invoke(app, ["metrics", *args, "--out", str(tmp_path)])
        assert bad.exit_code == 2 and words in bad.output, bad.output


def test_setting_families_hold_32_beads_where_they_say():
    import random

    from mancalab.analysis.research import settings

    rng = random.Random(2)
    for name in settings.FAMILIES:
        for _ in range(50):
            s = settings.draw(name, rng)
            assert len(s) == 16 and sum(s) == 32 and min(s) >= 0, (name, s)
            if name == "back_row":
                assert sum(s[8:]) == 0
            if name == "front_row":
                assert sum(s[:8]) == 0
            if name == "spread":
                assert 1 <= min(s) and max(s) <= 3
            if name == "heaped":
                assert sum(c > 0 for c in s) <= 2
    row = metrics.play_measured("urubugu", {}, "greedy", seed=4, opening=0, family="back_row")
    start = row["start"]
    assert sum(start[24:32]) == 32 and sum(start[16:24]) == 0  # A's back row holds all 32
