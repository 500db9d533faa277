"""Oware's endgame tables: bounds on the value of every position with at most K seeds on
the board, that hold whatever the game's history, and the exact value where they meet.

An entry is the mover's future net gain ``g`` from the seeds on the board (what the mover
will capture from now on, the sweep at the end included, minus what the opponent will), for
the board *as the mover sees it* (the mover's houses in sowing order, then the opponent's),
ranked as Kalah's databases rank theirs (``ranking``: one block per seed count).

**The history.** Oware ends at the first recurrence of a position since the last capture
(each side taking its own row), so the value of a position depends on which positions came
before it since that capture: it is not a function of the position. The tables store, for
each position P, two numbers ``lo <= V(P, H) <= hi`` that hold for *every* history H (any
set of earlier positions of the same seed count that a move from P may run into). They are
the fixed point of a monotone iteration, level by level (seed counts ascending, as a capture
lowers the count and starts a new history):

- a move that captures, or ends the game, leads to a lower level or an end: its outcome is
  known within the lower level's bounds (a capture empties the history: no position with more
  seeds can come back);
- a quiet move to c leads either to c with a longer history, an outcome within
  ``[-hi(c), -lo(c)]``, or, if c occurred before, to the end by repetition: the sweep of c;
- so ``lo(P) = max over moves of the least outcome``, ``hi(P) = max over moves of the
  greatest``, iterated from ``[least, greatest outcome of any play]`` (itself a fixed point,
  from below) until nothing changes. Each step keeps the bounds true, so the fixed point is
  sound; where ``lo == hi`` the value is exact, whatever the history.

This is the question Romein and Bal met in solving Awari (whose rule ends a cycle the same
way); the tables answer it with bounds rather than a value that holds only for one history.
A search that knows the game's history (``search``) settles a position at an exact entry and
cuts off at a bound. The tables play the game on past 25 seeds captured (the end by score
changes the margin, never the winner: a store above half the seeds stays above it) and know
no move cap. Every move is played by the game's own kernels (``variants.rules.oware``).
Checked against a search over whole histories on small boards (tests/analysis/solving).

Files: ``oware-<houses>-<K>.db`` under the databases' folder (``files``): a JSON header
line, then the ``lo`` entries, then the ``hi`` entries (one signed byte each), written whole
or not at all, memory-mapped when opened.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from numba import njit, prange

from ...borrow import borrowed
from ...core import ONGOING, MancalabError, Variant
from ...memory import available_memory, large_zeros
from ...movemask import bit
from ...variants.rules import oware
from .files import DatabaseError, default_dir, largest, read_header, write_whole
from ...ranking import binomials, chunk_range, index, next_bars, pits_of, rank, unrank

FORMAT = "mancalab-oware-tables-1"
MAX_SEEDS = 48  # |g| <= K must fit a signed byte; 48 is the whole game
NONE = 127  # a bound not found yet (values are within -K..K)
NO_SCORE_END = 1 << 20  # seeds a house, for the rules' params: no end by score in the tables
EDGE_BYTES = 5  # a quiet move's memory while a level is built: its child (4) and sweep (1)
LEVEL_BYTES = 25  # a position's, besides: its exits (3) and the components' work (22)


# ----- one level's moves, played once by the rules' kernels ----------------------------
@njit(cache=True, inline="always")
def _set_board(pits, board, h):
    """The board of ``pits`` seen by the mover: the mover is player 0, the stores empty."""
    for i in range(2 * h):
        board[i] = pits[i]
    board[2 * h] = 0
    board[2 * h + 1] = 0
    board[-2] = 0
    board[-1] = ONGOING


@njit(cache=True, inline="always")
def _turned(board, h, child):
    """The board after player 0's move as player 1, now to move, sees it."""
    for i in range(h):
        child[i] = board[h + i]
        child[h + i] = board[i]


@njit(cache=True, nogil=True)
def _moves_range(params, seeds, lo, hi, binom, first, last, kids, sweeps, exits, rows):
    """Play every move of the positions of ranks ``first``..``last``-1 with ``seeds`` seeds:
    a quiet move's child rank in ``kids`` (-1: no such move) and the sweep of its child in
    ``sweeps``; the moves that capture or end, in ``exits``: the greatest least outcome, the
    greatest outcome and the least (``NONE``-signed when there are none). A position over on
    arrival (no legal move) has its value in ``exits`` and no kids."""
    params, lo, hi, binom = borrowed(params), borrowed(lo), borrowed(hi), borrowed(binom)
    kids, sweeps, exits, rows = borrowed(kids), borrowed(sweeps), borrowed(exits), borrowed(rows)
    h = params[oware.P_HOUSES]
    n = 2 * h
    bars, board = rows[0, :n - 1], rows[1]
    here, child = rows[2, :n], rows[3, :n]
    unrank(first, seeds, n, binom, bars)
    for r in range(first, last):
        pits_of(bars, seeds, here)
        next_bars(bars, seeds + n - 1)
        for move in range(h):
            kids[r, move] = -1
        _set_board(here, board, h)
        oware.settle(params, board)
        if board[-1] != ONGOING:  # no legal move: the mover takes the board
            value = board[2 * h] - board[2 * h + 1]
            exits[r, 0], exits[r, 1], exits[r, 2] = value, value, value
            kids[r, 0] = -2
            continue
        legal = oware.legal_mask(params, board)
        best_low, best_high, least = -NONE, -NONE, NONE
        for move in range(h):
            if not legal & bit(move):
                continue
            _set_board(here, board, h)
            oware.play(params, board, move)
            taken = board[2 * h]
            if board[-1] != ONGOING:
                low = high = board[2 * h] - board[2 * h + 1]
            else:
                _turned(board, h, child)
                if taken == 0:
                    kids[r, move] = rank(child, binom)
                    sweep = 0
                    for i in range(h):
                        sweep += board[i] - board[h + i]
                    sweeps[r, move] = sweep
                    continue
                at = index(child, seeds - taken, binom)
                low, high = taken - hi[at], taken - lo[at]
            best_low = max(best_low, low)
            best_high = max(best_high, high)
            least = min(least, low)
        exits[r, 0], exits[r, 1], exits[r, 2] = best_low, best_high, least


@njit(cache=True, parallel=True, nogil=True)
def _play_level(params, seeds, lo, hi, binom, count, chunks, kids, sweeps, exits, rows):
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, 0, count)
        if first < last:
            _moves_range(params, seeds, lo, hi, binom, first, last, kids, sweeps, exits,
                         rows[chunk])


@njit(cache=True, nogil=True)
def _components(kids, comp):
    """The strongly connected components of a level's quiet moves (Tarjan's, with an
    explicit stack): ``comp[r]`` names the component of position r. A quiet move can end the
    game by repetition only within one: its child occurred before only if it leads back."""
    count, h = kids.shape
    order = np.full(count, -1, dtype=np.int32)
    low = np.empty(count, dtype=np.int32)
    on_stack = np.zeros(count, dtype=np.bool_)
    stack = np.empty(count, dtype=np.int32)
    calls = np.empty(count, dtype=np.int32)
    next_move = np.empty(count, dtype=np.int8)
    counter, found, top, depth = 0, 0, 0, 0
    for start in range(count):
        if order[start] != -1:
            continue
        order[start] = low[start] = counter
        counter += 1
        stack[top] = start
        top += 1
        on_stack[start] = True
        calls[0], next_move[0], depth = start, 0, 1
        while depth > 0:
            v = calls[depth - 1]
            i = next_move[depth - 1]
            if i < h:
                next_move[depth - 1] = i + 1
                w = kids[v, i]
                if w < 0:
                    continue
                if order[w] == -1:
                    order[w] = low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    calls[depth], next_move[depth] = w, 0
                    depth += 1
                elif on_stack[w] and order[w] < low[v]:
                    low[v] = order[w]
                continue
            depth -= 1
            if low[v] == order[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    comp[w] = found
                    if w == v:
                        break
                found += 1
            if depth > 0:
                u = calls[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
    return found


@njit(cache=True, parallel=True, nogil=True)
def _drop_sweeps(count, chunks, kids, sweeps, comp):
    """A quiet move into another component cannot repeat a position: no sweep (``NONE``)."""
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, 0, count)
        for r in range(first, last):
            for move in range(kids.shape[1]):
                kid = kids[r, move]
                if kid >= 0 and comp[kid] != comp[r]:
                    sweeps[r, move] = NONE


# ----- the two fixed points of a level -------------------------------------------------
@njit(cache=True, nogil=True)
def _reach_range(first, last, low, high, kids, sweeps, exits):
    """One pass of the outcomes any play reaches, from below: ``high`` the greatest,
    ``low`` the least (``NONE``-signed until one is found). True when one changed."""
    changed = False
    h = kids.shape[1]
    for r in range(first, last):
        if kids[r, 0] == -2:
            continue
        top, bottom = np.int64(exits[r, 1]), np.int64(exits[r, 2])
        for move in range(h):
            kid = kids[r, move]
            if kid < 0:
                continue
            sweep = np.int64(sweeps[r, move])
            if sweep != NONE:
                top, bottom = max(top, sweep), min(bottom, sweep)
            if high[kid] != -NONE:
                top, bottom = max(top, -low[kid]), min(bottom, -high[kid])
        if top > high[r] or bottom < low[r]:
            high[r], low[r] = max(high[r], top), min(low[r], bottom)
            changed = True
    return changed


@njit(cache=True, nogil=True)
def _bound_range(first, last, low, high, kids, sweeps, exits):
    """One pass of the bounds over every history: ``low`` raised to the best least
    outcome, ``high`` lowered to the best greatest one. True when one changed."""
    changed = False
    h = kids.shape[1]
    for r in range(first, last):
        if kids[r, 0] == -2:
            continue
        best_low, best_high = np.int64(exits[r, 0]), np.int64(exits[r, 1])
        for move in range(h):
            kid = kids[r, move]
            if kid < 0:
                continue
            sweep = np.int64(sweeps[r, move])
            if sweep == NONE:
                best_low = max(best_low, -np.int64(high[kid]))
                best_high = max(best_high, -np.int64(low[kid]))
            else:
                best_low = max(best_low, min(sweep, -high[kid]))
                best_high = max(best_high, max(sweep, -low[kid]))
        if best_low > low[r] or best_high < high[r]:
            low[r], high[r] = max(low[r], best_low), min(high[r], best_high)
            changed = True
    return changed


@njit(cache=True, parallel=True, nogil=True)
def _pass(phase, count, chunks, low, high, kids, sweeps, exits, changed):
    """One pass over a level in ``chunks`` slices (each writes only its own entries; an
    entry read while another slice writes it is an older bound, still true)."""
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, 0, count)
        if first >= last:
            continue
        if phase == 0:
            changed[chunk] = _reach_range(first, last, low, high, kids, sweeps, exits)
        else:
            changed[chunk] = _bound_range(first, last, low, high, kids, sweeps, exits)


def _level_components(kids: np.ndarray) -> np.ndarray:
    comp = np.empty(kids.shape[0], dtype=np.int32)
    _components(kids, comp)
    return comp


def _settle_level(level, low, high, kids, sweeps, exits, chunks) -> int:
    """Both fixed points of one level, in place; the passes they took."""
    count = low.shape[0]
    finished = kids[:, 0] == -2
    low[finished], high[finished] = exits[finished, 0], exits[finished, 0]
    low[~finished], high[~finished] = NONE, -NONE
    changed = np.zeros(chunks, dtype=np.bool_)
    passes = 0
    for phase in (0, 1):
        while True:
            _pass(phase, count, chunks, low, high, kids, sweeps, exits, changed)
            passes += 1
            if not changed.any():
                break
    return passes


# ----- the tables ------------------------------------------------------------------------
@dataclass
class Tables:
    """Bounds on every Oware position with at most ``seeds`` seeds on the board."""

    houses: int
    seeds: int
    low: np.ndarray  # int8, indexed by ``index`` of the board as the mover sees it
    high: np.ndarray
    path: Path | None
    binom: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.low.nbytes + self.high.nbytes)

    def bounds(self, pits) -> tuple[int, int]:
        """(lo, hi) of the houses ``pits`` as the mover sees them (the mover's first)."""
        pits = np.asarray(pits, dtype=np.int64)
        if pits.shape != (2 * self.houses,) or (pits < 0).any():
            raise DatabaseError(f"a position is {2 * self.houses} house counts >= 0")
        seeds = int(pits.sum())
        if seeds > self.seeds:
            raise DatabaseError(f"the position has {seeds} seeds on the board; the tables "
                                f"hold at most {self.seeds}")
        at = index(pits, seeds, self.binom)
        return int(self.low[at]), int(self.high[at])


def level_range(binom: np.ndarray, level: int, n: int) -> tuple[int, int]:
    """The indexes of the entries with ``level`` seeds on ``n`` houses."""
    start = int(binom[level - 1 + n, n]) if level > 0 else 0
    return start, start + int(binom[level + n - 1, n - 1])


def check_variant(variant: Variant) -> None:
    if variant.name != "oware":
        raise DatabaseError(f"these tables are Oware's, not {variant.name}'s")


def entries(houses: int, seeds: int) -> int:
    """Positions with at most ``seeds`` seeds on 2 * ``houses`` houses."""
    return int(binomials(seeds + 2 * houses + 1)[seeds + 2 * houses, 2 * houses])


def memory_needed(houses: int, seeds: int) -> int:
    """Bytes a build holds at its peak: both bounds of every entry, and the moves of the
    largest level (``EDGE_BYTES`` a move, ``LEVEL_BYTES`` a position)."""
    n = 2 * houses
    top = int(binomials(seeds + n + 1)[seeds + n - 1, n - 1])
    return 2 * entries(houses, seeds) + top * (houses * EDGE_BYTES + LEVEL_BYTES)


def plan(variant: Variant, seeds: int) -> np.ndarray:
    """The binomials of a build (its request checked, memory included)."""
    check_variant(variant)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 0 <= seeds <= MAX_SEEDS:
        raise DatabaseError(f"the seeds of Oware's tables must be 0..{MAX_SEEDS}, got {seeds!r}")
    houses = variant.options["houses"]
    need, have = memory_needed(houses, seeds), available_memory()
    if need > have * 0.8:
        raise DatabaseError(f"Oware's tables of {seeds} seeds on {houses} houses a side need "
                            f"{need / 2**30:.1f} GiB of memory; {have / 2**30:.1f} GiB is "
                            "available: choose fewer seeds")
    return binomials(seeds + 2 * houses + 1)


def build(variant: Variant, seeds: int, *, jobs: int | None = None,
          on_progress: Callable[[int, int, int], None] | None = None) -> Tables:
    """Compute the tables of ``variant`` up to ``seeds`` seeds on the board, in memory.
    ``on_progress(level, passes, positions)`` after each level."""
    from numba import get_num_threads, set_num_threads

    binom = plan(variant, seeds)
    h = variant.options["houses"]
    n = 2 * h
    params = variant.params.copy()
    params[oware.P_SEEDS] = NO_SCORE_END
    total = int(binom[seeds + n, n])
    low, high = large_zeros((total,), np.int8), large_zeros((total,), np.int8)
    before = get_num_threads()
    set_num_threads(max(1, min(jobs or before, before)))
    try:
        for level in range(seeds + 1):
            start, end = level_range(binom, level, n)
            count = end - start
            chunks = max(1, min(4096, count // 4096))
            kids = np.empty((count, h), dtype=np.int32)
            sweeps = np.zeros((count, h), dtype=np.int8)
            exits = np.empty((count, 3), dtype=np.int8)
            rows = np.empty((chunks, 4, variant.board_size), dtype=np.int64)
            _play_level(params, level, low, high, binom, count, chunks, kids, sweeps, exits,
                        rows)
            _drop_sweeps(count, chunks, kids, sweeps, _level_components(kids))
            passes = _settle_level(level, low[start:end], high[start:end], kids, sweeps,
                                   exits, chunks)
            del kids, sweeps, exits
            if on_progress:
                on_progress(level, passes, count)
    finally:
        set_num_threads(before)
    return Tables(h, seeds, low, high, None, binom)


def file_name(houses: int, seeds: int) -> str:
    return f"oware-{houses}-{seeds}.db"


def any_built(folder: str | Path | None = None) -> bool:
    """Whether a tables file of any board is in ``folder`` (the server's analysis switch)."""
    place = Path(folder) if folder else default_dir()
    return next(place.glob(file_name("*", "*")), None) is not None


def path_of(variant: Variant, seeds: int, folder: str | Path | None = None) -> Path:
    return (Path(folder) if folder else default_dir()) / file_name(variant.options["houses"],
                                                                    seeds)


def save(tables: Tables, folder: str | Path | None = None) -> Path:
    """Write ``tables`` whole or not at all; its path."""
    path = (Path(folder) if folder else default_dir()) / file_name(tables.houses, tables.seeds)
    crc = zlib.crc32(tables.high.data, zlib.crc32(tables.low.data)) & 0xFFFFFFFF
    header = {"format": FORMAT, "game": "oware", "kind": "tables",
              "rules": {"houses": tables.houses}, "seeds": tables.seeds,
              "entries": int(tables.low.size), "crc32": crc}
    write_whole(path, header, [tables.low, tables.high])
    tables.path = path
    return path


def load(path: str | Path, houses: int | None = None, verify: bool = True) -> Tables:
    """Open a tables file (memory-mapped), checking its header, its size and, with
    ``verify``, its checksum: DatabaseError for anything that does not match."""
    path = Path(path)
    header, offset = read_header(path, FORMAT)
    own = header.get("rules", {}).get("houses")
    seeds, count = header.get("seeds"), header.get("entries")
    if not isinstance(own, int) or not 1 <= own <= 26:
        raise DatabaseError(f"{path}: bad houses in its header")
    if houses is not None and own != houses:
        raise DatabaseError(f"{path} is for {own} houses a side, not {houses}")
    if (not isinstance(seeds, int) or not 0 <= seeds <= MAX_SEEDS
            or count != entries(own, seeds)):
        raise DatabaseError(f"{path}: its header does not match its size")
    if path.stat().st_size != offset + 2 * count:
        raise DatabaseError(f"{path} is truncated or too long ({path.stat().st_size:,} bytes, "
                            f"expected {offset + 2 * count:,})")
    both = np.memmap(path, dtype=np.int8, mode="r", offset=offset, shape=(2, count))
    if verify:
        crc = zlib.crc32(both[1], zlib.crc32(both[0])) & 0xFFFFFFFF
        if crc != header.get("crc32"):
            raise DatabaseError(f"{path} is corrupt: its checksum does not match")
    return Tables(own, seeds, both[0], both[1], path, binomials(seeds + 2 * own + 1))


def best_available(variant: Variant, folder: str | Path | None = None) -> Tables | None:
    """The largest tables built for ``variant``'s board in ``folder``, opened."""
    check_variant(variant)
    houses = variant.options["houses"]
    return largest((path_of(variant, seeds, folder) for seeds in range(MAX_SEEDS, -1, -1)),
                   lambda path: load(path, houses, verify=False))


_FOR_SEARCH: dict[tuple, tuple] = {}


def for_search(variant: Variant, folder: str | Path | None = None) -> tuple:
    """The largest tables built for ``variant``'s board as the search takes them (its
    ``tables``: read-only low, high and binomials), opened once a process; the search's
    ``NO_TABLES`` for another game or none built (looked for again once the folder changes).
    A bad file is said on stderr, and the search goes on without it."""
    from ...search import NO_TABLES, read_only

    if variant.name != "oware":
        return NO_TABLES
    place = Path(folder) if folder else default_dir()
    try:
        changed = place.stat().st_mtime_ns  # tables built since are looked for again
    except OSError:
        changed = 0
    key = (variant.options["houses"], str(place), changed)
    if key not in _FOR_SEARCH:
        try:
            found = best_available(variant, folder)
        except DatabaseError as error:
            import sys
            print(f"mancalab: Oware's tables not used: {error}", file=sys.stderr)
            found = None
        _FOR_SEARCH[key] = (NO_TABLES if found is None else
                            read_only(found.low, found.high, found.binom))
    return _FOR_SEARCH[key]


def proven(state, tables: tuple | None = None, moves: bool = False) -> dict:
    """What the tables (``for_search``'s, by default the largest built) prove of ``state``:
    the least and the greatest final margin for the player to move over every history, and
    the result they decide ("win", "draw", "loss", or None when they do not); with
    ``moves``, the same for each legal move (for its player: the game's end, or the bounds
    of the position it leads to negated). DatabaseError when no tables reach it."""
    from ... import kernels

    tables = for_search(state.variant) if tables is None else tables
    if tables[0].size == 0:
        raise DatabaseError("no Oware tables are built for this board: mancalab db build "
                            "oware --seeds 20")
    reach, least, greatest = kernels.table_bounds(state.variant.params, state.board, *tables)
    if state.is_over:
        least = greatest = state.score[state.to_move] - state.score[1 - state.to_move]
    elif not reach:
        raise DatabaseError(f"the position has {seeds_on_board(state)} seeds on the board; "
                            f"the tables built hold at most {reach_of(state.variant, tables)}")
    found = {"least": int(least), "greatest": int(greatest), "result": _decided(least, greatest)}
    if moves and not state.is_over:
        found["moves"] = {}
        for move in state.legal_moves():  # the opponent moves next: their bounds negated
            child = proven(state.play(move), tables)
            low, high = -child["greatest"], -child["least"]
            found["moves"][state.move_name(move)] = {"least": low, "greatest": high,
                                                     "result": _decided(low, high)}
    return found


def reach_of(variant: Variant, tables: tuple) -> int:
    """The most seeds on the board that ``tables`` (``for_search``'s) hold."""
    return tables[2].shape[0] - 2 * variant.options["houses"] - 1


def seeds_on_board(state) -> int:
    return sum(state.cells[:2 * state.variant.options["houses"]])


def analysis(state, history=(), tables: tuple | None = None) -> dict:
    """The page's analysis of ``state`` (``SolveResult.answer``'s shape) from the tables,
    in a game whose positions so far are ``history``: each legal move's final margin for
    the mover, exact where the move repeats a position of the game (the game ends there,
    swept) or its bounds over every later history meet, else those bounds (``endless``:
    the repetition rule decides within them); the position's bounds are the best of its
    moves'. DatabaseError where the tables do not reach (``proven``)."""
    if state.is_over:
        raise MancalabError("the game is over: there is no move to analyse")
    tables = for_search(state.variant) if tables is None else tables
    proven(state, tables)  # reached, or why not
    seen = {position.board.tobytes() for position in history}
    mover, entries = state.to_move, []
    for move in state.legal_moves():
        child = state.play(move)
        if not child.is_over and child.board.tobytes() in seen:
            child = child.stopped()  # a first recurrence ends the game
        if child.is_over:
            low = high = child.score[mover] - child.score[1 - mover]
        else:
            bounds = proven(child, tables)  # the opponent's: negated
            low, high = -bounds["greatest"], -bounds["least"]
        entries.append({"move": state.move_name(move), "cell": move,
                        "value": low if low == high else None, "lower": low, "upper": high,
                        "endless": low != high})
    lower = max(entry["lower"] for entry in entries)
    upper = max(entry["upper"] for entry in entries)
    exact = lower == upper
    best = [entry for entry in entries if exact and entry["lower"] == lower]
    return {"value": lower if exact else None, "exact": exact, "lower": lower, "upper": upper,
            "endless": not exact, "best_moves": [entry["move"] for entry in best],
            "best_cells": [entry["cell"] for entry in best], "moves": entries,
            "database_seeds": reach_of(state.variant, tables)}


def _decided(least: int, greatest: int) -> str | None:
    if least > 0:
        return "win"
    if greatest < 0:
        return "loss"
    return "draw" if least == greatest == 0 else None
