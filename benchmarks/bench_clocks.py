"""Live clocked games: GAMES games from the lobby, both players of each on a websocket, the
server on one core; how exact the clocks are and what the server holds.

    python benchmarks/bench_clocks.py [--games 200] [--base 30] [--plies 20]
        [--db postgresql://postgres@127.0.0.1/NAME --processes 2]

Starts `mancalab serve` pinned to core 0 (the clients run on the others); with ``--db`` a
PostgreSQL database (emptied first) and ``--processes N``, N servers on it, all on core 0,
each game's two players on two different processes (the seek made on one, taken on the
next), so every move crosses processes. Each game is a seek taken by another client, Oware with a clock of BASE seconds; both players answer every
state with a move after 0.2-1.0 s until PLIES moves are played, then the player to move stops
and their time runs out while nobody sends anything. Measures, per game, how long after the
moment the time ran out (``ended_at``) the players were told (the flag's lag), the move
acknowledgements' latency, how late the clients' own event loop ran (its share of the
acks' tail), and the server's resident memory and CPU over the run. Prints a row, then one
JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import tempfile
import time
from pathlib import Path

import websockets
from _report import report
from bench_web import free_port, start_server


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def http_from(port: int, path: str, body: dict | None, source: str) -> dict:
    """A JSON request from the loopback address ``source`` (a seek is taken by another)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30,
                                            source_address=(source, 0))
    data = None if body is None else json.dumps(body)
    connection.request("GET" if body is None else "POST", path, data,
                       {"Content-Type": "application/json"})
    answer = connection.getresponse()
    text = answer.read()
    connection.close()
    if answer.status >= 300:
        raise RuntimeError(f"{path}: {answer.status} {text[:200]!r}")
    return json.loads(text)


def make_game(ports: list[int], base: int) -> tuple[str, list[str], list[int]]:
    """A game from a seek made on ``ports[0]`` and taken on ``ports[1]``: its id, the two
    tokens, and the port each player follows it on."""
    seek = http_from(ports[0], "/api/seeks", {"game": "oware", "color": "first",
                                              "clock": {"base": base, "increment": 0}},
                     "127.0.0.1")
    taken = http_from(ports[1], f"/api/seeks/{seek['id']}/accept", {}, "127.0.0.2")
    mine = http_from(ports[0], f"/api/seeks/{seek['id']}?secret={seek['secret']}", None,
                     "127.0.0.1")
    return taken["id"], [mine["token"], taken["token"]], ports


def empty_database(url: str) -> None:
    """Drop every table of the PostgreSQL database ``url``: each run starts empty."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP SCHEMA public CASCADE")
        connection.execute("CREATE SCHEMA public")


def start_servers(args, *extra: str) -> tuple[list, list[int]]:
    """The servers of the run (one on a fresh SQLite file, or ``--processes`` on the
    PostgreSQL ``--db``), pinned to core 0: (processes, ports)."""
    if args.db:
        empty_database(args.db)
    db = args.db or Path(tempfile.mkdtemp()) / "games.sqlite3"
    ports = [free_port() for _ in range(args.processes)]
    servers = [start_server(port, db, *extra) for port in ports]
    for server in servers:
        os.sched_setaffinity(server.pid, {0})
    others = os.sched_getaffinity(0) - {0}
    if others:
        os.sched_setaffinity(0, others)
    return servers, ports


async def player(port: int, game: str, token: str, plies: int, rng: random.Random,
                 out: dict) -> None:
    async with websockets.connect(f"ws://127.0.0.1:{port}/api/games/{game}/ws?token={token}",
                                  max_size=2 ** 20) as socket:
        sent = moved_at = None
        async for text in socket:
            message = json.loads(text)
            if message["type"] == "ack" and sent is not None:
                out["acks"].append(time.time() - sent)
                sent = None
                continue
            if message["type"] == "error":  # a move refused: said, and sent again
                out["refused"].append(message["message"])
                sent = None
                continue
            if message["type"] != "state":
                continue
            state = message["state"]
            if state["result"] is not None:
                ended = (state.get("clock") or {}).get("ended_at")
                if state["result"].get("termination") == "time" and ended:
                    out["lags"].append(time.time() - ended)
                return
            mine = state["to_move"] == state["seat"]
            if mine and state["ply"] < plies and state["legal"] and sent is None and \
                    state["ply"] != moved_at:  # a state told twice is answered once
                moved_at = state["ply"]
                await asyncio.sleep(rng.uniform(0.2, 1.0))
                sent = time.time()
                await socket.send(json.dumps({"type": "move", "move": rng.choice(state["legal"]),
                                              "ply": state["ply"]}))


async def client_lag(out: dict) -> None:
    """How late the clients' own event loop wakes from a 10 ms sleep: what of an ack's
    latency is the measuring side's (every player shares this loop)."""
    while True:
        began = time.perf_counter()
        await asyncio.sleep(0.01)
        out["client_lags"].append(time.perf_counter() - began - 0.01)


async def play_all(games: list, plies: int, pids: list[int], out: dict) -> None:
    rng = random.Random(1)
    tasks = [asyncio.create_task(player(port, game, token, plies, random.Random(rng.random()),
                                        out))
             for game, tokens, ports in games for token, port in zip(tokens, ports)]
    probe = asyncio.create_task(client_lag(out))
    while not all(task.done() for task in tasks):
        out["peak_rss"] = max(out["peak_rss"], sum(map(rss_mib, pids)))
        await asyncio.sleep(0.5)
    probe.cancel()
    for task in tasks:
        if task.exception():
            out["failed"] += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--base", type=int, default=30)
    parser.add_argument("--plies", type=int, default=20)
    parser.add_argument("--db", help="a PostgreSQL database to serve from (emptied first)")
    parser.add_argument("--processes", type=int, default=1,
                        help="servers on the database (several need --db)")
    args = parser.parse_args()
    if args.processes > 1 and not args.db:
        parser.error("several processes need a PostgreSQL --db")
    servers, ports = start_servers(args, "--limit", f"client_seeks={args.games}",
                                   "--limit", f"seeks={args.games + 10}",
                                   "--limit", "sockets=100000", "--limit", "watchers=64")
    pids = [server.pid for server in servers]
    try:
        games = [make_game([ports[i % len(ports)], ports[(i + 1) % len(ports)]], args.base)
                 for i in range(args.games)]
        out = {"acks": [], "lags": [], "peak_rss": sum(map(rss_mib, pids)), "failed": 0,
               "refused": [], "client_lags": []}
        started, cpu = time.time(), sum(map(cpu_seconds, pids))
        asyncio.run(play_all(games, args.plies, pids, out))
        wall, cpu = time.time() - started, sum(map(cpu_seconds, pids)) - cpu
    finally:
        for server in servers:
            server.kill()
    lags, acks, client = sorted(out["lags"]), sorted(out["acks"]), sorted(out["client_lags"])
    pick = (lambda values, q: values[int(q * (len(values) - 1))] * 1000 if values else 0.0)
    row = {"store": "postgresql" if args.db else "sqlite", "processes": args.processes,
           "games": args.games, "websockets": 2 * args.games, "flags": len(lags),
           "flag_lag_p50_ms": pick(lags, 0.5), "flag_lag_p95_ms": pick(lags, 0.95),
           "flag_lag_p99_ms": pick(lags, 0.99), "flag_lag_max_ms": pick(lags, 1.0),
           "moves": len(acks), "ack_p50_ms": pick(acks, 0.5), "ack_p95_ms": pick(acks, 0.95),
           "ack_p99_ms": pick(acks, 0.99), "client_lag_p99_ms": pick(client, 0.99),
           "client_lag_max_ms": pick(client, 1.0), "peak_rss_mib": out["peak_rss"],
           "server_cpu_share": cpu / wall, "seconds": wall, "failed": out["failed"],
           "refused": len(out["refused"])}
    if out["refused"]:
        print("moves refused, e.g.:", sorted(set(out["refused"]))[:5])
    report("live clocked games (servers on one core)", [row], list(row))


if __name__ == "__main__":
    main()
