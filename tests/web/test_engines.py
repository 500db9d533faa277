"""Engines and player files in the server: only when the operator names them
(``mancalab serve --player NAME=SPEC``); then a person plays them in the browser's API."""

import sys
from pathlib import Path

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from mancalab.cli import app
from mancalab.web import create_app
from mancalab.web.thinking import Limits

from .test_api import create, move, wait_for

EXAMPLES = Path(__file__).parents[2] / "docs" / "examples"
ENGINE = f"engine:cmd={sys.executable} {EXAMPLES / 'random_engine.py'}"


def test_a_named_engine_plays_a_person(tmp_path):
    limits = Limits(players={"randy": ENGINE})
    with TestClient(create_app(tmp_path / "games.sqlite3", limits)) as client:
        assert "randy" in client.get("/api/games").json()["players"]
        assert "engine" not in client.get("/api/games").json()["players"]
        game = create(client, game="kalah", mode="computer", bot="randy", human_seat=0)
        token = game["token"]
        for _ in range(3):  # the engine answers move after move (one program, kept)
            view = wait_for(client, game, token, lambda v: v["to_move"] == 0 and not
                            v["thinking"] or v["result"])
            if view["result"]:
                break
            legal = view["legal"][0]
            assert move(client, game, token, legal, view["ply"]).status_code == 200
        assert view["ply"] >= 2 and not view.get("error")


def test_a_visitor_cannot_run_a_program_or_a_file(tmp_path):
    """The refusal names the operator whatever the spec's length (a long path included)."""
    long_path = "/" + "/".join(["a-rather-long-folder-name"] * 12)
    specs = ["engine:cmd=rm -rf /", "my_player.py:TwoPly", " Engine:cmd=x",
             f"engine:cmd=python3 {long_path}/engine.py", f"{long_path}/player.py:Bot"]
    assert any(len(spec) > 200 for spec in specs)
    with TestClient(create_app(tmp_path / "games.sqlite3", Limits())) as client:
        game = create(client, game="kalah", mode="computer", bot="random")
        for spec in specs:
            for response in (
                    client.post("/api/games", json={"game": "kalah", "mode": "computer",
                                                    "bot": spec}),
                    client.post(f"/api/games/{game['id']}/hint",
                                json={"token": game["token"], "player": spec}),
                    client.post(f"/api/games/{game['id']}/computer",
                                json={"token": game["token"], "bot": spec})):
                assert response.status_code in (400, 422), response.text
                assert "operator" in response.text, response.text
        long_level = client.post("/api/games", json={"game": "kalah", "bot": "x" * 101})
        assert long_level.status_code == 422 and "100 characters" in long_level.text


def test_serve_checks_its_named_players():
    runner = CliRunner()
    for pair, words in (("nameless", "NAME=SPEC"), ("x=nobody", "unknown player"),
                        ("x=missing.py:Bot", "no player file")):
        result = runner.invoke(app, ["serve", "--player", pair, "--port", "1"])
        assert result.exit_code == 2 and words in result.output, result.output
