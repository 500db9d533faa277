"""Tree statistics: the published Gebeta table, an independent brute force, exact carries."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import mancalab
from mancalab.analysis import tree_stats
from mancalab.analysis.stats import tree
from mancalab.analysis.stats.tree import (HEADER, TOTAL_WORDS, _insert, add_total, count_words,
                                          key_layout, number_of, words_of)
from mancalab.cli import app

PUBLISHED = """\
6, 1, 0, 6, 0, 0, 0, 0
38, 2, 0, 38, 0, 0, 0, 0
178, 3, 0, 178, 0, 0, 0, 0
816, 4, 0, 812, 0, 0, 0, 0
3843, 5, 2, 3825, 2, 0, 0, 0
17641, 6, 4, 17557, 2, 1, 1, 0
76287, 7, 64, 75538, 29, 16, 19, 0
320100, 8, 255, 316053, 68, 92, 91, 4
1285021, 9, 1543, 1263422, 604, 379, 532, 28
4968533, 10, 5929, 4873254, 1246, 2735, 1831, 117
"""


@pytest.mark.slow
def test_gebeta_levels_1_to_10_match_the_published_table():
    rows = tree_stats("gebeta", 10)
    assert "".join(r.csv() + "\n" for r in rows) == PUBLISHED


def test_thread_count_does_not_change_the_result():
    one, two = tree_stats("gebeta", 9, jobs=1), tree_stats("gebeta", 9, jobs=2)
    assert [(r.csv(), r.positions) for r in one] == [(r.csv(), r.positions) for r in two]


def _brute_force(game, depth):
    """Walk every move sequence with the public State API (no multiplicities, no hashing)."""
    totals = dict(turns=0, games=0, agency=0, a=0, b=0, d=0, t=0)
    rows, frontier = [], [game.start()]
    for _ in range(depth):
        nxt = []
        for s in frontier:
            for m in s.legal_moves():
                child = s.play(m)
                if child.outcome is None:
                    totals["turns"] += 1
                    totals["agency"] += len(child.legal_moves()) > 1
                    nxt.append(child)
                else:
                    totals["games"] += 1
                    end = child.outcome
                    key = {"timeout": "t", "draw": "d"}.get(end.kind) or "ab"[end.winner]
                    totals[key] += 1
        frontier = nxt
        rows.append((totals["turns"], totals["games"], totals["agency"], totals["a"], totals["b"],
                     totals["d"], totals["t"], len(set(frontier))))
    return rows


def _rows(stats):
    return [(r.turns, r.games, r.agency, r.a_wins, r.b_wins, r.draws, r.timeouts, r.positions)
            for r in stats]


def _compare(game, depth):
    """Levels 1..depth against the brute force; distinct positions from a run one level deeper
    (the last level of a run is counted, not stored)."""
    expected = _brute_force(game, depth)
    deeper = _rows(tree_stats(game, depth + 1))[:depth]
    last = _rows(tree_stats(game, depth))
    assert deeper == expected
    assert last[:-1] == expected[:-1] and last[-1] == expected[-1][:-1] + (None,)
    return expected


def test_brute_force_agrees_with_a_short_lap_limit():
    # lap_limit=3 makes timeouts and early ends common, so every column is exercised.
    expected = _compare(mancalab.variant("gebeta", lap_limit=3), 6)
    assert expected[-1][6] > 0 and expected[-1][1] > 0


def test_totals_carry_through_every_word_and_overflow_is_reported():
    totals, flags = np.zeros((1, TOTAL_WORDS), dtype=np.uint64), np.zeros(2, dtype=np.int64)
    expected = 0
    for amount, words in [(2**64 - 5, 1), (7, 1), (2**64 - 1, 1), (2**130 + 2**64 - 1, 3),
                          (2**192 - 1, 3)]:
        add_total(totals, 0, words_of(amount, words).reshape(1, -1), 0, words, flags)
        expected += amount
        assert number_of(totals[0]) == expected and not flags.any()
    totals[0] = words_of(2**256 - 2, TOTAL_WORDS)
    add_total(totals, 0, words_of(5, 1).reshape(1, -1), 0, 1, flags)
    assert flags[tree.OVERFLOW]


KEYS = np.array([[1, 2]], dtype=np.uint64)  # one position of two key words


def _add(table, h, number):
    """Insert KEYS[0] ``number`` times into ``table`` (as a child of a four-word level)."""
    counts = words_of(number, tree.COUNT_WORDS).reshape(1, -1)
    return _insert(table, h, KEYS, 0, 2, counts, 0, tree.COUNT_WORDS)


def test_multiplicity_overflow_is_reported_not_wrapped():
    table = np.zeros((64, 3), dtype=np.uint64)  # two key words, one count word
    h = np.uint64(12345)
    assert _add(table, h, 2**64 - 2) == 1
    assert _add(table, h, 1) == 0
    assert _add(table, h, 1) == -1  # wraps to 0 exactly,
    assert _add(table, h, 1) == -1  # which is not left there
    # (a thread that finds the key waits while its multiplicity is 0)
    assert _add(table, h + np.uint64(1), 2**64) == -1


@pytest.mark.parametrize("words", [2, 3])
def test_multi_word_multiplicities_carry_and_overflow_is_reported(words):
    table = np.zeros((64, 2 + words), dtype=np.uint64)  # two key words, then the count's
    h, top = np.uint64(12345), 2**(64 * words)
    assert _add(table, h, 2**64 - 1) == 1
    assert _add(table, h, 3 + 5 * 2**64) == 0
    assert _add(table, h, top // 2 - 1) == 0
    row = int(np.flatnonzero(table[:, 2:].any(axis=1))[0])
    assert number_of(table[row, 2:]) == 2**64 - 1 + 3 + 5 * 2**64 + top // 2 - 1
    assert _add(table, h, top // 2) == -1  # past its words
    assert _add(table, h, top) == -1  # too wide to begin with


@pytest.mark.parametrize("name, options, depth, times", [
    ("gebeta", {}, 9, 2**64 + 3), ("kalah", {"pits": 4, "seeds": 3}, 9, 2**64 + 3),
    ("gebeta", {}, 7, 2**190 + 2**64 + 5)])
def test_counts_past_64_bits_are_exact(name, options, depth, times):
    """Every sequence counted ``times`` times (multiplicities of two or four words from the
    first level, carries at every merge): every count is the plain run's times that, level by
    level."""
    game = mancalab.variant(name, **options)
    plain = tree_stats(game, depth)
    scaled = tree_stats(game, depth, start_multiplicity=times, batch=1 << 12)
    for a, b in zip(plain, scaled):
        assert b[1:8] == tuple(times * x for x in a[1:8]) and b.positions == a.positions


@pytest.mark.parametrize("times, words", [(2**55 + 1, 1), (2**119 + 1, 2)])
def test_levels_take_another_word_before_their_counts_could_overflow(times, words):
    """With every sequence counted 2**55 + 1 times, level 3's 140 sequences times six moves
    could pass 2**64 a position, level 2's 32 could not: levels 1-3 are stored in one word,
    the rest in two (with 2**119 + 1, in two then three), and every count equals the plain
    run's scaled."""
    game = mancalab.variant("gebeta")
    assert count_words(32 * times, game) == words and count_words(140 * times, game) == words + 1
    plain = tree_stats(game, 7)
    scaled = tree_stats(game, 7, start_multiplicity=times)
    assert [r[1:8] for r in scaled] == [tuple(times * x for x in r[1:8]) for r in plain]


@pytest.mark.parametrize("name", ["gebeta", "kalah"])
def test_a_table_that_starts_far_too_small_grows_and_counts_the_same(name):
    """Every level's table starts with room for 16 positions and batches of 50 parents: the
    batches stop short of a full table and the table grows, many times a level; the levels
    hold the same positions as a normal run, each once."""
    game = mancalab.variant(name, **({"pits": 4, "seeds": 3} if name == "kalah" else {}))
    layout = key_layout(game)
    level = tree.start_level(game)
    totals = np.zeros((tree.N_TOTALS, TOTAL_WORDS), dtype=np.uint64)
    sizes = []
    for _ in range(7):
        level, _ = tree._expand_level(game, layout, level, 50, 16, True, 1, totals,
                                      lambda *progress: None)
        rows = level.rows()
        assert len(rows) == level.positions
        assert len(np.unique(rows[:, :layout[3]], axis=0)) == len(rows)
        sizes.append(level.positions)
    assert sizes == [row.positions for row in tree_stats(game, 8)[:7]]


def test_key_layout_fits_gebeta_in_one_word_and_kalah_field_by_field():
    assert key_layout(mancalab.variant("gebeta"))[3] == 1
    word_of, shift_of, mask_of, n_words = key_layout(mancalab.variant("kalah"))
    assert n_words == 2 and len(word_of) == 15


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=0, max_size=150))
def test_gebeta_one_word_key_round_trips(choices):
    """Every position of a random game packs into one word and back, and different positions
    pack differently (the key is the whole position)."""
    from mancalab.variants.rules.gebeta import pack_key, unpack_key
    state = mancalab.variant("gebeta").start()
    keys = np.zeros((1, 1), dtype=np.uint64)
    seen = {}
    for choice in choices:
        if state.is_over:
            break
        board = state.board.copy()
        assert pack_key(state.variant.params, board, keys, 0)
        back = np.zeros_like(board)
        unpack_key(state.variant.params, keys, 0, back)
        assert back.tolist() == board.tolist()
        assert seen.setdefault(int(keys[0, 0]), state.cells + (state.to_move,)) == \
            state.cells + (state.to_move,)
        legal = state.legal_moves()
        state = state.play(legal[choice % len(legal)])


def test_a_start_multiplicity_past_the_count_words_is_refused():
    with pytest.raises(tree.TreeOverflowError, match="multiplicity"):
        tree_stats("gebeta", 2, start_multiplicity=2**(64 * tree.COUNT_WORDS))


def test_bad_depth():
    with pytest.raises(ValueError, match="depth"):
        tree_stats("gebeta", 0)


def test_cli_writes_the_reference_file(tmp_path):
    out, png = tmp_path / "results.csv", tmp_path / "tree.png"
    result = CliRunner().invoke(app, ["tree", "gebeta", "--depth", "10", "--out", str(out),
                                      "--plot", str(png), "--jobs", "2"])
    assert result.exit_code == 0, result.output
    assert out.read_text() == HEADER + "\n" + PUBLISHED
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("compiled", [False, True])
def test_cli_compiles_before_it_times_level_1(monkeypatch, compiled):
    """The tree's kernels are compiled (or loaded) before the levels are timed, with a word
    on a first run: level 1's seconds are not the compiler's."""
    from mancalab.cli import analysis

    order = []
    warm_up, stats = tree.warm_up, tree.tree_stats
    monkeypatch.setattr(analysis, "is_compiled", lambda prefix: compiled)
    monkeypatch.setattr(tree, "warm_up", lambda game: order.append("warm-up") or warm_up(game))
    monkeypatch.setattr(tree, "tree_stats",
                        lambda *args, **kw: order.append("levels") or stats(*args, **kw))
    result = CliRunner().invoke(app, ["tree", "gebeta", "--depth", "4"])
    assert result.exit_code == 0, result.output
    assert order[0] == "warm-up" and order.count("warm-up") == 1 and order[-1] == "levels"
    assert ("first run only" in result.output) is not compiled


def test_a_levels_seconds_leave_its_compiling_out_and_its_details_name_it(monkeypatch):
    """numba compiling inside a level (a first run's) is not counted as its work: its
    seconds leave it out, its details say how long it took; a level with none says none."""
    import time

    from numba.core import event

    expand, calls = tree._expand, []

    def compiling_once(*args):
        if not calls:  # what numba tells of a compile, timed by its listeners
            with event.trigger_event("numba:compile", data={"dispatcher": None, "args": (),
                                                            "return_type": None}):
                time.sleep(0.5)
        calls.append(1)
        return expand(*args)

    tree.warm_up("gebeta")
    monkeypatch.setattr(tree, "_expand", compiling_once)
    first, second = tree_stats("gebeta", 2)
    assert 0.5 <= first.details["compiling"] < 1.0 and first.seconds < 0.4
    assert "compiling" not in second.details and len(calls) == 2


@pytest.mark.parametrize("args", [["--depth", "0"], ["--depth", "3", "--out", "/nonexistent/r.csv"],
                                  ["--depth", "x"], ["--depth", "3", "--jobs", "0"]])
def test_cli_bad_input_exits_2(args, tmp_path):
    result = CliRunner().invoke(app, ["tree", "gebeta", *args])
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == []


def test_cli_unknown_game():
    result = CliRunner().invoke(app, ["tree", "chess", "--depth", "3"])
    assert result.exit_code == 2 and "unknown game" in result.output


@pytest.mark.parametrize("game, options, depth", [
    ("kalah", dict(pits=3, seeds=2), 8),
    ("kalah", dict(pits=4, seeds=2, empty_capture=False, end_rule="no_move"), 7),
    ("gabata", dict(max_laps=3), 6),
    ("urubugu", dict(max_laps=6), 3),
    ("gabata3", dict(max_laps=3, race="none", rounds="single"), 4),
    ("gabata3", dict(max_laps=12, after_capture="new_turn"), 4),
])
def test_brute_force_agrees_for_every_game(game, options, depth):
    # small boards and short lap guards, so that games end, draw and time out within reach
    expected = _compare(mancalab.variant(game, **options), depth)
    assert expected[-1][1] > 0, "some games end within the depth"


def test_a_level_that_would_not_fit_in_memory_is_refused_with_an_estimate(monkeypatch):
    from mancalab.analysis.stats import tree

    monkeypatch.setattr(tree, "available_memory", lambda: 10_000)
    with pytest.raises(tree.TreeMemoryError, match="GiB of memory") as refused:
        tree.tree_stats("kalah", 5)
    done = refused.value.rows  # the levels finished before the refusal, and no more
    assert len(done) < 5 and [row.level for row in done] == list(range(1, len(done) + 1))


@pytest.mark.slow
def test_a_checkpointed_run_goes_on_from_the_deepest_level_kept(tmp_path):
    game = mancalab.variant("gebeta")
    whole = tree_stats(game, 9)
    tree_stats(game, 6, checkpoint=tmp_path)  # stops after level 6; level 5 is kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["level-5.npy", "tree.json"]
    seen = []
    resumed = tree_stats(game, 9, checkpoint=tmp_path, on_level=seen.append)
    assert [r[:9] for r in resumed] == [r[:9] for r in whole]
    assert [r.level for r in seen] == list(range(1, 10))
    assert [r[:9] for r in tree_stats(game, 4, checkpoint=tmp_path)] == [r[:9] for r in whole[:4]]


def test_a_checkpoint_of_another_run_or_damaged_is_refused(tmp_path):
    tree_stats("gebeta", 5, checkpoint=tmp_path)
    with pytest.raises(mancalab.MancalabError, match="another run"):
        tree_stats("gebeta", 6, checkpoint=tmp_path, lap_limit=3)
    index = tmp_path / "tree.json"
    saved = index.read_text()
    index.write_text(saved.replace('"key_format": 2', '"key_format": 1'))
    with pytest.raises(mancalab.MancalabError, match="older mancalab"):
        tree_stats("gebeta", 6, checkpoint=tmp_path)
    index.write_text(saved)
    level = tmp_path / "level-4.npy"
    rows = np.load(level)
    level.write_bytes(level.read_bytes()[:-8])
    with pytest.raises(mancalab.MancalabError, match="checkpoint"):
        tree_stats("gebeta", 6, checkpoint=tmp_path)
    np.save(level, np.zeros((len(rows), 1 + tree.COUNT_WORDS + 1), dtype=np.uint64))
    with pytest.raises(mancalab.MancalabError, match="damaged"):  # too many count words
        tree_stats("gebeta", 6, checkpoint=tmp_path)
    result = CliRunner().invoke(app, ["tree", "gebeta", "--depth", "6", "--checkpoint",
                                      str(tmp_path)])
    assert result.exit_code == 2 and "checkpoint" in result.output


def test_the_tree_command_keeps_levels_and_writes_the_table_as_it_goes(tmp_path):
    out, kept = tmp_path / "results.csv", tmp_path / "kept"
    args = ["tree", "gebeta", "--depth", "10", "--out", str(out), "--checkpoint", str(kept)]
    assert CliRunner().invoke(app, args).exit_code == 0
    assert out.read_text() == HEADER + "\n" + PUBLISHED
    out.unlink()
    assert CliRunner().invoke(app, args).exit_code == 0  # read back: nothing expanded again
    assert out.read_text() == HEADER + "\n" + PUBLISHED
