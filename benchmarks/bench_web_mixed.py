"""The server under mixed load: online games while the computer thinks at the cap, and memory
after many games against `expert`.

    python benchmarks/bench_web_mixed.py [--online 50] [--computer 20] [--max-think 2]
                                         [--seconds 30] [--expert-games 1000]
        [--db postgresql://postgres@127.0.0.1/NAME --processes 2]

1. Starts `mancalab serve --max-think T` on loopback. ``--computer`` games against
   ``alphabeta:time=T`` (the cap) keep the computer thinking all the time: the person's
   reply is sent the moment it is their turn, so every one of these games always has a
   search running or queued. Meanwhile ``--online`` online games play random moves over
   websockets as fast as the server acknowledges them; the latency of their moves (send to
   acknowledgement, after the commit) is the figure: target p99 under 50 ms. With ``--db``
   (a PostgreSQL database, emptied first) and ``--processes N``, N servers share it, the
   online and the computer games dealt among them.
2. Starts a fresh server (`--max-think 0.05`) and creates ``--expert-games`` games against
   `expert` with the computer moving first, waits for each first move, and reads the
   server's resident memory (VmRSS) as it goes: it must stay flat (alpha-beta's 48 MB tables
   are kept for a few games only, and freed when a game is idle).
Prints the figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from pathlib import Path

import websockets
from _report import report
from bench_clocks import empty_database
from bench_web import free_port, http, load, percentile, start_server


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


async def keep_computer_busy(port: int, seconds: float, think: float, rng: random.Random,
                             counts: dict) -> None:
    """A game against alpha-beta at the cap; the person replies at once, again and again."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        created = await asyncio.to_thread(http, port, "/api/games", {
            "game": "kalah", "mode": "computer", "bot": f"alphabeta:time={think}",
            "human_seat": 1})
        url = f"ws://127.0.0.1:{port}/api/games/{created['id']}/ws?token={created['token']}"
        async with websockets.connect(url) as socket:
            while time.monotonic() < deadline:
                try:
                    text = await asyncio.wait_for(socket.recv(), deadline - time.monotonic())
                except asyncio.TimeoutError:
                    return
                message = json.loads(text)
                state = message.get("state")
                if message["type"] != "state" or state is None:
                    continue
                if state["result"] is not None:
                    break
                if state["to_move"] == 1 and not state["thinking"]:
                    counts["computer moves"] = counts.get("computer moves", 0) + 1
                    await socket.send(json.dumps({"type": "move", "ply": state["ply"],
                                                  "move": rng.choice(state["legal"])}))


async def mixed(ports: list[int], args) -> tuple[list[float], dict, list]:
    counts: dict = {}
    rng = random.Random(args.seed)
    busy = [asyncio.create_task(keep_computer_busy(ports[i % len(ports)], args.seconds,
                                                   args.max_think, random.Random(rng.random()),
                                                   counts))
            for i in range(args.computer)]
    await asyncio.sleep(2 * args.max_think)  # every search thread is busy before we measure
    loads = await asyncio.gather(*(
        load(port, args.online // len(ports) + (i < args.online % len(ports)), "kalah",
             args.seconds, args.seed + i) for i, port in enumerate(ports)))
    latencies = [value for found, _, _ in loads for value in found]
    errors = [error for _, _, found in loads for error in found]
    for task in busy:
        task.cancel()
    await asyncio.gather(*busy, return_exceptions=True)
    return latencies, counts, errors


def memory_run(folder: Path, games: int) -> list[dict]:
    port = free_port()
    server = start_server(port, folder / "memory.sqlite3", "--max-think", "0.05")
    rows = []
    try:
        rows.append({"games against expert": 0, "RSS MiB": round(rss_mib(server.pid))})
        for number in range(1, games + 1):
            created = http(port, "/api/games", {"game": "kalah", "mode": "computer",
                                                "bot": "expert", "human_seat": 1})
            while http(port, f"/api/games/{created['id']}")["ply"] < 1:
                time.sleep(0.01)
            if number in (10, 100, 250, 500, 750, games):
                rows.append({"games against expert": number,
                             "RSS MiB": round(rss_mib(server.pid))})
                print(rows[-1], flush=True)
    finally:
        server.terminate()
        server.wait()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--online", type=int, default=50)
    parser.add_argument("--computer", type=int, default=20)
    parser.add_argument("--max-think", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--expert-games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", help="a PostgreSQL database to serve from (emptied first)")
    parser.add_argument("--processes", type=int, default=1,
                        help="servers on the database (several need --db)")
    args = parser.parse_args()
    if args.processes > 1 and not args.db:
        parser.error("several processes need a PostgreSQL --db")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if args.db:
            empty_database(args.db)
        ports = [free_port() for _ in range(args.processes)]
        servers = [start_server(port, args.db or folder / "mixed.sqlite3", "--max-think",
                                str(args.max_think)) for port in ports]
        try:
            started = time.perf_counter()
            spent = time.process_time()
            latencies, counts, errors = asyncio.run(mixed(ports, args))
            elapsed = time.perf_counter() - started
            generator = (time.process_time() - spent) / elapsed / (os.cpu_count() or 1)
        finally:
            for server in servers:
                server.terminate()
                server.wait()
        for error in errors[:3]:
            print("error:", repr(error))
        report("online moves while the computer thinks at the cap", [{
            "store": "postgresql" if args.db else "sqlite", "processes": args.processes,
            "online games": args.online, "computer games at the cap": args.computer,
            "max think s": args.max_think, "online moves": len(latencies),
            "moves/s": round(len(latencies) / elapsed),
            "p50 ms": round(1000 * percentile(latencies, 0.5), 1),
            "p99 ms": round(1000 * percentile(latencies, 0.99), 1),
            "computer moves": counts.get("computer moves", 0), "errors": len(errors),
            "load generator's CPU share": f"{generator:.0%}"}],
            ["store", "processes", "online games", "computer games at the cap", "max think s", "online moves",
             "moves/s", "p50 ms", "p99 ms", "computer moves", "errors",
             "load generator's CPU share"])
        if args.expert_games and not args.db:
            rows = memory_run(folder, args.expert_games)
            report("server memory while games against expert are created", rows,
                   ["games against expert", "RSS MiB"])


if __name__ == "__main__":
    main()
