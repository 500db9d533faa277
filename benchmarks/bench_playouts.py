"""Playouts and moves a second for each game, from its start, on one core.

    python benchmarks/bench_playouts.py [--seconds 3]

- random playouts/s: complete uniformly random games in compiled code (what MCTS runs);
- MCTS playouts/s: whole search iterations (select, expand, playout, backpropagate);
- kernel moves/s: moves played inside those random games;
- API moves/s: ``State.play`` from Python, immutable states and legality checks included.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import mancalab
from mancalab.analysis import random_play_stats
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--games", nargs="*", default=mancalab.variants())
    args = parser.parse_args()
    rows = [measure(name, args.seconds) for name in args.games]
    report("playouts", rows, list(rows[0]))


if __name__ == "__main__":
    main()
