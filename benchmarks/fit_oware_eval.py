"""Fit Oware's positional terms (``mancalab.variants.rules.oware``: OWARE_HOUSE_TERMS for the
6-house board, OWARE_EMPTY, OWARE_WEAK, OWARE_BIG and OWARE_TEMPO for the others) to deeper
searches, and print them.

    python benchmarks/fit_oware_eval.py [--positions 12000] [--depth 7] [--seed 7]
        [--games GAMES.jsonl ...] [--jobs 1]

Random positions of random games (4 to 100 moves in, not over), or with ``--games`` the
positions of played games (``bench_oware.py --games-out``: the positions a strong game meets,
each with the game's positions before it); each valued by the alpha-beta
search to DEPTH or DEPTH - 1, in turn (an odd depth gives the mover one move more than the
opponent: the two cancel that out of the tempo; the terms in place: a fit again moves them
a little) from its player to move's side; positions found won or lost left out (their value
is the outcome, not a margin). Least squares of (value - captured margin) on, for each house
counted from the mover's first (its own six, then the opponent's), whether it is empty, holds
1 or 2 seeds, or holds a lap or more (11 seeds), plus a constant (having the move); and on the
same counts summed over each row (the mover's less the opponent's); and on the seeds on each
row (the mover's less the opponent's: a row's seeds are its owner's when the game ends by a
recurrence). Fitted on three quarters of the positions, the variance explained measured on
the rest, beside the terms in place's. Prints the weights in seeds and one JSON line.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from _report import report

import mancalab
from mancalab import search
from mancalab.core import State
from mancalab.variants.rules.oware import OWARE_HOUSE_TEMPO, OWARE_HOUSE_TERMS

HOUSES = 6


def kinds(state) -> np.ndarray:
    """Per house counted from the mover's first: empty, 1-2 seeds, a lap or more (3 x 12)."""
    board, mover = state.board, state.to_move
    row = np.r_[board[mover * HOUSES:(mover + 1) * HOUSES],
                board[(1 - mover) * HOUSES:(2 - mover) * HOUSES]]
    return np.array([row == 0, (row == 1) | (row == 2), row >= 2 * HOUSES - 1], dtype=float)


def explained(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Weights fitted on three quarters, and the variance they explain of the rest."""
    cut = 3 * len(y) // 4
    weights, *_ = np.linalg.lstsq(x[:cut], y[:cut], rcond=None)
    rest = y[cut:] - x[cut:] @ weights
    return weights, float(1 - np.var(rest) / np.var(y[cut:]))


def random_positions(variant, rng):
    """Positions of random games, 4 to 100 moves in, not over (no positions before them)."""
    while True:
        state = variant.start()
        for _ in range(rng.integers(4, 100)):
            if state.is_over:
                break
            legal = state.legal_moves()
            state = state.play(legal[rng.integers(len(legal))])
        if not state.is_over:
            yield state, ()


def game_positions(variant, paths: list[str], rng):
    """The positions of played games (4 moves in, not over) with those before them, in a
    random order."""
    import json

    from mancalab.records import GameRecord

    found = []
    for path in paths:
        with open(path) as lines:
            for line in lines:
                record = GameRecord(variant, variant.start())
                for ply, move in enumerate(json.loads(line)["moves"]):
                    if ply >= 4 and len(record.state.legal_moves()) > 1:
                        found.append((record.state, tuple(record.states)[:-1]))
                    record.push(move)
    for i in rng.permutation(len(found)):
        yield found[i]


def valued(job: tuple):
    """One position (its board, the boards before it, the depth) searched: its kinds, the
    seeds on the mover's row less the opponent's, and the deeper value less the captured
    margin; None when the search finds it won or lost (its value is the outcome)."""
    board, before, depth = job
    variant = mancalab.variant("oware")
    state = State(variant, board)
    history = [State(variant, earlier) for earlier in before]
    _, value, _, _ = search.Search(18).deepen(state, 0, depth=depth, unlimited=True,
                                              history=history)
    if abs(value) > search.WIN // 2:
        return None
    mover, cells = state.to_move, state.cells
    seeds = (sum(cells[mover * HOUSES:(mover + 1) * HOUSES])
             - sum(cells[(1 - mover) * HOUSES:(2 - mover) * HOUSES]))
    return kinds(state), seeds, value - (state.score[mover] - state.score[1 - mover])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12000, help="positions searched")
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--games", nargs="+", default=None,
                        help="positions from these games (bench_oware.py --games-out)")
    parser.add_argument("--jobs", type=int, default=1, help="processes searching")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    variant = mancalab.variant("oware")
    positions = (game_positions(variant, args.games, rng) if args.games
                 else random_positions(variant, rng))
    jobs = [(state.board, [earlier.board for earlier in before], args.depth - i % 2)
            for i, (state, before) in zip(range(args.positions), positions)]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        found = [row for row in pool.map(valued, jobs, chunksize=32) if row is not None]
    rows = [row for row, _, _ in found]
    rows_seeds = [seeds for _, seeds, _ in found]
    targets = [target for _, _, target in found]
    per_house = np.array(rows)  # positions x 3 x 12
    y = np.array(targets, dtype=float)
    ones = np.ones((len(y), 1))
    row_seeds = np.array(rows_seeds, dtype=float)[:, None]
    by_house, house_share = explained(np.c_[per_house.reshape(len(y), -1), ones], y)
    with_seeds, seeds_share = explained(np.c_[per_house.reshape(len(y), -1), row_seeds, ones],
                                        y)
    summed = per_house[:, :, :HOUSES].sum(axis=2) - per_house[:, :, HOUSES:].sum(axis=2)
    by_row, row_share = explained(np.c_[summed, ones], y)
    in_place = per_house.reshape(len(y), -1) @ OWARE_HOUSE_TERMS.ravel() + OWARE_HOUSE_TEMPO
    rest = slice(3 * len(y) // 4, None)  # the quarter ``explained`` measures on
    in_place_share = 1 - np.var(y[rest] - in_place[rest]) / np.var(y[rest])
    print("OWARE_HOUSE_TERMS (seeds; empty, 1-2, a lap; mover's houses then the opponent's):")
    print(np.round(by_house[:-1].reshape(3, 2 * HOUSES), 2).tolist(), "tempo",
          round(by_house[-1], 2))
    print("with the rows' seeds:", np.round(with_seeds[:-2].reshape(3, 2 * HOUSES), 2).tolist(),
          "a seed on the row", round(with_seeds[-2], 3), "tempo", round(with_seeds[-1], 2))
    report("Oware's positional terms fitted to deeper searches",
           [{"positions": len(y), "depth": args.depth,
             "from": " ".join(args.games or ["random games"]),
             "empty": round(by_row[0], 2), "weak (1-2)": round(by_row[1], 2),
             "big (a lap)": round(by_row[2], 2), "tempo": round(by_row[3], 2),
             "explained_by_rows": round(row_share, 3),
             "explained_by_houses": round(house_share, 3),
             "explained_by_terms_in_place": round(float(in_place_share), 3),
             "explained_with_row_seeds": round(seeds_share, 3),
             "seconds": round(time.perf_counter() - started, 1)}],
           ["positions", "depth", "from", "empty", "weak (1-2)", "big (a lap)", "tempo",
            "explained_by_rows", "explained_by_houses", "explained_by_terms_in_place",
            "explained_with_row_seeds", "seconds"])


if __name__ == "__main__":
    main()
