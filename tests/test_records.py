"""Game records: round trips, non-standard starts and options, errors naming the line."""

import os

import pytest

import mancalab
from mancalab.records import GameRecord, RecordError

g = mancalab.variant("gebeta")


def _played(moves):
    record = GameRecord.new(g, ("Almaz", "Computer"))
    for text in moves:
        record.push(g.parse_move(record.state, text))
    return record


def test_round_trip_unfinished():
    record = _played(["a", "a", "c"])
    text = record.to_text()
    assert '[Variant "gebeta"]' in text and '[Result "*"]' in text
    assert text.rstrip().endswith("A1 A2 C1 *")
    again = GameRecord.from_text(text)
    assert again.moves == record.moves and again.names == ("Almaz", "Computer")
    assert again.state == record.state


def test_round_trip_finished_with_start_position_and_option(tmp_path):
    variant = mancalab.variant("gebeta", lap_limit=60)
    start = variant.state([0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 3, 8], to_move=1)
    record = GameRecord(variant, start, ('Ann "the first"', "Bo"))
    record.push(7)
    path = tmp_path / "game.txt"
    record.save(path)
    text = path.read_text()
    assert '[Option "lap_limit=60"]' in text and '[ToMove "1"]' in text
    assert '[Result "B"]' in text and text.rstrip().endswith("E2 B")
    again = GameRecord.load(path)
    assert again.variant == variant and again.start == start
    assert again.state.outcome == mancalab.Outcome("win", 1, (3, 9))
    assert again.names[0] == 'Ann "the first"'


def test_log_matches_the_spec():
    record = _played(["a", "a"])
    assert record.log() == ["A1", "A2"]


@pytest.mark.parametrize("text, line, words", [
    ('[Variant "gebeta"]\n\nA1 Q2 *\n', 3, "move 2 'Q2'"),
    ('[Variant "gebeta"]\n[Result "A"]\n\nA1 *\n', 2, "does not match"),
    ('[Variant "chess"]\n', 1, "unknown game"),
    ('[Variant "gebeta"]\n[Option "pits=7"]\n', 1, "unknown option"),
    ('[Variant "gebeta"]\n[Start "4,4"]\n', 2, "bad start position"),
    ('[Variant gebeta]\n', 1, "header"),
    ('[A "x"]\n\nA1\n', 1, "no [Variant"),
    ('[Variant "gebeta"]\n\nA1 * A2\n', 3, "followed by moves"),
    ('[Variant "gebeta"]\n\nA1\nB1\n', 4, "player 1"),
    ('[Variant "gebeta"]\n[Date "yesterday"]\n', 2, "YYYY.MM.DD"),
    ('[Variant "gebeta"]\n[Date "2026.1.5"]\n', 2, "YYYY.MM.DD"),
])
def test_malformed_records_name_the_line(text, line, words):
    with pytest.raises(RecordError) as info:
        GameRecord.from_text(text)
    assert f"line {line}" in str(info.value) and words in str(info.value)


def test_missing_file_is_a_record_error(tmp_path):
    with pytest.raises(RecordError, match="cannot read"):
        GameRecord.load(tmp_path / "nope.txt")


def test_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "game.txt"
    path.write_text("old contents")
    record = _played(["a"])

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        record.save(path)
    assert path.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["game.txt"]


def test_saved_files_get_the_usual_permissions(tmp_path):
    import stat
    path = tmp_path / "g.txt"
    GameRecord.new(mancalab.variant("kalah")).save(path)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_a_deep_copy_is_independent_and_shares_the_positions():
    import copy

    record = GameRecord.new(mancalab.variant("gebeta"))
    record.push(0)
    twin = copy.deepcopy(record)
    twin.push(twin.state.legal_moves()[0])
    assert len(record.moves) == 1 and len(twin.moves) == 2
    assert twin.states[0] is record.states[0] and twin.variant is record.variant
    twin.pop()
    assert twin.state == record.state


@pytest.mark.parametrize("seed", range(4))
def test_a_record_keeps_few_positions_and_gives_every_one_as_played(seed):
    import random

    from mancalab.records import CHECKPOINT

    rng = random.Random(seed)
    kalah = mancalab.variant("kalah", pits=3, seeds=3)
    record, played = GameRecord.new(kalah), [kalah.start()]
    for _ in range(300):  # pushes and undos at random, checked against a plain list
        if record.moves and (record.state.is_over or rng.random() < 0.3):
            record.pop()
            played.pop()
        else:
            record.push(rng.choice(record.state.legal_moves()))
            played.append(played[-1].play(record.moves[-1]))
        assert len(record.states) == len(played) and record.state == played[-1]
        assert len(played) < 2 or record.states[-2] == played[-2]  # the last move's, kept
    assert list(record.states) == played and record.states[1:-1] == played[1:-1]
    assert all(record.states[i] == played[i] for i in range(-len(played), len(played)))
    assert len(record.states._kept) <= len(played) // CHECKPOINT + 1
    view = record.prefix(len(played) // 2)
    assert list(view.states) == played[: len(played) // 2 + 1]


def test_an_ended_game_undoes_and_views_as_played():
    record = _played(["a", "a", "c"])
    record.end("agreement")
    assert record.state.is_over and record.states[-1] is record.state
    assert not record.prefix(2).state.is_over
    record.pop()
    assert record.termination is None and len(record.states) == 3


def test_a_resignation_is_kept_in_the_record_and_read_back():
    import mancalab

    record = GameRecord.new(mancalab.variant("kalah"))
    record.push(2)
    record.forfeit(0)  # A resigns on B's turn
    assert record.result == "B" and record.termination == "resign"
    assert record.state.cells == record.states[-1].cells
    again = GameRecord.from_text(record.to_text())
    assert again.result == "B" and again.termination == "resign" and again.moves == [2]
    with pytest.raises(RecordError, match="winner"):
        GameRecord.from_text(record.to_text().replace("B\n", "*\n").replace(
            '[Result "B"]', '[Result "*"]'))
    record.pop()  # taking back the move takes back the resignation
    assert record.termination is None and not record.state.is_over
