"""Urubugu counter-settings: the lazy search against every setting of small bead counts,
the proofs of none, the study and the command."""

from __future__ import annotations

import itertools
import json
import random

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.research import counter
from mancalab.cli import app
from mancalab.variants.urubugu import HOLE_CELL, Urubugu

DEFAULT = "2," * 15 + "2"


def _compositions(total: int, parts: int):
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        previous, out = -1, []
        for bar in bars + (total + parts - 1,):
            out.append(bar - previous - 1)
            previous = bar
        yield out


def _brute_force(game: Urubugu, s: list[int], beads: int) -> int:
    """Winning (setting, first move) pairs, every setting played with the game's own move."""
    return _brute_force_both(game, s, beads)[0]


def _brute_force_both(game: Urubugu, s: list[int], beads: int) -> tuple[int, int]:
    """Winning (setting, first move) pairs, and settings with at least one winning move."""
    pairs = settings = 0
    for t in _compositions(beads, 16):
        cells = [0] * 32
        for player, setting in ((0, t), (1, s)):
            for hole, count in enumerate(setting, start=1):
                cells[int(HOLE_CELL[player, hole])] = count
        state = game.state(cells, to_move=0)
        wins = sum(sum(state.play(move).cells[:16]) == 0 for move in state.legal_moves())
        pairs += wins
        settings += wins > 0
    return pairs, settings


def test_the_search_counts_what_playing_every_setting_finds():
    """Exhaustive counts and proofs of none equal a brute force over every setting (small
    bead counts, which the rules allow), under both rule sets."""
    rng = random.Random(3)
    cases = [([1] + [0] * 14 + [1], 3), ([0] * 15 + [1], 2)]  # one full column; one hole
    for _ in range(6):
        s = [0] * 16
        for _ in range(rng.randint(1, 4)):  # an opponent with a few beads
            s[rng.randrange(16)] += 1
        cases.append((s, rng.randint(2, 3)))
    statuses = set()
    for options in ({}, counter.IGISORO):
        game = Urubugu(**options)
        for s, beads in cases:
            expected = _brute_force(game, s, beads)
            answer = counter.search_setting(game, s, beads, time_limit=60, want_all=True)
            assert answer.count == answer.count_low == answer.count_high == expected
            cut = counter.search_setting(game, s, beads, time_limit=1e-4, want_all=True,
                                         chunk=1)  # stopped early: bounds around the count
            assert cut.count_low <= expected <= cut.count_high, (options, s, beads)
            assert answer.status == ("found" if expected else "none")
            statuses.add(answer.status)
            if expected:  # the setting shown is one that wins
                assert sum(answer.setting) == beads
    assert statuses == {"found", "none"}  # both answers were checked


def test_the_estimate_brackets_what_playing_every_setting_finds():
    """The sampled counts' 95% intervals hold the exact counts of a brute force (the seed is
    fixed: a sampler drawing settings unevenly, or a count scaled wrongly, misses them)."""
    cases = [([1] + [0] * 14 + [1], 3), ([0] * 15 + [1], 2), ([1, 0, 2] + [0] * 6 + [1] +
                                                              [0] * 6, 4)]
    for options in ({}, counter.IGISORO):
        game = Urubugu(**options)
        for s, beads in cases:
            pairs, settings = _brute_force_both(game, s, beads)
            found = counter.estimate_setting(game, s, beads, samples=20_000, jobs=2)
            assert found.pairs_low <= pairs <= found.pairs_high, (options, s, found)
            assert found.settings_low <= settings <= found.settings_high, (options, s, found)
            assert found.settings_total == sum(1 for _ in _compositions(beads, 16))
            if pairs == 0:  # nothing wins: not one draw can
                assert found.pairs == found.settings == 0
            alone = counter.estimate_setting(game, s, beads, samples=20_000, jobs=2,
                                             by_move=False)  # the same draws of settings
            assert alone.winning_drawn == found.winning_drawn
            assert alone.wins_by_move == dict.fromkeys(range(1, 17), 0)
    with pytest.raises(ValueError, match="samples"):
        counter.estimate([2] * 16, 0)


def test_the_default_setting_has_a_counter_setting():
    answer = counter.counter([2] * 16, time_limit=30)
    assert answer.status == "found" and sum(answer.setting) == 32
    start = mancalab.variant("urubugu").start(setting_a=answer.setting, setting_b=[2] * 16)
    after = start.play(int(HOLE_CELL[0, answer.move]))
    assert after.score == (64, 0)


def test_the_seconds_are_the_searchs_not_the_check_of_what_it_found(monkeypatch):
    """A setting found is played again with the game's own move (``_verify``): that check,
    a first run's loading of the rules with it, is not counted in the search's seconds."""
    import time

    check = counter._verify
    monkeypatch.setattr(counter, "_verify", lambda *args: time.sleep(0.3) or check(*args))
    answer = counter.counter([int(c) for c in DEFAULT.split(",")], time_limit=5)
    assert answer.status == "found" and answer.seconds < 0.3


def test_a_column_no_capture_can_take_proves_none_under_igisoro():
    s = [4] * 8 + [0] * 8  # every bead in the back row: each column has an empty front hole
    answer = counter.counter(s, time_limit=5, **counter.IGISORO)
    assert answer.status == "none" and "no capture can take it" in answer.reason
    assert counter.counter(s, time_limit=5).status == "found"  # the original rules differ


def test_settings_are_uniform_and_reproducible():
    drawn = counter.settings(2000, seed=5)
    assert drawn[0] == [2] * 16 and drawn == counter.settings(2000, seed=5)
    assert all(len(s) == 16 and sum(s) == 32 and min(s) >= 0 for s in drawn)
    mean_first = sum(s[0] for s in drawn[1:]) / 1999
    assert 1.8 < mean_first < 2.2  # each hole holds 2 on average
    low, high = counter.wilson(68, 10_000)
    assert low < 0.0068 < high and high - low < 0.004


def test_a_study_goes_on_where_it_stopped(tmp_path):
    out = tmp_path / "study.jsonl"
    first = counter.study(4, 9, out, 5.0)
    again = counter.study(7, 9, out, 5.0)
    assert [r["index"] for r in again] == list(range(7))
    assert again[:4] == first  # the first four were not searched again
    with pytest.raises(mancalab.MancalabError, match="another study"):
        counter.study(7, 10, out, 5.0)
    summary = counter.summary(again)
    assert summary["found"]["count"] + summary["none"]["count"] + \
        summary["unknown"]["count"] == 7


def test_the_command(tmp_path):
    runner = CliRunner()
    shown = runner.invoke(app, ["counter", "urubugu", "--setting", DEFAULT])
    assert shown.exit_code == 0 and "Found" in shown.output and "captures their" in shown.output
    data = json.loads(runner.invoke(app, ["counter", "urubugu", "--setting", DEFAULT,
                                          "--json"]).output)
    assert data["status"] == "found" and len(data["setting"]) == 16 and 1 <= data["move"] <= 16
    none = json.loads(runner.invoke(app, ["counter", "urubugu", "--igisoro", "--json",
                                          "--setting", "4," * 7 + "4" + ",0" * 8]).output)
    assert none["status"] == "none" and none["setting"] is None
    guess = json.loads(runner.invoke(app, ["counter", "urubugu", "--setting", DEFAULT,
                                           "--estimate", "2000", "--json"]).output)
    assert guess["pairs_low"] <= guess["pairs"] <= guess["pairs_high"]
    assert 0 < guess["settings"] < guess["settings_total"] == 751_616_304_549  # C(47, 15)
    shown = runner.invoke(app, ["counter", "urubugu", "--setting", DEFAULT, "--estimate", "500"])
    assert shown.exit_code == 0 and "not a proof" in shown.output
    study = runner.invoke(app, ["counter", "urubugu", "--sample", "3", "--out",
                                str(tmp_path / "s.jsonl"), "--json"])
    assert study.exit_code == 0 and json.loads(study.stdout)["settings"] == 3


@pytest.mark.parametrize("args, words", [
    (["kalah", "--setting", DEFAULT], "Urubugu"),
    (["urubugu"], "--setting"),
    (["urubugu", "--setting", "2,2"], "16"),
    (["urubugu", "--setting", "3," * 15 + "3"], "exactly 32"),
    (["urubugu", "--setting", "two" + ",2" * 15], "hole 1 has 'two'"),
    (["urubugu", "--setting", "2," * 15 + "-2"], "hole 16 has '-2'"),
    (["urubugu", "--setting", DEFAULT, "--time", "0"], "--time"),
    (["urubugu", "--setting", DEFAULT, "--time", "nan"], "--time"),
    (["urubugu", "--setting", DEFAULT, "-o", "colour=red"], "unknown option"),
    (["urubugu", "--sample", "5"], "--out"),
    (["urubugu", "--sample", "0", "--out", "x.jsonl"], "--sample"),
    (["urubugu", "--setting", DEFAULT, "--estimate", "0"], "--estimate"),
    (["urubugu", "--setting", DEFAULT, "--estimate", "10", "--all"], "--estimate"),
    (["urubugu", "--sample", "5", "--out", "x.jsonl", "--estimate", "10"], "--estimate"),
])
def test_bad_input_is_refused(args, words):
    result = CliRunner().invoke(app, ["counter", *args])
    assert result.exit_code == 2 and words in result.output, result.output
