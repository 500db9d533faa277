"""From a fresh server start to exact analysis, on a new machine (empty caches).

    python benchmarks/bench_exact_ready.py [--warm-kernels] [--results FILE]

Starts `mancalab serve` with empty cache folders (with --warm-kernels, numba's compiled cache
is kept: only the data is new), creates a game of Kalah(6,4) and of Gebeta, and asks each
game's analysis endpoint for the start's values once the page says the game's exact play is
ready (`/api/preparation`). Prints, per game, the seconds from the start until the analysis
answered exact, the value and best moves; the peak memory of the server and its preparing
process together (resident, sampled every second) and the disk the prepared files take.
Targets (issue 43): Kalah +10 (best move 4) and Gebeta -2 within 15 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
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

GAMES = ("kalah", "gebeta")


def get(url: str, body: dict | None = None, timeout: float = 10):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return json.load(answer)


def resident(pid: int) -> int:
    """Resident bytes of ``pid`` and its children, grandchildren..."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1]) * 1024
            for task in os.listdir(f"/proc/{current}/task"):
                with open(f"/proc/{current}/task/{task}/children") as children:
                    todo += [int(child) for child in children.read().split()]
        except OSError:
            continue
    return total


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def run(root: Path, warm_kernels: bool, budget: float) -> dict:
    env = {**os.environ, "XDG_CACHE_HOME": str(root / "cache")}
    if not warm_kernels:
        env["NUMBA_CACHE_DIR"] = str(root / "numba")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", "from mancalab.cli import main; main()", "serve", "--port",
         str(port), "--db", str(root / "games.sqlite3")], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    games, found, peak, status = {}, {}, 0, {}
    try:
        while time.perf_counter() - started < budget and len(found) < len(GAMES):
            peak = max(peak, resident(process.pid))
            try:
                if not games:
                    games = {name: get(f"{base}/api/games", {"game": name, "mode": "local"})
                             for name in GAMES}
                status = get(f"{base}/api/preparation")
                for name, game in games.items():
                    if name in found or not status["games"][name]["ready"]:
                        continue
                    answer = get(f"{base}/api/games/{game['id']}/analysis",
                                 {"token": game["token"]}, timeout=60)
                    if answer["exact"]:
                        found[name] = {"seconds": round(time.perf_counter() - started, 1),
                                       "value": answer["value"],
                                       "best_moves": answer["best_moves"]}
                        print(f"{name}: exact {answer['value']:+d}, best "
                              f"{', '.join(answer['best_moves'])}, after "
                              f"{found[name]['seconds']} s", flush=True)
            except OSError:
                pass
            time.sleep(1.0)
    finally:
        process.terminate()
        process.wait(30)
    return {"games": found, "peak_bytes": peak,
            "disk_bytes": folder_bytes(root / "cache" / "mancalab" / "databases"),
            "steps": status.get("steps", [])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm-kernels", action="store_true",
                        help="keep numba's compiled cache (only the data is new)")
    parser.add_argument("--budget", type=float, default=1800, help="seconds to wait at most")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        figures = run(Path(folder), args.warm_kernels, args.budget)
    rows = []
    for name in GAMES:
        got = figures["games"].get(name, {})
        rows.append({"game": name, "exact after s": got.get("seconds", "not within budget"),
                     "value": got.get("value", "-"),
                     "best": ", ".join(got.get("best_moves", []))})
    rows.append({"game": "peak memory GiB (server + preparing)",
                 "exact after s": round(figures["peak_bytes"] / 2**30, 2), "value": "",
                 "best": ""})
    rows.append({"game": "prepared files MiB", "exact after s":
                 round(figures["disk_bytes"] / 2**20), "value": "", "best": ""})
    kernels = "compiled kernels kept" if args.warm_kernels else "everything from empty"
    report(f"exact analysis after a fresh server start ({kernels})", rows,
           ["game", "exact after s", "value", "best"])


if __name__ == "__main__":
    main()
