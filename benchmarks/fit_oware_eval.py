"""Fit Oware's positional terms (``mancalab.search``: OWARE_EMPTY, OWARE_WEAK, OWARE_BIG,
OWARE_TEMPO) to deeper searches, and print them.

    python benchmarks/fit_oware_eval.py [--positions 3000] [--depth 7] [--seed 1]

Random positions of random games (4 to 80 moves in, not over); each valued by the alpha-beta
search to DEPTH or DEPTH - 1, in turn (an odd depth gives the mover one move more than the
opponent: the two cancel that out of the tempo; the terms in place: a fit again moves them
little) from its player to move's side; positions found won or lost left out (their value is the outcome, not a
margin). Least squares of (value - captured margin) on the differences, the mover's less the
opponent's, of the houses empty, holding 1 or 2 seeds and holding a lap or more, plus a
constant (having the move). Prints the weights, how much of the variance they explain, and
one JSON line.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _report import report

import mancalab
from mancalab import search


def terms(state) -> np.ndarray:
    """The differences the fit weighs, for the player to move."""
    board, n, mover = state.board, state.variant.params[1], state.to_move
    counts = np.zeros(3)
    for house in range(2 * n):
        sign = 1 if house // n == mover else -1
        seeds = board[house]
        if seeds == 0:
            counts[0] += sign
        elif seeds <= 2:
            counts[1] += sign
        elif seeds >= 2 * n - 1:
            counts[2] += sign
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    variant = mancalab.variant("oware")
    keys = np.zeros(1 << 18, np.uint64)
    data = np.zeros((1 << 18, 5), np.int64)
    rows, targets = [], []
    started = time.perf_counter()
    while len(targets) < args.positions:
        state = variant.start()
        for _ in range(rng.integers(4, 80)):
            if state.is_over:
                break
            legal = state.legal_moves()
            state = state.play(legal[rng.integers(len(legal))])
        if state.is_over:
            continue
        stats = np.zeros(4, np.int64)
        stats[search.NODE_LIMIT] = 1 << 60
        keys[:] = 0
        depth = args.depth - len(targets) % 2
        value, _ = search.negamax(variant.params, state.board.copy(), depth,
                                  -search.INFINITY, search.INFINITY, keys, data,
                                  np.zeros(64, np.int64), stats)
        if abs(value) > search.WIN // 2:
            continue
        mover = state.to_move
        margin = state.score[mover] - state.score[1 - mover]
        rows.append(terms(state))
        targets.append(value - margin)
    x = np.c_[np.array(rows), np.ones(len(rows))]
    y = np.array(targets, dtype=float)
    weights, *_ = np.linalg.lstsq(x, y, rcond=None)
    explained = 1 - np.var(y - x @ weights) / np.var(y)
    report("Oware's positional terms fitted to deeper searches",
           [{"positions": len(y), "depth": args.depth,
             "empty": round(weights[0], 2), "weak (1-2)": round(weights[1], 2),
             "big (a lap)": round(weights[2], 2), "tempo": round(weights[3], 2),
             "variance_explained": round(float(explained), 3),
             "seconds": round(time.perf_counter() - started, 1)}],
           ["positions", "depth", "empty", "weak (1-2)", "big (a lap)", "tempo",
            "variance_explained", "seconds"])


if __name__ == "__main__":
    main()
