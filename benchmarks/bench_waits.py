"""Waits measured where people wait: a server's computer moves, hints and reviews, per game.

    python benchmarks/bench_waits.py [--games kalah gebeta ...] [--replies 30] [--cold]
        [--results FILE.jsonl]

Each through a real `mancalab serve` over HTTP, as the page asks, at the server's default caps:
1. **first move** (with `--cold`: a server on empty cache folders, numba's and the data's,
   one per game): seconds from creating a game in which the computer moves first until its
   move is on the board, then the same at every other level in that server, one after another.
2. **expert replies and hints**: the person plays a random legal move, and the seconds until
   each of the expert's moves is on the board (a move; a turn: all its moves until the
   person is to move again, Gabata's and Gebeta's extra turns and passes included); then a
   hint (the expert's move) is asked for the person's next move. p50 and p95 over
   ``--replies`` turns and hints, games restarted as they end.
Steps 2 and 3 run on one server with the usual cache, once it has compiled everything.
3. **review**: a game of 40 random moves (two people on one screen), then its review asked
   and polled until every position is appraised: seconds.
Targets (issue 62; 2 cores, idle): first computer move <= 10 s on an empty cache, expert move
p95 <= 2.5 s, hint p95 <= 1 s, review of a 40-move game <= 20 s. Prints a row per game and
step, then one JSON line; ``--results`` appends each row as it ends.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from _report import report
from bench_web import free_port, percentile

from mancalab.players import LEVELS
from mancalab.variants import variants

POLL = 0.05  # seconds between looks at a game


class Server:
    """A `mancalab serve` of its own, on cache folders of its own when ``root`` is given."""

    def __init__(self, root: Path | None, db: Path) -> None:
        import os

        env = dict(os.environ)
        if root is not None:
            env.update(NUMBA_CACHE_DIR=str(root / "numba"), XDG_CACHE_HOME=str(root / "cache"))
        self.port = free_port()
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-c", "from mancalab.cli import main; main()", "serve", "--port",
             str(self.port), "--db", str(db)], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while True:
            try:
                self.ask("/api/games")
                return
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError("the server stopped") from None
                time.sleep(0.2)

    def ask(self, path: str, body: dict | None = None, timeout: float = 900) -> dict:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return json.load(answer)

    def wait_for_ply(self, game: dict, ply: int, limit: float = 120) -> dict:
        """The game once ``ply`` moves are on the board (or it is over)."""
        began = time.perf_counter()
        while time.perf_counter() - began < limit:
            state = self.ask(f"/api/games/{game['id']}?token={game['token']}")
            if state["ply"] >= ply or state["result"] is not None:
                return state
            if state["error"]:
                raise RuntimeError(f"game {game['id']}: {state['error']}")
            time.sleep(POLL)
        raise TimeoutError(f"game {game['id']}: no move {ply} within {limit} s: "
                           + json.dumps({k: state[k] for k in ("ply", "to_move", "seat",
                                                                "thinking", "result", "legal", "cells", "moves", "error", "automove", "bot_seat")}))

    def wait_ready(self, game: str) -> float:
        """Seconds since the start once the rules and searches are compiled (a game's
        ``preparing`` turns false)."""
        created = self.ask("/api/games", {"game": game})
        while self.ask(f"/api/games/{created['id']}")["preparing"]:
            time.sleep(0.25)
        return time.perf_counter() - self.started

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait()


def first_moves(server: Server, game: str) -> list[dict]:
    """Per level, the seconds from creating a game the computer opens to its first move."""
    rows = []
    for level in LEVELS:
        began = time.perf_counter()
        created = server.ask("/api/games", {"game": game, "mode": "computer", "bot": level,
                                            "human_seat": 1})
        server.wait_for_ply(created, 1)
        rows.append({"game": game, "step": f"first move, {level}",
                     "s": round(time.perf_counter() - began, 2),
                     "since start s": round(time.perf_counter() - server.started, 1)})
    return rows


def ask_patiently(server: Server, path: str, body: dict) -> tuple[dict, float]:
    """The server's answer and the seconds the request it accepted took, asked again after a
    pause where the server's rate for searches (a client's hints and reviews a minute)
    refuses it: a person does not ask sixty a minute."""
    while True:
        began = time.perf_counter()
        try:
            return server.ask(path, body), time.perf_counter() - began
        except urllib.error.HTTPError as error:
            if error.code != 429:
                raise
            time.sleep(5)


def hint_seconds(server: Server, game: dict) -> float:
    """Seconds a hint takes."""
    return ask_patiently(server, f"/api/games/{game['id']}/hint", {"token": game["token"]})[1]


def replies_and_hints(server: Server, game: str, count: int, rng: random.Random) -> list[dict]:
    """p50/p95 of the expert's replies to random moves, and of hints, ``count`` of each."""
    replies, moves, hints = [], [], []
    created = state = None
    while len(replies) < count or len(hints) < count:
        if state is None or state["result"] is not None:
            created = server.ask("/api/games", {"game": game, "mode": "computer",
                                                "bot": "expert", "human_seat": 0})
            state = created["state"]
        if len(hints) < count and state["legal"]:
            hints.append(hint_seconds(server, created))
        if not state["legal"]:
            state = None
            continue
        ply = state["ply"]
        began = time.perf_counter()
        server.ask(f"/api/games/{created['id']}/moves",
                   {"token": created["token"], "move": rng.choice(state["legal"]), "ply": ply})
        state = server.wait_for_ply(created, ply + 1)
        if state["result"] is None and state["to_move"] != state["seat"]:
            moved = time.perf_counter()
            while state["result"] is None and state["to_move"] != state["seat"]:
                state = server.wait_for_ply(created, state["ply"] + 1)  # the computer's
                moves.append(time.perf_counter() - moved)  # moves, extra turns included
                moved = time.perf_counter()
            replies.append(time.perf_counter() - began)
    return [{"game": game, "step": "expert move", "p50 s": round(percentile(moves, .5), 2),
             "p95 s": round(percentile(moves, .95), 2), "n": len(moves)},
            {"game": game, "step": "expert turn (all its moves)",
             "p50 s": round(percentile(replies, .5), 2),
             "p95 s": round(percentile(replies, .95), 2), "n": len(replies)},
            {"game": game, "step": "hint", "p50 s": round(percentile(hints, .5), 2),
             "p95 s": round(percentile(hints, .95), 2), "n": len(hints)}]


def review(server: Server, game: str, rng: random.Random, moves: int = 40) -> dict:
    """Seconds to review a game of ``moves`` random moves, from asking to every position."""
    created = server.ask("/api/games", {"game": game, "mode": "local"})
    state = created["state"]
    for _ in range(moves):
        if state["result"] is not None or not state["legal"]:
            break
        state = server.ask(f"/api/games/{created['id']}/moves",
                           {"token": created["token"], "move": rng.choice(state["legal"]),
                            "ply": state["ply"]})
    path = f"/api/games/{created['id']}/review"
    answer, asking = ask_patiently(server, path, {"token": created["token"]})
    began = time.perf_counter() - asking
    while answer["appraised"] < answer["positions"]:
        time.sleep(0.2)
        answer = server.ask(f"{path}?token={created['token']}")
    return {"game": game, "step": f"review of {state['ply']} moves",
            "s": round(time.perf_counter() - began, 2)}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=list(variants()))
    parser.add_argument("--replies", type=int, default=30)
    parser.add_argument("--cold", action="store_true",
                        help="first moves on empty caches, a server per game")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", default=None)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rows = []

    def keep(row: dict) -> None:
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.results:
            with open(args.results, "a") as out:
                out.write(json.dumps(row) + "\n")

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        if args.cold:
            for game in args.games:
                server = Server(root / game, root / f"{game}.sqlite3")
                try:
                    for row in first_moves(server, game):
                        keep(row)
                finally:
                    server.stop()
        server = Server(None, root / "warm.sqlite3")
        try:
            server.wait_ready(args.games[0])  # warm waits: not the compile's
            for game in args.games:
                for row in replies_and_hints(server, game, args.replies, rng):
                    keep(row)
                keep(review(server, game, rng))
        except urllib.error.HTTPError as error:
            raise SystemExit(f"{error}: {error.read().decode()}") from None
        finally:
            server.stop()
    columns = ["game", "step", "s", "p50 s", "p95 s", "n", "since start s"]
    report("waits", [{column: row.get(column, "") for column in columns} for row in rows],
           columns)


if __name__ == "__main__":
    main()
