"""Oware's expert told the game's positions against the same expert not told them: what
seeing a move that repeats a position (and so ends the game, each side taking its own seeds)
is worth at equal time.

    python benchmarks/bench_oware.py [--games 40] [--time 0.1] [--jobs 2]

Both play ``alphabeta:time=T``; one is told the game's positions before each move (as every
driver of mancalab tells its players), the other values each position alone (mancalab's
expert before issue 88). Games in pairs from the same four random opening moves, colours
swapped, ended by the record's rules (the first recurrence of a position, OpenSpiel's cap of
1,000 moves). Prints the told player's score with a 95% interval, how the games ended, the
mean margin and the depths reached, then one JSON line.
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from _report import report

import mancalab
from mancalab.analysis.compete import arena
from mancalab.players.alphabeta import AlphaBetaPlayer
from mancalab.records import GameRecord


class Blind(AlphaBetaPlayer):
    """The expert that values each position alone (told nothing of the game)."""

    def remember(self, states):
        return self


def play(job: tuple[tuple[int, ...], bool, float]) -> dict:
    """One game from ``opening``: the told player first or second; its result for the told
    player, how it ended, and each side's mean depth."""
    opening, told_first, seconds = job
    variant = mancalab.variant("oware")
    record = GameRecord(variant, variant.start())
    for move in opening:
        record.push(move)
    told, blind = AlphaBetaPlayer(time=seconds), Blind(time=seconds)
    seats = [told, blind] if told_first else [blind, told]
    depths: dict[str, list[int]] = {"told": [], "blind": []}
    while not record.state.is_over and not record.at_cap:
        player = seats[record.state.to_move]
        move = player.remember(record.states).choose(record.state)
        depths["told" if player is told else "blind"].append(player.last_info.get("depth", 0))
        record.push(move)
    state, seat = record.state, 0 if told_first else 1
    margin = state.score[seat] - state.score[1 - seat]
    winner = state.outcome.winner if state.outcome is not None else None
    score = 0.5 if winner is None else float(winner == seat)
    return {"score": score, "margin": margin, "how": record.termination or "score",
            "plies": len(record.moves),
            "depth_told": sum(depths["told"]) / max(1, len(depths["told"])),
            "depth_blind": sum(depths["blind"]) / max(1, len(depths["blind"]))}


def interval(scores: list[float]) -> tuple[float, float]:
    """A 95% interval of the mean score (normal approximation, clipped to 0..1)."""
    n = len(scores)
    mean = sum(scores) / n
    spread = math.sqrt(sum((s - mean) ** 2 for s in scores) / max(1, n - 1) / n)
    return max(0.0, mean - 1.96 * spread), min(1.0, mean + 1.96 * spread)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--time", type=float, default=0.1, help="seconds a move")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=88)
    args = parser.parse_args()
    jobs = [(opening, told_first, args.time)
            for _, opening in arena.openings("oware", {}, (args.games + 1) // 2, args.seed)
            for told_first in (True, False)][:args.games]
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(play, jobs))
    scores = [r["score"] for r in results]
    low, high = interval(scores)
    wins = sum(s == 1 for s in scores)
    draws = sum(s == 0.5 for s in scores)
    ended = Counter(r["how"] for r in results)
    report("Oware: the expert told the game against the expert not told it",
           [{"games": len(results), "seconds_a_move": args.time,
             "told_wins_draws_losses": f"{wins}-{draws}-{len(results) - wins - draws}",
             "told_score": round(sum(scores) / len(scores), 3),
             "interval_95": f"{low:.2f}-{high:.2f}",
             "by_repetition": ended.get("repetition", 0),
             "mean_margin": round(sum(r["margin"] for r in results) / len(results), 2),
             "mean_plies": round(sum(r["plies"] for r in results) / len(results), 1),
             "depth_told": round(sum(r["depth_told"] for r in results) / len(results), 1),
             "depth_blind": round(sum(r["depth_blind"] for r in results) / len(results), 1),
             "wall_seconds": round(time.perf_counter() - started, 1)}],
           ["games", "seconds_a_move", "told_wins_draws_losses", "told_score", "interval_95",
            "by_repetition", "mean_margin", "mean_plies", "depth_told", "depth_blind",
            "wall_seconds"])


if __name__ == "__main__":
    main()
