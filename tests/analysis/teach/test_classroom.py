"""The FairKalah classroom kit: the template's players in a tournament with a level, the
standings and the results page, as docs/classroom.md walks through it."""

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

import mancalab
from mancalab.cli import app
from mancalab.players import player, players_in

TEMPLATE = Path(__file__).parents[3] / "docs" / "examples" / "student_kalah.py"


def test_the_templates_players_play_legal_moves_within_their_clock():
    start = mancalab.variant("kalah").start()
    for spec in (f"{TEMPLATE}:StudentPlayer", f"{TEMPLATE}:DeeperStudent"):
        bot = player(spec)
        state = start
        for _ in range(6):
            bot.clock = (60.0, 60.0)
            move = bot.choose(state)
            assert move in state.legal_moves()
            state = state.play(move)


def test_a_tournament_of_a_folder_of_players_and_a_level_writes_a_results_page(tmp_path):
    folder = tmp_path / "players"
    folder.mkdir()
    shutil.copy(TEMPLATE, folder / "ann.py")
    (folder / "notes.py").write_text("x = 1\n")  # a file without a player is passed over
    assert [spec.rpartition(":")[2] for spec in players_in(folder)] == [
        "StudentPlayer", "DeeperStudent"]  # in the file's order
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["tournament", "--folder", str(folder), "easy",
                                      "--boards", "1", "--clock", "20", "--out", str(out)],
                                env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text())
    assert len(results["games"]) == 6  # every ordered pair of 3 players on one board
    assert {row["player"].rpartition(":")[2] for row in results["standings"]} == {
        "StudentPlayer", "DeeperStudent", "easy"}
    page = (out / "results.html").read_text()
    for name in ("StudentPlayer (ann.py)", "DeeperStudent (ann.py)", "easy", "95% interval"):
        assert name in page
    assert page.count('<details class="replay"') == 6
    games = json.loads(re.search(r"const GAMES = (\[.*?\]);\n", page).group(1))
    records = (out / "records.txt").read_text()
    for game, entry in zip(games, results["games"]):
        assert len(game["cells"]) == entry["plies"] + 1 == len(game["moves"]) + 1
    assert records.count("[Variant") == 6
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = CliRunner().invoke(app, ["tournament", "--folder", str(empty), "easy"])
    assert refused.exit_code == 2 and "no player class" in refused.output
