"""Files of several games (a tournament's, an arena's) are read by every reader: replay,
review, play --load, the server's /load and its contents (issue 60)."""

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from mancalab.analysis.compete import tournament
from mancalab.cli import app
from mancalab.records import GameRecord, RecordError, contents
from mancalab.web import create_app

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A tournament's records.txt and an arena's --out file, as the commands write them."""
    folder = tmp_path_factory.mktemp("written")
    event = tournament.Tournament(["greedy", "random"], "kalah", {"pits": 3, "seeds": 2},
                                  boards=1, clock=10, seed=1, folder=folder / "event")
    event.write_results(event.run())
    arena = folder / "arena.txt"
    done = runner.invoke(app, ["arena", "greedy", "random", "--game", "gebeta", "--games", "2",
                               "--out", str(arena)])
    assert done.exit_code == 0, done.output
    return {"tournament": folder / "event" / "records.txt", "arena": arena}


@pytest.mark.parametrize("kind", ["tournament", "arena"])
def test_every_game_of_a_written_file_is_read(files, kind):
    text = files[kind].read_text()
    games = GameRecord.all_from_text(text)
    assert len(games) == 2 and all(game.state.is_over for game in games)
    assert [c["moves"] for c in contents(text)] == [len(game.moves) for game in games]
    assert GameRecord.from_text(text, 2).moves == games[1].moves
    with pytest.raises(RecordError, match="holds 2 games"):
        GameRecord.from_text(text)
    with pytest.raises(RecordError, match="no game 3"):
        GameRecord.from_text(text, 3)
    assert GameRecord.from_text(games[0].to_text() + "\n" + games[1].to_text(), 2).moves \
        == games[1].moves  # and a file of saved games put one after another


@pytest.mark.parametrize("kind", ["tournament", "arena"])
def test_replay_review_and_load_take_a_file_of_several_games(files, kind):
    path = str(files[kind])
    replayed = runner.invoke(app, ["replay", path, "--all"])
    assert replayed.exit_code == 0 and "Game 2 of 2" in replayed.output, replayed.output
    one = runner.invoke(app, ["replay", path, "--all", "--game", "2"])
    assert one.exit_code == 0 and "Game 2 of 2" not in one.output
    reviewed = runner.invoke(app, ["review", path, "--game", "1", "--time", "0.05"])
    assert reviewed.exit_code == 0 and "mark" in reviewed.output, reviewed.output
    missing = runner.invoke(app, ["replay", path, "--game", "9"])
    assert missing.exit_code == 2 and "no game 9" in missing.output
    game = GameRecord.from_text(files[kind].read_text(), 1).variant.name
    resumed = runner.invoke(app, ["play", game, "--load", path, "--game", "1"], "quit\n")
    assert resumed.exit_code == 0, resumed.output


@pytest.mark.parametrize("kind", ["tournament", "arena"])
def test_the_server_lists_and_loads_a_game_of_a_file(files, kind, tmp_path):
    text = files[kind].read_text()
    with TestClient(create_app(tmp_path / "games.sqlite3")) as client:
        listed = client.post("/api/records/contents", json={"record": text}).json()["games"]
        assert [g["number"] for g in listed] == [1, 2]
        loaded = client.post("/api/games/load", json={"record": text, "game": 2})
        assert loaded.status_code == 201, loaded.text
        assert loaded.json()["state"]["ply"] == listed[1]["moves"]
        unchosen = client.post("/api/games/load", json={"record": text})
        assert unchosen.status_code == 400 and "holds 2 games" in unchosen.json()["detail"]
