"""Fair start positions: the boards made by moving one or two seeds of a game's standard
start that two perfect players draw (the first player's value is 0).

The FairKalah project (Neller, Computers and Games 2022) found 254 such boards for Kalah(6,4)
with empty capture. A screen here takes every distinct board obtained from the start by
moving one seed, or one or two seeds (from any pit or store to any other pit or store), and
decides each with at most two null-window tests ("is the value at least 0? at least 1?",
``solve.decide``): cheaper than the exact value whenever the board is not fair. The solver's
table stays warm from board to board; with ``jobs`` > 1 each worker process keeps its own.

Results go to a JSON-lines file as each board is decided (``FILE.partial`` while the screen
runs, ``FILE`` once it is whole): a screen stopped and started again goes on from there and
solves nothing twice. Boards a ``time`` limit left undecided are tried again on a restart.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ...cluster import each
from ...core import MancalabError, Variant
from .journal import Journal, write_lines
from ...variants import variant as make_variant
from ...variants.kalah import fair_boards
from .. import solving
from ..solving import databases

MOVED = (1, 2)
SCREEN_SEEDS = 18  # the database a screen builds when none exists: 15 s on 2 cores, repaid
# by the thousands of boards it probes


def candidates(variant: Variant, moved: int = 2) -> list[tuple[int, ...]]:
    """Every distinct board (cells, player 0 to move) made from ``variant``'s standard start
    by moving ``moved`` seeds or fewer, each from a cell to another; the start itself is
    not one. In a fixed order (sorted), so screens and their files line up."""
    if moved not in MOVED:
        raise MancalabError(f"--moved must be 1 or 2, got {moved}")
    if variant.options.get("board", "standard") != "standard":
        raise MancalabError("the screen starts from the standard board: leave out -o board")
    start = tuple(variant.start_cells())
    found, frontier = set(), {start}
    for _ in range(moved):
        frontier = {board for cells in frontier for board in _one_seed_moved(cells)}
        found |= frontier
    found.discard(start)
    return sorted(found)


def _one_seed_moved(cells: tuple[int, ...]):
    for source, count in enumerate(cells):
        if count:
            for target in range(len(cells)):
                if target != source:
                    board = list(cells)
                    board[source] -= 1
                    board[target] += 1
                    yield tuple(board)


@dataclass
class Screen:
    """What a screen found (over all its runs) and what this run cost."""

    path: Path
    moved: int
    boards: int  # boards in the screen
    fair: list[tuple[int, ...]] = field(default_factory=list)
    undecided: list[tuple[int, ...]] = field(default_factory=list)
    solved_now: int = 0  # boards decided in this run (the rest came from the file)
    nodes: int = 0  # searched in this run
    seconds: float = 0.0  # this run, database included
    seconds_all: float = 0.0  # the search time of every board, over all runs


def published(variant: Variant, found: Screen) -> str | None:
    """How a finished screen compares with the published FairKalah list, for the rules and
    seeds moved it covers (None for other games)."""
    rules = rules_of(variant)
    if rules != {"empty_capture": True, "end_rule": "side_empty", "pits": 6, "seeds": 4}:
        return None
    screened = set(candidates(variant, found.moved))
    expected = {cells for cells in fair_boards().values() if cells in screened}
    got = set(found.fair)
    if got == expected:
        return f"The fair boards are exactly the {len(expected)} FairKalah boards of this screen."
    return (f"Unlike FairKalah: {len(expected - got)} of its {len(expected)} boards not found "
            f"fair, {len(got - expected)} found fair that it does not list"
            + (f" ({len(found.undecided)} boards undecided)" if found.undecided else "") + ".")


def decide_board(variant: Variant, cells: tuple[int, ...], time: float | None = None,
                 solver: solving.Solver | None = None) -> dict:
    """One board's row: its cells, bounds on the first player's value (equal when known)
    and whether it is fair (None when ``time`` ran out before that was settled)."""
    state = variant.state(list(cells), 0)
    result = solving.decide(state, 0, time, solver)
    lower, upper = result.lower, result.upper
    fair = True if lower == upper == 0 else (False if lower > 0 or upper < 0 else None)
    return {"cells": list(cells), "lower": lower, "upper": upper, "fair": fair,
            "nodes": result.nodes, "seconds": round(result.seconds, 3)}


def default_path(variant: Variant, moved: int) -> Path:
    """Where a screen's results go unless told: the user's cache, one file per rules."""
    rules = "-".join(f"{k}={v}" for k, v in rules_of(variant).items())
    return databases.default_dir().parent / "fair" / f"{variant.name}-{rules}-moved{moved}.jsonl"


def screen(variant: Variant, moved: int = 2, out: str | Path | None = None, jobs: int = 1,
           time: float | None = None,
           on_board: Callable[[int, int, int], None] | None = None,
           on_database: Callable[[int, int, int], None] | None = None,
           cluster: str | None = None) -> Screen:
    """Decide every board of ``candidates(variant, moved)``; ``on_board(done, total,
    fair)`` is told after each. Needs an exact solver for ``variant`` (Kalah). With
    ``cluster`` (a Dask scheduler's address) the boards are decided on its workers (each
    opens the database it has, or solves without one)."""
    if not 1 <= jobs <= 256:
        raise MancalabError(f"--jobs must be 1..256, got {jobs}")
    databases.check_variant(variant)
    boards = candidates(variant, moved)
    path = Path(out) if out is not None else default_path(variant, moved)
    header = {"screen": variant.name, "rules": rules_of(variant), "moved": moved}
    journal = Journal(path, header, key=lambda row: tuple(row["cells"]),
                      valid=lambda row: ROW_KEYS <= row.keys() and row["fair"] is not None,
                      mismatch=f"another screen (not {variant.name} {header['rules']} moved "
                      f"{moved})")
    todo = [cells for cells in boards if cells not in journal]
    started = _time.perf_counter()
    found = Screen(path, moved, len(boards))
    fair_count = sum(1 for row in journal.rows.values() if row["fair"])
    with journal:
        def keep(row: dict) -> None:
            nonlocal fair_count
            journal.add(row)
            found.solved_now += 1
            found.nodes += row["nodes"]
            fair_count += bool(row["fair"])
            if on_board:
                on_board(len(journal.rows), len(boards), fair_count)

        if on_board:
            on_board(len(journal.rows), len(boards), fair_count)
        if todo:
            _prepare(variant, on_database)
            if jobs == 1 and cluster is None:
                _in_process(variant, todo, time, keep)
            else:
                _in_workers(variant, todo, time, jobs, keep, cluster)
    rows = journal.finish(boards)
    found.fair = [tuple(r["cells"]) for r in rows if r["fair"]]
    found.undecided = [tuple(r["cells"]) for r in rows if r["fair"] is None]
    found.seconds = _time.perf_counter() - started
    found.seconds_all = sum(r["seconds"] for r in rows)
    return found


def write_list(variant: Variant, found: Screen, path: str | Path, command: str) -> Path:
    """The fair boards as a numbered list, the format of the shipped lists (``-o board=N``
    picks line N): a comment naming the rules and ``command``, then "number cells" lines."""
    if found.undecided:
        raise MancalabError(f"{len(found.undecided)} boards are undecided: finish the screen "
                            "before writing its list")
    rules = ", ".join(f"{k}={v}" for k, v in rules_of(variant).items())
    lines = [f"# Fair start boards of {variant.name} ({rules}): {len(found.fair)} of the "
             f"{found.boards} boards made by moving up to {found.moved} seeds of the start",
             "# are drawn with perfect play (value 0 for the first player, player 0 to move).",
             f"# Made by: {command}",
             "# Cells in the game's layout: player 0's pits, store, player 1's pits, store."]
    lines += [f"{number} {','.join(map(str, cells))}"
              for number, cells in enumerate(found.fair, 1)]
    path = Path(path)
    write_lines(path, lines)
    return path


def _prepare(variant: Variant, on_database) -> None:
    """The database the screen probes, built once before any board (not in each worker)."""
    if databases.best_available(variant) is None:
        databases.ensure(variant, SCREEN_SEEDS, on_progress=on_database)


def _in_process(variant, todo, time, keep) -> None:
    solver = solving.solver_for(variant)
    for cells in todo:
        keep(decide_board(variant, cells, time, solver))


_WORKER: dict = {}


def _start_worker(name: str, options: dict) -> None:
    variant = make_variant(name, **options)
    _WORKER["variant"] = variant
    _WORKER["solver"] = solving.Solver(variant, databases.best_available(variant), threads=1)


def _work(cells: tuple[int, ...], time: float | None) -> dict:
    return decide_board(_WORKER["variant"], cells, time, _WORKER["solver"])


def _in_workers(variant, todo, time, jobs, keep, cluster=None) -> None:
    """``jobs`` processes (or a cluster's workers), each with its own warm solver."""
    for row in each(_work, todo, time, jobs=jobs, cluster=cluster, initializer=_start_worker,
                    initargs=(variant.name, dict(variant.options))):
        keep(row)


ROW_KEYS = {"cells", "lower", "upper", "fair", "nodes", "seconds"}


def rules_of(variant: Variant) -> dict:
    """The options a screen depends on (all but the start board)."""
    return {k: v for k, v in sorted(variant.options.items()) if k != "board"}


