"""Exact values for the games whose positions can repeat, Gebeta and Gabata: retrograde
databases of every position with at most K seeds in play, and the solver of a position over
the graph of the positions it can reach.

What is stored. As for Kalah (``mancalab.analysis.databases``) an entry is about the mover's
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
- A position above the database: the positions it can reach above the database are found by
  a breadth-first walk (a hash table of their ranks) and swept with the database at the
  boundary. When a budget of positions or time runs out, the positions not yet expanded count
  as [-B, +B]: the bounds stay sound, only wider.
"""

from __future__ import annotations

import threading
import time as _time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
from numba import njit, prange

from .. import kernels
from ..core import ONGOING, MancalabError, State, Variant
from ..memory import available_memory, large_zeros
from ..variants import variant as make_variant
from .solve import LIMIT, Cancel, SolveResult
from .databases import (DatabaseError, _next_bars, _pits_of, _unrank, binomials, default_dir,
                        rank, read_header, write_whole)

FORMAT = "mancalab-retrograde-1"
PITS = 12  # both games: two rows of six
# edge kinds: what a move leads to
NONE, END, NODE, NODE_SAME, STORED, STORED_SAME = 0, 1, 2, 3, 4, 5
NOT_OVER = -1000


@dataclass(frozen=True)
class Layout:
    """Where a game keeps its pits on the board, and what its values count."""

    slots: tuple[int, ...]  # the board cells of player 0's six pits, then player 1's six
    unit: int  # seeds a point of value takes at most: the bound of g is seeds // unit
    step: int  # levels: seed counts that occur (Gebeta: multiples of four)


LAYOUTS = {
    "gebeta": Layout(tuple(range(12)), 4, 4),
    "gabata": Layout(tuple(range(6)) + tuple(range(7, 13)), 1, 1),
}


class Unsupported(DatabaseError):
    pass


def layout_of(variant: Variant) -> Layout:
    try:
        return LAYOUTS[variant.name]
    except KeyError:
        raise Unsupported(f"{variant.name} has no retrograde solver") from None


def slots_of(variant: Variant) -> np.ndarray:
    return np.array(layout_of(variant).slots, dtype=np.int64)


# ----- moves of a position, as the game's kernels play them -----------------------------
@njit(cache=True, inline="always")
def _to_board(slots, pits, board):
    """The board of ``pits`` (mover's six first): the mover is player 0, nothing banked."""
    board[:] = 0
    for i in range(PITS):
        board[slots[i]] = pits[i]
    board[-1] = ONGOING


@njit(cache=True, inline="always")
def _view(slots, board, child):
    """The pits as the player to move on ``board`` sees them; their seeds."""
    shift = 6 if board[-2] == 1 else 0
    seeds = 0
    for i in range(PITS):
        child[i] = board[slots[(i + shift) % PITS]]
        seeds += child[i]
    return seeds


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
    for move in range(6):
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
    n = low.shape[0]
    per = (n + chunks - 1) // chunks
    changed = 0
    for chunk in prange(chunks):
        first = chunk * per
        last = min(n, first + per)
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
                fixed, stored_low, stored_high, unit, chunks):
    """The moves of every position with ``level`` seeds (ranks 0..count-1): same-level
    children by rank, lower ones by their database index; positions over are fixed."""
    per = (count + chunks - 1) // chunks
    bound = level // unit
    for chunk in prange(chunks):
        first = chunk * per
        last = min(count, first + per)
        if first >= last:
            continue
        bars = np.empty(PITS - 1, dtype=np.int64)
        pits = np.empty(PITS, dtype=np.int64)
        board = np.empty(16, dtype=np.int64)
        kid_pits = np.empty((6, PITS), dtype=np.int64)
        kid_seeds = np.empty(6, dtype=np.int64)
        move_kinds = np.empty(6, dtype=np.int64)
        move_gains = np.empty(6, dtype=np.int64)
        _unrank(first, level, PITS, binom, bars)
        for r in range(first, last):
            _pits_of(bars, level, pits)
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
            _next_bars(bars, level + PITS - 1)


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
                    part_low, part_high, fixed, low, high, layout.unit, chunks)
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
    for seeds in range(total_seeds(variant), -1, -1):
        path = path_of(variant, seeds, folder)
        if path.exists():
            return load(path, variant, verify=False)
    return None


def ensure(variant: Variant, seeds: int, folder: str | Path | None = None,
           on_progress: Callable[[int, int, int], None] | None = None) -> Database:
    """The database of ``variant`` up to ``seeds``: opened if built, else built and saved."""
    path = path_of(variant, seeds, folder)
    if path.exists():
        return load(path, variant, verify=False)
    database = build(variant, seeds, on_progress)
    save(database, folder)
    return database


ON_DEMAND_SEEDS = {"gebeta": 16, "gabata": 12}  # 8 s and 1 s on first use (2 cores)


def warm_up() -> None:
    """Compile (or load from the cache) the database build and the graph walk now."""
    variant = make_variant("gabata")
    database = build(variant, 1)
    solve(variant.state([1, 0, 0, 0, 0, 1, 23, 0, 0, 1, 0, 0, 0, 22], 0), database=database)


# ----- a position above the database: the graph it can reach ---------------------------
@njit(cache=True, inline="always")
def _slot(key, mask):
    mixed = (np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)
    return np.int64(mixed & np.uint64(mask))


@njit(cache=True, inline="always")
def graph_key(pits, seeds, big_binom):
    """A position's key above the database, unique over all seed counts (never 0)."""
    return big_binom[seeds - 1 + PITS, PITS] + rank(pits, big_binom) + 1


@njit(cache=True, nogil=True)
def explore(params, slots, root, big_binom, stored_seeds, offsets, binom, unit, capacity,
            keys, ids, node_pits, kinds, targets, gains, low, high, fixed, halt):
    """Walk the positions ``root`` can reach above the database breadth first, at most
    ``capacity`` of them, until ``halt[LIMIT]`` is 0 (``Cancel``): their edge table.
    Returns (positions, expanded); the positions not expanded are fixed at [-B, +B]."""
    mask = keys.shape[0] - 1
    board = np.empty(16, dtype=np.int64)
    kid_pits = np.empty((6, PITS), dtype=np.int64)
    kid_seeds = np.empty(6, dtype=np.int64)
    move_kinds = np.empty(6, dtype=np.int64)
    move_gains = np.empty(6, dtype=np.int64)
    pits = np.empty(PITS, dtype=np.int64)
    count = 1
    node_pits[0] = root
    head = 0
    while head < count and count + 6 <= capacity and halt[LIMIT] != 0:
        for i in range(PITS):
            pits[i] = node_pits[head, i]
        over = _moves(params, slots, pits, board, move_kinds, move_gains, kid_pits, kid_seeds)
        _start_bounds(head, over, pits.sum() // unit, low, high, fixed)
        for j in range(6):
            kind = move_kinds[j]
            gains[head, j] = move_gains[j]
            if kind == NODE or kind == NODE_SAME:
                seeds = kid_seeds[j]
                if _in_database(seeds, stored_seeds, offsets):
                    targets[head, j] = _stored_index(kid_pits[j], seeds, offsets, binom)
                    kind += STORED - NODE
                else:
                    key = graph_key(kid_pits[j], seeds, big_binom)
                    s = _slot(key, mask)
                    while keys[s] != 0 and keys[s] != key:
                        s = (s + 1) & mask
                    if keys[s] == 0:
                        keys[s] = key
                        ids[s] = count
                        node_pits[count] = kid_pits[j]
                        count += 1
                    targets[head, j] = ids[s]
            kinds[head, j] = kind
        head += 1
    for i in range(head, count):  # the frontier: not expanded
        bound = node_pits[i].sum() // unit
        low[i], high[i] = -bound, bound
        fixed[i] = 1
    return count, head


BYTES_PER_POSITION = 12 + 6 * 6 + 3 + 2 * 16  # pits, edges, bounds, two hash slots
MOST_POSITIONS = 200_000_000
RATE_GUESS = 3_000_000  # positions expanded a second, to size the table to a time limit
_DATABASES: dict[tuple, Database | None] = {}
_DATABASES_LOCK = threading.Lock()


def database_for(variant: Variant, build: bool = True,
                 on_progress: Callable[[int, int, int], None] | None = None) -> Database | None:
    """The largest database built for ``variant``'s rules, kept open in this process; with
    ``build`` a small one (``ON_DEMAND_SEEDS``) is built when there is none."""
    key = (variant.name, tuple(rules_of(variant).items()), default_dir())
    with _DATABASES_LOCK:
        found = _DATABASES.get(key)
        if found is None:
            found = best_available(variant)
            if found is None and build:
                found = ensure(variant, ON_DEMAND_SEEDS[variant.name], None, on_progress)
            _DATABASES[key] = found
        return found


def mover_view(state: State) -> np.ndarray:
    """The pits as the player to move sees them (their six first)."""
    slots = layout_of(state.variant).slots
    cells = state.cells
    shift = 6 if state.to_move == 1 else 0
    return np.array([cells[slots[(i + shift) % PITS]] for i in range(PITS)], dtype=np.int64)


@dataclass
class Graph:
    """The positions a root can reach above the database, with their edges and bounds."""

    count: int
    expanded: int
    kinds: np.ndarray
    targets: np.ndarray
    gains: np.ndarray
    low: np.ndarray
    high: np.ndarray
    settled: bool  # swept until nothing changed
    keys: np.ndarray | None = None  # each position's ``graph_key`` when asked for

    @property
    def final(self) -> bool:
        """Every position walked and settled: bounds apart are the rule for endless play's."""
        return self.expanded == self.count and self.settled


def reachable(variant: Variant, pits: np.ndarray, database: Database | None,
              capacity: int, explore_halt: np.ndarray, sweep_halt: np.ndarray,
              exact_only: bool = False, parallel: bool = True,
              with_keys: bool = False) -> Graph:
    """Walk the graph of ``pits`` (at most ``capacity`` positions) and settle its bounds;
    with ``exact_only`` a walk cut short is not settled (it cannot give an exact value);
    ``with_keys``: the graph holds its positions' keys."""
    layout = layout_of(variant)
    size = 1 << max(4, (2 * capacity - 1).bit_length())
    keys = np.zeros(size, dtype=np.int64)
    ids = np.zeros(size, dtype=np.int32)
    node_pits = np.zeros((capacity, PITS), dtype=np.int8)
    kinds = np.zeros((capacity, 6), dtype=np.int8)
    targets = np.zeros((capacity, 6), dtype=np.int32)
    gains = np.zeros((capacity, 6), dtype=np.int8)
    low = np.zeros(capacity, dtype=np.int8)
    high = np.zeros(capacity, dtype=np.int8)
    fixed = np.zeros(capacity, dtype=np.uint8)
    if database is None:
        stored_seeds, offsets, binom = -1, np.full(1, -1, dtype=np.int64), binomials(PITS + 1)
        stored_low = stored_high = np.zeros(1, dtype=np.int8)
    else:
        stored_seeds, offsets, binom = database.seeds, database.offsets, database.binom
        stored_low, stored_high = database.low, database.high
    big_binom = binomials(total_seeds(variant) + PITS + 1)
    count, expanded = explore(variant.params, slots_of(variant), pits, big_binom, stored_seeds,
                              offsets, binom, layout.unit, capacity, keys, ids, node_pits,
                              kinds, targets, gains, low, high, fixed, explore_halt)
    node_keys = None
    if with_keys:  # the root is not in the hash table: a cycle back to it makes a twin
        node_keys = np.empty(count, dtype=np.int64)
        taken = keys != 0
        node_keys[ids[taken]] = keys[taken]
        node_keys[0] = graph_key(pits, int(pits.sum()), big_binom)
    del keys, ids, node_pits
    kinds, targets, gains = kinds[:count], targets[:count], gains[:count]
    low, high, fixed = low[:count], high[:count], fixed[:count]
    settled = False
    if expanded == count or not exact_only:
        settled = settle_bounds(kinds, targets, gains, low, high, fixed, stored_low,
                                stored_high, sweep_halt, parallel)
    return Graph(count, expanded, kinds, targets, gains, low, high, settled, node_keys)


def _edge_bounds(graph: Graph, database: Database | None, j: int,
                 node: int = 0) -> tuple[int, int]:
    """Bounds on ``node``'s move ``j`` for ``node``'s mover (its gain included)."""
    kind, gain = int(graph.kinds[node, j]), int(graph.gains[node, j])
    t = int(graph.targets[node, j])
    if kind == END:
        return gain, gain
    if kind in (NODE, NODE_SAME):
        lo, hi = int(graph.low[t]), int(graph.high[t])
    else:
        lo, hi = int(database.low[t]), int(database.high[t])
    if kind in (NODE_SAME, STORED_SAME):
        return gain + lo, gain + hi
    return gain - hi, gain - lo


def _stored_replies(variant: Variant, database: Database, pits: np.ndarray) -> list:
    """Bounds on each move of a database position, for its mover."""
    kinds, gains = np.zeros(6, dtype=np.int64), np.zeros(6, dtype=np.int64)
    kid_pits, kid_seeds = np.zeros((6, PITS), dtype=np.int64), np.zeros(6, dtype=np.int64)
    over = _moves(variant.params, slots_of(variant), pits, np.zeros(16, dtype=np.int64), kinds,
                  gains, kid_pits, kid_seeds)
    if over != NOT_OVER:
        return [(int(over), int(over))]
    found = []
    for kind, gain, kid in zip(kinds, gains, kid_pits):
        if kind == END:
            found.append((int(gain), int(gain)))
        elif kind != NONE:
            lo, hi = database.bounds(kid)
            found.append((int(gain) + lo, int(gain) + hi) if kind == NODE_SAME
                         else (int(gain) - hi, int(gain) - lo))
    return found


def _reply_values(graph: Graph, database: Database | None, state: State,
                  j: int) -> list[int]:
    """What the root's move ``j`` guarantees (lower bounds, from the root's base) after each
    legal reply of the opponent: what a fallible opponent can give away after it."""
    kind, gain, t = int(graph.kinds[0, j]), int(graph.gains[0, j]), int(graph.targets[0, j])
    if kind != NODE and kind != STORED:  # the game ends, or the mover moves again
        return [_edge_bounds(graph, database, j)[0]]
    if kind == NODE:
        replies = [_edge_bounds(graph, database, k, t) for k in range(6)
                   if graph.kinds[t, k] != NONE]
    else:
        cell = layout_of(state.variant).slots[j + 6 * state.to_move]
        replies = _stored_replies(state.variant, database, mover_view(state.play(cell)))
    if not replies:  # not walked (the frontier of a walk cut short)
        return [_edge_bounds(graph, database, j)[0]]
    return [gain - high for _, high in replies]


def capacity_for(time: float | None) -> int:
    most = min(MOST_POSITIONS, available_memory() // 3 // BYTES_PER_POSITION)
    if time is not None:
        most = min(most, int(RATE_GUESS * time) + 1000)
    return max(1000, most)


# ----- the start's book: its whole graph, solved once and kept ---------------------------
BOOK_FORMAT = "mancalab-retrograde-book-1"
BOOK_BYTES_PER_POSITION = 8 + 2  # key, L, U


@dataclass
class Book:
    """Every position the start reaches above the database of ``seeds`` seeds, with its bounds
    (L, U), sorted by ``graph_key``: the start's graph solved once and kept on disk, so that a
    position of any game from the start is looked up instead of walked (Gebeta's start walks
    44.6 M positions in minutes)."""

    variant: Variant
    seeds: int
    keys: np.ndarray  # int64, sorted
    low: np.ndarray  # int8
    high: np.ndarray
    path: Path | None = None

    def __post_init__(self) -> None:
        self.big_binom = binomials(total_seeds(self.variant) + PITS + 1)

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.low.nbytes + self.high.nbytes)

    def bounds(self, pits) -> tuple[int, int] | None:
        """(L, U) of ``pits`` as the mover sees them, or None when the book lacks them."""
        pits = np.asarray(pits, dtype=np.int64)
        key = graph_key(pits, int(pits.sum()), self.big_binom)
        i = int(np.searchsorted(self.keys, key))
        if i < len(self.keys) and self.keys[i] == key:
            return int(self.low[i]), int(self.high[i])
        return None


_BOOKS: dict[tuple, Book | None] = {}


def build_book(variant: Variant, database: Database, root: State | None = None) -> Book:
    """Walk and settle the whole graph of ``variant``'s start (or of ``root``) above
    ``database``: its Book. DatabaseError when the graph does not fit this machine's memory."""
    root = mover_view(root or variant.start())
    halt = np.ones(4, dtype=np.int64)
    graph = reachable(variant, root, database, capacity_for(None), halt, halt.copy(),
                      exact_only=True, with_keys=True)
    if not graph.final:
        raise DatabaseError(f"the {variant.name} start reaches more than {graph.count:,} "
                            f"positions above the {database.seeds}-seed database: more than "
                            "this machine's memory holds")
    order = np.argsort(graph.keys)
    keys = graph.keys[order]
    first = np.ones(len(keys), dtype=bool)  # a twin of the root (equal bounds) kept once
    first[1:] = keys[1:] != keys[:-1]
    return Book(variant, database.seeds, keys[first], graph.low[order][first],
                graph.high[order][first])


def book_path(variant: Variant, folder: str | Path | None = None) -> Path:
    return path_of(variant, "start", folder)


def save_book(book: Book, folder: str | Path | None = None) -> Path:
    """Write ``book`` whole or not at all; its path."""
    path = book_path(book.variant, folder)
    crc = zlib.crc32(book.high, zlib.crc32(book.low, zlib.crc32(book.keys)))
    header = {"format": BOOK_FORMAT, "kind": "start", "game": book.variant.name,
              "rules": rules_of(book.variant), "seeds": book.seeds,
              "entries": int(book.keys.size), "crc32": crc & 0xFFFFFFFF}
    # the keys start at a multiple of 8 bytes, so that they are mapped, not read
    write_whole(path, header, [book.keys, book.low, book.high], align=8)
    book.path = path
    return path


def load_book(path: str | Path, variant: Variant, verify: bool = True) -> Book:
    """Open a book file of ``variant``'s rules, checking its header (and its checksum)."""
    path = Path(path)
    header, offset = read_header(path, BOOK_FORMAT)
    if header.get("game") != variant.name or header.get("rules") != rules_of(variant):
        raise DatabaseError(f"{path} is not the book of {variant.name} with "
                            f"{rules_of(variant)}")
    entries, seeds = header.get("entries"), header.get("seeds")
    if (not isinstance(entries, int) or not isinstance(seeds, int) or entries < 1
            or offset % 8 or path.stat().st_size != offset + BOOK_BYTES_PER_POSITION * entries):
        raise DatabaseError(f"{path} is truncated or does not match its header")
    # mapped: processes share the pages, and only the pages looked up are read
    keys = np.memmap(path, dtype=np.int64, mode="r", offset=offset, shape=(entries,))
    bounds = np.memmap(path, dtype=np.int8, mode="r", offset=offset + 8 * entries,
                       shape=(2 * entries,))
    low, high = bounds[:entries], bounds[entries:]
    crc = zlib.crc32(high, zlib.crc32(low, zlib.crc32(keys))) & 0xFFFFFFFF
    if verify and crc != header.get("crc32"):
        raise DatabaseError(f"{path} is corrupt: its checksum does not match")
    return Book(variant, seeds, keys, low, high, path)


def renew(variant: Variant) -> None:
    """Look again for the database and the book of ``variant``'s rules (built since)."""
    with _DATABASES_LOCK:
        _DATABASES.pop((variant.name, tuple(rules_of(variant).items()), default_dir()), None)
        _BOOKS.pop(book_key(variant), None)


def book_key(variant: Variant) -> tuple:
    """Where ``book_for`` keeps ``variant``'s book in this process."""
    return variant.name, tuple(rules_of(variant).items()), default_dir()


BOOK_SEEDS = {"gebeta": 16}  # the games whose start's book fits here, over this database
BOOK_COST = "about 6 minutes once, 0.45 GB on disk, 6.6 GB of memory while it builds"


def book_advice(variant: Variant) -> str | None:
    """How to build the start's book of ``variant``'s rules when it can be built here and is
    not yet: without it the perfect player searches until few counters are left."""
    seeds = BOOK_SEEDS.get(variant.name)
    if seeds is None or book_for(variant) is not None:
        return None
    rules = "".join(f" -o {name}={value}"
                    for name, value in variant.non_default_options().items())
    cost = BOOK_COST + ("" if not rules else ", for the default rules")
    return (f"the perfect player plays exactly from the first move with the start's book: "
            f"build it with 'mancalab db build {variant.name} --seeds {seeds} --start{rules}' "
            f"({cost})")


def book_for(variant: Variant) -> Book | None:
    """The start's book of ``variant``'s rules when one is built, kept open in this process."""
    key = book_key(variant)
    with _DATABASES_LOCK:
        if key not in _BOOKS:
            path = book_path(variant)
            _BOOKS[key] = load_book(path, variant, verify=False) if path.exists() else None
        return _BOOKS[key]


def _book_graph(variant: Variant, book: Book, database: Database | None,
                pits: np.ndarray) -> Graph | None:
    """The root ``pits``, its children and theirs, with bounds from the book and the
    database: what ``solve`` reads of a walked graph; None when the book lacks one."""
    root_bounds = book.bounds(pits)
    if root_bounds is None:
        return None
    slots, params = slots_of(variant), variant.params
    board = np.zeros(16, dtype=np.int64)
    kids, seeds = np.zeros((6, PITS), dtype=np.int64), np.zeros(6, dtype=np.int64)
    move_kinds, move_gains = np.zeros(6, dtype=np.int64), np.zeros(6, dtype=np.int64)
    nodes, bounds, rows = [pits], [root_bounds], {}

    def expand(node: int) -> bool:
        _moves(params, slots, np.asarray(nodes[node], dtype=np.int64), board, move_kinds,
               move_gains, kids, seeds)
        kind, target = move_kinds.copy(), np.zeros(6, dtype=np.int64)
        for j in range(6):
            if kind[j] not in (NODE, NODE_SAME):
                continue
            if database is not None and _in_database(seeds[j], database.seeds,
                                                     database.offsets):
                kind[j] += STORED - NODE
                target[j] = _stored_index(kids[j], seeds[j], database.offsets, database.binom)
                continue
            found = book.bounds(kids[j])
            if found is None:
                return False
            target[j] = len(nodes)
            nodes.append(kids[j].copy())
            bounds.append(found)
        rows[node] = (kind, target, move_gains.copy())
        return True

    if not expand(0):
        return None
    for j in range(6):
        if rows[0][0][j] in (NODE, NODE_SAME) and not expand(int(rows[0][1][j])):
            return None
    count = len(nodes)
    kinds, targets = np.zeros((count, 6), dtype=np.int8), np.zeros((count, 6), dtype=np.int32)
    gains = np.zeros((count, 6), dtype=np.int8)
    for node, (kind, target, gain) in rows.items():
        kinds[node], targets[node], gains[node] = kind, target, gain
    low = np.array([b[0] for b in bounds], dtype=np.int8)
    high = np.array([b[1] for b in bounds], dtype=np.int8)
    return Graph(count, count, kinds, targets, gains, low, high, settled=True)


def _walk(state: State, time: float | None, database: Database | None,
          cancel: Cancel | None, exact_only: bool, parallel: bool) -> Graph:
    """The graph ``state`` reaches above ``database``, walked and settled within ``time``."""
    cancel = cancel or Cancel()
    explore_halt = np.ones(4, dtype=np.int64)
    sweep_halt = np.ones(4, dtype=np.int64)
    if not (cancel.track(explore_halt) and cancel.track(sweep_halt)):
        explore_halt[LIMIT] = sweep_halt[LIMIT] = 0
    timers = []
    if time is not None:  # half the time to walk the graph, the rest to settle it
        for share, halt in ((0.5, explore_halt), (1.0, sweep_halt)):
            timer = threading.Timer(time * share, halt.__setitem__, (LIMIT, 0))
            timer.daemon = True
            timer.start()
            timers.append(timer)
    try:
        return reachable(state.variant, mover_view(state), database, capacity_for(time),
                         explore_halt, sweep_halt, exact_only, parallel)
    finally:
        for timer in timers:
            timer.cancel()
        cancel.untrack(explore_halt)
        cancel.untrack(sweep_halt)


def solve(state: State, time: float | None = None, moves: bool = False,
          database: Database | None = None, build: bool = True,
          cancel: Cancel | None = None,
          on_bounds: Callable[[int, int], None] | None = None,
          exact_only: bool = False, parallel: bool = True) -> SolveResult:
    """The value of ``state`` (not over) for the player to move, or its proven bounds: see
    ``mancalab.analysis.solve.solve``. Bounds that stay apart after a complete walk mean the
    value depends on the rule for endless play. ``exact_only``: a walk cut short by ``time``
    returns at once, with the widest bounds (a player that only uses exact values). A
    position the start's book holds is looked up there instead of walked."""
    started = _time.perf_counter()
    variant = state.variant
    database = database or database_for(variant, build)
    book = book_for(variant)
    graph = _book_graph(variant, book, database, mover_view(state)) if book else None
    if graph is None:
        graph = _walk(state, time, database, cancel, exact_only, parallel)
    a, b = state.score
    base = a - b if state.to_move == 0 else b - a
    lower, upper = base + int(graph.low[0]), base + int(graph.high[0])
    if on_bounds:
        on_bounds(lower, upper)
    exact = lower == upper
    result = SolveResult(lower if exact else None, exact, lower, upper, [], [],
                         nodes=graph.count, database_seeds=database and database.seeds,
                         endless=graph.final)
    slots = layout_of(variant).slots
    for j in range(6):
        if graph.kinds[0, j] == NONE:
            continue
        cell = slots[j + 6 * state.to_move]
        lo, hi = _edge_bounds(graph, database, j)
        if moves:
            result.moves[cell] = (base + lo, base + hi)
            result.move_names[cell] = state.move_name(cell)
            result.replies[cell] = [base + v for v in _reply_values(graph, database, state, j)]
        if exact and base + lo >= lower:
            result.best_moves.append(cell)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    result.seconds = _time.perf_counter() - started
    return result
