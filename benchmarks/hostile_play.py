"""The probes of bench_hostile.py against the online-play surface (issue 82): accounts, the
lobby, clocks, ratings, arenas and websockets. Each returns a line of what it measured."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_web import free_port, start_server


def ask(port: int, method: str, path: str, body: dict | None = None,
        source: str = "127.0.0.1", cookie: str | None = None) -> tuple[int, object, str | None]:
    """One request from ``source``: (status, JSON answer or text, the session cookie set)."""
    data = b"" if body is None else json.dumps(body).encode()
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
            "Connection: close\r\n" + (f"Cookie: {cookie}\r\n" if cookie else "") + "\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=120,
                                  source_address=(source, 0)) as connection:
        connection.sendall(head.encode() + data)
        chunks = []
        while chunk := connection.recv(65536):
            chunks.append(chunk)
    head_bytes, _, rest = b"".join(chunks).partition(b"\r\n\r\n")
    lines = head_bytes.decode(errors="replace").split("\r\n")
    cookie_set = next((line.split(":", 1)[1].strip().split(";", 1)[0] for line in lines
                       if line.lower().startswith("set-cookie:")), None)
    try:
        answer = json.loads(rest)
    except ValueError:
        answer = rest.decode(errors="replace")
    return int(lines[0].split()[1]), answer, cookie_set


def account(port: int, name: str, source: str) -> str:
    """A new account's session cookie."""
    status, answer, cookie = ask(port, "POST", "/api/accounts",
                                 {"name": name, "password": "a long password"}, source)
    if status != 201:
        raise RuntimeError(f"no account {name}: {status} {answer}")
    return cookie


# ----- finding 1: readers that never read ---------------------------------------------------
def _never_reading(port: int, source: str) -> socket.socket | None:
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        held.bind((source, 0))
        held.connect(("127.0.0.1", port))
        held.sendall(b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n" * 30)
    except OSError:
        held.close()
        return None
    return held


def _status(port: int, source: str) -> int:
    try:
        return ask(port, "GET", "/api/games", source=source)[0]
    except (OSError, IndexError, ValueError):
        return 0


def readers() -> str:
    """A server of 100 connections; 12 addresses x 32 connections pipeline 30 GET
    /openapi.json each with a 4 KiB receive buffer and never read: what a newcomer gets after
    2 s and after 25 s, and how many of the 384 the server cut."""
    port = free_port()
    server = start_server(port, Path(tempfile.mkdtemp()) / "games.sqlite3",
                          "--limit", "connections=100", "--limit", "client_connections=32")
    try:
        held = [s for a in range(12) for _ in range(32)
                if (s := _never_reading(port, f"127.0.7.{1 + a}")) is not None]
        time.sleep(2)
        early = [_status(port, f"127.0.9.{1 + i}") for i in range(5)]
        time.sleep(23)
        late = [_status(port, f"127.0.9.{10 + i}") for i in range(5)]
        cut = 0
        for one in held:
            one.setblocking(False)
            try:
                while one.recv(1 << 20):
                    pass
                cut += 1  # an orderly end
            except BlockingIOError:
                pass  # still open, its bytes waiting
            except OSError:
                cut += 1  # reset
            one.close()
    finally:
        server.kill()
    said = {0: "refused", 503: "refused"}
    return (f"{len(held)} never-reading connections; 5 newcomers after 2 s: "
            f"{[said.get(s, s) for s in early]}, after 25 s: {late}; {cut} of them cut")


# ----- finding 2: a lobby filled by taken seeks ---------------------------------------------
def taken_seeks(port: int) -> str:
    """40 addresses make 500 seek+accept pairs (a seek from one, taken from the next); then a
    new seek from another address, and the lobby's open seeks."""
    started = time.perf_counter()

    def pair(i: int) -> int:
        made = ask(port, "POST", "/api/seeks", {"game": "kalah"}, f"127.0.10.{1 + i % 40}")
        if made[0] != 201:
            return made[0]
        return ask(port, "POST", f"/api/seeks/{made[1]['id']}/accept", {},
                   f"127.0.10.{1 + (i + 1) % 40}")[0]

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(pair, range(500)))
    seconds = time.perf_counter() - started
    new = ask(port, "POST", "/api/seeks", {"game": "kalah"}, "127.0.10.200")
    listed = len(ask(port, "GET", "/api/seeks")[1]["seeks"])
    if new[0] == 201:
        ask(port, "DELETE", f"/api/seeks/{new[1]['id']}?secret={new[1]['secret']}")
    return (f"500 pairs in {seconds:.1f} s ({statuses.count(201)} taken, "
            f"{len(statuses) - statuses.count(201)} refused); then a new seek: {new[0]}, "
            f"{listed} open seeks listed")


# ----- findings 3, 4, 5: stalled games, stuck arenas, farmed ratings ---------------------------
def first_move(port: int) -> str:
    """A 3+2 seek taken, and nobody moves: when the server ends the game, and how."""
    seeker = account(port, "Stalling", "127.0.11.1")
    taker = account(port, "Waiting", "127.0.11.2")
    seek = ask(port, "POST", "/api/seeks", {"game": "kalah", "rated": True,
                                            "clock": {"base": 180, "increment": 2}},
               "127.0.11.1", seeker)[1]
    game = ask(port, "POST", f"/api/seeks/{seek['id']}/accept", {}, "127.0.11.2", taker)[1]
    started = time.time()
    while time.time() - started < 90:
        view = ask(port, "GET", f"/api/games/{game['id']}")[1]
        if view["result"]:
            return (f"ended after {time.time() - started:.1f} s by "
                    f"{view['result']['termination']}, no result: "
                    f"{view['result']['winner'] is None}")
        time.sleep(0.5)
    return "still going after 90 s"


def farm(port: int) -> str:
    """15 rated seeks of one account taken by its owner's second account, each resigned at
    once: the first account's rating after."""
    main = account(port, "Farmer", "127.0.12.1")
    second = account(port, "FarmHand", "127.0.12.2")
    started = time.perf_counter()
    for _ in range(15):
        seek = ask(port, "POST", "/api/seeks", {"game": "kalah", "rated": True,
                                                "color": "first"}, "127.0.12.1", main)[1]
        game = ask(port, "POST", f"/api/seeks/{seek['id']}/accept", {}, "127.0.12.2",
                   second)[1]
        ask(port, "POST", f"/api/games/{game['id']}/resign", {"token": game["token"]},
            "127.0.12.2", second)
    ratings = ask(port, "GET", "/api/players/Farmer")[1]["ratings"]
    shown = ratings.get("kalah", {}).get("rating", "none")
    return f"15 games resigned at once in {time.perf_counter() - started:.1f} s: rating {shown}"


def stuck_arena(port: int) -> str:
    """Two accounts join a 40-second arena and never move: when their game ends, and when
    the arena is finished."""
    cookies = [account(port, name, f"127.0.13.{1 + i}") for i, name in
               enumerate(("Idle", "Idler"))]
    arena = ask(port, "POST", "/api/arenas", {"game": "kalah", "clock": {"base": 180},
                                              "seconds": 40}, "127.0.13.1", cookies[0])[1]
    for i, cookie in enumerate(cookies):
        ask(port, "POST", f"/api/arenas/{arena['id']}/join", {}, f"127.0.13.{1 + i}", cookie)
    started, aborted = time.time(), None
    while time.time() - started < 120:
        view = ask(port, "GET", f"/api/arenas/{arena['id']}")[1]
        if aborted is None and not any(row["playing"] for row in view["standings"]):
            aborted = time.time() - started
        if view["finished"]:
            return (f"its game over after {aborted:.0f} s (counted: "
                    f"{sum(row['games'] for row in view['standings'])}), the arena finished "
                    f"after {time.time() - started:.0f} s")
        time.sleep(1)
    return "arena not finished after 120 s"


def arena_games(port: int, seconds: float = 30.0) -> str:
    """Two accounts in an arena, the one to resign resigning every game as soon as it is
    paired, for ``seconds``: games made, and whether the pairings stop at the accounts'
    allowance of new games (``client_games``)."""
    cookies = [account(port, name, f"127.0.19.{1 + i}") for i, name in
               enumerate(("Churn", "Churner"))]
    arena = ask(port, "POST", "/api/arenas", {"game": "kalah", "clock": {"base": 60},
                                              "seconds": 600}, "127.0.19.1", cookies[0])[1]
    for i, cookie in enumerate(cookies):
        ask(port, "POST", f"/api/arenas/{arena['id']}/join", {}, f"127.0.19.{1 + i}", cookie)
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        me = ask(port, "GET", f"/api/arenas/{arena['id']}", source="127.0.19.1",
                 cookie=cookies[0])[1]["me"]
        if not me["present"] or not me["game_id"]:
            break
        ask(port, "POST", f"/api/games/{me['game_id']}/resign", {"token": me["token"]},
            "127.0.19.1", cookies[0])
    view = ask(port, "GET", f"/api/arenas/{arena['id']}")[1]
    present = [row["present"] for row in view["standings"]]
    return (f"{view['games']} games in {time.monotonic() - started:.1f} s; players still "
            f"paired: {present.count(True)} of 2")


def names(port: int) -> str:
    """Look-alike and invisible names, the most guessed passwords, and a deleted account's
    name taken again: how many the server accepts."""
    tried = ["C\u043emputer", "\u2102omputer", "Guest 0042", "G\u03c5est 7", "\u3164\u3164",
             "\u2800", "e" + "\u0301" * 39, "Ada\u200bBekele", "EXPERT",
             "Abebe \u0411\u0438\u043a\u0438\u043b\u0430"]
    accepted = [name for i, name in enumerate(tried)
                if ask(port, "POST", "/api/accounts", {"name": name,
                                                       "password": "a long password"},
                       f"127.0.20.{1 + i}")[0] == 201]
    weak = sum(ask(port, "POST", "/api/accounts", {"name": f"Weak{i}", "password": password},
                   f"127.0.20.{50 + i}")[0] == 201
               for i, password in enumerate(("password", "12345678", "qwertyuiop")))
    cookie = account(port, "Leaving", "127.0.20.100")
    ask(port, "POST", "/api/accounts/delete", {"password": "a long password"}, "127.0.20.100",
        cookie)
    again = ask(port, "POST", "/api/accounts", {"name": "leaving",
                                                "password": "a long password"},
                "127.0.20.101")[0]
    return (f"{len(accepted)} of {len(tried)} look-alike or invisible names accepted, "
            f"{weak} of 3 most-guessed passwords; a deleted account's name again: {again}")


# ----- finding 6: a log-in flood ----------------------------------------------------------------
def login_flood(port: int) -> str:
    """10 addresses x 20 wrong log-ins at once (their per-minute allowance), while another
    address logs in for real and a third loads a record: how long each waited."""
    account(port, "Target", "127.0.14.250")
    account(port, "Real", "127.0.14.251")
    made = ask(port, "POST", "/api/games", {"game": "kalah"}, "127.0.14.253")[1]
    record = ask(port, "GET", f"/api/games/{made['id']}/record")[1]
    timings: dict[str, float] = {}

    def real() -> None:
        time.sleep(1.0)  # once the flood is queued
        started = time.perf_counter()
        timings["status"] = ask(port, "POST", "/api/session", {"name": "Real",
                                                               "password": "a long password"},
                                "127.0.14.252")[0]
        timings["log-in"] = time.perf_counter() - started
        started = time.perf_counter()
        ask(port, "POST", "/api/games/load", {"record": record}, "127.0.14.253")
        timings["load"] = time.perf_counter() - started

    helper = threading.Thread(target=real)
    helper.start()
    with ThreadPoolExecutor(200) as pool:
        statuses = list(pool.map(lambda i: ask(
            port, "POST", "/api/session", {"name": "Target", "password": f"guess {i:05d}"},
            f"127.0.14.{1 + i // 20}")[0], range(200)))
    helper.join()
    return (f"200 wrong log-ins: {statuses.count(401)} checked (401), {statuses.count(429)} "
            f"refused (429); a real log-in ({timings['status']}) took "
            f"{timings['log-in']:.2f} s, a record load {timings['load']:.2f} s")


# ----- findings 8, 9, 10: websockets ----------------------------------------------------------
def _silent_socket(port: int, game: str, token: str | None, source: str) -> socket.socket:
    """A websocket opened by hand that never reads a byte (a 4 KiB receive buffer)."""
    held = socket.socket()
    held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    held.bind((source, 0))
    held.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    query = f"?token={token}" if token else ""
    held.sendall(f"GET /api/games/{game}/ws{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                 "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    return held


def _closed_by_server(held: socket.socket) -> bool:
    """Whether the server closed a hand-made websocket: a close frame among what it sent,
    or the connection ended."""
    held.setblocking(False)
    data = b""
    try:
        while chunk := held.recv(1 << 20):
            data += chunk
        return True
    except BlockingIOError:
        pass
    except OSError:
        return True
    return 0x8 in _opcodes(data.partition(b"\r\n\r\n")[2])


def _opcodes(data: bytes) -> list[int]:
    """The opcodes of the unmasked frames a server sent (a partial last frame left out)."""
    found, at = [], 0
    while at + 2 <= len(data):
        length, head = data[at + 1] & 0x7F, 2
        if length == 126:
            length, head = int.from_bytes(data[at + 2:at + 4], "big"), 4
        elif length == 127:
            length, head = int.from_bytes(data[at + 2:at + 10], "big"), 10
        if at + head + length > len(data):
            break
        found.append(data[at] & 0x0F)
        at += head + length
    return found


def socket_slots(port: int) -> str:
    """130 addresses x 4 idle spectator sockets on 10 games fill the server's 500; then a
    new online game's own player opens its socket."""
    games = [ask(port, "POST", "/api/games", {"game": "kalah", "mode": "online"},
                 f"127.0.15.{1 + i}")[1] for i in range(10)]
    idle = []
    for a in range(130):
        for k in range(4):
            try:
                idle.append(_silent_socket(port, games[(a * 4 + k) % 10]["id"], None,
                                           f"127.0.16.{1 + a}"))
            except OSError:
                pass
    time.sleep(2)
    mine = ask(port, "POST", "/api/games", {"game": "kalah", "mode": "online"},
               "127.0.15.200")[1]

    async def player() -> str:
        import websockets

        url = f"ws://127.0.0.1:{port}/api/games/{mine['id']}/ws?token={mine['token']}"
        try:
            async with websockets.connect(url) as ws:
                view = json.loads(await asyncio.wait_for(ws.recv(), 10))
                return f"admitted (seat {view['state']['seat']})"
        except websockets.exceptions.ConnectionClosed as closed:
            return f"refused ({closed.rcvd.code if closed.rcvd else 'no code'})"
        except websockets.exceptions.InvalidStatus as refused:
            return f"refused ({refused.response.status_code})"

    outcome = asyncio.run(player())
    shed = sum(_closed_by_server(one) for one in idle)
    for one in idle:
        one.close()
    return f"{len(idle)} idle sockets; the player's own socket: {outcome}; {shed} closed"


def silent_sockets(port: int, seconds: float = 20.0, after: float = 30.0) -> str:
    """64 sockets on one game never read while its moves go on for ``seconds``: how many the
    server dropped then and ``after`` seconds later (its pings unanswered; the server's
    memory before and after is in the row)."""
    import random

    rng = random.Random(7)
    game = ask(port, "POST", "/api/games", {"game": "oware", "mode": "local"})[1]
    silent = [_silent_socket(port, game["id"], None, f"127.0.17.{1 + i // 4}")
              for i in range(64)]
    time.sleep(1)
    statuses = []
    ends = time.monotonic() + seconds
    state = game["state"]
    while time.monotonic() < ends and not state.get("result"):
        answer = ask(port, "POST", f"/api/games/{game['id']}/moves",
                     {"token": game["token"], "move": rng.choice(state["legal"])}, "127.0.0.8")
        statuses.append(answer[0])
        if answer[0] == 200:
            state = answer[1]
    dropped = [i for i, one in enumerate(silent) if _closed_by_server(one)]
    time.sleep(after)
    later = sum(i in dropped or _closed_by_server(one) for i, one in enumerate(silent))
    for one in silent:
        one.close()
    return (f"{statuses.count(200)} moves in {seconds:.0f} s ({statuses.count(429)} paced, 429); "
            f"{len(dropped)} of 64 silent sockets dropped by then, {later} {after:.0f} s later")


def move_flood(port: int, seconds: float = 5.0) -> str:
    """A local game watched by 64 reading sockets; one address sends moves as fast as it can
    for ``seconds``: moves taken and updates pushed a second (the other visitor's reads are
    in the row)."""
    import websockets

    game = ask(port, "POST", "/api/games", {"game": "gebeta", "mode": "local"})[1]
    received = 0

    async def watch(stop: asyncio.Event, source: str) -> None:
        nonlocal received
        async with websockets.connect(f"ws://127.0.0.1:{port}/api/games/{game['id']}/ws",
                                      local_addr=(source, 0)) as ws:
            while not stop.is_set():
                try:
                    await asyncio.wait_for(ws.recv(), 0.5)
                    received += 1
                except asyncio.TimeoutError:
                    pass

    async def flood() -> tuple[int, int]:
        stop = asyncio.Event()
        watchers = [asyncio.ensure_future(watch(stop, f"127.0.18.{1 + i // 4}"))
                    for i in range(64)]
        await asyncio.sleep(1)
        taken = paced = 0
        ends = time.monotonic() + seconds
        state = ask(port, "GET", f"/api/games/{game['id']}")[1]
        while time.monotonic() < ends and not state.get("result"):
            status, answer, _ = await asyncio.to_thread(
                ask, port, "POST", f"/api/games/{game['id']}/moves",
                {"token": game["token"], "move": state["legal"][0]}, "127.0.0.9")
            if status == 200:
                taken, state = taken + 1, answer
            else:
                paced += 1
        stop.set()
        await asyncio.gather(*watchers, return_exceptions=True)
        return taken, paced

    taken, paced = asyncio.run(flood())
    return (f"{taken / seconds:.1f} moves/s taken ({paced} paced, 429), "
            f"{received / seconds:.0f} updates/s pushed to 64 watchers")
