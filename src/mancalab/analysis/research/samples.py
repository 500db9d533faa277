"""Data for learning: Kalah positions reached by random play with their exact values.

Students of game AI test evaluation functions against an oracle; this writes one: positions
reached by random play from the 254 FairKalah boards, each with the final margin under
perfect play for the player to move and which of its moves are optimal (the data Neller
published with FairKalah has the same content). Everything follows from ``seed``: the boards,
the moves, and hence every row (values are exact, never bounded by a time).

Columns (pits numbered as in the FairKalah notation: pit k is k holes from its owner's store):
``board`` (the FairKalah board number), ``ply`` (moves played since it), ``pit1..pit6`` the
mover's pits, ``opp1..opp6`` the opponent's, ``store``, ``opp_store``, ``opt1..opt6`` (1 when
playing pit k is optimal), ``value`` (the mover's final margin with perfect play).
"""

from __future__ import annotations

import csv
import os
import random
from pathlib import Path
from typing import Callable, Iterator

from ...core import MancalabError, State
from ...variants import variant as make_variant
from ...variants.kalah import FAIR_BOARDS
from .. import solving

PITS = 6


def columns() -> list[str]:
    return (["board", "ply"] + [f"pit{k}" for k in range(1, PITS + 1)]
            + [f"opp{k}" for k in range(1, PITS + 1)] + ["store", "opp_store"]
            + [f"opt{k}" for k in range(1, PITS + 1)] + ["value"])


def positions(count: int, seed: int, max_seeds: int, rules: dict) -> Iterator[tuple[int, int,
                                                                                      State]]:
    """``count`` positions (board, ply, state): from a random FairKalah board, a random number
    of random moves (0..39), then more until at most ``max_seeds`` seeds are in play; a game
    that ends first is dropped and another drawn."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        board = rng.randint(1, FAIR_BOARDS)
        state = make_variant("kalah", board=board, **rules).start()
        target, ply = rng.randrange(40), 0
        while not state.is_over and (ply < target or _in_play(state) > max_seeds):
            state = state.play(rng.choice(state.legal_moves()))
            ply += 1
        if not state.is_over:
            made += 1
            yield board, ply, state


def _in_play(state: State) -> int:
    return int(solving.mover_pits(state).sum())


def row(board: int, ply: int, state: State, result: solving.SolveResult) -> list[int]:
    """The CSV row of a solved position."""
    variant = state.variant
    pits = solving.mover_pits(state)
    own = [int(pits[PITS - k]) for k in range(1, PITS + 1)]  # pit k: k holes from the store
    other = [int(pits[2 * PITS - k]) for k in range(1, PITS + 1)]
    a, b = state.score
    stores = [a, b] if state.to_move == 0 else [b, a]
    best = {variant.pit_number(move) for move in result.best_moves}
    return ([board, ply] + own + other + stores
            + [int(k in best) for k in range(1, PITS + 1)] + [result.value])


def write(path: str | Path, count: int, seed: int = 1, max_seeds: int = 32,
          rules: dict | None = None,
          on_row: Callable[[int, int], None] | None = None) -> Path:
    """Solve ``count`` sampled positions and write them to ``path`` (CSV). Rows go to
    ``path``.partial as they are solved, so a run stopped and started again with the same
    arguments goes on where it was; the file appears whole when the last row is written."""
    if not 1 <= count <= 10**8:
        raise MancalabError(f"--sample must be 1..100000000 positions, got {count}")
    if not 0 <= max_seeds <= 48:
        raise MancalabError(f"--max-seeds must be 0..48, got {max_seeds}")
    rules = rules or {}
    path = Path(path)
    partial = path.with_name(path.name + ".partial")
    done = _rows_kept(partial)
    try:
        handle = open(partial, "a", newline="")
    except OSError as error:
        raise MancalabError(f"cannot write {partial}: {error.strerror or error}") from None
    with handle:
        writer = csv.writer(handle)
        if done == 0:
            handle.truncate(0)
            writer.writerow(columns())
        for number, (board, ply, state) in enumerate(positions(count, seed, max_seeds, rules)):
            if number < done:
                continue
            result = solving.solve(state)
            writer.writerow(row(board, ply, state, result))
            handle.flush()
            if on_row:
                on_row(number + 1, count)
        os.fsync(handle.fileno())
    os.replace(partial, path)
    return path


def _rows_kept(partial: Path) -> int:
    """Rows already solved in an earlier run (a last line cut short is dropped)."""
    if not partial.exists():
        return 0
    lines = partial.read_bytes().split(b"\n")
    complete = [line for line in lines[:-1] if line]  # the text after the last newline is cut
    if not complete or complete[0].decode(errors="replace").split(",") != columns():
        return 0
    with open(partial, "r+b") as handle:  # drop a line cut short by the stop
        handle.truncate(sum(len(line) + 1 for line in lines[:-1]))
    return len(complete) - 1
