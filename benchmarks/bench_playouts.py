"""Playouts and moves a second for each game, from its start, on one core.

    python benchmarks/bench_playouts.py [--seconds 3] [--vs-c] [--user]

- random playouts/s: complete uniformly random games in compiled code (what MCTS runs);
- MCTS playouts/s: whole search iterations (select, expand, playout, backpropagate);
- kernel moves/s: moves played inside those random games;
- API moves/s: ``State.play`` from Python, immutable states and legality checks included.

``--vs-c`` measures Kalah(6,4) and Oware beside a C loop with the same rules
(``benchmarks/c/playouts.c``, built with the system's C compiler; skipped with a word when
there is none): random playouts a second and perft's sequences a second, run alternately,
with the C program's perft and mean game length checked equal to mancalab's.

``--user`` times the loop of user code docs/api.md shows (its own numba function calling
``mancalab.kernels``), as written and without its line that lends the arrays, beside
mancalab's own random play, in Kalah(6,4).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import mancalab
from mancalab.analysis import perft, random_play_stats
from mancalab.players.mcts import SearchTree

from _report import report


def measure(name: str, seconds: float) -> dict:
    game = mancalab.variant(name)
    start = game.start()
    random_play_stats(start, 10)  # compile or load from the cache
    games, moves, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        stats = random_play_stats(start, 2000, seed=games)
        games += stats.games
        moves += stats.moves
    random_seconds = time.perf_counter() - t0

    tree = SearchTree(start.board)
    tree.run(game, 10, 2 ** 0.5)
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += tree.run(game, 1000, 2 ** 0.5)
    mcts_seconds = time.perf_counter() - t0

    rng = np.random.default_rng(0)
    api_moves, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = start
        for _ in range(100_000):  # Urubugu and 3-row Gabata have no move limit
            if state.outcome is not None:
                break
            legal = state.legal_moves()
            state = state.play(legal[int(rng.integers(len(legal)))])
            api_moves += 1
    api_seconds = time.perf_counter() - t0
    return {"game": name,
            "random playouts/s": games / random_seconds,
            "MCTS playouts/s": done / mcts_seconds,
            "kernel moves/s": moves / random_seconds,
            "API moves/s": api_moves / api_seconds,
            "mean game length": moves / games}


PERFT_DEPTH = {"kalah": 10, "oware": 9}  # about a second each in C


def built_c_loop(folder: Path) -> Path | None:
    """The C loop compiled into ``folder``, or None without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    program = folder / "playouts"
    subprocess.run([compiler, "-O3", "-march=native", "-o", str(program),
                    str(Path(__file__).parent / "c" / "playouts.c")], check=True)
    return program


def c_loop(program: Path, *args) -> dict:
    return json.loads(subprocess.run([str(program), *map(str, args)], check=True,
                                     capture_output=True, text=True).stdout)


def versus_c(seconds: float, rounds: int = 3) -> list[dict]:
    """mancalab's compiled random play and perft beside the C loop's, alternated; the best
    of ``rounds`` each."""
    with tempfile.TemporaryDirectory() as folder:
        program = built_c_loop(Path(folder))
        if program is None:
            print("no C compiler (cc, gcc or clang): the C loop is skipped")
            return []
        rows = []
        for name in ("kalah", "oware"):
            start = mancalab.variant(name).start()
            depth = PERFT_DEPTH[name]
            random_play_stats(start, 10), perft(start, 2)  # compiled or loaded
            ours, theirs, ours_perft, theirs_perft = [], [], [], []
            for _ in range(rounds):
                games, moves, t0 = 0, 0, time.perf_counter()
                while time.perf_counter() - t0 < seconds:
                    stats = random_play_stats(start, 2000, seed=games)
                    games, moves = games + stats.games, moves + stats.moves
                ours.append((games / (time.perf_counter() - t0), moves / games))
                theirs.append(c_loop(program, name, seconds))
                ours_perft.append(perft(start, depth))
                theirs_perft.append(c_loop(program, name, "perft", depth))
            assert {p.sequences for p in ours_perft} == {t["sequences"] for t in theirs_perft}
            best, best_c = max(ours), max(theirs, key=lambda t: t["playouts_per_second"])
            assert abs(best[1] - best_c["mean_length"]) < 0.05 * best[1], (best, best_c)
            perft_rate = max(p.per_second for p in ours_perft)
            perft_c = max(t["sequences"] / t["seconds"] for t in theirs_perft)
            rows.append({"game": name, "playouts/s": best[0],
                         "C playouts/s": best_c["playouts_per_second"],
                         "playouts ratio": best[0] / best_c["playouts_per_second"],
                         "perft depth": depth, "perft/s": perft_rate, "C perft/s": perft_c,
                         "perft ratio": perft_rate / perft_c})
        return rows


def user_loop(lent: bool = True):
    """docs/api.md's example of user code, its function (``lent`` False: without the line
    that lends the arrays)."""
    page = (Path(__file__).parents[1] / "docs" / "api.md").read_text()
    code = next(block for block in re.findall(r"```python\n(.*?)```", page, re.S)
                if "def random_playouts" in block)
    code = code[:code.index("kalah = ")]  # the function, not its call
    if not lent:
        code = re.sub(r"\n *params, board = kernels\.borrowed\(params\), "
                      r"kernels\.borrowed\(board\)", "", code)
        assert "borrowed(" not in code
    namespace: dict = {}
    exec(compile(code, "docs/api.md", "exec"), namespace)
    return namespace["random_playouts"]


def versus_user(seconds: float, rounds: int = 3) -> list[dict]:
    """Random playouts a second: docs/api.md's user loop, lent and not, and mancalab's."""
    game = mancalab.variant("kalah")
    start = game.start()
    loops = {"user code (docs/api.md)": user_loop(),
             "user code, arrays not lent": user_loop(lent=False)}
    best = {name: 0.0 for name in [*loops, "mancalab's random play"]}
    for loop in loops.values():
        loop(game.params, start.board, start.board, 10)  # compiled
    random_play_stats(start, 10)
    for _ in range(rounds):
        for name, loop in loops.items():
            done, t0 = 0, time.perf_counter()
            while time.perf_counter() - t0 < seconds:
                loop(game.params, start.board, start.board, 2000)
                done += 2000
            best[name] = max(best[name], done / (time.perf_counter() - t0))
        games, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            games += random_play_stats(start, 2000, seed=games).games
        best["mancalab's random play"] = max(best["mancalab's random play"],
                                             games / (time.perf_counter() - t0))
    return [{"loop": name, "playouts/s": rate} for name, rate in best.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--games", nargs="*", default=mancalab.variants())
    parser.add_argument("--vs-c", action="store_true",
                        help="Kalah and Oware beside a C loop with the same rules")
    parser.add_argument("--user", action="store_true",
                        help="docs/api.md's user loop beside mancalab's random play")
    args = parser.parse_args()
    if args.user:
        rows = versus_user(args.seconds)
        report("user code calling the kernels (Kalah 6,4)", rows, list(rows[0]))
        return
    if args.vs_c:
        rows = versus_c(args.seconds)
        if rows:
            report("playouts against a C loop", rows, list(rows[0]))
        return
    rows = [measure(name, args.seconds) for name in args.games]
    report("playouts", rows, list(rows[0]))


if __name__ == "__main__":
    main()
