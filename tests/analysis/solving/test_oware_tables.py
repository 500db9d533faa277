"""Oware's endgame tables against a search over whole histories on small boards: every
position's value, from a fresh history and after histories its level's quiet moves reach,
lies within its bounds, and equals them where they meet."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from mancalab import kernels, search
from mancalab.analysis.solving import oware_tables as tables
from mancalab.analysis.solving.files import DatabaseError
from mancalab.ranking import pits_of, unrank
from mancalab.core import ONGOING
from mancalab.variants import variant
from mancalab.variants.rules import oware


def _rules(houses):
    v = variant("oware", houses=houses)
    params = v.params.copy()
    params[oware.P_SEEDS] = tables.NO_SCORE_END
    return v, params


def _board(v, pits):
    board = np.zeros(v.board_size, dtype=np.int64)
    board[:len(pits)] = pits
    board[-2], board[-1] = 0, ONGOING
    return board


def _play(params, v, pits, move):
    """(child pits as its mover sees them, seeds taken, final margin or None)."""
    h = len(pits) // 2
    board = _board(v, pits)
    oware.play(params, board, move)
    if board[-1] != ONGOING:
        return None, 0, int(board[2 * h] - board[2 * h + 1])
    return tuple(board[h:2 * h]) + tuple(board[:h]), int(board[2 * h]), None


def _legal(params, v, pits):
    board = _board(v, pits)
    oware.settle(params, board)
    stores = len(pits)  # player 0's store, then player 1's
    if board[-1] != ONGOING:
        return None, int(board[stores] - board[stores + 1])
    mask = oware.legal_mask(params, board)
    return [m for m in range(len(pits) // 2) if mask >> m & 1], None


def whole_history_value(params, v, pits, seen):
    """The mover's future margin from ``pits`` when ``seen`` holds the positions (each with
    the side to move, as (pits as the mover sees them, parity)) since the last capture:
    a minimax over every continuation, the game ending at the first recurrence."""
    moves, over = _legal(params, v, pits)
    if moves is None:
        return over
    h = len(pits) // 2
    parity = seen[-1][1]
    best = -10**9
    for move in moves:
        child, taken, final = _play(params, v, pits, move)
        if final is not None:
            value = final
        elif taken:
            value = taken - whole_history_value(params, v, child, [(child, 0)])
        elif (child, 1 - parity) in seen:
            board = _board(v, pits)
            oware.play(params, board, move)
            value = int(board[:h].sum() - board[h:2 * h].sum())  # the sweep
        else:
            value = -whole_history_value(params, v, child, seen + [(child, 1 - parity)])
        best = max(best, value)
    return best


def _positions(tabs, level):
    n = 2 * tabs.houses
    start, end = tables.level_range(tabs.binom, level, n)
    bars, pits = np.empty(n - 1, dtype=np.int64), np.empty(n, dtype=np.int64)
    for r in range(end - start):
        unrank(r, level, n, tabs.binom, bars)
        pits_of(bars, level, pits)
        yield tuple(int(x) for x in pits)


@pytest.mark.parametrize("houses, seeds", [(2, 5), (3, 3)])
def test_every_value_over_whole_histories_lies_within_the_bounds(houses, seeds):
    v, params = _rules(houses)
    tabs = tables.build(v, seeds)
    rng = random.Random(7)
    checked = exact = 0
    for level in range(seeds + 1):
        for pits in _positions(tabs, level):
            low, high = tabs.bounds(pits)
            assert low <= high
            histories = [[(pits, 0)]]
            for _ in range(3):  # histories the level's quiet moves reach
                walk, here = [(pits, 0)], pits
                for step in range(rng.randrange(1, 8)):
                    moves, _ = _legal(params, v, here)
                    quiet = [c for c in (_play(params, v, here, m) for m in moves or [])
                             if c[0] is not None and c[1] == 0]
                    if not quiet:
                        break
                    here = rng.choice(quiet)[0]
                    if any(p == here for p, _ in walk):
                        break
                    walk.append((here, (step + 1) % 2))
                if len(walk) > 1:
                    histories.append(walk)
            for walk in histories:
                last = walk[-1][0]
                value = whole_history_value(params, v, last, walk)
                lo, hi = tabs.bounds(last)
                assert lo <= value <= hi, (walk, value, lo, hi)
                checked += 1
                exact += lo == hi
    assert exact > 0 and checked > exact  # both kinds of entry were met


def test_files_are_checked_when_opened(tmp_path):
    v = variant("oware", houses=3)
    path = tables.save(tables.build(v, 4), tmp_path)
    again = tables.load(path, 3)
    assert again.bounds((1, 0, 0, 1, 1, 1)) == tables.build(v, 4).bounds((1, 0, 0, 1, 1, 1))
    with pytest.raises(DatabaseError, match="not 6"):
        tables.load(path, 6)
    data = path.read_bytes()
    path.write_bytes(data[:-3])
    with pytest.raises(DatabaseError, match="truncated"):
        tables.load(path)
    path.write_bytes(data[:-1] + bytes([(data[-1] + 1) % 256]))
    with pytest.raises(DatabaseError, match="corrupt"):
        tables.load(path)


def test_a_build_that_cannot_fit_is_refused_up_front():
    with pytest.raises(DatabaseError, match="GiB of memory"):
        tables.plan(variant("oware"), 40)
    with pytest.raises(DatabaseError, match="0..48"):
        tables.plan(variant("oware"), 49)


def test_the_rules_read_the_tables_for_the_mover_with_the_stores():
    v = variant("oware")
    tabs = tables.build(v, 8)
    low, high, binom = search.read_only(tabs.low, tabs.high, tabs.binom)
    rng = np.random.default_rng(5)
    for _ in range(300):
        board = np.zeros(v.board_size, dtype=np.int64)
        seeds = int(rng.integers(1, 12))
        for _ in range(seeds):
            board[rng.integers(0, 12)] += 1
        board[12] = int(rng.integers(0, 48 - seeds + 1))
        board[13] = 48 - seeds - board[12]
        board[-2], board[-1] = int(rng.integers(0, 2)), ONGOING
        reach, least, greatest = kernels.table_bounds(v.params, board, low, high, binom)
        if seeds > 8:
            assert reach == 0
            continue
        mover = board[-2]
        seen = np.concatenate([board[6 * mover:6 * mover + 6], board[6 - 6 * mover:12 - 6 * mover]])
        lo, hi = tabs.bounds(seen)
        ahead = board[12 + mover] - board[13 - mover]
        assert (reach, least, greatest) == (1, ahead + lo, ahead + hi)


def test_a_search_with_the_tables_finds_the_winner_over_whole_histories():
    """Two houses a side, searched deeper than any line can go before a position recurs (a
    level holds at most 56 boards, each with either side to move) and with no
    transposition table: the winner the search with the tables finds (by the real rules,
    the end by score included) is the one of the minimax over whole histories played on
    past half the seeds."""
    v = variant("oware", houses=2, seeds=3)
    params = _rules(2)[1]
    tabs = tables.build(v, 5)
    low, high, binom = search.read_only(tabs.low, tabs.high, tabs.binom)
    nodes = {}
    for level in range(1, 6):
        for pits in _positions(tabs, level):
            stores = [(12 - level) // 2, 12 - level - (12 - level) // 2]
            state = v.state(list(pits) + stores, to_move=0)
            if state.is_over:
                continue
            truth = stores[0] - stores[1] + whole_history_value(params, v, pits, [(pits, 0)])
            for told in (low, high, binom), search.NO_TABLES:
                stats = search.new_stats(10**7)
                value, _ = search.negamax(v.params, state.board.copy(), 120, -search.INFINITY,
                                          search.INFINITY, np.zeros((0, 2), np.int64),
                                          np.zeros(64, np.int64),
                                          stats, search.positions_seen([state]),
                                          kernels.repetitions_of(v), told)
                assert np.sign(value) == np.sign(truth), (pits, stores, value, truth)
                nodes[len(told[0]) > 0] = nodes.get(len(told[0]) > 0, 0) + stats[search.NODES]
    assert nodes[True] < nodes[False]  # the tables settled some


def test_solve_oware_says_what_the_tables_prove_or_why_it_cannot(small_databases):
    from typer.testing import CliRunner

    from mancalab.cli import app

    runner = CliRunner()
    position = ["solve", "oware", "--position", "1,0,0,0,1,1,0,0,0,0,0,1,23,21"]
    missing = runner.invoke(app, position)
    assert missing.exit_code == 2 and "db build oware" in missing.output
    assert runner.invoke(app, ["db", "build", "oware", "--seeds", "6"]).exit_code == 0
    said = runner.invoke(app, position + ["--moves", "--json"])
    assert said.exit_code == 0, said.output
    found = json.loads(said.output)
    v = variant("oware")
    state = v.state([1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 23, 21], to_move=0)
    lo, hi = tables.load(tables.path_of(v, 6)).bounds([1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1])
    assert (found["least"], found["greatest"]) == (2 + lo, 2 + hi)
    assert set(found["moves"]) == {state.move_name(m) for m in state.legal_moves()}
    assert found["result"] == "win" and [m["result"] for m in found["moves"].values()].count(
        "win") == 1
    far = runner.invoke(app, ["solve", "oware"])  # the start: 48 seeds on the board
    assert far.exit_code == 2 and "at most 6" in far.output


def test_a_bad_tables_file_is_said_and_the_expert_plays_without_it(small_databases, capsys):
    from mancalab.players import player

    v = variant("oware")
    path = tables.save(tables.build(v, 4))  # into the fresh cache's databases folder
    path.write_bytes(path.read_bytes()[:-5])  # cut short
    assert tables.for_search(v) is search.NO_TABLES
    said = capsys.readouterr().err
    assert "tables not used" in said and "truncated" in said
    expert = player("alphabeta:depth=3")
    state = v.state([1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 23, 21], to_move=0)
    assert expert.choose(state) in state.legal_moves()
