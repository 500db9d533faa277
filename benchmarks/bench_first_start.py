"""The first start on a new machine: an empty compiled cache and an empty data cache.

    python benchmarks/bench_first_start.py

1. `mancalab serve`: seconds until the page answers, and until the rules and the computer
   players are compiled (a game's `preparing` turns false). Targets: answers within 60 s.
2. `mancalab solve kalah -o pits=4 -o seeds=3` (a small solve, its database built first):
   seconds end to end. Target: within 20 s.
3. The same two again with the caches now filled (a later start).
Each in a fresh process; the server and the solve each have cache folders of their own. Prints a row each, then one JSON line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from _report import report
from bench_web import free_port


def caches(root: Path) -> dict:
    return {**os.environ, "NUMBA_CACHE_DIR": str(root / "numba"),
            "XDG_CACHE_HOME": str(root / "cache")}


def get(url: str, body: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        return json.load(answer)


def serve(root: Path) -> dict:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", "from mancalab.cli import main; main()", "serve", "--port",
         str(port), "--db", str(root / "games.sqlite3")], env=caches(root),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    answered = ready = game = None
    try:
        while time.perf_counter() - started < 900:
            try:  # one game made, then read (making one every time would hit the rate limit)
                if game is None:
                    game = get(f"{base}/api/games", {"game": "kalah"})
                    answered = time.perf_counter() - started
                state = get(f"{base}/api/games/{game['id']}")
                if not state["preparing"]:
                    ready = time.perf_counter() - started
                    break
            except OSError:
                pass
            time.sleep(0.25)
    finally:
        process.terminate()
        process.wait()
    return {"answers s": round(answered, 1) if answered else None,
            "rules ready s": round(ready, 1) if ready else None}


def solve(root: Path) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "from mancalab.cli import main; main()", "solve",
                    "kalah", "-o", "pits=4", "-o", "seeds=3"], env=caches(root), check=True,
                   stdout=subprocess.DEVNULL)
    return round(time.perf_counter() - started, 1)


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as name:
        served, solved = Path(name) / "serve", Path(name) / "solve"  # each from empty
        for start in ("first", "later"):
            row = {"start": start, **serve(served), "small solve s": solve(solved)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    report("first start", rows, ["start", "answers s", "rules ready s", "small solve s"])


if __name__ == "__main__":
    main()
