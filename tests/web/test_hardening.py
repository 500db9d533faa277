"""Regression tests for what a visitor could do to the server (issue 15): every finding that
froze it, lost a game or answered 500 is here, answered as it must be now."""

import json
import time
from collections import OrderedDict

import pytest
import mancalab
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from mancalab.variants import BUILT_IN, VARIANTS
from mancalab.records import GameRecord
from mancalab.web import create_app
from mancalab.web.rooms import Room
from mancalab.web.store import Store
from mancalab.web.thinking import Limits

from .test_api import create, move, state, wait_for

FAST = dict(create_rate="1000/minute", hint_rate="1000/minute")


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
    game = create(client, game="gebeta", mode="online", helpers=True)
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
        player(spec, "kalah").limit(0.01).choose(state)  # compiled first: not timed
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


@pytest.mark.both_stores
def test_a_game_whose_computer_is_to_move_resumes_after_a_restart(db):
    """The process thinking for the computer stopped (or died): the next process to load the
    game (a page reconnecting to it) plays the computer's turn."""
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
            first = hub.games.rooms[game["id"]]
            state(client, game)
            assert hub.games.rooms[game["id"]] is first
            assert move(client, game, game["token"], 0, 0).status_code == 200


# ----- 3. bounded resources ----------------------------------------------------------
def test_idle_players_are_freed_and_idle_games_leave_memory(db):
    with serve(db, idle_player=0.1, idle_room=0.3) as client:
        hub = client.app.state.hub
        game = create(client, game="kalah", mode="computer", bot="expert", human_seat=1)
        wait_for(client, game, game["token"], lambda v: v["ply"] >= 1 and not v["thinking"])
        deadline = time.monotonic() + 10
        while game["id"] in hub.games.rooms and time.monotonic() < deadline:
            time.sleep(0.05)
        assert game["id"] not in hub.games.rooms and not hub.computer.kept
        assert state(client, game, game["token"])["ply"] >= 1  # back from the store


def test_at_most_so_many_computer_players_are_kept(db):
    with serve(db, players_kept=2) as client:
        hub = client.app.state.hub
        games = [create(client, game="gebeta", mode="computer", bot="greedy", human_seat=1)
                 for _ in range(4)]
        for game in games:
            wait_for(client, game, game["token"], lambda v: v["ply"] >= 1 and not v["thinking"])
        assert len(hub.computer.kept) <= 2
        assert sum(room.player is not None for room in hub.games.rooms.values()) <= 2


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


# ----- round 2 (issue 41): numbers and text that are not what they seem ---------------
def _bodies(game):
    """Every field a visitor fills, as raw JSON with X where the value goes."""
    url, token = f"/api/games/{game['id']}", game["token"]
    return [("/api/games", '{"game": "kalah", "options": {"pits": X}}'),
            ("/api/games", '{"game": "kalah", "mode": "computer", "human_seat": X}'),
            ("/api/games", '{"game": "kalah", "names": [X, "B"]}'),
            ("/api/games", '{"game": "kalah", "options": {X: 4}}'),
            ("/api/games", '{"game": X}'),
            ("/api/games", '{"game": "kalah", "mode": "computer", "bot": X}'),
            (f"{url}/moves", f'{{"token": "{token}", "move": X, "ply": 0}}'),
            (f"{url}/moves", f'{{"token": "{token}", "move": 0, "ply": X}}'),
            (f"{url}/moves", '{"token": X, "move": 0}'),
            (f"{url}/setup", f'{{"token": "{token}", "seat": X, "setting": [2]}}'),
            (f"{url}/setup", f'{{"token": "{token}", "seat": 0, "setting": [X]}}'),
            (f"{url}/hint", f'{{"token": "{token}", "player": X}}'),
            ("/api/games/load", '{"record": X}')]


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400",
                                   "1" * 5000, '"\\ud800"', '"A\\udfffB"'])
def test_non_finite_numbers_and_lone_surrogates_are_a_4xx_everywhere(client, value):
    game = create(client, game="kalah", mode="online")
    for url, body in _bodies(game):
        answer = client.post(url, content=body.replace("X", value),
                             headers={"content-type": "application/json"})
        assert 400 <= answer.status_code < 500, (url, body, answer.text)
        assert answer.json()["detail"], answer.text
    assert state(client, game)["ply"] == 0  # nothing changed


def test_a_lone_surrogate_in_a_records_header_or_over_the_websocket_is_refused(client):
    gebeta = mancalab.variant("gebeta")
    record = GameRecord(gebeta, gebeta.start(), ("Almaz", "Bekele")).to_text()
    text = json.dumps({"record": record.replace("Almaz", "\ud800")})
    answer = client.post("/api/games/load", content=text,
                         headers={"content-type": "application/json"})
    assert answer.status_code == 400 and "surrogate" in answer.json()["detail"]
    game = create(client, game="kalah", mode="online")
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['token']}") as ws:
        ws.receive_json()
        for text in ('{"type": "move", "move": "\\ud800"}', '{"type": "move", "move": NaN}',
                     '{"type": "move", "move": 0, "ply": 1e400}'):
            ws.send_text(text)
            assert ws.receive_json()["type"] == "error"
    assert state(client, game)["ply"] == 0


def test_a_chunked_body_over_the_limit_gets_413(client):
    def chunks():
        for _ in range(200):
            yield b" " * 1024

    answer = client.post("/api/games", content=chunks(),
                         headers={"content-type": "application/json"})
    assert answer.status_code == 413


def test_answers_carry_the_security_headers(client):
    for url in ("/", "/api/games", "/docs"):
        headers = client.get(url).headers
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "no-referrer"
        assert "default-src 'self'" in headers["content-security-policy"]


def test_text_goes_compressed_to_a_browser_that_takes_it(client):
    """Issue 83: static files went without compression (a cold home page about 300 KB)."""
    for url in ("/", "/static/js/play.js", "/static/i18n/am.json"):
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        request = client.build_request("GET", url, headers={"Accept-Encoding": "gzip"})
        packed = client.send(request, stream=True)
        sent = sum(len(chunk) for chunk in packed.iter_raw())
        packed.close()
        assert packed.headers["content-encoding"] == "gzip"
        assert "x-frame-options" in packed.headers and sent < len(plain.content) / 2, url
    script = client.get("/static/js/play.js")  # asked again each visit, answered 304
    assert script.headers["cache-control"] == "no-cache"
    again = client.get("/static/js/play.js", headers={"If-None-Match": script.headers["etag"]})
    assert again.status_code == 304 and again.content == b""


def test_the_pages_files_are_named_by_their_content_and_kept(client):
    """Issue 83: a second visit revalidated every file (17.8 KB and 3.2 s on a 400 kbit/s,
    400 ms link). The page names its files with the version of them all; those answers are
    kept a year, and a module's imports carry the same version."""
    import re

    from mancalab.web import assets

    version = assets.version()
    page = client.get("/")
    assert page.headers["cache-control"] == "no-cache"  # the page itself is asked again
    named = re.findall(r'(?:src|href)="(/static/[^"]+)"', page.text)
    assert named and all(url.endswith(f"?v={version}") for url in named)
    main = client.get(f"/static/js/main.js?v={version}")
    assert "immutable" in main.headers["cache-control"]
    imports = re.findall(r'from "(\./[^"]+)"', main.text)
    assert imports and all(url.endswith(f".js?v={version}") for url in imports)
    texts = client.get(f"/static/i18n/fr.json?v={version}")
    assert texts.status_code == 200 and "immutable" in texts.headers["cache-control"]
    stale = client.get("/static/js/main.js?v=an-old-one")  # another version: asked again
    assert stale.headers["cache-control"] == "no-cache"
    assert client.get("/static/js/../app.py").status_code == 404
    lazy = re.findall(r'import\("(\./[^"]+)"\)', main.text)  # the pages after the home page
    assert lazy and all(url.endswith(f".js?v={version}") for url in lazy)


def test_the_page_asks_for_its_first_texts_at_once(client):
    """Issue 83: the language file and the catalogue waited for the page's modules to run
    (0.75 s of a 4.2 s first visit on a slow link). The page names the texts of the language
    it will start in (chosen before: its cookie; else the browser's), each as its own
    version."""
    import re

    def preloaded(**headers) -> list[str]:
        page = client.get("/", headers=headers)
        assert "Accept-Language" in page.headers["vary"]
        return re.findall(r'rel="preload" href="([^"?]+)', page.text)

    assert preloaded() == ["/api/games", "/static/i18n/en.json"]
    assert preloaded(**{"Accept-Language": "de-DE, fr;q=0.8"})[1] == "/static/i18n/fr.json"
    chosen = {"Accept-Language": "fr", "Cookie": "mancalab.language=am"}
    assert preloaded(**chosen)[1] == "/static/i18n/am.json"
    assert preloaded(**{"Cookie": "mancalab.language=../x"})[1] == "/static/i18n/en.json"
    first = client.get("/", headers=chosen)
    again = client.get("/", headers={**chosen, "If-None-Match": first.headers["etag"]})
    assert again.status_code == 304
    other = client.get("/", headers={"If-None-Match": first.headers["etag"]})  # English
    assert other.status_code == 200 and "i18n/en.json" in other.text
    games = client.get("/api/games")  # the catalogue: the same until the server changes
    assert "kalah" in games.json()["games"] and games.headers["cache-control"] == "no-cache"
    unchanged = client.get("/api/games", headers={"If-None-Match": games.headers["etag"]})
    assert unchanged.status_code == 304 and unchanged.content == b""


# ----- round 2: options that scale a move's work, processes, threads, queues ----------
LAP_OPTIONS = [(name, option) for name, game in VARIANTS.items() if name in BUILT_IN
               for option in game.option_specs if option in ("lap_limit", "max_laps")]
# the endless Gebeta relay: its last move goes round until the lap limit
ENDLESS = "C1 E2 F1 E2 F1 E2 D1 B2 A1 C2 B1 A2 F1 E2".split()


@pytest.mark.parametrize("game, option", LAP_OPTIONS)
def test_options_that_scale_a_moves_work_are_bounded(client, game, option):
    from mancalab.variants.common import MAX_LAPS

    for laps in (MAX_LAPS + 1, 10**9):
        answer = client.post("/api/games", json={"game": game, "options": {option: laps}})
        assert answer.status_code == 400 and f"{MAX_LAPS:,}" in answer.json()["detail"]
    record = GameRecord(mancalab.variant(game), mancalab.variant(game).start(),
                        ("A", "B")).to_text()
    record = record.replace("[A ", f'[Option "{option}=100000000"]\n[A ', 1)
    answer = client.post("/api/games/load", json={"record": record})
    assert answer.status_code == 400 and option in answer.json()["detail"]
    assert client.post("/api/games", json={"game": game, "options": {option: MAX_LAPS}}
                       ).status_code == 201


def test_the_longest_relay_allowed_does_not_hold_up_other_games(db):
    """The endless relay at the largest lap limit, played while another visitor's game is
    read again and again: every read is answered within a second."""
    import threading

    import httpx2 as httpx

    from mancalab.variants.common import MAX_LAPS

    from .conftest import serving

    state = mancalab.variant("gebeta", lap_limit=MAX_LAPS).start()
    for name in ENDLESS:  # compiled before the clock starts (a server warms up first)
        move_ = state.parse_move(name)
        state.sowing(move_)
        state = state.play(move_)
    with serving(db, Limits(**FAST)) as address, httpx.Client(base_url=address,
                                                              timeout=60) as http:
        other = http.post("/api/games", json={"game": "kalah"}).json()
        game = http.post("/api/games", json={"game": "gebeta",
                                              "options": {"lap_limit": MAX_LAPS}}).json()
        slowest, done = [0.0], threading.Event()

        def read_other():
            while not done.is_set():
                started = time.perf_counter()
                assert http.get(f"/api/games/{other['id']}").status_code == 200
                slowest[0] = max(slowest[0], time.perf_counter() - started)

        reader = threading.Thread(target=read_other)
        reader.start()
        try:
            for ply, name in enumerate(ENDLESS):
                answer = http.post(f"/api/games/{game['id']}/moves",
                                   json={"token": game["token"], "move": name, "ply": ply})
                assert answer.status_code == 200, answer.text
        finally:
            done.set()
            reader.join()
        assert answer.json()["result"] is not None  # the relay ran to the lap limit
        assert slowest[0] < 1.0, slowest[0]


def _engine_processes() -> int:
    """The example engines this test process started (the server starts them as its own
    children; the other test processes run engines of their own meanwhile)."""
    import os
    from pathlib import Path

    count = 0
    for folder in Path("/proc").glob("[0-9]*"):
        try:
            parent = int((folder / "stat").read_text().rsplit(")", 1)[1].split()[1])
            count += parent == os.getpid() and b"random_engine.py" in (
                folder / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            pass
    return count


def test_a_program_started_for_a_request_ends_with_it(db):
    from .test_engines import ENGINE

    before = _engine_processes()
    with serve(db, players={"randy": ENGINE}) as client:
        game = create(client, game="kalah", mode="computer", bot="randy", human_seat=0)
        for _ in range(3):
            answer = client.post(f"/api/games/{game['id']}/hint",
                                 json={"player": "randy", "token": game["token"]})
            assert answer.status_code == 200, answer.text
        client.post(f"/api/games/{game['id']}/end", json={"token": game["token"]})
        deadline = time.monotonic() + 5
        while _engine_processes() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _engine_processes() == before  # the game's own engine starts on its turn


def test_a_players_threads_are_capped_by_the_server(client):
    hub = client.app.state.hub
    player = hub.thinker.player("mcts:threads=64,playouts=200", "kalah")
    player.choose(mancalab.variant("kalah").start())
    assert player.last_info["threads"] == 1


def test_searches_queue_fairly_between_clients():
    import threading

    from mancalab.web.thinking import FairPool

    pool, order, gate = FairPool(1), [], threading.Event()

    def job(name):
        gate.wait(5)
        order.append(name)

    futures = [pool.submit("greedy", job, f"greedy-{i}") for i in range(5)]
    futures.append(pool.submit("other", job, "other"))
    gate.set()
    for future in futures:
        future.result(timeout=10)
    pool.shutdown()
    assert order.index("other") <= 1, order  # not behind all five of the first client's


def test_a_computer_move_that_cannot_be_saved_is_shown_and_retried(db, monkeypatch):
    import sqlite3

    with serve(db, retry_seconds=0.2) as client:
        store = client.app.state.hub.store
        real, failures = store.add_move, [0]

        def full_disk(*args):
            if failures[0] < 2:
                failures[0] += 1
                raise sqlite3.OperationalError("database or disk is full")
            return real(*args)

        monkeypatch.setattr(store, "add_move", full_disk)
        game = create(client, game="kalah", mode="computer", bot="greedy", human_seat=1)
        seen = wait_for(client, game, game["token"], lambda v: v["error"] is not None)
        assert "disk is full" in seen["error"]
        view = wait_for(client, game, game["token"], lambda v: v["ply"] >= 1)
        assert view["error"] is None and failures[0] == 2


def test_solver_tables_are_kept_within_a_memory_budget(db, monkeypatch, small_databases):
    # a fresh cache: a big database the user built (a server's preparation) is not opened
    from mancalab.analysis import solving

    monkeypatch.setattr(solving.kalah, "_SOLVERS", OrderedDict())
    with serve(db, solver_memory=64 << 20) as client:
        for pits in range(1, 7):
            game = create(client, game="kalah", options={"pits": pits, "seeds": 3})
            answer = client.post(f"/api/games/{game['id']}/analysis",
                                 json={"token": game["token"]})
            assert answer.status_code == 200, answer.text
        assert solving.kept_solver_memory() <= 64 << 20
        assert len(solving.kalah._SOLVERS) < 6
    assert solving.kalah.table_memory(48) > 64 << 20  # the server's budget ended with it


def test_the_small_things(db):
    with serve(db, create_rate="3/minute", hint_rate="2/minute") as client:
        assert client.head("/").status_code == 200 and client.head("/").content == b""
        game = create(client, game="kalah", mode="computer", bot="greedy")
        record = client.get(f"/api/games/{game['id']}/record").text
        loads = [client.post("/api/games/load", json={"record": record}) for _ in range(3)]
        assert loads[-1].status_code == 429  # creating and loading share one budget
        assert int(loads[-1].headers["retry-after"]) >= 1
        ends = [client.post(f"/api/games/{game['id']}/end", json={"token": game["token"]})
                for _ in range(3)]
        assert ends[-1].status_code == 429  # an end asks the computer's search too
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(f"/api/games/{game['id']}/ws",
                                          headers={"origin": "http://elsewhere.example"}) as ws:
                ws.receive_json()
        assert refused.value.code == 4403


# ----- round 2: connections and frames, on a real server ------------------------------
def test_a_big_websocket_frame_is_refused_by_the_protocol(db):
    import contextlib

    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    from .conftest import serving

    with serving(db, Limits(**FAST)) as address:
        import httpx2 as httpx

        game = httpx.post(f"{address}/api/games", json={"game": "kalah"}).json()
        url = address.replace("http", "ws") + f"/api/games/{game['id']}/ws"
        with connect(url, max_size=None) as socket:
            socket.recv(timeout=5)
            with pytest.raises(ConnectionClosed) as closed:
                socket.send("x" * (1 << 20))
                socket.recv(timeout=5)
            assert closed.value.rcvd is None or closed.value.rcvd.code == 1009
        with contextlib.ExitStack() as stack:
            for _ in range(Limits.client_sockets):
                stack.enter_context(connect(url)).recv(timeout=5)
            with connect(url) as refused:  # closed with its reason's code, which a page reads
                with pytest.raises(ConnectionClosed) as closed:
                    refused.recv(timeout=5)
                assert closed.value.rcvd.code == 4429
        with connect(url) as socket:  # the others closed: room again
            assert json.loads(socket.recv(timeout=5))["type"] == "state"


def test_connections_from_one_address_and_half_sent_requests_are_bounded(db):
    import socket

    import httpx2 as httpx

    from .conftest import serving

    limits = Limits(**FAST, client_connections=8, head_seconds=1.0)
    with serving(db, limits) as address:
        host, port = address.removeprefix("http://").split(":")
        idle = [socket.create_connection((host, int(port))) for _ in range(12)]
        try:
            for held in idle:
                held.settimeout(5)
                held.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
            closed = 0
            for held in idle:  # the ones over the cap at once (a 503), the rest after a
                try:           # second (a 408), then closed
                    while held.recv(1024):
                        pass
                    closed += 1
                except ConnectionResetError:
                    closed += 1
                except TimeoutError:
                    pass
            assert closed == len(idle)
        finally:
            for held in idle:
                held.close()
        assert httpx.get(f"{address}/api/games").status_code == 200


def test_a_file_of_an_older_version_is_brought_up_to_date_and_its_clocks_go_on(tmp_path):
    """A games file made before the schema had versions (its facts only in the JSON room):
    opened, it gets every step (columns filled from the rooms), and a clocked game whose
    time ran out while the server was stopped ends on time at the next start."""
    import json
    import sqlite3
    import time

    from mancalab.web import store as stores
    from mancalab.web.clocks import Clock

    path = tmp_path / "old.sqlite3"
    room = Room.create("kalah", {}, "online", names=["Ama", "Kofi"])
    room.record.push(2)
    room.record.push(0)
    room.record.push(7)
    room.accounts, room.public = ["Ama", None], True
    room.clock = Clock(5, 0)
    room.clock.running, room.clock.since = 0, time.time() - 60  # ran out long ago
    stored = room.to_stored()
    old = sqlite3.connect(path)
    old.executescript(stores.BASE.format(REAL="REAL", NAME="TEXT COLLATE NOCASE"))
    old.execute("INSERT INTO games VALUES (?, ?, ?, ?)",
                (stored.id, stored.created, stored.start_record, json.dumps(stored.room)))
    old.executemany("INSERT INTO moves VALUES (?, ?, ?)",
                    [(room.id, ply, move) for ply, move in enumerate(room.record.moves)])
    old.commit()
    old.close()
    store = Store(path)
    assert store.execute("SELECT version FROM schema_version").fetchone()[0] == \
        len(stores.STEPS)
    assert store.games_of("Ama") == [(room.id, 0, room.tokens[0])]
    assert store.due_games() == [room.id]
    store.close()
    with serve(path) as client:
        view = client.get(f"/api/games/{room.id}").json()
        assert view["result"]["termination"] == "time" and view["ply"] == 3
