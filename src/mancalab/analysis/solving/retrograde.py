"""Retrograde databases for the games whose positions can repeat, Gebeta and Gabata: the
bounds of every position with at most K seeds in play. Above a database a position is solved
over the graph it reaches (``graph``, ``repeating``); the start's whole graph is kept as a
book (``book``).

What is stored. As for Kalah (``databases``) an entry is about the mover's
future net gain g from the seeds still in the pits (families for Gebeta, marbles for Gabata;
what is banked already is added by the caller), indexed by the ranking of the pits as the
mover sees them. But these games can go round in circles, so an entry holds two numbers:
- L, what the mover can force with the game ending by its own rules, and
- U, what the opponent can hold the mover to in the same way.
Where L = U that is the exact value, whatever rule ends endless play. Where they differ,
neither player can force the game to an end that settles it: the value depends on the rule
for endless play (a third repetition ends the game and each side banks what its own seeds
make: docs/gebeta.md, docs/gabata.md), and the solver reports the bounds, never a guess.

Method: (L, U) is the least fixed point, from L = -B and U = +B (B: the most the seeds in play
can be worth), of L(p) = max over moves of (gain - U(child)) and U(p) = max of (gain -
L(child)) (an extra turn adds the child's bounds instead of subtracting them). It is reached
by sweeps until nothing changes; the operator is monotone, so any order of updates (threads
sweeping at once, without locks) reaches the same fixed point, and every intermediate pair is
already sound. Every move is played by the game's own kernels (``mancalab.kernels``).
- A database: level by level (seeds in play never increase; Gebeta's levels are multiples of
  four), each level's moves played once into an edge table, then swept.
- A position above the database (``graph``): the same sweeps over the positions it reaches.
"""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from numba import njit, prange

from ... import kernels
from ...core import ONGOING, MancalabError, Variant
from ...memory import large_zeros
from ...variants import variant as make_variant
from .files import DatabaseError, default_dir, largest, read_header, write_whole
from ...ranking import binomials, chunk_range, next_bars, pits_of, rank, unrank
from .results import LIMIT

FORMAT = "mancalab-retrograde-1"
PITS = 12  # the most pits: two rows of six (a game with fewer leaves the rest empty)
# edge kinds: what a move leads to
NONE, END, NODE, NODE_SAME, STORED, STORED_SAME = 0, 1, 2, 3, 4, 5
NOT_OVER = -1000


@dataclass(frozen=True)
class Layout:
    """Where a game keeps its pits on the board, and what its values count."""

    slots: tuple[int, ...]  # the board cells of player 0's pits, then player 1's (<= 6 each)
    unit: int  # seeds a point of value takes at most: the bound of g is seeds // unit
    step: int  # levels: seed counts that occur (Gebeta: multiples of four)
    margin_step: int  # final margins differ by this (Gabata: every marble is banked: even)
    acyclic: bool = False  # no position comes round again (Kalah: every move banks a seed
    # or moves seeds nearer their owner's store)


class Unsupported(DatabaseError):
    pass


def layout_of(variant: Variant) -> Layout:
    """The layout of a two-row game of at most six pits a side (``Variant.solving.graph_layout``;
    Kalah's stores are not pits)."""
    facts = variant.solving.graph_layout
    if facts is None or len(facts["slots"]) > PITS:
        raise Unsupported(f"{variant.title} has no layout of at most six pits a side")
    return Layout(**facts)


def slots_of(variant: Variant) -> np.ndarray:
    """The compiled code's layout: the pits' cells (``layout_of``), then the board's
    length."""
    return np.array(layout_of(variant).slots + (variant.board_size,), dtype=np.int64)


# ----- moves of a position, as the game's kernels play them -----------------------------
@njit(cache=True, inline="always")
def _to_board(slots, pits, board):
    """The board of ``pits`` (mover's pits first): the mover is player 0, nothing banked."""
    board[:] = 0
    for i in range(slots.shape[0] - 1):
        board[slots[i]] = pits[i]
    board[-1] = ONGOING


@njit(cache=True, inline="always")
def _view(slots, board, child):
    """The pits as the player to move on ``board`` sees them; their seeds."""
    n = slots.shape[0] - 1
    shift = n // 2 if board[-2] == 1 else 0
    seeds = 0
    for i in range(n):
        child[i] = board[slots[(i + shift) % n]]
        seeds += child[i]
    for i in range(n, PITS):
        child[i] = 0
    return seeds


@njit(cache=True, inline="always")
def move_buffers(slots):
    """The arrays ``_moves`` works in: the position's pits, a board, and per move the
    child's pits and seeds, the move's kind and gain."""
    return (np.zeros(PITS, dtype=np.int64), np.empty(slots[-1], dtype=np.int64),
            np.empty((6, PITS), dtype=np.int64), np.empty(6, dtype=np.int64),
            np.empty(6, dtype=np.int64), np.empty(6, dtype=np.int64))


def walk_buffers(slots: np.ndarray) -> tuple[np.ndarray, ...]:
    """``move_buffers`` and bars (a rank's digits): the work space of a walk over ranks,
    made by its caller and lent by its loop (``mancalab.borrow``)."""
    return move_buffers(slots) + (np.zeros(PITS - 1, dtype=np.int64),)


def chunk_buffers(slots: np.ndarray, chunks: int) -> tuple[np.ndarray, ...]:
    """``walk_buffers`` for each of a parallel loop's ``chunks``, a row each."""
    return tuple(np.zeros((chunks, *part.shape), dtype=part.dtype)
                 for part in walk_buffers(slots))


@njit(cache=True)
def _moves(params, slots, pits, board, kinds, gains, kid_pits, kid_seeds):
    """Play every move of ``pits``: per move its kind (NONE, END, NODE or NODE_SAME), the
    gain of player 0 (the mover) and the child's pits and seeds. A position that is over
    returns its value (else NOT_OVER); one whose mover must pass has one move, the pass."""
    _to_board(slots, pits, board)
    kernels.settle(params, board)
    kinds[:] = NONE
    if board[-1] != ONGOING:
        return kernels.margin(params, board)
    if board[-2] == 1:  # the mover's row is empty: the opponent moves
        kinds[0] = NODE
        gains[0] = 0
        kid_seeds[0] = _view(slots, board, kid_pits[0])
        return NOT_OVER
    for move in range((slots.shape[0] - 1) // 2):
        if pits[move] == 0:
            continue
        _to_board(slots, pits, board)
        kernels.play(params, board, slots[move])
        gains[move] = kernels.margin(params, board)
        if board[-1] != ONGOING:
            kinds[move] = END
        else:
            kinds[move] = NODE_SAME if board[-2] == 0 else NODE
            kid_seeds[move] = _view(slots, board, kid_pits[move])
    return NOT_OVER


@njit(cache=True, inline="always")
def _start_bounds(i, over, bound, low, high, fixed):
    """Position ``i``'s bounds before any sweep: its value if it is over (fixed), else the
    widest, [-bound, bound]."""
    if over != NOT_OVER:
        low[i] = high[i] = over
        fixed[i] = 1
    else:
        low[i], high[i] = -bound, bound
        fixed[i] = 0


@njit(cache=True, inline="always")
def _stored_index(pits, seeds, offsets, binom):
    return offsets[seeds] + rank(pits, binom)


@njit(cache=True, inline="always")
def _in_database(seeds, stored_seeds, offsets):
    """Whether the database holds the positions of ``seeds`` seeds (else they are walked)."""
    return seeds <= stored_seeds and offsets[seeds] >= 0


# ----- sweeping an edge table to its fixed point ----------------------------------------
@njit(cache=True, parallel=True, nogil=True)
def sweep(kinds, targets, gains, low, high, fixed, stored_low, stored_high, chunks):
    """One pass of L(p) = max(gain - U(child)), U(p) = max(gain - L(child)) over the
    positions not ``fixed``, newest bounds used at once; how many positions changed."""
    changed = 0
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, 0, low.shape[0])
        for i in range(last - 1, first - 1, -1):  # deeper positions first
            if fixed[i]:
                continue
            best_low, best_high = -1000, -1000
            for j in range(6):
                kind = kinds[i, j]
                if kind == NONE:
                    continue
                gain = np.int64(gains[i, j])
                if kind == END:
                    a, b = gain, gain
                else:
                    t = targets[i, j]
                    if kind == NODE or kind == NODE_SAME:
                        lo, hi = np.int64(low[t]), np.int64(high[t])
                    else:
                        lo, hi = np.int64(stored_low[t]), np.int64(stored_high[t])
                    if kind == NODE_SAME or kind == STORED_SAME:
                        a, b = gain + lo, gain + hi
                    else:
                        a, b = gain - hi, gain - lo
                best_low = max(best_low, a)
                best_high = max(best_high, b)
            if best_low > low[i] or best_high < high[i]:
                low[i] = max(np.int64(low[i]), best_low)
                high[i] = min(np.int64(high[i]), best_high)
                changed += 1
    return changed


def settle_bounds(kinds, targets, gains, low, high, fixed, stored_low, stored_high,
                  halt: np.ndarray | None = None, parallel: bool = True) -> bool:
    """Sweep until nothing changes (True) or ``halt[LIMIT]`` is 0 (False); ``parallel``
    False sweeps in one chunk (one thread's work: a server's own search)."""
    chunks = max(1, min(4096, low.shape[0] // 4096)) if parallel else 1
    while halt is None or halt[LIMIT] != 0:
        if sweep(kinds, targets, gains, low, high, fixed, stored_low, stored_high,
                 chunks) == 0:
            return True
    return False


# ----- databases ------------------------------------------------------------------------
def total_seeds(variant: Variant) -> int:
    return sum(variant.start_cells())  # nothing is banked at the start


def levels_of(variant: Variant, seeds: int) -> list[int]:
    step = layout_of(variant).step
    return list(range(0, seeds + 1, step))


def plan(variant: Variant, seeds: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The binomials, the first index of each level (-1 where none) and the entries."""
    layout_of(variant)
    if variant.solving.method != "retrograde":  # Kalah: its databases are ``databases``
        raise Unsupported(f"{variant.name} has no retrograde solver")
    most = total_seeds(variant)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 0 <= seeds <= most:
        raise DatabaseError(f"the seeds of a {variant.name} database must be 0..{most}, "
                            f"got {seeds!r}")
    binom = binomials(seeds + PITS + 1)
    offsets = np.full(seeds + 1, -1, dtype=np.int64)
    total = 0
    for level in levels_of(variant, seeds):
        offsets[level] = total
        total += int(binom[level + PITS - 1, PITS - 1])
    if total >= 2**31:
        raise DatabaseError(f"a {variant.name} database of {seeds} seeds has {total:,} entries "
                            "(too many): choose fewer seeds")
    return binom, offsets, total


@njit(cache=True, parallel=True, nogil=True)
def level_edges(params, slots, level, count, binom, offsets, kinds, targets, gains, low, high,
                fixed, stored_low, stored_high, unit, chunks, work):
    """The moves of every position with ``level`` seeds (ranks 0..count-1): same-level
    children by rank, lower ones by their database index; positions over are fixed.
    ``work`` (``chunk_buffers``): each chunk's work space, made outside the parallel loop,
    where an array it made would have an owner counted at every call (``mancalab.borrow``)."""
    bound = level // unit
    all_pits, all_boards, all_kid_pits, all_kid_seeds, all_kinds, all_gains, all_bars = work
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, 0, count)
        if first >= last:
            continue
        pits, board, kid_pits = all_pits[chunk], all_boards[chunk], all_kid_pits[chunk]
        kid_seeds, move_kinds = all_kid_seeds[chunk], all_kinds[chunk]
        move_gains, bars = all_gains[chunk], all_bars[chunk]
        unrank(first, level, PITS, binom, bars)
        for r in range(first, last):
            pits_of(bars, level, pits)
            over = _moves(params, slots, pits, board, move_kinds, move_gains, kid_pits,
                          kid_seeds)
            _start_bounds(r, over, bound, low, high, fixed)
            for j in range(6):
                kind = move_kinds[j]
                gains[r, j] = move_gains[j]
                if kind == NODE or kind == NODE_SAME:
                    seeds = kid_seeds[j]
                    if seeds == level:
                        targets[r, j] = rank(kid_pits[j], binom)
                    else:
                        targets[r, j] = _stored_index(kid_pits[j], seeds, offsets, binom)
                        kind += STORED - NODE
                kinds[r, j] = kind
            next_bars(bars, level + PITS - 1)


@dataclass
class Database:
    """Bounds (L, U) of every position with at most ``seeds`` seeds in play."""

    variant: Variant
    seeds: int
    low: np.ndarray  # int8 per entry
    high: np.ndarray
    offsets: np.ndarray
    binom: np.ndarray
    path: Path | None = None

    @property
    def nbytes(self) -> int:
        return int(self.low.nbytes + self.high.nbytes)

    def bounds(self, pits) -> tuple[int, int]:
        """(L, U) of ``pits`` as the mover sees them (mover's six first)."""
        pits = np.asarray(pits, dtype=np.int64)
        seeds = int(pits.sum())
        if seeds > self.seeds or self.offsets[seeds] < 0:
            raise DatabaseError(f"the database holds no position of {seeds} seeds")
        i = int(self.offsets[seeds] + rank(pits, self.binom))
        return int(self.low[i]), int(self.high[i])

    def loops(self) -> int:
        """Entries whose value depends on the rule for endless play."""
        return int(np.count_nonzero(self.low != self.high))


def build(variant: Variant, seeds: int,
          on_progress: Callable[[int, int, int], None] | None = None) -> Database:
    """Compute the database of ``variant`` up to ``seeds`` seeds in memory."""
    binom, offsets, total = plan(variant, seeds)
    layout = layout_of(variant)
    low, high = large_zeros((total,), np.int8), large_zeros((total,), np.int8)
    slots = slots_of(variant)
    for level in levels_of(variant, seeds):
        count = int(binom[level + PITS - 1, PITS - 1])
        begin = int(offsets[level])
        kinds = np.zeros((count, 6), dtype=np.int8)
        targets = np.zeros((count, 6), dtype=np.int32)
        gains = np.zeros((count, 6), dtype=np.int8)
        fixed = np.zeros(count, dtype=np.uint8)
        part_low, part_high = low[begin:begin + count], high[begin:begin + count]
        chunks = max(1, min(4096, count // 2048))
        level_edges(variant.params, slots, level, count, binom, offsets, kinds, targets, gains,
                    part_low, part_high, fixed, low, high, layout.unit, chunks,
                    chunk_buffers(slots, chunks))
        settle_bounds(kinds, targets, gains, part_low, part_high, fixed, low, high)
        if on_progress:
            on_progress(level, count, count)
    return Database(variant, seeds, low, high, offsets, binom)


def rules_of(variant: Variant) -> dict:
    return dict(sorted(variant.options.items()))


def file_name(variant: Variant, seeds: int | str) -> str:
    """The database of ``seeds`` seeds, or ("start") the start's book."""
    options = "-".join(f"{k}{v}" for k, v in rules_of(variant).items())
    return f"{variant.name}-{options}-{seeds}.db"


def path_of(variant: Variant, seeds: int | str, folder: str | Path | None = None) -> Path:
    return (Path(folder) if folder else default_dir()) / file_name(variant, seeds)


def save(database: Database, folder: str | Path | None = None) -> Path:
    """Write ``database`` whole or not at all; its path."""
    path = path_of(database.variant, database.seeds, folder)
    header = {"format": FORMAT, "game": database.variant.name,
              "rules": rules_of(database.variant), "seeds": database.seeds,
              "entries": int(database.low.size),
              "crc32": zlib.crc32(database.high, zlib.crc32(database.low)) & 0xFFFFFFFF}
    write_whole(path, header, [database.low, database.high])
    database.path = path
    return path


def load(path: str | Path, variant: Variant | None = None, verify: bool = True) -> Database:
    """Open a database file, checking its header (and with ``verify`` its checksum)."""
    path = Path(path)
    header, offset = read_header(path, FORMAT)
    try:
        own = make_variant(header.get("game", ""), **header.get("rules", {}))
    except (MancalabError, TypeError) as error:
        raise DatabaseError(f"{path}: bad game or rules in its header: {error}") from None
    if variant is not None and (variant.name != own.name or rules_of(variant) != rules_of(own)):
        raise DatabaseError(f"{path} is for {own.name} with {rules_of(own)}, not "
                            f"{variant.name} with {rules_of(variant)}")
    seeds = header.get("seeds")
    try:
        binom, offsets, total = plan(own, seeds)
    except DatabaseError as error:
        raise DatabaseError(f"{path}: {error}") from None
    if header.get("entries") != total or path.stat().st_size != offset + 2 * total:
        raise DatabaseError(f"{path} is truncated or does not match its header")
    mapped = np.memmap(path, dtype=np.int8, mode="r", offset=offset, shape=(2 * total,))
    values = np.array(mapped)
    low, high = values[:total], values[total:]
    if verify and zlib.crc32(high, zlib.crc32(low)) & 0xFFFFFFFF != header.get("crc32"):
        raise DatabaseError(f"{path} is corrupt: its checksum does not match")
    return Database(variant or own, seeds, low, high, offsets, binom, path)


def best_available(variant: Variant, folder: str | Path | None = None) -> Database | None:
    """The largest database built for ``variant``'s rules in ``folder``, opened."""
    return largest((path_of(variant, seeds, folder)
                    for seeds in range(total_seeds(variant), -1, -1)),
                   lambda path: load(path, variant, verify=False))


def ensure(variant: Variant, seeds: int, folder: str | Path | None = None,
           on_progress: Callable[[int, int, int], None] | None = None) -> Database:
    """The database of ``variant`` up to ``seeds``: opened if built, else built and saved."""
    path = path_of(variant, seeds, folder)
    if path.exists():
        return load(path, variant, verify=False)
    database = build(variant, seeds, on_progress)
    save(database, folder)
    return database


_DATABASES: dict[tuple, Database | None] = {}
_DATABASES_LOCK = threading.Lock()


def database_for(variant: Variant, build: bool = True,
                 on_progress: Callable[[int, int, int], None] | None = None) -> Database | None:
    """The largest database built for ``variant``'s rules, kept open in this process; with
    ``build`` a small one (``Variant.solving.on_demand_seeds``) is built when there is none."""
    key = kept_key(variant)
    with _DATABASES_LOCK:
        found = _DATABASES.get(key)
        if found is None:
            found = best_available(variant)
            if found is None and build:
                found = ensure(variant, variant.solving.on_demand_seeds, None, on_progress)
            _DATABASES[key] = found
        return found


def kept_key(variant: Variant) -> tuple:
    """Where this process keeps the files opened for ``variant``'s rules."""
    return variant.name, tuple(rules_of(variant).items()), default_dir()


def renew(variant: Variant) -> None:
    """Look again for the database of ``variant``'s rules (built since)."""
    with _DATABASES_LOCK:
        _DATABASES.pop(kept_key(variant), None)


