"""The value of the start of every Kalah(m, n), both capture rules, within a time budget each.

    python benchmarks/bench_starts.py [--pits 1 2 3 4 5 6] [--seeds 1 2 3 4 5] [--budget 600]
                                      [--results benchmarks/results/starts.jsonl]

Each start is solved with the largest database built for its rules (or one built on demand,
its time counted apart) and at most ``--budget`` seconds of search; what is not proven by then
is kept as bounds, labelled so. One JSON line per start is appended to ``--results`` as it is
found, so an interrupted run goes on from there. Prints the table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _report import report

import mancalab
from mancalab.analysis import solving


def key(pits: int, seeds: int, empty_capture: bool) -> str:
    return f"kalah({pits},{seeds}) {'ec' if empty_capture else 'noec'}"


def solve_start(pits: int, seeds: int, empty_capture: bool, budget: float) -> dict:
    variant = mancalab.variant("kalah", pits=pits, seeds=seeds, empty_capture=empty_capture)
    state = variant.start()
    started = time.perf_counter()
    database = solving.database_for(state)
    built = time.perf_counter() - started
    result = solving.solve(state, time=budget, database=database)
    return {"run": key(pits, seeds, empty_capture), "pits": pits, "seeds": seeds,
            "empty_capture": empty_capture, "value": result.value, "exact": result.exact,
            "lower": result.lower, "upper": result.upper, "best": ",".join(
                result.best_move_names), "nodes": result.nodes,
            "search s": round(result.seconds, 2), "database build s": round(built, 1),
            "database seeds": database.seeds, "budget s": budget}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pits", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--budget", type=float, default=600.0)
    parser.add_argument("--results", type=Path, default=Path("benchmarks/results/starts.jsonl"))
    args = parser.parse_args()
    found = {}
    if args.results.exists():
        for line in args.results.read_text().splitlines():
            row = json.loads(line)
            found[row["run"]] = row
    rows = []
    for pits in args.pits:
        for seeds in args.seeds:
            for empty_capture in (True, False):
                name = key(pits, seeds, empty_capture)
                row = found.get(name)
                if row is None or (not row["exact"] and row["budget s"] < args.budget):
                    row = solve_start(pits, seeds, empty_capture, args.budget)
                    print(json.dumps(row), flush=True)
                    with open(args.results, "a") as handle:
                        handle.write(json.dumps(row) + "\n")
                rows.append(row)
    report("Values of the Kalah starts (first player's margin)", rows,
           ["run", "value", "lower", "upper", "best", "nodes", "search s", "database seeds"])


if __name__ == "__main__":
    main()
