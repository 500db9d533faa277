"""Fair starts: the boards screened, the verdicts against brute force, resuming, the command."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.analysis.research import fair
from mancalab.analysis import solving
from mancalab.cli import app
from mancalab.core import MancalabError
from mancalab.variants.kalah import fair_boards, screened_boards

from ..solving.test_solve import brute, positions


def test_candidates_of_kalah_6_4_hold_every_fairkalah_board():
    variant = mancalab.variant("kalah")
    one, two = fair.candidates(variant, 1), fair.candidates(variant, 2)
    assert (len(one), len(two)) == (156, 6396)
    assert set(one) <= set(two)
    assert tuple(variant.start_cells()) not in two
    assert set(fair_boards().values()) <= set(two)
    assert sum(board in set(one) for board in fair_boards().values()) == 3
    start = variant.start_cells()
    for board in two[::97]:
        assert sum(board) == 48
        assert 1 <= sum(max(0, s - b) for s, b in zip(start, board)) <= 2


@pytest.mark.parametrize("bad", [0, 3])
def test_seeds_moved_must_be_one_or_two(bad):
    with pytest.raises(MancalabError, match="--moved"):
        fair.candidates(mancalab.variant("kalah"), bad)


def test_decide_settles_whether_the_value_is_the_target(small_databases):
    variant = mancalab.variant("kalah", pits=3, seeds=2)
    for state in positions(variant, 12, seed=3):
        value = brute(state)
        for target in (value - 2, value - 1, value, value + 1, value + 2):
            result = solving.decide(state, target)
            assert result.lower <= value <= result.upper
            assert (result.lower == result.upper == target) == (value == target)
            assert result.lower > target or result.upper < target or value == target


def test_screen_finds_the_boards_brute_force_calls_fair(small_databases, tmp_path):
    variant = mancalab.variant("kalah", pits=3, seeds=2, empty_capture=False)
    found = fair.screen(variant, 2, tmp_path / "screen.jsonl")
    boards = fair.candidates(variant, 2)
    expected = [b for b in boards if brute(variant.state(list(b), 0)) == 0]
    assert found.fair == expected and expected
    assert found.solved_now == found.boards == len(boards) and not found.undecided
    assert found.nodes > 0  # the tests searched: the database holds only 4 seeds


def test_a_stopped_screen_goes_on_from_its_file(small_databases, tmp_path):
    variant = mancalab.variant("kalah", pits=3, seeds=2)
    path = tmp_path / "screen.jsonl"
    whole = fair.screen(variant, 1, path)
    lines = path.read_text().splitlines()
    partial = path.with_name(path.name + ".partial")
    partial.write_text("\n".join(lines[:6]) + '\n{"cells": [1, 2')  # a stop mid-line
    path.unlink()
    again = fair.screen(variant, 1, path)
    assert again.solved_now == whole.boards - 5
    assert again.fair == whole.fair
    assert path.read_text().splitlines()[0] == lines[0] and not partial.exists()
    assert fair.screen(variant, 1, path).solved_now == 0  # nothing solved twice
    with pytest.raises(MancalabError, match="another screen"):
        fair.screen(variant, 2, path)


def test_worker_processes_find_the_same_boards(small_databases, tmp_path):
    variant = mancalab.variant("kalah", pits=2, seeds=2)
    alone = fair.screen(variant, 2, tmp_path / "one.jsonl", jobs=1)
    shared = fair.screen(variant, 2, tmp_path / "two.jsonl", jobs=2)
    assert alone.fair == shared.fair and shared.solved_now == shared.boards


def test_the_fairkalah_comparison():
    variant = mancalab.variant("kalah")
    one_seed = [b for b in fair_boards().values() if b in set(fair.candidates(variant, 1))]
    found = fair.Screen(None, 1, 156, fair=one_seed)
    assert "exactly the 3 FairKalah boards" in fair.published(variant, found)
    found.fair = one_seed[:2]
    assert "1 of its 3 boards not found" in fair.published(variant, found)
    assert fair.published(mancalab.variant("kalah", seeds=3), found) is None


SCREENS = Path(__file__).parents[3] / "benchmarks" / "results" / "fair"


def screened(name: str) -> dict[tuple[int, ...], dict]:
    """The rows of a committed screen file (``bench_fair.py``'s), by board."""
    lines = (SCREENS / name).read_text().splitlines()
    return {tuple(row["cells"]): row for row in map(json.loads, lines[1:])}


def test_the_kalah_6_4_screen_found_exactly_the_fairkalah_boards():
    """The whole two-seed screen (python benchmarks/bench_fair.py --screen
    kalah:pits=6,seeds=4,empty_capture=true --moved 2): every board decided, each verdict
    backed by its bounds, and the fair ones are the 254 FairKalah boards."""
    rows = screened("kalah-6-4-ec-moved2.jsonl")
    assert set(rows) == set(fair.candidates(mancalab.variant("kalah"), 2))
    for row in rows.values():
        assert row["fair"] == (row["lower"] == row["upper"] == 0)
        assert row["fair"] or row["lower"] > 0 or row["upper"] < 0
    assert {cells for cells, row in rows.items() if row["fair"]} == set(fair_boards().values())


def test_the_kalah_6_4_list_without_empty_capture_is_its_screen():
    """The shipped list (Pham & Neller counted 323 fair boards, unpublished) is the fair set of
    the committed screen, numbered in the screen's order."""
    rows = screened("kalah-6-4-noec-moved2.jsonl")
    rules = dict(empty_capture=False)
    assert set(rows) == set(fair.candidates(mancalab.variant("kalah", **rules), 2))
    fair_set = [cells for cells in sorted(rows) if rows[cells]["fair"]]
    assert all(rows[cells]["lower"] == rows[cells]["upper"] == 0 for cells in fair_set)
    shipped = screened_boards(6, 4, empty_capture=False)
    assert list(shipped.values()) == fair_set and len(fair_set) == 323
    assert fair_boards(6, 4, empty_capture=False) == fair_boards()  # board=N keeps FairKalah's


def test_fair_command(small_databases, tmp_path):
    runner = CliRunner()
    out = tmp_path / "f.jsonl"
    result = runner.invoke(app, ["fair", "kalah", "-o", "pits=2", "-o", "seeds=2", "--out",
                                 str(out), "--jobs", "1", "--moved", "1"])
    assert result.exit_code == 0, result.output
    assert "fair boards of 20" in result.output
    header, *rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert header["moved"] == 1 and len(rows) == 20
    listed = tmp_path / "fair.txt"
    again = runner.invoke(app, ["fair", "kalah", "-o", "pits=2", "-o", "seeds=2", "--out",
                                str(out), "--moved", "1", "--list", str(listed)])
    assert again.exit_code == 0 and "This run: 0 boards" in again.output
    numbered = [line.split() for line in listed.read_text().splitlines()
                if not line.startswith("#")]
    fair_rows = [r["cells"] for r in rows if r["fair"]]
    assert [int(n) for n, _ in numbered] == list(range(1, len(fair_rows) + 1))
    assert [[int(c) for c in cells.split(",")] for _, cells in numbered] == fair_rows
    for args, message in [(["--moved", "3"], "--moved"), (["--time", "-1"], "--time"),
                          (["--jobs", "-1"], "--jobs"), (["-o", "board=3"], "standard")]:
        bad = runner.invoke(app, ["fair", "kalah", "--out", str(tmp_path / "x"), *args])
        assert bad.exit_code == 2 and message in bad.output
    assert runner.invoke(app, ["fair", "gebeta"]).exit_code == 2
