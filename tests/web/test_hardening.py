"""Regression tests for what a visitor could do to the server (issue 15): every finding that
froze it, lost a game or answered 500 is here, answered as it must be now."""

import json
import time

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from mancalab.records import GameRecord
from mancalab.web import create_app
from mancalab.web.rooms import Room
from mancalab.web.store import Store
from mancalab.web.thinking import Limits

from .test_api import create, move, state, wait_for

FAST = dict(create_rate="1000/minute", hint_rate="1000/minute")


@pytest.fixture
def db(tmp_path):
    return tmp_path / "games.sqlite3"


def serve(db, **limits):
    return TestClient(create_app(db, Limits(**{**FAST, **limits})))


@pytest.fixture
def client(db):
    with serve(db, max_think=3) as test_client:
        yield test_client


# ----- 1. thinking never blocks the server -------------------------------------------
@pytest.mark.parametrize("spec", ["alphabeta:time=100000", "mcts:time=inf", "mcts:time=1e308",
                                  "mcts:playouts=99999999999999999999999",
                                  "alphabeta:clock=1e308", "mcts:time=nan"])
def test_a_player_beyond_the_servers_limits_is_refused_everywhere(client, spec):
    game = create(client, game="kalah", mode="computer", bot="greedy")
    url = f"/api/games/{game['id']}"
    answers = [client.post("/api/games", json={"game": "kalah", "mode": "computer", "bot": spec}),
               client.post(f"{url}/hint", json={"player": spec, "token": game["token"]}),
               client.post(f"{url}/computer", json={"bot": spec, "token": game["token"]})]
    for answer in answers:
        assert answer.status_code == 400, (spec, answer.text)
        assert "time" in answer.json()["detail"] or "playouts" in answer.json()["detail"] \
            or "clock" in answer.json()["detail"]
    assert state(client, game)["bot"] == "greedy"


def test_a_hint_needs_the_seats_token(client):
    game = create(client, game="gebeta", mode="online")
    url = f"/api/games/{game['id']}/hint"
    assert client.post(url, json={"player": "greedy"}).status_code == 403
    assert client.post(url, json={"player": "greedy", "token": "wrong"}).status_code == 403
    assert client.post(url, json={"player": "greedy", "token": game["token"]}).status_code == 200


def test_the_server_answers_while_the_computer_thinks(client):
    # alpha-beta thinks 2 s in a search thread with the interpreter lock released: requests
    # made meanwhile are answered while it still thinks
    game = create(client, game="kalah", mode="computer", bot="alphabeta:time=2", human_seat=1)
    view = wait_for(client, game, game["token"], lambda v: v["thinking"], seconds=10)
    other = create(client, game="gebeta")
    assert move(client, other, other["token"], 0, 0).status_code == 200
    assert state(client, game)["thinking"] is True  # answered during the search
    wait_for(client, game, game["token"], lambda v: v["ply"] >= 1 and not v["thinking"])
    assert view["bot"] == "alphabeta:time=2"


def test_one_game_has_at_most_one_search(client):
    game = create(client, game="kalah", mode="computer", bot="alphabeta:time=2", human_seat=1)
    wait_for(client, game, game["token"], lambda v: v["thinking"], seconds=10)
    answer = client.post(f"/api/games/{game['id']}/hint",
                         json={"player": "greedy", "token": game["token"]})
    assert answer.status_code == 429 and "already thinking" in answer.json()["detail"]


def test_every_player_keeps_to_the_servers_cap():
    from mancalab import player, variant

    state = variant("kalah").start()
    for spec in ["alphabeta:depth=40", "mcts:playouts=100000000", "classic:level=8"]:
        capped = player(spec, "kalah").limit(0.3)
        started = time.perf_counter()
        assert capped.choose(state) in state.legal_moves()
        assert time.perf_counter() - started < 3, spec  # far below the uncapped minutes


# ----- 2. no game is lost ------------------------------------------------------------
def test_a_loaded_record_survives_a_restart(db):
    with serve(db) as client:
        game = create(client, game="gabata")
        for ply in range(4):
            view = move(client, game, game["token"], state(client, game)["legal"][0], ply).json()
        record = client.get(f"/api/games/{game['id']}/record").text
        loaded = client.post("/api/games/load", json={"record": record}).json()
    with serve(db) as client:
        again = state(client, loaded, loaded["token"])
        assert again["ply"] == 4 and again["cells"] == view["cells"]
        assert move(client, loaded, loaded["token"], again["legal"][0], 4).status_code == 200


@pytest.mark.parametrize("name", ["Alice\nBob", "Al\u2028ice", "Tab\there", "x" * 41, " ",
                                  "Zero\u200bwidth"])
def test_names_that_would_break_a_record_are_refused(client, name):
    answer = client.post("/api/games", json={"game": "kalah", "names": [name, "Bob"]})
    assert answer.status_code == 400 and "name" in answer.json()["detail"]


def test_a_record_with_a_broken_name_is_refused_by_line():
    text = '[Variant "kalah"]\n[A "Al\u2028ice"]\n\n*\n'
    with pytest.raises(Exception, match="line 2"):
        GameRecord.from_text(text)


def test_a_game_whose_computer_is_to_move_resumes_after_a_restart(db):
    store = Store(db)
    room = Room.create("kalah", {}, "computer", bot="greedy", human_seat=1)
    store.create(room.to_stored())  # stored as a server that stopped while it thought
    store.close()
    with serve(db) as client:
        view = wait_for(client, {"id": room.id}, room.tokens[1], lambda v: v["ply"] >= 1)
        assert view["moves"][0]["seat"] == 0


def test_a_computer_move_that_fails_is_shown_not_hung(client, monkeypatch):
    from mancalab.players.greedy import GreedyPlayer

    def broken(self, state):
        raise RuntimeError("out of ideas")

    monkeypatch.setattr(GreedyPlayer, "choose", broken)
    game = create(client, game="kalah", mode="computer", bot="greedy", human_seat=1)
    view = wait_for(client, game, game["token"], lambda v: v["error"] is not None)
    assert "out of ideas" in view["error"] and not view["thinking"]
    monkeypatch.undo()
    url = f"/api/games/{game['id']}/computer"
    assert client.post(url, json={"token": game["token"], "bot": "random"}).status_code == 200
    view = wait_for(client, game, game["token"], lambda v: v["ply"] >= 1)
    assert view["error"] is None


def test_a_game_is_loaded_once(db):
    with serve(db) as client:
        game = create(client, game="kalah")
    with serve(db) as client:
        hub = client.app.state.hub
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as socket:
            socket.receive_json()
            first = hub.rooms[game["id"]]
            state(client, game)
            assert hub.rooms[game["id"]] is first
            assert move(client, game, game["token"], 0, 0).status_code == 200


# ----- 3. bounded resources ----------------------------------------------------------
def test_idle_players_are_freed_and_idle_games_leave_memory(db):
    with serve(db, idle_player=0.1, idle_room=0.3) as client:
        hub = client.app.state.hub
        game = create(client, game="kalah", mode="computer", bot="expert", human_seat=1)
        wait_for(client, game, game["token"], lambda v: v["ply"] >= 1 and not v["thinking"])
        deadline = time.monotonic() + 10
        while game["id"] in hub.rooms and time.monotonic() < deadline:
            time.sleep(0.05)
        assert game["id"] not in hub.rooms and not hub.kept
        assert state(client, game, game["token"])["ply"] >= 1  # back from the store


def test_at_most_so_many_computer_players_are_kept(db):
    with serve(db, players_kept=2) as client:
        hub = client.app.state.hub
        games = [create(client, game="gebeta", mode="computer", bot="greedy", human_seat=1)
                 for _ in range(4)]
        for game in games:
            wait_for(client, game, game["token"], lambda v: v["ply"] >= 1 and not v["thinking"])
        assert len(hub.kept) <= 2
        assert sum(room.player is not None for room in hub.rooms.values()) <= 2


def test_a_huge_body_is_refused_before_it_is_read(client):
    body = json.dumps({"game": "kalah", "names": ["A", "B" * 300_000]})
    answer = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 413
    many = {f"o{i}": 1 for i in range(17)}
    assert client.post("/api/games", json={"game": "kalah", "options": many}).status_code == 422


def test_creating_games_and_hints_are_rate_limited(db):
    with serve(db, create_rate="3/minute", hint_rate="2/minute") as client:
        games = [client.post("/api/games", json={"game": "kalah"}) for _ in range(4)]
        assert [g.status_code for g in games] == [201, 201, 201, 429]
        assert "too many" in games[-1].json()["detail"]
        game = games[0].json()
        hints = [client.post(f"/api/games/{game['id']}/hint",
                             json={"player": "greedy", "token": game["token"]})
                 for _ in range(3)]
        assert [h.status_code for h in hints] == [200, 200, 429]


def test_watchers_are_capped(db):
    with serve(db, watchers=2) as client:
        game = create(client, game="kalah")
        url = f"/api/games/{game['id']}/ws"
        with client.websocket_connect(url) as one, client.websocket_connect(url) as two:
            one.receive_json(), two.receive_json()
            with pytest.raises(WebSocketDisconnect) as refused:
                with client.websocket_connect(url) as three:
                    three.receive_json()
            assert refused.value.code == 4429


def test_a_broadcast_builds_the_view_once(client, monkeypatch):
    game = create(client, game="kalah", mode="online")
    url = f"/api/games/{game['id']}/ws"
    calls = []
    original = Room.shared_view
    monkeypatch.setattr(Room, "shared_view", lambda self: calls.append(1) or original(self))
    sockets = [client.websocket_connect(url) for _ in range(5)]
    for socket in sockets:
        socket.__enter__().receive_json()
    calls.clear()
    assert move(client, game, game["token"], 0, 0).status_code == 200
    for socket in sockets:
        assert socket.receive_json()["state"]["ply"] == 1
        socket.__exit__(None, None, None)
    assert len(calls) == 2  # the mover's answer, and one for all five watchers


# ----- 4. malformed requests: a 4xx with a message, never a 500 -----------------------
@pytest.mark.parametrize("body", [
    {"game": "kalah", "options": {"pits": 3.7}}, {"game": "kalah", "options": {"pits": True}},
    {"game": "kalah", "options": {"seeds": 10**30}}, {"game": "kalah", "human_seat": -1},
    {"game": "kalah", "human_seat": 5}, {"game": "kalah", "names": ["Solo"]},
    {"game": "kalah", "human_seat": 1.0}, {"game": "kalah", "automove": "yes"},
    {"game": "kalah", "options": {"x" * 100: 1}}, {"game": "kalah", "unknown": 1}])
def test_malformed_new_games_get_a_4xx(client, body):
    answer = client.post("/api/games", json=body)
    assert 400 <= answer.status_code < 500, (body, answer.text)


def test_unknown_options_and_huge_numbers_say_what_is_wrong(client):
    answer = client.post("/api/games", json={"game": "kalah", "options": {"colour": 3}})
    assert answer.status_code == 400 and "colour" in answer.json()["detail"]
    answer = client.post("/api/games", json={"game": "gebeta",
                                             "options": {"lap_limit": "9" * 30}})
    assert answer.status_code == 400 and "lap_limit" in answer.json()["detail"]


def test_moves_are_whole_numbers_over_http_and_the_websocket(client):
    game = create(client, game="kalah", mode="online")
    assert move(client, game, game["token"], 2.7).status_code == 422
    assert move(client, game, game["token"], True).status_code == 422
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['token']}") as ws:
        ws.receive_json()
        for bad in ['{"type": "move", "move": 2.7}', '{"type": "move", "move": Infinity}',
                    '{"type": "move", "move": true}', "[" * 100_000, '{"type": "move", "ply": -1,'
                    ' "move": 0}', "x" * 5000]:
            ws.send_text(bad)
            assert ws.receive_json()["type"] == "error"
        ws.send_bytes(b'{"type": "move", "move": 0}')
        assert ws.receive_json()["type"] == "error"
        ws.send_json({"type": "move", "move": 0, "ply": 0})  # the socket is still open
        assert ws.receive_json() == {"type": "ack", "move": 0, "ply": 1}
    assert state(client, game)["ply"] == 1


def test_a_bad_urubugu_seat_is_a_4xx(client):
    game = create(client, game="urubugu", mode="online", setup=True)
    url = f"/api/games/{game['id']}/setup"
    for seat in (5, -1, True):
        answer = client.post(url, json={"token": game["token"], "seat": seat,
                                        "setting": [2] * 16})
        assert answer.status_code == 422


def test_the_api_page_works_offline(client):
    import re

    page = client.get("/docs").text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets and all(url.startswith("/") for url in assets)  # nothing from elsewhere
    assert all(client.get(url).status_code == 200 for url in assets)
