"""The mancalab command, driven with piped input as a script would."""

import pytest
from typer.testing import CliRunner

from mancalab import terminal
from mancalab.cli import app
from mancalab.records import GameRecord

runner = CliRunner()


def run(args, text=""):
    return runner.invoke(app, args, input=text)


def test_asks_names_and_handles_bad_input(tmp_path):
    record = tmp_path / "g.txt"
    result = run(["play", "gebeta"],
                 f"Almaz\nAlmaz\nComputer\nz\nhello there\na\nhelp\nundo\nsave {record}\nquit\n")
    out = result.stdout
    assert result.exit_code == 0, out
    assert "Name of player A" in out and "cannot have the same name" in out
    assert "'z' is not a home" in out and "'hello there' is not a home" in out
    assert "Computer plays" in out and "undo" in out and "Took back 2 moves" in out
    assert "Saved the game to" in out and "Goodbye" in out
    assert "Traceback" not in out
    saved = GameRecord.load(record)
    assert saved.names == ("Almaz", "Computer") and saved.moves == []


@pytest.mark.parametrize("args, names", [
    (["--b", "Computer"], ("You", "Computer")),
    (["--a", "Computer"], ("Computer", "You")),
    (["--bot", "random:seed=1"], ("You", "Computer")),
    (["--a", "Almaz", "--bot", "random:seed=1"], ("Almaz", "Computer")),
])
def test_playing_the_computer_asks_no_names(args, names):
    result = run(["play", "gebeta", *args], "quit\n")
    assert result.exit_code == 0 and "Name of player" not in result.stdout, result.stdout
    assert f"{names[0]} (A)" in result.stdout and f"{names[1]} (B)" in result.stdout
    seat = "AB"[names.index("You")] if "You" in names else None
    assert seat is None or f"You ({seat}) have 0 families." in result.stdout


def test_a_finished_game_is_saved_reviewed_and_played_again(tmp_path):
    after, auto = tmp_path / "after.txt", tmp_path / "auto.txt"
    result = run(["play", "kalah", "-o", "pits=1", "-o", "seeds=1", "--a", "Ann", "--b", "Bo",
                  "--save", str(auto)],
                 f"1\nsave {after}\nreview\nnew\n1\nquit\n")
    out = result.stdout
    assert result.exit_code == 0, out
    assert out.count("Game over") == 2 and "mark" in out  # the review's table
    assert GameRecord.load(after).state.is_over and after.read_text() == auto.read_text()


def test_board_is_drawn_from_the_movers_side():
    out = run(["play", "gebeta", "--a", "Ann", "--b", "Bo"], "a\n").stdout
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "Ann | 4 | 4 | 4 | 4 | 4 | 4" in lines and "A B C D E F" in lines
    assert "Ann | 6 | 1 | 6 | 1 | 7 | 2" in lines  # B sees A's row on top
    assert "Bo | 6 | 6 | 0 | 1 | 6 | 6" in lines
    top, bottom = "Ann | 6 | 1 | 6 | 1 | 7 | 2", "Bo | 6 | 6 | 0 | 1 | 6 | 6"
    assert lines.index(top) + 1 == lines.index(bottom)
    assert "F E D C B A" in lines
    assert "Moves: A1" in out and "move 2" in out
    assert "Ann (A) has 0 families." in out


@pytest.mark.parametrize("seat", ["--a", "--b"])
def test_playing_the_computer_the_board_stays_on_the_persons_side(seat):
    """Every board, the computer's turns too, has the person's row at the bottom, each row
    named in its owner's notation (the computer's moves can be found on it)."""
    out = run(["play", "gebeta", seat, "Computer", "--bot", "random:seed=1"],
              "a\nb\nquit\n").stdout
    lines = [" ".join(line.split()) for line in out.splitlines()]
    drawn = [line.split()[0] for line in lines if line.startswith(("You |", "Computer |"))]
    assert len(drawn) >= 8 and drawn == ["Computer", "You"] * (len(drawn) // 2), drawn
    assert "Computer plays" in out
    labels = [line for line in lines if line in ("A B C D E F", "F E D C B A")]
    assert len(labels) == len(drawn)  # both rows labelled


def test_empty_home_message_keeps_the_game():
    out = run(["play", "gebeta", "--a", "Ann", "--b", "Bo"], "a\nd\nquit\n").stdout
    assert "home D is empty" in out
    assert "Moves: A1\n" in out and "A2" not in out


def test_full_game_against_the_computer_reaches_the_end(tmp_path):
    moves = "a\nb\nc\nd\ne\nf\n" * 300
    result = run(["play", "gebeta", "--a", "Almaz", "--b", "Computer", "--bot",
                  "mcts:playouts=200,seed=1"], moves)
    assert result.exit_code == 0
    assert "Game over" in result.stdout


def test_end_of_input_stops_cleanly():
    result = run(["play", "gebeta", "--a", "Ann", "--b", "Bo"], "a\n")
    assert result.exit_code == 0 and "Game left unfinished" in result.stdout


def test_ctrl_c_stops_cleanly(monkeypatch):
    def interrupt(console, prompt):
        raise KeyboardInterrupt

    monkeypatch.setattr(terminal, "ask", interrupt)
    result = run(["play", "gebeta", "--a", "Ann", "--b", "Bo"])
    assert result.exit_code == 130 and "Interrupted" in result.stdout
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_save_load_and_replay(tmp_path):
    path = tmp_path / "game.txt"
    run(["play", "gebeta", "--a", "Ann", "--b", "Bo"], f"a\na\nsave {path}\nquit\n")
    assert GameRecord.load(path).log() == ["A1", "A2"]
    resumed = run(["play", "gebeta", "--load", str(path)], "c\nquit\n").stdout
    assert "Moves: A1 A2" in resumed and "Moves: A1 A2 C1" in resumed
    replayed = run(["replay", str(path), "--all"])
    assert replayed.exit_code == 0
    assert "Move 2: A2" in replayed.stdout and "Start position" in replayed.stdout
    stepped = run(["replay", str(path)], "\nb\n2\nq\n")
    assert stepped.exit_code == 0 and stepped.stdout.count("Move 1: A1") == 1
    assert stepped.stdout.count("Start position") == 2 and "Move 2: A2" in stepped.stdout


@pytest.mark.parametrize("args, words", [
    (["play", "chess", "--a", "x", "--b", "y"], "unknown game"),
    (["play", "gebeta", "--bot", "alpha", "--a", "x", "--b", "y"], "unknown player"),
    (["play", "gebeta", "-o", "pits=7", "--a", "x", "--b", "y"], "unknown option"),
    (["play", "gebeta", "-o", "lap_limit", "--a", "x", "--b", "y"], "NAME=VALUE"),
    (["play", "gebeta", "--a", "x", "--b", "x"], "different names"),
    (["replay", "/nonexistent/game.txt"], "cannot read"),
    (["play", "gebeta", "--load", "/nonexistent/game.txt"], "cannot read"),
])
def test_bad_command_lines_exit_2(args, words):
    result = run(args)
    assert result.exit_code == 2
    assert words in result.output


def test_malformed_record_names_the_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text('[Variant "gebeta"]\n\nA1 A2\nZ1\n')
    result = run(["replay", str(path)])
    assert result.exit_code == 2 and "line 4" in result.output


def test_games_lists_gebeta():
    assert "gebeta" in run(["games"]).stdout


def test_a_hint_that_searched_to_the_end_says_a_forced_result_in_words():
    """The look-ahead's raw value of a won game (1,000,000 plus the margin) is said as a win
    by at least the margin, not as an estimate of +1e+06."""
    import mancalab
    from mancalab import players
    from mancalab.terminal import _value_words

    start = mancalab.variant("kalah", pits=3, seeds=2).start()
    adviser = players.player("alphabeta:depth=40", "kalah")  # to the end: not timed
    adviser.choose(start)
    assert _value_words(adviser.last_info) == " (found by force: you win by at least 4)"
    lost = mancalab.variant("kalah", pits=2, seeds=2).start()  # -2 with perfect play
    adviser.choose(lost)
    assert _value_words(adviser.last_info) == " (found by force: you lose by at least 2)"


def test_hint_switch_and_level():
    result = run(["play", "gabata", "--a", "Ann", "--b", "Computer", "--bot", "greedy"],
                 "hint classic:level=1\nhint nobody\nlevel\nlevel classic:level=2\n"
                 "switch\nquit\n")
    out = result.stdout
    assert result.exit_code == 0, out
    # the Gabata bot at level 1 from the start plays pit 3 (index), i.e. "4" (gabata.md vector 4)
    assert "Hint from classic:level=1: 4 (its estimate for you: +6)." in out
    assert "unknown player 'nobody'" in out and "level needs a player" in out
    assert "Computer now plays as classic:level=2." in out
    # after the switch the computer plays A's opening move: level 2 plays pit 1, i.e. "2"
    assert "Computer now plays A." in out and "Computer plays 2" in out


def test_perft_prints_the_spec_counts_and_refuses_a_bad_depth():
    result = runner.invoke(app, ["perft", "kalah", "--depth", "6"])
    assert result.exit_code == 0 and "23,169" in result.output and "4,685" in result.output
    result = runner.invoke(app, ["perft", "kalah", "--depth", "65"])
    assert result.exit_code == 2 and "--depth must be 0..64" in result.output
