"""The solver's figures: Kalah solved from the start on a cold cache (database build included),
and positions reached by random play, with nodes, rates and peak memory.

    python benchmarks/bench_solve.py [--seeds 4] [--db-seeds 18] [--rules ec noec]
                                     [--positions 1000] [--time 60] [--results FILE.jsonl]
                                     [--no-cold]

For each capture rule: a fresh cache folder (no database, no table), the database of every
position with at most ``--db-seeds`` seeds built (both cores), then Kalah(6, ``--seeds``)
solved from the start (one core). Then ``--positions`` positions reached by random play from
FairKalah boards (Kalah(6,4) only) are solved one after another with the table kept warm,
each given at most ``--time`` seconds (``--no-cold``: only these, with the database in the
user's cache, built there first if missing). Each result is appended to ``--results`` as it is
made, so an interrupted run goes on from there. Prints the figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
from _report import keep_row as keep, report, rows_done as done

import mancalab
from mancalab.analysis import solving
from mancalab.analysis.solving import databases
from mancalab.variants.kalah import fair_boards


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def cold_solve(seeds: int, empty_capture: bool, db_seeds: int) -> dict:
    variant = mancalab.variant("kalah", seeds=seeds, empty_capture=empty_capture)
    before = os.environ.get("XDG_CACHE_HOME")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["XDG_CACHE_HOME"] = folder  # no database, as on a new machine
        started = time.perf_counter()
        database = databases.ensure(variant, db_seeds)
        built = time.perf_counter() - started
        solver = solving.Solver(variant, database)
        result = solving.solve(variant.start(), solver=solver)
        total = time.perf_counter() - started
    if before is None:
        os.environ.pop("XDG_CACHE_HOME")
    else:
        os.environ["XDG_CACHE_HOME"] = before
    seconds = total - built
    return {"run": f"kalah(6,{seeds}) {'ec' if empty_capture else 'noec'} db{db_seeds}",
            "value": result.value, "best": ",".join(result.best_move_names),
            "database positions": int(database.values.size),
            "build s": round(built, 1),
            "database M/s": round(database.values.size / built / 1e6, 2),
            "solve s": round(seconds, 1), "total s": round(total, 1), "nodes": result.nodes,
            "M nodes/s": round(result.nodes / seconds / 1e6, 2),
            "peak GiB": round(peak_rss_gib(), 2)}


def random_positions(count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)
    variant = mancalab.variant("kalah")
    boards = sorted(fair_boards())
    found = []
    while len(found) < count:
        board = mancalab.variant("kalah", board=int(rng.choice(boards)))
        state = variant.state(board.start().cells, 0)
        for _ in range(int(rng.integers(0, 40))):
            if state.is_over:
                break
            state = state.play(int(rng.choice(state.legal_moves())))
        if not state.is_over:
            found.append(state)
    return found


def many(count: int, limit: float, db_seeds: int, empty_capture: bool,
         results: Path | None) -> dict:
    """Solve ``count`` positions one after another; each one's figures go to a side file
    (``results`` + ``.positions``) as it is solved, so a stopped run resumes."""
    variant = mancalab.variant("kalah", empty_capture=empty_capture)
    database = databases.ensure(variant, db_seeds)
    solver = solving.Solver(variant, database)
    rule = "ec" if empty_capture else "noec"
    side = results.with_name(results.name + ".positions") if results else None
    kept = {}
    if side and side.exists():
        for line in side.read_text().splitlines():
            row = json.loads(line)
            if row["rule"] == rule and row["db"] == db_seeds and row["time"] == limit:
                kept[row["number"]] = row
    rows = []
    for number, state in enumerate(random_positions(count, seed=1)):
        if number in kept:
            rows.append(kept[number])
            continue
        result = solving.solve(state, time=limit, solver=solver)
        row = {"rule": rule, "db": db_seeds, "time": limit, "number": number,
               "seeds": int(solving.mover_pits(state).sum()), "seconds": result.seconds,
               "nodes": result.nodes, "exact": result.exact}
        rows.append(row)
        if side:
            with open(side, "a") as handle:
                handle.write(json.dumps(row) + "\n")
    times = [row["seconds"] for row in rows]
    return {"run": f"{count} random kalah(6,4) positions {rule} db{db_seeds}",
            "mean s": round(float(np.mean(times)), 3),
            "median s": round(float(np.median(times)), 3),
            "max s": round(float(np.max(times)), 1),
            "not proven": sum(not row["exact"] for row in rows),
            "nodes": sum(row["nodes"] for row in rows), "peak GiB": round(peak_rss_gib(), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--db-seeds", type=int, default=18)
    parser.add_argument("--rules", nargs="+", default=["ec", "noec"], choices=["ec", "noec"])
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--time", type=float, default=60)
    parser.add_argument("--results", type=Path)
    parser.add_argument("--no-cold", action="store_true",
                        help="skip the solves from the start on a cold cache")
    args = parser.parse_args()
    finished = done(args.results)
    rows = []
    for rule in [] if args.no_cold else args.rules:
        run = f"kalah(6,{args.seeds}) {rule} db{args.db_seeds}"
        row = finished.get(run) or cold_solve(args.seeds, rule == "ec", args.db_seeds)
        if run not in finished:
            keep(args.results, row)
        rows.append(row)
    if rows:
        report("Kalah solved from the start, cold cache", rows, list(rows[0]))
    if args.positions:
        many_rows = []
        for rule in args.rules:
            run = (f"{args.positions} random kalah(6,4) positions {rule} db{args.db_seeds}")
            row = finished.get(run) or many(args.positions, args.time, args.db_seeds,
                                            rule == "ec", args.results)
            if run not in finished:
                keep(args.results, row)
            many_rows.append(row)
        report("random Kalah(6,4) positions", many_rows, list(many_rows[0]))


if __name__ == "__main__":
    main()
