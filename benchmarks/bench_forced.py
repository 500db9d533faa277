"""Urubugu solved by the search for forced ends: how often a position's value is proven within a
time budget, how long it takes, and the nodes a second.

    python benchmarks/bench_forced.py [--positions 100] [--plies 0 4 8 16] [--time 1 10]
                                      [--seed 1] [--results FILE.jsonl]

Positions: both players' free settings drawn uniformly
(``mancalab.analysis.research.counter.settings``,
the default setting first), then ``--plies`` random moves (games over are drawn again). Each
is solved with each ``--time`` on a cold table in this process (the kernels compiled first, not
timed). A row per solve is appended to ``--results`` as it is made, so an interrupted run goes
on from there. Prints the share proven (95% interval), the values found, the median time to
prove them (the bounds met; the best moves are then looked for in the time left) and the
positions played a second, then one JSON line.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from _report import keep_row as keep, report, rows_done as done

import mancalab
from mancalab.analysis.research import counter
from mancalab.analysis import solving
from mancalab.analysis.solving import forced
from mancalab.analysis.research.metrics import wilson


def positions(count: int, plies: int, seed: int) -> list:
    """``count`` Urubugu positions going on, ``plies`` random moves after drawn settings."""
    variant = mancalab.variant("urubugu")
    rng = random.Random(seed * 1000 + plies)
    settings = counter.settings(2 * count + 1, seed)
    found = []
    tries = 0
    while len(found) < count:
        tries += 1
        state = variant.start(setting_a=settings[tries % len(settings)],
                              setting_b=settings[(tries * 7 + 1) % len(settings)])
        for _ in range(plies):
            if state.is_over:
                break
            state = state.play(rng.choice(state.legal_moves()))
        if not state.is_over:
            found.append(state)
    return found


def solve_row(run: str, state, limit: float) -> dict:
    forced._SEARCHER = None  # a cold table: no solve helps the next
    search = forced.searcher()
    search.table[:] = 0
    started = time.perf_counter()
    proved = []  # when the bounds met (the best moves are then looked for in the time left)
    result = solving.solve(state, time=limit, on_bounds=lambda lower, upper: proved.append(
        time.perf_counter() - started) if lower == upper else None)
    seconds = time.perf_counter() - started
    return {"run": run, "cells": list(state.cells), "to_move": state.to_move,
            "time_limit": limit, "exact": result.exact, "value": result.value,
            "lower": result.lower, "upper": result.upper, "depth": result.depth,
            "best": result.best_move_names, "nodes": result.nodes,
            "proved_s": round(proved[0], 4) if proved else None,
            "seconds": round(seconds, 4)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--plies", type=int, nargs="+", default=[0, 4, 8, 16])
    parser.add_argument("--time", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results", type=Path)
    args = parser.parse_args()
    found = done(args.results)
    forced.searcher()  # compiling is not part of the figures
    summary = []
    for plies in args.plies:
        states = positions(args.positions, plies, args.seed)
        for limit in args.time:
            rows = []
            for i, state in enumerate(states):
                run = f"urubugu plies={plies} seed={args.seed} #{i} time={limit:g}"
                if run not in found:
                    found[run] = solve_row(run, state, limit)
                    keep(args.results, found[run])
                rows.append(found[run])
            proven = [r for r in rows if r["exact"]]
            low, high = wilson(len(proven), len(rows))
            nodes, seconds = sum(r["nodes"] for r in rows), sum(r["seconds"] for r in rows)
            summary.append({
                "positions": f"{plies} moves after the settings", "time": f"{limit:g} s",
                "proven": f"{len(proven)}/{len(rows)} ({100 * low:.0f}-{100 * high:.0f}%)",
                "won by the mover": sum(r["value"] > 0 for r in proven),
                "lost": sum(r["value"] < 0 for r in proven),
                "median s to prove": (statistics.median(r["proved_s"] for r in proven)
                                      if proven else "-"),
                "M nodes/s": round(nodes / max(seconds, 1e-9) / 1e6, 2)})
    report("Urubugu: values proven by the search for forced ends", summary,
           ["positions", "time", "proven", "won by the mover", "lost", "median s to prove",
            "M nodes/s"])


if __name__ == "__main__":
    main()
