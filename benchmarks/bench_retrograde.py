"""Gebeta and Gabata solved by retrograde analysis: databases built (positions a second, size,
positions whose value depends on the rule for endless play) and the start solved over the
graph of positions it can reach (positions walked, time, peak memory).

    python benchmarks/bench_retrograde.py [--gebeta 8 12 16] [--gabata 8 10 12]
                                          [--start-db gebeta=12 gabata=10]
                                          [--book gebeta=16] [--games 20]
                                          [--time 1800] [--results FILE.jsonl]

Each database is built in memory in this process (the kernels compiled first, not timed);
each start is solved with the database of ``--start-db`` seeds (built first, not timed), at
most ``--time`` seconds. ``--book GAME=SEEDS`` builds the start's book over that database
(``mancalab db build GAME --seeds SEEDS --start``: the start's whole graph solved and sorted)
and then solves, with every move's value, each position of ``--games`` random games from the
start by looking it up. Each row is appended to ``--results`` as it is made, so an
interrupted run goes on from there (rows already there are not made again). Prints the
figures, then one JSON line.
"""

from __future__ import annotations

import argparse
import random
import resource
import time
from pathlib import Path

from _report import keep_row as keep, report, rows_done as done

import mancalab
from mancalab.analysis.solving import book as books, graph, repeating, retrograde


def peak_rss_gib() -> float:
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)


def build_row(game: str, seeds: int) -> dict:
    variant = mancalab.variant(game)
    started = time.perf_counter()
    database = retrograde.build(variant, seeds)
    seconds = time.perf_counter() - started
    entries = int(database.low.size)
    return {"run": f"db {game} {seeds}", "game": game, "seeds": seeds, "entries": entries,
            "seconds": round(seconds, 2), "positions_per_s": round(entries / seconds),
            "bytes": database.nbytes, "endless_entries": database.loops(),
            "peak_gib": peak_rss_gib()}


def start_row(game: str, db_seeds: int, limit: float) -> dict:
    variant = mancalab.variant(game)
    database = retrograde.build(variant, db_seeds)
    started = time.perf_counter()
    result = repeating.solve(variant.start(), time=limit, moves=True, database=database)
    seconds = time.perf_counter() - started
    return {"run": f"start {game} {db_seeds} {limit:g}", "game": game, "db_seeds": db_seeds,
            "time_limit": limit, "exact": result.exact, "value": result.value,
            "lower": result.lower, "upper": result.upper,
            "endless": result.endless and not result.exact,
            "best": result.best_move_names,
            "moves": {result.move_names[m]: list(b) for m, b in result.moves.items()},
            "positions": result.nodes, "seconds": round(seconds, 1),
            "positions_per_s": round(result.nodes / seconds), "peak_gib": peak_rss_gib()}


def book_row(game: str, db_seeds: int, games: int) -> dict:
    variant = mancalab.variant(game)
    database = retrograde.build(variant, db_seeds)
    started = time.perf_counter()
    book = books.build_book(variant, database)
    seconds = time.perf_counter() - started
    books._BOOKS[retrograde.kept_key(variant)] = book  # looked up without a file
    rng = random.Random(1)
    looked_up, slowest, started = 0, 0.0, time.perf_counter()
    for _ in range(games):
        state = variant.start()
        while not state.is_over:
            began = time.perf_counter()
            result = repeating.solve(state, moves=True, database=database)
            slowest = max(slowest, time.perf_counter() - began)
            assert result.nodes <= 43, "a position of a game from the start was walked"
            looked_up += 1
            state = state.play(rng.choice(state.legal_moves()))
    lookup_s = (time.perf_counter() - started) / looked_up
    root = book.bounds(graph.mover_view(variant.start()))
    return {"run": f"book {game} {db_seeds}", "game": game, "db_seeds": db_seeds,
            "entries": int(book.keys.size), "bytes": book.nbytes, "seconds": round(seconds, 1),
            "positions_per_s": round(book.keys.size / seconds), "start_bounds": list(root),
            "positions_looked_up": looked_up, "lookup_ms": round(1000 * lookup_s, 2),
            "slowest_lookup_ms": round(1000 * slowest, 1), "peak_gib": peak_rss_gib()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gebeta", type=int, nargs="*", default=[8, 12, 16])
    parser.add_argument("--gabata", type=int, nargs="*", default=[8, 10, 12])
    parser.add_argument("--start-db", nargs="*", default=["gebeta=12", "gabata=10"],
                        help="GAME=SEEDS: solve GAME's start with a database of SEEDS")
    parser.add_argument("--book", nargs="*", default=[],
                        help="GAME=SEEDS: build GAME's start book over a database of SEEDS")
    parser.add_argument("--games", type=int, default=20,
                        help="random games from the start whose positions the book answers")
    parser.add_argument("--time", type=float, default=1800.0)
    parser.add_argument("--results", type=Path)
    args = parser.parse_args()
    found = done(args.results)
    repeating.warm_up()  # compiling is not part of the figures
    rows = []
    jobs = [("db", game, seeds) for game in ("gebeta", "gabata")
            for seeds in getattr(args, game)]
    jobs += [("start", *item.split("=")) for item in args.start_db]
    jobs += [("book", *item.split("=")) for item in args.book]
    for kind, game, seeds in jobs:
        run = {"db": f"db {game} {seeds}", "start": f"start {game} {seeds} {args.time:g}",
               "book": f"book {game} {seeds}"}[kind]
        if run not in found:
            row = (build_row(game, int(seeds)) if kind == "db" else
                   start_row(game, int(seeds), args.time) if kind == "start" else
                   book_row(game, int(seeds), args.games))
            keep(args.results, row)
            found[run] = row
        rows.append(found[run])
    report("Retrograde solving of Gebeta and Gabata", [
        {"run": r["run"], "positions": f"{r.get('entries', r.get('positions')):,}",
         "seconds": r["seconds"], "M positions/s": round(r["positions_per_s"] / 1e6, 2),
         "result": (f"{r['endless_entries']:,} endless" if r["run"].startswith("db") else
                    f"{r['lookup_ms']} ms a position ({r['positions_looked_up']:,}), "
                    f"{r['bytes'] / 1e6:.0f} MB" if r["run"].startswith("book") else
                    f"{r['value']:+d}" if r["exact"] else f"[{r['lower']:+d}, {r['upper']:+d}]"),
         "peak GiB": r["peak_gib"]} for r in rows],
        ["run", "positions", "seconds", "M positions/s", "result", "peak GiB"])


if __name__ == "__main__":
    main()
