"""Tree statistics path by path: Oware's end at a first recurrence, against whole records."""

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab import MancalabError
from mancalab.analysis import tree_stats
from mancalab.cli import app
from mancalab.records import GameRecord


def _records_walked(game, depth):
    """Every sequence played through a GameRecord (the record ends a game at the repeated
    position): cumulative (turns, games, agency, A wins, B wins, draws, timeouts) a level,
    and how many games ended by repetition."""
    totals, by_repetition, frontier, rows = [0] * 7, 0, [[]], []
    for _ in range(depth):
        going_on = []
        for moves in frontier:
            record = GameRecord(game, game.start(), moves=moves)
            for move in record.state.legal_moves():
                child = GameRecord(game, game.start(), moves=moves + [move])
                state = child.state
                if state.outcome is None:
                    totals[0] += 1
                    totals[2] += len(state.legal_moves()) > 1
                    going_on.append(moves + [move])
                    continue
                totals[1] += 1
                end = state.outcome
                totals[{"draw": 5, "timeout": 6}.get(end.kind, 3 + (end.winner or 0))] += 1
                by_repetition += child.termination == "repetition"
        frontier = going_on
        rows.append(tuple(totals))
    return rows, by_repetition


@pytest.mark.parametrize("options, depth", [({"houses": 2, "seeds": 1}, 12),
                                            ({"houses": 3, "seeds": 1}, 9),
                                            ({"houses": 2, "seeds": 2}, 10)])
def test_oware_tree_ends_games_at_a_first_recurrence_as_its_record_does(options, depth):
    game = mancalab.variant("oware", **options)
    expected, by_repetition = _records_walked(game, depth)
    assert by_repetition > 0  # positions recur: merged positions would count these on
    rows = tree_stats(game, depth)
    assert [tuple(row[1:8]) for row in rows] == expected
    assert all(row.positions is None for row in rows)
    merged = tree_stats(game, depth, by_paths=False)
    assert [tuple(row[1:8]) for row in merged] != expected


@pytest.mark.parametrize("name, options, depth", [("kalah", {"pits": 4, "seeds": 3}, 7),
                                                  ("gebeta", {"lap_limit": 3}, 7),
                                                  ("oware", {}, 7)])
def test_the_walk_counts_what_the_levels_count_where_nothing_recurs(name, options, depth):
    """Kalah's positions never recur; in these trees no position recurs soon enough to end a
    game (Oware from its start: none within 11 moves, benchmarks/README.md)."""
    game = mancalab.variant(name, **options)
    walked = tree_stats(game, depth, by_paths=True, jobs=1)
    assert [row[1:8] for row in walked] == [row[1:8] for row in tree_stats(game, depth,
                                                                           by_paths=False)]
    assert [row[1:8] for row in tree_stats(game, depth, by_paths=True, jobs=2)] == \
        [row[1:8] for row in walked]


def test_a_walk_keeps_no_levels_to_resume_or_scale(tmp_path):
    game = mancalab.variant("oware", houses=2, seeds=1)
    with pytest.raises(MancalabError, match="path by path"):
        tree_stats(game, 4, checkpoint=tmp_path)
    with pytest.raises(MancalabError, match="path by path"):
        tree_stats(game, 4, start_multiplicity=3)


def test_the_command_walks_oware_and_refuses_what_does_not_apply(tmp_path):
    runner = CliRunner()
    done = runner.invoke(app, ["tree", "oware", "--depth", "5", "-o", "houses=3",
                               "--out", str(tmp_path / "oware.csv")])
    assert done.exit_code == 0, done.output
    lines = (tmp_path / "oware.csv").read_text().splitlines()
    assert len(lines) == 5 + 1 and lines[1].startswith("3, 1,")
    refused = runner.invoke(app, ["tree", "oware", "--depth", "5", "--checkpoint",
                                  str(tmp_path / "kept")])
    assert refused.exit_code == 2 and "path by path" in refused.output
