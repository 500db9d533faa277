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
   against ``easy`` from 127.0.0.2: how long its first computer move took.
Prints a row per probe, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import websockets
from _report import report
from bench_web import free_port, start_server

ENDLESS = "C1 E2 F1 E2 F1 E2 D1 B2 A1 C2 B1 A2 F1 E2".split()


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
        self.slowest, self.reads = 0.0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        while not self._stop.is_set():
            started = time.perf_counter()
            call(self.port, f"/api/games/{self.game}", source="127.0.0.2")
            self.slowest = max(self.slowest, time.perf_counter() - started)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-think", type=float, default=2.0)
    args = parser.parse_args()
    port = free_port()
    db = Path(tempfile.mkdtemp()) / "games.sqlite3"
    server = start_server(port, db, "--max-think", str(args.max_think),  # the per-address
                          "--limit", "client_sockets=16", "--limit", "client_connections=32")
    probes = [("frames", lambda: asyncio.run(frames(port))),
              ("solvers", lambda: solvers(port)),
              ("threads", lambda: threads(port, server.pid)),
              ("connections", lambda: connections(port)),
              ("relay", lambda: relay(port)),
              ("fairness", lambda: fairness(port, args.max_think))]
    rows = []
    try:
        for name, probe in probes:
            rss, count = proc_status(server.pid)
            with Watcher(port) as watcher:
                outcome = probe()
            after, count_after = proc_status(server.pid)
            rows.append({"probe": name, "outcome": outcome, "rss_before_mib": rss,
                         "rss_after_mib": after, "threads_before": count,
                         "threads_after": count_after,
                         "other_visitor_slowest_ms": watcher.slowest * 1000,
                         "other_visitor_reads": watcher.reads})
            print(json.dumps(rows[-1]), flush=True)
    finally:
        server.kill()
    report("hostile visitor", rows, list(rows[0]))


if __name__ == "__main__":
    main()
