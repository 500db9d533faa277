"""Fair-start screens: every board made by moving one or two seeds of the start, decided
exactly, with the time each whole screen took.

    python benchmarks/bench_fair.py [--screen kalah:pits=6,seeds=3,empty_capture=true ...]
                                    [--moved 2] [--jobs 2] [--db-seeds K]
                                    [--folder benchmarks/results/fair]

Each screen writes its boards to ``FOLDER/NAME.jsonl`` as they are decided (``mancalab fair``'s
file: an interrupted run goes on from it, and the search time of every board is kept, so the
figure of a screen run in several sittings is still its whole cost). The databases are those
already built for the rules, else one built on demand; with ``--db-seeds`` that database is
built first unless it exists (its build time is reported on its own). Prints the
figures, then one JSON line; each finished screen is also appended to ``FOLDER/screens.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from _report import report

import mancalab
from mancalab.analysis.research import fair
from mancalab.analysis.solving import databases
from mancalab.records import typed_options

DEFAULT = ["kalah:pits=6,seeds=3,empty_capture=true", "kalah:pits=6,seeds=3,empty_capture=false",
           "kalah:pits=5,seeds=4,empty_capture=true", "kalah:pits=5,seeds=4,empty_capture=false"]


def parse(text: str):
    game, _, options = text.partition(":")
    pairs = dict(pair.split("=", 1) for pair in options.split(",") if pair)
    return mancalab.variant(game, **typed_options(pairs))


def name_of(variant, moved: int) -> str:
    rules = fair.rules_of(variant)
    capture = "ec" if rules["empty_capture"] else "noec"
    return f"{variant.name}-{rules['pits']}-{rules['seeds']}-{capture}-moved{moved}"


def run(variant, moved: int, jobs: int, folder: Path, db_seeds: int | None) -> dict:
    built = None
    if db_seeds is not None and not databases.path_of(variant, db_seeds).exists():
        started = time.perf_counter()
        databases.ensure(variant, db_seeds)
        built = round(time.perf_counter() - started, 1)
    started = time.perf_counter()
    found = fair.screen(variant, moved, folder / f"{name_of(variant, moved)}.jsonl", jobs)
    database = databases.best_available(variant)
    return {"screen": name_of(variant, moved), "boards": found.boards,
            "fair": len(found.fair), "undecided": len(found.undecided),
            "this run s": round(time.perf_counter() - started, 1),
            "search s (all runs)": round(found.seconds_all, 1),
            "search s per board": round(found.seconds_all / max(found.boards, 1), 3),
            "database seeds": database.seeds if database else None,
            "database build s": built, "jobs": jobs,
            "published": fair.published(variant, found)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screen", nargs="+", default=DEFAULT)
    parser.add_argument("--moved", type=int, default=2, choices=fair.MOVED)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--db-seeds", type=int,
                        help="build this database first (if missing): bigger, fewer nodes")
    parser.add_argument("--folder", type=Path, default=Path("benchmarks/results/fair"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for text in args.screen:
        row = run(parse(text), args.moved, args.jobs, args.folder, args.db_seeds)
        rows.append(row)
        print(json.dumps(row), flush=True)
        with open(args.folder / "screens.jsonl", "a") as handle:
            handle.write(json.dumps(row) + "\n")
    report("Fair-start screens", rows, ["screen", "boards", "fair", "undecided", "this run s",
                                        "search s (all runs)", "search s per board",
                                        "database seeds", "database build s", "jobs"])


if __name__ == "__main__":
    main()
