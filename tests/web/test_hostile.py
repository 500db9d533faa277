"""The server's connections under a hostile visitor (issue 59): slow bodies are cut, a few
addresses cannot fill the server, an IPv6 /64 is one client, and forwarded addresses are
believed only from a named proxy."""

import json
import socket
import time

import pytest

from mancalab.web.clients import admits, client_key
from mancalab.web.thinking import Limits

from .conftest import serving

FAST = dict(create_rate="1000/minute", hint_rate="1000/minute")


def _open(address: str, source: str = "127.0.0.1") -> socket.socket:
    host, port = address.removeprefix("http://").split(":")
    held = socket.create_connection((host, int(port)), timeout=10, source_address=(source, 0))
    return held


def _answer(held: socket.socket) -> bytes:
    """Everything the server sends until it closes (b"" for a bare close)."""
    chunks = []
    try:
        while chunk := held.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def _post_head(length: int) -> bytes:
    return (f"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {length}\r\n\r\n").encode()


def test_an_ipv6_64_is_one_client_and_an_ipv4_address_is_itself():
    assert client_key("2001:db8:1:2::7") == client_key("2001:db8:1:2:ffff::1") \
        == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::7") != client_key("2001:db8:1:2::7")
    assert client_key("203.0.113.9") == "203.0.113.9" == client_key("::ffff:203.0.113.9")
    assert client_key("testclient") == "testclient" and client_key(None) is None


def test_the_last_quarter_is_kept_for_clients_holding_few():
    assert admits(0, 0, 100, 32, 4) and not admits(32, 40, 100, 32, 4)
    assert admits(10, 74, 100, 32, 4) and not admits(10, 75, 100, 32, 4)
    assert admits(3, 99, 100, 32, 4) and not admits(0, 100, 100, 32, 4)


def test_a_body_sent_a_byte_at_a_time_is_cut(db):
    with serving(db, Limits(**FAST)) as address:
        held = _open(address)
        held.sendall(_post_head(100_000))
        started = time.monotonic()
        for _ in range(20):  # a byte every half second: far under the floor rate
            try:
                held.sendall(b" ")
            except OSError:
                break
            time.sleep(0.5)
            held.settimeout(0.01)
            try:
                if held.recv(65536, socket.MSG_PEEK) is not None:
                    break
            except (TimeoutError, BlockingIOError):
                pass
        held.settimeout(10)
        answer = _answer(held)
        held.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer
        assert time.monotonic() - started < 5


def test_a_body_at_the_floor_rate_still_has_a_deadline(db):
    with serving(db, Limits(**FAST, body_seconds=2.0, body_rate=10)) as address:
        held = _open(address)
        held.sendall(_post_head(10_000))
        started = time.monotonic()
        with pytest.raises(OSError):
            for _ in range(100):  # 40 bytes a second: over the floor, never done
                held.sendall(b" " * 4)
                time.sleep(0.1)
        assert time.monotonic() - started < 6
        held.close()


def _pipelined_reader_that_never_reads(address: str, requests: int = 30) -> socket.socket:
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    host, port = address.removeprefix("http://").split(":")
    held.connect((host, int(port)))
    held.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * requests)
    return held


def test_a_client_that_never_reads_its_answers_is_cut_and_uncounted(db):
    from mancalab.web.serving import GuardedProtocol

    with serving(db, Limits(**FAST, write_seconds=3.0)) as address:
        held = [_pipelined_reader_that_never_reads(address) for _ in range(4)]
        time.sleep(1.0)
        assert GuardedProtocol.open_total >= 4  # counted while their answers wait
        started = time.monotonic()
        while GuardedProtocol.open_total and time.monotonic() - started < 15:
            time.sleep(0.2)
        assert GuardedProtocol.open_total == 0, "a reader that never reads is still counted"
        assert time.monotonic() - started < 6
        for one in held:
            one.close()


def test_a_client_reading_slowly_but_steadily_gets_its_answers(db):
    with serving(db, Limits(**FAST, write_seconds=20.0, write_rate=1024)) as address:
        held = _pipelined_reader_that_never_reads(address, requests=2)
        held.settimeout(10)
        answers = b""
        while answers.count(b"HTTP/1.1 200") < 2 or not answers.rstrip().endswith(b"}"):
            chunk = held.recv(32768)  # a few KiB every 0.05 s: behind, over the floor rate
            assert chunk, "the server cut a client that reads"
            answers += chunk
            time.sleep(0.05)
        held.close()
        assert answers.count(b"HTTP/1.1 200") == 2


def test_a_body_in_pieces_within_the_rate_is_answered(db):
    import json

    with serving(db, Limits(**FAST)) as address:
        held = _open(address)
        body = json.dumps({"game": "kalah"}).encode()
        held.sendall(_post_head(len(body)) + body[:5])
        time.sleep(0.3)
        held.sendall(body[5:])
        held.settimeout(30)
        head = held.recv(65536)
        held.close()
        assert head.startswith(b"HTTP/1.1 201"), head


def test_a_few_addresses_cannot_take_the_last_quarter(db):
    import httpx2 as httpx

    limits = Limits(**FAST, connections=8, client_connections=8, share_connections=2,
                    head_seconds=30)
    with serving(db, limits) as address:
        held = [_open(address) for _ in range(6)]  # three quarters, from one address
        for one in held:
            one.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")  # stalled
        time.sleep(0.3)
        refused = _open(address)
        refused.settimeout(10)
        assert _answer(refused).startswith(b"HTTP/1.1 503")
        refused.close()
        other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        assert other.get(f"{address}/api/games").status_code == 200
        for one in held:
            one.close()


def test_forwarded_addresses_are_believed_only_from_a_named_proxy(db):
    import httpx2 as httpx

    for proxies, expected in (("", 429), ("127.0.0.1", 201)):
        limits = Limits(create_rate="2/minute", hint_rate="60/minute",
                        forwarded_allow_ips=proxies)
        with serving(db, limits) as address:
            statuses = [httpx.post(f"{address}/api/games", json={"game": "kalah"},
                                   headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code
                        for i in range(3)]
        assert statuses[-1] == expected, (proxies, statuses)


def test_a_named_proxy_that_is_not_an_address_is_refused():
    from mancalab.core import MancalabError

    with pytest.raises(MancalabError, match="not an address"):
        Limits(forwarded_allow_ips="127.0.0.1, my proxy").check()


def test_an_allowance_refills_over_its_period():
    from mancalab.web.clients import Allowance

    allowance = Allowance(100, 3600)
    assert allowance.take("a", 60, now=0) == 0 and allowance.take("b", 100, now=0) == 0
    assert allowance.take("a", 60, now=0) == pytest.approx(20 * 36)  # 20 short: 12 minutes
    assert allowance.take("a", 60, now=20 * 36) == 0
    assert allowance.take("a", 101, now=10**6) == float("inf")
    assert allowance.wait("b", 50, now=0) == pytest.approx(50 * 36)  # a look spends nothing
    assert allowance.wait("b", 50, now=0) == pytest.approx(50 * 36)


def _long_record(moves: int, pits: int = 12, seeds: int = 20) -> str:
    import random

    import mancalab
    from mancalab.records import GameRecord

    rng = random.Random(1)
    record = GameRecord.new(mancalab.variant("kalah", pits=pits, seeds=seeds))
    while len(record.moves) < moves and not record.state.is_over:
        record.push(rng.choice(record.state.legal_moves()))
    return record.to_text()


def test_loaded_records_are_charged_by_their_moves(db):
    from fastapi.testclient import TestClient

    from mancalab.web import create_app

    text = _long_record(150)
    with TestClient(create_app(db, Limits(**FAST, load_moves=400))) as client:
        statuses = [client.post("/api/games/load", json={"record": text}).status_code
                    for _ in range(3)]
        assert statuses == [201, 201, 429]
        refused = client.post("/api/games/load", json={"record": text}).json()["detail"]
        assert "400 moves of loaded records a client in an hour" in refused
        assert client.post("/api/games", json={"game": "kalah"}).status_code == 201
    from mancalab.records import moves_at_most

    with TestClient(create_app(db, Limits(**FAST, load_moves=1000, client_games=2))) as client:
        assert client.post("/api/games/load", json={"record": text}).status_code == 201
        assert client.post("/api/games/load", json={"record": text}).status_code == 201
        refused = client.post("/api/games/load", json={"record": text})  # games, not moves
        assert refused.status_code == 429 and "new games" in refused.json()["detail"]
        # the refused load spent none of its moves: they are where the two loads left them
        left = 1000 - 2 * moves_at_most(text)
        assert client.app.state.hub.allowances.moves_loaded.wait("testclient", left) == 0


def test_games_per_client_and_the_disk_are_bounded(db):
    from fastapi.testclient import TestClient

    from mancalab.web import create_app

    with TestClient(create_app(db, Limits(**FAST, client_games=2))) as client:
        statuses = [client.post("/api/games", json={"game": "kalah"}).status_code
                    for _ in range(3)]
        assert statuses == [201, 201, 429]
    with TestClient(create_app(db, Limits(**FAST, db_bytes=1))) as client:
        full = client.post("/api/games", json={"game": "kalah"})
        assert full.status_code == 507 and "storage" in full.json()["detail"]


def test_a_loaded_record_costs_its_moves_not_its_positions(db):
    import tracemalloc

    from mancalab.records import GameRecord

    text = _long_record(2000, pits=30, seeds=100)  # the board
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        record = GameRecord.from_text(text)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(record.moves) >= 1000
    # the positions' arrays were ~1.3 KB a move; the moves and a position in 32 are far less
    assert held < 300 * len(record.moves), held


def test_a_flood_of_websocket_messages_closes_the_socket(db):
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from mancalab.web import create_app
    from mancalab.web.routes import live as app

    with TestClient(create_app(db, Limits(**FAST))) as client:
        game = client.post("/api/games", json={"game": "kalah"}).json()
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['token']}") as ws:
            ws.receive_json()
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(app.WS_MESSAGES + 5):
                    ws.send_text('{"type": "move", "move": 99}')
                    assert ws.receive_json()["type"] == "error"
            assert closed.value.code == 1008


def test_the_websocket_cap_holds_in_any_window_as_documented(db, monkeypatch):
    """Issue 82: the cap was a token bucket (109 messages in 10.1 s kept the socket while the
    documentation said 60 in 10 s close it). Now the (N+1)th message within the window
    closes it, however the messages are spaced."""
    from fastapi.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

    from mancalab.web import create_app
    from mancalab.web.routes import live

    monkeypatch.setattr(live, "WS_MESSAGES", 5)
    monkeypatch.setattr(live, "WS_SECONDS", 2.0)
    with TestClient(create_app(db, Limits(**FAST))) as client:
        game = client.post("/api/games", json={"game": "kalah"}).json()
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['token']}") as ws:
            ws.receive_json()
            sent = 0
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(8):  # 8 in 1.4 s: a bucket of 5 refilled 2.5 a second passes
                    ws.send_text('{"type": "move", "move": 99}')
                    assert ws.receive_json()["type"] == "error"
                    sent += 1
                    time.sleep(0.2)
            assert closed.value.code == 1008 and sent == 5


def closing_codes(*sockets) -> list[int | None]:
    """How each socket was closed within a second of silence: its close code, or None when
    it is still open."""
    from websockets.exceptions import ConnectionClosed

    codes = []
    for follower in sockets:
        try:
            while True:
                follower.recv(timeout=1)
        except ConnectionClosed as closed:
            codes.append(closed.rcvd.code)
        except TimeoutError:
            codes.append(None)
    return codes


def test_a_players_socket_is_admitted_before_spectators(db):
    """Issue 82: 130 addresses x 4 idle sockets filled every slot and a new game's own
    player was refused. A seat's socket sheds a spectator's instead."""
    import httpx2 as httpx
    from websockets.sync.client import connect

    with serving(db, Limits(**FAST, watchers=2)) as address:
        game = httpx.post(f"{address}/api/games", json={"game": "kalah",
                                                        "mode": "online"}).json()
        url = address.replace("http", "ws") + f"/api/games/{game['id']}/ws"
        with connect(url) as one, connect(url) as two:
            for spectator in (one, two):
                spectator.recv(timeout=5)
            with connect(f"{url}?token={game['token']}") as player:
                assert json.loads(player.recv(timeout=5))["state"]["seat"] == 0
            codes = closing_codes(one, two)
        assert sorted(codes, key=str) == [4429, None]


def test_a_players_socket_is_admitted_before_pages_following_the_lobby(db):
    """The lobby's pages are spectators too: an address whose every socket follows the
    lobby still gets its player's game socket (one lobby page is closed with 4429 and asks
    until it can follow again)."""
    import httpx2 as httpx
    from websockets.sync.client import connect

    with serving(db, Limits(**FAST, client_sockets=2)) as address:
        game = httpx.post(f"{address}/api/games", json={"game": "kalah",
                                                        "mode": "online"}).json()
        base = address.replace("http", "ws")
        with connect(f"{base}/api/lobby/ws") as one, connect(f"{base}/api/lobby/ws") as two:
            for page in (one, two):
                assert json.loads(page.recv(timeout=5))["type"] == "lobby"
            url = f"{base}/api/games/{game['id']}/ws?token={game['token']}"
            with connect(url) as player:
                assert json.loads(player.recv(timeout=5))["state"]["seat"] == 0
            codes = closing_codes(one, two)
        assert sorted(codes, key=str) == [4429, None]


def test_a_watcher_that_does_not_read_holds_two_updates_and_is_dropped(monkeypatch):
    """Issue 82: 64 sockets that never read stayed open, and the server grew 293 -> 543 MiB
    during 21 s of broadcasts. A socket gets one update at a time and one waiting (the newest
    replaces it); one that takes nothing for SEND_SECONDS is dropped."""
    import asyncio
    import types

    from mancalab.web.backends import Backend
    from mancalab.web.hub import Hub
    from mancalab.web.services import pushes as pushing

    monkeypatch.setattr(pushing, "SEND_SECONDS", 0.3)

    class Stuck:
        def __init__(self):
            self.sent, self.closed = [], None

        async def send_text(self, text):
            self.sent.append(text)
            await asyncio.sleep(3600)  # never read

        async def close(self, code, reason):
            self.closed = code

    async def broadcast_to_a_stuck_page(pushes):
        socket = Stuck()
        pushes.watchers["g"] = {(socket, None)}
        sends = [asyncio.ensure_future(pushes.send_latest("g", socket, f"view {i}"))
                 for i in range(100)]
        await asyncio.sleep(0.05)
        assert pushes.sending[socket] == "view 99"  # one waiting, the newest
        await asyncio.gather(*sends)
        await asyncio.sleep(0.05)
        assert socket.sent == ["view 0"] and socket.closed == 1008
        assert not pushes.watchers["g"] and socket not in pushes.sending

    # the pushes alone: a hub of their tasks and their context only
    hub = types.SimpleNamespace(tasks=set(), store=types.SimpleNamespace(backend=Backend()))
    hub.spawn = lambda coroutine: Hub.spawn(hub, coroutine)
    asyncio.run(broadcast_to_a_stuck_page(pushing.Pushes(hub)))


def test_moves_to_a_watched_game_are_paced_by_its_watchers(db):
    from fastapi.testclient import TestClient

    from mancalab.web import create_app

    with TestClient(create_app(db, Limits(**FAST, game_updates=6))) as client:
        game = client.post("/api/games", json={"game": "kalah", "mode": "local"}).json()
        url = f"/api/games/{game['id']}/ws"
        with client.websocket_connect(url) as one, client.websocket_connect(url) as two, \
                client.websocket_connect(url) as three:
            for socket in (one, two, three):
                socket.receive_json()
            played = [client.post(f"/api/games/{game['id']}/moves",
                                  json={"token": game["token"], "move": move}).status_code
                      for move in (0, 8, 1)]
            assert played == [200, 200, 429]  # 3 updates a move, 6 a second


def test_a_spectator_arranging_beads_is_refused_before_anything_else(db):
    from fastapi.testclient import TestClient

    from mancalab.web import create_app

    with TestClient(create_app(db, Limits(**FAST))) as client:
        game = client.post("/api/games", json={"game": "urubugu", "mode": "online",
                                               "setup": True}).json()
        url = f"/api/games/{game['id']}/setup"
        setting = [2] * 16
        assert client.post(url, json={"token": game["token"], "seat": 0,
                                      "setting": setting}).status_code == 200
        assert client.post(url, json={"seat": 0, "setting": setting}).status_code == 403
        assert client.post(url, json={"token": game["token"], "seat": 0,
                                      "setting": setting}).status_code == 409


def test_a_hint_is_answered_within_its_cap_whatever_the_search_waits_for():
    import asyncio

    from mancalab.players import player
    from mancalab.web.errors import BusyError
    from mancalab.web.thinking import READY, Thinker

    was_ready = READY.is_set()
    READY.set()  # compiled: what a search waits for now is no compile

    thinker = Thinker(Limits(max_think=0.2))
    stuck = player("random")

    def compiling(state):  # a first compile, or a build it waits for: deaf to stop()
        time.sleep(3)
        return 0

    async def ask():
        started = time.monotonic()
        with pytest.raises(BusyError, match="within 1.2 s"):
            await thinker.run("g", stuck, compiling, None)
        return time.monotonic() - started

    try:
        assert asyncio.run(ask()) < 2.5
    finally:
        thinker.close()
        if not was_ready:
            READY.clear()


def _extremes():
    from mancalab.variants import VARIANTS

    for name, cls in VARIANTS.items():
        for option, spec in cls.option_specs.items():
            if spec.high is not None and not isinstance(spec.default, bool):
                yield name, {option: spec.high}
    yield "kalah", {"pits": 30, "seeds": 35}  # 2,100 seeds: the search's guess overflowed


@pytest.mark.slow
def test_every_allowed_option_works_or_is_refused_with_a_4xx(db):
    """Hints, exact analyses and the computer's moves at the largest values the catalogue
    allows: answered, or refused naming why, never a 500 or a silent failure."""
    from fastapi.testclient import TestClient

    from mancalab.web import create_app

    limits = Limits(**FAST, max_think=0.3)
    with TestClient(create_app(db, limits), raise_server_exceptions=False) as client:
        for game, options in _extremes():
            made = client.post("/api/games", json={"game": game, "options": options})
            assert made.status_code in (201, 400, 422), (game, options, made.text)
            if made.status_code != 201:
                continue
            made = made.json()
            for path, body in (("hint", {"token": made["token"], "player": "expert"}),
                               ("analysis", {"token": made["token"]})):
                answer = client.post(f"/api/games/{made['id']}/{path}", json=body)
                assert answer.status_code < 500, (game, options, path, answer.text)
            vs = client.post("/api/games", json={"game": game, "options": options,
                                                 "mode": "computer", "bot": "expert",
                                                 "human_seat": 1}).json()
            deadline = time.monotonic() + 30
            while True:
                view = client.get(f"/api/games/{vs['id']}?token={vs['token']}").json()
                assert view["error"] is None, (game, options, view["error"])
                if view["ply"] >= 1 or view["result"]:
                    break
                assert time.monotonic() < deadline, (game, options, "no computer move")
                time.sleep(0.05)
