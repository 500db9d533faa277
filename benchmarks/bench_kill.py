"""Several processes on PostgreSQL while processes die: rated clocked games played across two
`mancalab serve` processes, one of them killed with SIGKILL every ``--every`` seconds (and
started again), the players' pages reconnecting to whichever answers.

    python benchmarks/bench_kill.py --db postgresql://postgres@127.0.0.1/NAME
        [--games 100] [--seconds 120] [--every 20] [--base 30]

The database is emptied first. Two accounts play ``--games`` rated Oware games on a clock of
``--base`` seconds, each game's players on different processes, moving 0.2-1.0 s after their
turn comes. After ``--seconds`` nobody moves any more and every game must end on time.
Counts: moves acknowledged but not in the game afterwards (lost), games not ended within
the clock's time after the players stopped (stuck), games rated more than once (their flag
applied twice), and each player's reconnections. Prints a row, then one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import time
import urllib.request

import psycopg
import websockets
from _report import report
from bench_clocks import empty_database
from bench_web import free_port, start_server

COOKIE = "mancalab_session"


def call(port: int, path: str, body: dict | None = None, session: str | None = None):
    """A JSON request: (answer, the session cookie it set, if any)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json",
                 **({"Cookie": f"{COOKIE}={session}"} if session else {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        cookie = response.headers.get("set-cookie") or ""
        found = cookie.split(f"{COOKIE}=", 1)[1].split(";", 1)[0] if COOKIE in cookie else None
        return json.load(response), found


class Site:
    """The two processes, each started again on its port after it is killed."""

    def __init__(self, db: str, extra: list[str]) -> None:
        self.db, self.extra = db, extra
        self.ports = [free_port(), free_port()]
        self.servers = [start_server(port, db, *extra) for port in self.ports]
        self.kills = 0

    def kill_and_restart(self, which: int) -> None:
        self.servers[which].send_signal(signal.SIGKILL)
        self.servers[which].wait()
        self.kills += 1
        self.servers[which] = start_server(self.ports[which], self.db, *self.extra)

    def stop(self) -> None:
        for server in self.servers:
            server.kill()


async def player(site: Site, game: str, token: str, first: int, stop_at: float,
                 rng: random.Random, out: dict) -> None:
    """One seat: follows the game on a process, on another when its process dies; moves
    until ``stop_at``; returns when the game has ended."""
    which, pause = first, 0.1
    while True:
        port = site.ports[which]
        try:
            async with websockets.connect(
                    f"ws://127.0.0.1:{port}/api/games/{game}/ws?token={token}",
                    max_size=2 ** 20, open_timeout=5) as socket:
                pause = 0.1
                async for text in socket:
                    message = json.loads(text)
                    if message["type"] == "ack":
                        out["acked"].append((game, message["ply"] - 1, message["move"]))
                        continue
                    if message["type"] != "state":
                        continue
                    state = message["state"]
                    if state["result"] is not None:
                        return
                    if state["to_move"] == state["seat"] and state["legal"] and \
                            time.time() < stop_at:
                        await asyncio.sleep(rng.uniform(0.2, 1.0))
                        await socket.send(json.dumps({"type": "move", "ply": state["ply"],
                                                      "move": rng.choice(state["legal"])}))
        except (OSError, websockets.WebSocketException, asyncio.TimeoutError):
            pass
        out["reconnections"] += 1
        which = 1 - which  # the other process, while this one comes back
        await asyncio.sleep(pause)
        pause = min(2.0, pause * 2)


async def killer(site: Site, seconds: float, every: float) -> None:
    started, which = time.time(), 0
    while time.time() - started + every <= seconds:
        await asyncio.sleep(every)
        await asyncio.to_thread(site.kill_and_restart, which)
        which = 1 - which


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a PostgreSQL database (emptied first)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--every", type=float, default=20)
    parser.add_argument("--base", type=int, default=30)
    args = parser.parse_args()
    empty_database(args.db)
    site = Site(args.db, ["--limit", f"account_games={args.games + 10}", "--limit",
                          f"client_seeks={args.games}", "--limit", f"seeks={args.games + 10}",
                          "--limit", "sockets=100000", "--limit", "account_rate=100/hour"])
    out = {"acked": [], "reconnections": 0}
    try:
        sessions = [call(site.ports[0], "/api/accounts", {"name": name,
                                                           "password": "a long password"})[1]
                    for name in ("Ada", "Bob")]
        games = []
        for _ in range(args.games):
            seek, _ = call(site.ports[0], "/api/seeks", {
                "game": "oware", "rated": True, "color": "first",
                "clock": {"base": args.base, "increment": 0}}, sessions[0])
            taken, _ = call(site.ports[1], f"/api/seeks/{seek['id']}/accept", {}, sessions[1])
            mine, _ = call(site.ports[0], f"/api/seeks/{seek['id']}?secret={seek['secret']}",
                           session=sessions[0])
            games.append((taken["id"], [mine["token"], taken["token"]]))
        stop_at = time.time() + args.seconds

        async def run() -> None:
            rng = random.Random(1)
            players = [asyncio.create_task(player(site, game, token, seat, stop_at,
                                                  random.Random(rng.random()), out))
                       for game, tokens in games for seat, token in enumerate(tokens)]
            kills = asyncio.create_task(killer(site, args.seconds, args.every))
            await asyncio.wait(players, timeout=args.seconds + args.base + 30)
            kills.cancel()
            for task in players:
                task.cancel()

        asyncio.run(run())
        stuck, lost = 0, 0
        for game, _ in games:
            state, _ = call(site.ports[0], f"/api/games/{game}")
            stuck += state["result"] is None
            moves = [m["move"] for m in state["moves"]]
            lost += sum(1 for g, ply, move in out["acked"] if g == game and
                        (ply >= len(moves) or moves[ply] != move))
        with psycopg.connect(args.db) as connection:
            twice = connection.execute("SELECT COUNT(*) FROM (SELECT game_id FROM rated_games "
                                       "GROUP BY game_id HAVING COUNT(*) > 2) AS t").fetchone()[0]
            rated = connection.execute("SELECT games FROM ratings WHERE name = 'Ada'"
                                       ).fetchone()
    finally:
        site.stop()
    row = {"games": args.games, "kills": site.kills, "moves_acknowledged": len(out["acked"]),
           "acknowledged_lost": lost, "games_stuck": stuck, "rated_twice": twice,
           "games_rated": rated[0] if rated else 0, "reconnections": out["reconnections"]}
    report("processes killed while rated clocked games go on (PostgreSQL, 2 processes)",
           [row], list(row))


if __name__ == "__main__":
    main()
