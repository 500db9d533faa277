"""Load and durability of `mancalab serve`: many online games over websockets, then kill -9.

    python benchmarks/bench_web.py [--games 200] [--seconds 20] [--game kalah]

Starts the server as its own process on loopback, opens ``--games`` online games with two
seated websocket clients each, and plays random legal moves as fast as the server answers
(a finished game is replaced by a new one). A move's latency is from sending it to its
acknowledgement, which the server sends only after the move is committed to SQLite.
Then the same load again, the server is killed with SIGKILL in the middle of it, restarted
on the same database, and every acknowledged move is looked up: the count of lost moves must
be 0. Prints the figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import websockets
from _report import report


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# the load comes from one address: lift the per-client limits that a public server keeps
# no rate limits, and no background preparation of exact play (it would share the cores)
UNLIMITED = ["--create-rate", "1000000/minute", "--hint-rate", "1000000/minute",
             "--limit", "client_sockets=100000", "--limit", "client_connections=100000",
             "--limit", "client_games=100000000", "--limit", "load_moves=100000000",
             "--no-prepare"]


def start_server(port: int, db: Path, *extra: str, env: dict | None = None) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-c", "from mancalab.cli import main; main()", "serve",
         "--port", str(port), "--db", str(db), *UNLIMITED, *extra], stdout=subprocess.DEVNULL,
        env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games", timeout=1)
            return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


def http(port: int, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


class Seat:
    """One player's websocket: the latest state it was sent, and its acknowledgements."""

    def __init__(self, socket) -> None:
        self.socket = socket
        self.state: dict | None = None
        self.acks: asyncio.Queue = asyncio.Queue()
        self.changed = asyncio.Event()
        self.closed = False

    async def read(self) -> None:
        try:
            async for text in self.socket:
                message = json.loads(text)
                if message["type"] == "state":
                    self.state = message["state"]
                    self.changed.set()
                else:
                    await self.acks.put(message)
        finally:  # the server went away: wake whoever waits
            self.closed = True
            self.changed.set()
            self.acks.put_nowait({"type": "closed"})


async def play_games(port: int, game: str, seconds: float, rng: random.Random,
                     latencies: list[float], acked: dict[str, int]) -> None:
    """Play one room after another until ``seconds`` pass (or the server goes away)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        created = await asyncio.to_thread(http, port, "/api/games",
                                          {"game": game, "mode": "online"})
        tokens = [created["token"], created["links"]["invite"].split("token=")[1]]
        url = f"ws://127.0.0.1:{port}/api/games/{created['id']}/ws?token="
        async with websockets.connect(url + tokens[0]) as first, \
                websockets.connect(url + tokens[1]) as second:
            seats = [Seat(first), Seat(second)]
            readers = [asyncio.create_task(seat.read()) for seat in seats]
            try:
                await _play_one(seats, deadline, rng, latencies, acked, created["id"])
            finally:
                for reader in readers:
                    reader.cancel()


async def _play_one(seats, deadline, rng, latencies, acked, game_id) -> None:
    while time.monotonic() < deadline:
        while seats[0].state is None or seats[0].state["ply"] < acked.get(game_id, 0):
            if seats[0].closed:
                raise ConnectionError("the server closed the connection")
            seats[0].changed.clear()
            await seats[0].changed.wait()
        state = seats[0].state
        if state["result"] is not None:
            return
        mover = seats[state["to_move"]]
        started = time.perf_counter()
        await mover.socket.send(json.dumps({"type": "move", "ply": state["ply"],
                                            "move": rng.choice(state["legal"])}))
        answer = await mover.acks.get()
        if answer["type"] == "closed":
            raise ConnectionError("the server closed the connection")
        if answer["type"] != "ack":
            raise RuntimeError(f"a legal move was refused: {answer}")
        latencies.append(time.perf_counter() - started)
        acked[game_id] = answer["ply"]


async def load(port: int, games: int, game: str, seconds: float, seed: int):
    latencies: list[float] = []
    acked: dict[str, int] = {}
    rng = random.Random(seed)
    results = await asyncio.gather(
        *(play_games(port, game, seconds, random.Random(rng.random()), latencies, acked)
          for _ in range(games)), return_exceptions=True)
    errors = [r for r in results if isinstance(r, BaseException)]
    return latencies, acked, errors


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--game", default="kalah")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        port, db = free_port(), Path(folder) / "games.sqlite3"
        server = start_server(port, db)
        started = time.perf_counter()
        latencies, acked, errors = asyncio.run(load(port, args.games, args.game, args.seconds,
                                                    args.seed))
        elapsed = time.perf_counter() - started
        server.terminate()
        server.wait()
        rows.append({"run": f"{args.games} games, {args.seconds:g} s", "moves": len(latencies),
                     "moves/s": round(len(latencies) / elapsed),
                     "p50 ms": round(1000 * percentile(latencies, 0.5), 1),
                     "p99 ms": round(1000 * percentile(latencies, 0.99), 1),
                     "errors": len(errors), "acknowledged lost": "-"})
        rows.append(crash_run(args, Path(folder) / "crash.sqlite3"))
    for error in errors[:3]:
        print("error:", repr(error))
    report("web server load and kill -9", rows, list(rows[0]))


def crash_run(args, db: Path) -> dict:
    """The load again; SIGKILL the server half-way, restart it, count acknowledged moves lost."""
    port = free_port()
    server = start_server(port, db)

    async def run():
        task = asyncio.create_task(load(port, args.games, args.game, args.seconds, args.seed + 1))
        await asyncio.sleep(args.seconds / 2)
        os.kill(server.pid, signal.SIGKILL)
        return await task

    latencies, acked, _errors = asyncio.run(run())  # clients fail once the server is gone
    server.wait()
    server = start_server(port, db)
    lost = 0
    for game_id, ply in acked.items():
        lost += max(0, ply - http(port, f"/api/games/{game_id}")["ply"])
    server.terminate()
    server.wait()
    return {"run": f"kill -9 after {args.seconds / 2:g} s", "moves": len(latencies),
            "moves/s": "-", "p50 ms": round(1000 * percentile(latencies, 0.5), 1),
            "p99 ms": round(1000 * percentile(latencies, 0.99), 1), "errors": "-",
            "acknowledged lost": f"{lost} of {sum(acked.values())}"}


if __name__ == "__main__":
    main()
