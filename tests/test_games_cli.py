"""Every game from the terminal, as a new user would try it: a whole game against the
computer, the game's notation, its options, records that load and replay."""

import pytest
from typer.testing import CliRunner

import mancalab
from mancalab.cli import app
from mancalab.records import GameRecord

runner = CliRunner()

HOLES = {
    "gebeta": "ABCDEF",
    "kalah": [str(k) for k in range(1, 7)],
    "gabata": [str(k) for k in range(1, 7)],
    "urubugu": [str(k) for k in range(1, 17)],
    "gabata3": [c + r for r in "123" for c in "ABCDEF"],
}


@pytest.mark.parametrize("game, options", [
    ("kalah", []), ("kalah", ["-o", "board=37"]), ("kalah", ["-o", "empty_capture=false"]),
    ("gabata", []), ("urubugu", []), ("gabata3", ["-o", "rounds=single"]),
])
def test_a_whole_game_against_the_computer(tmp_path, game, options):
    # the person types every hole in turn; the illegal ones are refused with a message
    typed = ("\n" if game == "urubugu" else "") + "\n".join(HOLES[game]) + "\n"
    result = runner.invoke(app, ["play", game, "--a", "Ann", "--b", "Computer",
                                 "--bot", "random:seed=3", *options], typed * 200)
    assert result.exit_code == 0, result.output
    assert "Game over" in result.stdout and "Traceback" not in result.stdout


@pytest.mark.parametrize("game", list(HOLES))
def test_bad_moves_get_a_clear_message(game):
    setup = "\n\n" if game == "urubugu" else ""  # keep the default settings
    result = runner.invoke(app, ["play", game, "--a", "Ann", "--b", "Bo"],
                           setup + "x9\n0\nquit\n")
    assert result.exit_code == 0
    assert result.stdout.count("type a") >= 2 or "no pit" in result.stdout \
        or "no hole" in result.stdout
    assert "Goodbye" in result.stdout


def test_urubugu_setup_step_for_both_players(tmp_path):
    path = tmp_path / "u.txt"
    text = ("y\n1 2 3\n" + " ".join(["4"] * 8 + ["0"] * 8) + "\n"   # A: a wrong then a good one
            "y\n" + " ".join(["2"] * 14 + ["3", "1"]) + "\n"      # B
            f"save {path}\nquit\n")
    result = runner.invoke(app, ["play", "urubugu", "--a", "Ann", "--b", "Bo"], text)
    assert "has 3 holes, must have 16" in result.stdout
    start = GameRecord.load(path).start
    assert start.cells[24:32] == (4,) * 8 and start.cells[16:24] == (0,) * 8
    assert start.cells[7] == 2 and start.cells[15] == 1 and start.cells[14] == 3


def test_kalah_random_board_is_recorded(tmp_path):
    path = tmp_path / "k.txt"
    runner.invoke(app, ["play", "kalah", "--a", "Ann", "--b", "Bo", "-o", "board=random"],
                  f"save {path}\nquit\n")
    record = GameRecord.load(path)
    number = record.variant.options["board"]
    assert 1 <= number <= 254 and f'[Option "board={number}"]' in path.read_text()


@pytest.mark.parametrize("game", list(HOLES))
def test_records_round_trip_and_replay(tmp_path, game):
    variant = mancalab.variant(game, **({"rounds": "single"} if game == "gabata3" else {}))
    record = GameRecord.new(variant, ("Ann", "Bo"))
    player = mancalab.player("random:seed=5")
    while record.state.outcome is None and len(record.moves) < 400:
        record.push(player.choose(record.state))
    path = tmp_path / "g.txt"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.moves == record.moves and loaded.state == record.state
    result = runner.invoke(app, ["replay", str(path), "--all"])
    assert result.exit_code == 0 and "Traceback" not in result.stdout


def test_games_lists_all_five():
    out = runner.invoke(app, ["games"]).stdout
    for game in HOLES:
        assert game in out


def test_tables_fit_80_columns_without_cutting_a_word_or_a_number(monkeypatch):
    from mancalab.analysis.stats.tree import tree_stats

    monkeypatch.setenv("COLUMNS", "80")
    games = CliRunner().invoke(app, ["games"])
    tree = CliRunner().invoke(app, ["tree", "gebeta", "--depth", "10"])
    for result in (games, tree):
        assert result.exit_code == 0, result.output
        assert "…" not in result.output, result.output
        assert max(len(line) for line in result.output.splitlines()) <= 80
    words = set(games.output.replace("│", " ").split())
    for name in mancalab.variants():
        for option, spec in mancalab.variant(name).option_specs.items():
            assert {option, str(spec.default)} | set(spec.rule.split()) <= words, option
    figures = set(tree.output.replace("│", " ").split())
    for row in tree_stats("gebeta", 10):
        assert {f"{row.turns:,}", f"{row.agency:,}", f"{row.games:,}", f"{row.a_wins:,}",
                f"{row.b_wins:,}", f"{row.draws:,}", f"{row.timeouts:,}"} <= figures, row
