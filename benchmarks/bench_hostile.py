"""A hostile visitor against a real server: what each probe of issue 41 costs the server now.

    python benchmarks/bench_hostile.py [--max-think 2]

Starts `mancalab serve` on loopback (the guarded uvicorn settings of a public server, its
rate limits lifted for the probes, which come from one address) and runs each probe in turn,
reading the server's resident memory (VmRSS) and threads (/proc) before and after, and the
slowest answer another visitor (from 127.0.0.2) got to a GET of their own game meanwhile:

1. frames: 64 websockets each send one 16 MiB text frame (refused by the protocol);
2. solvers: exact analysis of 12 Kalah boards (pits 1..12, 3 seeds), each its own rule set;
3. threads: 20 hints of ``mcts:threads=64`` (the server runs them in one thread each);
4. connections: 300 connections each sending half a request head, then stalling;
5. relay: the endless Gebeta relay at the largest lap limit, move by move;
6. fairness: 20 games against ``mcts:time=T`` created at once from 127.0.0.1, then one game
   against ``easy`` from 127.0.0.2: how long its first computer move took;
7. slow bodies: from each of 33 addresses (127.0.0.10-42) 32 connections each send a POST head
   of ``Content-Length: 100000``, then a body byte every 2 s, reopened when closed, for
   ``--seconds``: how many were cut, and the other visitor's answers (none may be a 503);
8. reviews: a long finished 3-row Gabata game loaded 8 times and each reviewed from one
   address, then a review from another address;
9. records: a 4,565-move Kalah(30,100) record loaded 304 times from 76 addresses (4 each,
   within their allowance of moves): the server's memory after;
10. forwarded: 40 new games from one address, each with a new X-Forwarded-For: how many the
   create rate refused (the header is not believed without --forwarded-allow-ips);
11. log-ins: 200 wrong log-ins at once from 40 addresses (each a 64 MiB Argon2 hash);
12. lobby: 40 addresses each open 5 seeks (3 an address are kept);
13. preparing: a second server started with its preparation on an empty cache, killed with
   SIGKILL once its preparing process runs: whether that process is gone 5 s later.
The online-play surface (issue 82; the probes in hostile_play.py):
14. readers: a server of 100 connections, 12 addresses x 32 connections that pipeline 30
   GET /openapi.json each and never read: a newcomer's answers after 2 s and after 25 s;
15. taken seeks: 500 seek+accept pairs from 40 addresses, then a new seek;
16. first move: a rated 3+2 game nobody starts: when and how it ends;
17. farm: 15 rated games between two accounts of one person, resigned at once: the rating;
18. stuck arena: two accounts paired in a 40-second arena who never move;
19. log-in flood: 10 addresses x 20 wrong log-ins at once, a real log-in and a record load
   from other addresses meanwhile;
19a. arena games: two accounts in an arena, one resigning each game as soon as it is paired;
19b. names: look-alike and invisible names, the most guessed passwords, a deleted name;
20. socket slots: 130 addresses x 4 idle spectator sockets, then a new game's own player;
21. silent sockets: 64 sockets that never read on a game whose moves go on for 20 s;
22. move flood: one address sends moves as fast as it can to a game 64 sockets watch.
Each row has the server's memory, threads and child processes before and after, and the
other visitor's slowest answer and its count of failed reads. Prints a row per probe, then
one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import tempfile
import threading
import time
from pathlib import Path

import hostile_play
import websockets
from _report import report
from bench_web import free_port, start_server

ENDLESS = "C1 E2 F1 E2 F1 E2 D1 B2 A1 C2 B1 A2 F1 E2".split()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[1]) == pid and fields[0] not in "ZX":
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in "ZX"


def proc_status(pid: int) -> tuple[float, int]:
    """(resident MiB, threads) of process ``pid``."""
    rss, threads = float("nan"), 0
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    return rss, threads


def call(port: int, path: str, body: dict | None = None, source: str = "127.0.0.1"):
    """A JSON request from ``source`` (a loopback address); (status, answer)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=60,
                                          source_address=(source, 0))
    data = b"" if body is None else json.dumps(body).encode()
    method = "GET" if body is None else "POST"
    connection.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                       f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                       "Connection: close\r\n\r\n".encode() + data)
    chunks = []
    while chunk := connection.recv(65536):
        chunks.append(chunk)
    connection.close()
    head, _, body_bytes = b"".join(chunks).partition(b"\r\n\r\n")
    status = int(head.split()[1])
    try:
        return status, json.loads(body_bytes)
    except ValueError:
        return status, body_bytes.decode(errors="replace")


class Watcher:
    """Another visitor reading their own game again and again: the slowest answer."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.game = call(port, "/api/games", {"game": "kalah"}, "127.0.0.2")[1]["id"]
        self.slowest, self.reads, self.failed = 0.0, 0, 0
        self.times: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            try:
                status = call(self.port, f"/api/games/{self.game}", source="127.0.0.2")[0]
            except (OSError, ValueError, IndexError):
                status = 0
            self.failed += status != 200
            self.times.append(time.perf_counter() - started)
            self.slowest = max(self.slowest, self.times[-1])
            self.reads += 1
            time.sleep(0.02)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


async def frames(port: int) -> str:
    game = call(port, "/api/games", {"game": "kalah"})[1]["id"]
    url = f"ws://127.0.0.1:{port}/api/games/{game}/ws"
    closed = 0

    async def one() -> None:
        nonlocal closed
        try:
            async with websockets.connect(url, max_size=None) as ws:
                await ws.recv()
                await ws.send("x" * (16 << 20))
                await asyncio.wait_for(ws.recv(), 10)
        except (websockets.exceptions.WebSocketException, OSError,
                asyncio.TimeoutError):
            closed += 1

    await asyncio.gather(*(one() for _ in range(64)))
    return f"{closed} of 64 closed"


def solvers(port: int) -> str:
    done = 0
    for pits in range(1, 13):
        game = call(port, "/api/games", {"game": "kalah", "options": {"pits": pits,
                                                                      "seeds": 3}})[1]
        status, _ = call(port, f"/api/games/{game['id']}/analysis", {"token": game["token"]})
        done += status == 200
    return f"{done} of 12 analysed"


def threads(port: int, pid: int) -> str:
    game = call(port, "/api/games", {"game": "kalah"})[1]
    peak = 0
    for _ in range(20):
        sampler_done = threading.Event()

        def sample():
            nonlocal peak
            while not sampler_done.is_set():
                peak = max(peak, proc_status(pid)[1])
                time.sleep(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        call(port, f"/api/games/{game['id']}/hint",
             {"token": game["token"], "player": "mcts:threads=64,time=0.2"})
        sampler_done.set()
        sampler.join()
    return f"peak {peak} threads"


def connections(port: int) -> str:
    held = []
    for _ in range(300):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")
            held.append(s)
        except OSError:
            break
    time.sleep(0.5)
    started = time.perf_counter()
    status = call(port, "/api/games", source="127.0.0.2")[0]
    seconds = time.perf_counter() - started
    for s in held:
        s.close()
    return f"300 stalled; another visitor: {status} in {seconds * 1000:.0f} ms"


def relay(port: int) -> str:
    game = call(port, "/api/games", {"game": "gebeta", "options": {"lap_limit": 10_000}})[1]
    slowest = 0.0
    for ply, name in enumerate(ENDLESS):
        started = time.perf_counter()
        call(port, f"/api/games/{game['id']}/moves",
             {"token": game["token"], "move": name, "ply": ply})
        slowest = max(slowest, time.perf_counter() - started)
    return f"slowest move {slowest * 1000:.0f} ms"


def fairness(port: int, think: float) -> str:
    for _ in range(20):
        call(port, "/api/games", {"game": "kalah", "mode": "computer", "human_seat": 1,
                                  "bot": f"mcts:time={think}"})
    started = time.perf_counter()
    game = call(port, "/api/games", {"game": "kalah", "mode": "computer", "human_seat": 1,
                                     "bot": "easy"}, "127.0.0.2")[1]
    while True:
        view = call(port, f"/api/games/{game['id']}?token={game['token']}",
                    source="127.0.0.2")[1]
        if view["ply"] >= 1:
            break
        time.sleep(0.05)
    return f"easy's first move after {time.perf_counter() - started:.1f} s"


async def _slow_body(port: int, source: str, until: float, counts: dict) -> None:
    """One attacking connection, reopened whenever the server closes it, until ``until``."""
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(source, 0))
        except OSError:
            counts["refused"] += 1
            await asyncio.sleep(0.5)
            continue
        counts["opened"] += 1
        try:
            writer.write(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 100000\r\n\r\n")
            while time.monotonic() < until:
                writer.write(b" ")
                await writer.drain()
                try:
                    answer = await asyncio.wait_for(reader.read(100), 2.0)
                except asyncio.TimeoutError:
                    continue
                counts["cut"] += 1
                counts["408"] += answer.startswith(b"HTTP/1.1 408")
                counts["503"] += answer.startswith(b"HTTP/1.1 503")
                break
        except OSError:
            counts["cut"] += 1
        finally:
            writer.close()


def slow_bodies(port: int, seconds: float) -> str:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    counts = dict.fromkeys(("opened", "refused", "cut", "408", "503"), 0)

    async def attack():
        until = time.monotonic() + seconds
        await asyncio.gather(*(_slow_body(port, f"127.0.0.{10 + a}", until, counts)
                               for a in range(33) for _ in range(32)))

    asyncio.run(attack())
    return (f"{counts['opened']} opened, {counts['cut']} cut ({counts['408']} with 408, "
            f"{counts['503']} refused with 503, {counts['refused']} not accepted)")


def _finished_gabata3() -> str:
    import random

    import mancalab
    from mancalab.records import GameRecord

    rng = random.Random(3)
    record = GameRecord.new(mancalab.variant("gabata3"))
    while not record.state.is_over:
        record.push(rng.choice(record.state.legal_moves()))
    return record.to_text()


def reviews(port: int) -> str:
    text = _finished_gabata3()
    loaded = [call(port, "/api/games/load", {"record": text}, f"127.0.2.{1 + i}")
              for i in range(9)]  # loaded from other addresses, within their allowances
    if any(status != 201 for status, _ in loaded):
        return f"could not load the record: {loaded[0][1]}"
    ids = [answer["id"] for _, answer in loaded]
    mine = [call(port, f"/api/games/{game}/review", {}, "127.0.0.5")[0] for game in ids[:8]]
    other = call(port, f"/api/games/{ids[8]}/review", {}, "127.0.0.3")
    return (f"{text.count(' ')} moves; one address's 8 reviews: {mine.count(200)} run, "
            f"{mine.count(429)} refused; another address's: {other[0]}")


def records(port: int) -> str:
    import random

    import mancalab
    from mancalab.records import GameRecord

    rng = random.Random(1)
    record = GameRecord.new(mancalab.variant("kalah", pits=30, seeds=100))
    while len(record.moves) < 4565 and not record.state.is_over:
        record.push(rng.choice(record.state.legal_moves()))
    text = record.to_text()
    statuses = [call(port, "/api/games/load", {"record": text}, f"127.0.1.{1 + i // 4}")[0]
                for i in range(304)]
    return (f"{len(record.moves)} moves, {len(text) // 1000} KB: {statuses.count(201)} loaded, "
            f"{statuses.count(429)} refused; a 5th from one address: "
            f"{call(port, '/api/games/load', {'record': text}, '127.0.1.1')[0]}")


def forwarded(port: int) -> str:
    statuses = []
    for i in range(40):
        connection = socket.create_connection(("127.0.0.1", port), timeout=30,
                                              source_address=("127.0.0.4", 0))
        body = b'{"game": "kalah"}'
        connection.sendall(f"POST /api/games HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: "
                           f"198.51.100.{i}\r\nContent-Type: application/json\r\n"
                           f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                           .encode() + body)
        statuses.append(int(connection.recv(100).split()[1]))
        connection.close()
    return f"40 new games, each with a new X-Forwarded-For: {statuses.count(429)} refused"


def log_ins(port: int) -> str:
    """200 wrong log-ins at once from 40 addresses (5 each, within the log-in rate): each
    costs an Argon2 hash (64 MiB), at most two at a time."""
    from concurrent.futures import ThreadPoolExecutor

    call(port, "/api/accounts", {"name": "victim", "password": "a long password"},
         "127.0.3.250")
    with ThreadPoolExecutor(50) as pool:
        statuses = list(pool.map(lambda i: call(
            port, "/api/session", {"name": "victim", "password": f"guess {i:05d}"},
            f"127.0.3.{1 + i // 5}")[0], range(200)))
    return f"200 wrong log-ins: {statuses.count(401)} refused (401), {statuses.count(429)} (429)"


def lobby(port: int) -> str:
    """40 addresses each open seeks until refused: the lobby holds at most 3 an address."""
    opened = refused = 0
    for i in range(40):
        for _ in range(5):
            status = call(port, "/api/seeks", {"game": "oware"}, f"127.0.4.{1 + i}")[0]
            opened += status == 201
            refused += status == 429
    return f"seeks from 40 addresses: {opened} open, {refused} refused (429)"


def worksheets(port: int) -> str:
    """40 addresses ask at once for the largest worksheet (36 questions, a second or more of
    drawing each): one is drawn at a time, the others refused (429) while it is."""
    from concurrent.futures import ThreadPoolExecutor

    path = "/api/worksheets/gebeta?questions=36&language=am"
    with ThreadPoolExecutor(40) as pool:
        statuses = list(pool.map(lambda i: call(port, f"{path}&seed={i}",
                                                source=f"127.0.5.{1 + i}")[0], range(40)))
    return f"40 worksheets of 36 at once: {statuses.count(200)} drawn, {statuses.count(429)} (429)"


def continuations(port: int) -> str:
    """20 addresses each ask a Gebeta start's best continuation (up to six searches of 0.5 s
    each) at once: the searches queue with the others', within the server's queue."""
    from concurrent.futures import ThreadPoolExecutor

    games = [call(port, "/api/games", {"game": "gebeta", "mode": "local"},
                  f"127.0.6.{1 + i}")[1] for i in range(20)]

    def ask(i: int) -> int:
        game = games[i]
        return call(port, f"/api/games/{game['id']}/positions/0/continuation",
                    {"token": game["token"]}, f"127.0.6.{1 + i}")[0]

    started = time.perf_counter()
    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(ask, range(20)))
    return (f"20 continuations at once: {statuses.count(200)} answered, "
            f"{statuses.count(429)} refused (429), all within "
            f"{time.perf_counter() - started:.1f} s")


def preparing() -> str:
    cache = Path(tempfile.mkdtemp())
    port = free_port()
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    server = start_server(port, cache / "games.sqlite3", "--prepare", env=env)
    deadline = time.monotonic() + 120
    kids = []
    while time.monotonic() < deadline:  # the preparing process: a python child at nice 19
        kids = [k for k in children(server.pid)
                if os.getpriority(os.PRIO_PROCESS, k) == 19]
        if kids:
            break
        time.sleep(0.5)
    if not kids:
        server.kill()
        return "no preparing process seen in 120 s"
    time.sleep(2)
    server.send_signal(signal.SIGKILL)
    server.wait()
    time.sleep(5)
    left = [k for k in kids if alive(k)]
    for k in left:
        os.kill(k, signal.SIGKILL)
    return f"preparing process {'still running' if left else 'gone'} 5 s after kill -9"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-think", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="how long the slow-body attack lasts")
    parser.add_argument("--only", nargs="*", help="run only these probes")
    args = parser.parse_args()
    port = free_port()
    db = Path(tempfile.mkdtemp()) / "games.sqlite3"
    server = start_server(port, db, "--max-think", str(args.max_think),  # the per-address
                          "--limit", "client_sockets=16", "--limit", "client_connections=32",
                          "--limit", "client_games=500", "--limit", "load_moves=20000",
                          "--create-rate", "30/minute", "--limit", "account_rate=1000/hour")
    probes = [("frames", lambda: asyncio.run(frames(port))),
              ("solvers", lambda: solvers(port)),
              ("threads", lambda: threads(port, server.pid)),
              ("connections", lambda: connections(port)),
              ("relay", lambda: relay(port)),
              ("fairness", lambda: fairness(port, args.max_think)),
              ("slow bodies", lambda: slow_bodies(port, args.seconds)),
              ("reviews", lambda: reviews(port)),
              ("records", lambda: records(port)),
              ("forwarded", lambda: forwarded(port)),
              ("log-ins", lambda: log_ins(port)),
              ("lobby", lambda: lobby(port)),
              ("worksheets", lambda: worksheets(port)),
              ("continuations", lambda: continuations(port)),
              ("preparing", preparing),
              ("readers", hostile_play.readers),
              ("taken seeks", lambda: hostile_play.taken_seeks(port)),
              ("first move", lambda: hostile_play.first_move(port)),
              ("farm", lambda: hostile_play.farm(port)),
              ("stuck arena", lambda: hostile_play.stuck_arena(port)),
              ("log-in flood", lambda: hostile_play.login_flood(port)),
              ("arena games", lambda: hostile_play.arena_games(port)),
              ("names", lambda: hostile_play.names(port)),
              ("socket slots", lambda: hostile_play.socket_slots(port)),
              ("silent sockets", lambda: hostile_play.silent_sockets(port)),
              ("move flood", lambda: hostile_play.move_flood(port))]
    if args.only:
        probes = [probe for probe in probes if probe[0] in args.only]
    rows = []
    try:
        for name, probe in probes:
            rss, count = proc_status(server.pid)
            kids = len(children(server.pid))
            with Watcher(port) as watcher:
                outcome = probe()
            after, count_after = proc_status(server.pid)
            rows.append({"probe": name, "outcome": outcome, "rss_before_mib": rss,
                         "rss_after_mib": after, "threads_before": count,
                         "threads_after": count_after, "children_before": kids,
                         "children_after": len(children(server.pid)),
                         "other_visitor_slowest_ms": watcher.slowest * 1000,
                         "other_visitor_p95_ms": sorted(watcher.times)[
                             int(0.95 * (len(watcher.times) - 1))] * 1000,
                         "other_visitor_reads": watcher.reads,
                         "other_visitor_failed": watcher.failed})
            print(json.dumps(rows[-1]), flush=True)
    finally:
        server.kill()
    report("hostile visitor", rows, list(rows[0]))


if __name__ == "__main__":
    main()
