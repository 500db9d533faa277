"""Exact game-tree statistics, level by level, as the Gebeta reference program's results.csv.

Level L holds every move sequence of length L from the start. Instead of walking the
sequences (117 billion at Gebeta level 18), each level keeps every *distinct* position once,
with its multiplicity (the number of sequences that reach it), in a hash table: a row holds
the position packed into a fixed number of 64-bit words (the variant's ``key_widths``) and
its multiplicity. A level's table is expanded in batches of rows:

1. in parallel, each chunk of parents plays its children with the game's kernels, packs and
   hashes them (the finished games and the turns go to per-chunk totals), holds the going-on
   ones in its thread's buffers, which stay in the CPU's cache, and writes them out sorted by
   the high bits of their hash into GROUPS runs (with their multiplicity);
2. in parallel, each group's runs are merged into the next level's table, which is split into
   partitions by the same high bits: no two threads write the same partition, and a group's
   inserts are prefetched a few ahead, since its rows of the table are rarely still in cache.
   Inserting straight from the expansion instead waited for main memory at every insert.

The batch's working arrays are kept from level to level, and the helpers of the inner loops
(packing, hashing, inserting, the switch over the games, Gebeta's sowing) are inlined: a
call with arrays as arguments costs more than the work (an insert made as a call took 4 times
as long as inlined). Where the time goes: the README, "Game-tree statistics".

The next level is read straight from the table (no copying out), and the last level asked for
is counted but never stored. Counting is exact at any depth: a multiplicity takes one 64-bit
word while no child can reach 2**64 (the level's sequences times the moves of a position stay
below it: Gebeta to about level 33), two words (128 bits) from then on; the level totals are
kept in 128 bits and returned as Python integers. Any overflow is an error, never a wrap.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import config, get_num_threads, get_thread_id, njit, prange, set_num_threads

from .. import kernels, movemask
from ..core import MancalabError, Variant
from ..memory import available_memory
from ..prefetch import prefetch_row
from ..variants import gebeta
from ..variants import variant as make_variant

# Totals slots, in the order of the reference file's columns where possible.
TURNS, GAMES, AGENCY, A_WINS, B_WINS, DRAWS, TIMEOUTS = range(7)
N_TOTALS = 7
STATUS_SLOT = (-1, A_WINS, B_WINS, DRAWS, TIMEOUTS)  # indexed by the status code
HEADER = "turns, level, games, agency, Awins, Bwins, draws, timeouts"
PARTITION_BITS = 12
PARTITIONS = 1 << PARTITION_BITS
GROUP_BITS = 8  # children are merged a group of PARTITIONS // GROUPS partitions at a time
GROUPS = 1 << GROUP_BITS
TARGET_LOAD = 0.6  # a new or grown table starts this full (short probe runs)
MAX_LOAD = 0.8  # a table grows before it gets fuller
EMPTY = np.uint64(0)  # a multiplicity of 0 marks an empty row
WIDE_FROM = 1 << 64  # a level with this many sequences or more may hold a multiplicity
# that needs two words
CHUNKS = 64  # pieces of a batch that the threads share out
PHASES = ("expand", "grow", "merge")  # how a level's time is split (TreeRow.details)
PREFETCH_AHEAD = 8  # inserts announced ahead of time (8 and 16 measured alike)


class TreeRow(NamedTuple):
    """One level of the table; the counts are cumulative over levels 1..level."""

    level: int
    turns: int
    games: int
    agency: int
    a_wins: int
    b_wins: int
    draws: int
    timeouts: int
    positions: int | None  # distinct positions at this level whose game goes on (None for
    # the last level asked for: it is counted, never stored; ask one level deeper for it)
    seconds: float  # time spent on this level
    peak_bytes: int  # memory held by this level's tables at its peak
    details: dict | None = None  # seconds spent expanding, merging and growing tables;
    # on a cluster, the bytes moved between workers and their peak memory

    def csv(self) -> str:
        return ", ".join(str(v) for v in (self.turns, self.level, self.games, self.agency,
                                          self.a_wins, self.b_wins, self.draws, self.timeouts))


class TreeOverflowError(MancalabError):
    """A count that does not fit its integer type (reported, never wrapped silently)."""


class TreeMemoryError(MancalabError):
    """The next level would not fit in memory; ``rows`` holds the levels done before it."""

    def __init__(self, message: str, rows: list) -> None:
        super().__init__(message)
        self.rows = rows


# ----- packing positions into words -------------------------------------------------

def key_layout(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """For every board slot but the status: its word, its shift and its mask; the word count
    (the game's own ``key_words`` when it packs its positions itself)."""
    widths = variant.key_widths()
    word_of, shift_of, mask_of = [], [], []
    word, used = 0, 0
    for width in widths:
        if used + width > 64:
            word, used = word + 1, 0
        word_of.append(word)
        shift_of.append(used)
        mask_of.append((1 << width) - 1)
        used += width
    return (np.array(word_of, dtype=np.int64), np.array(shift_of, dtype=np.uint64),
            np.array(mask_of, dtype=np.uint64), variant.key_words or word + 1)


# Keys are passed as (array, row) rather than as a row view throughout: in parallel code a
# view counts references on the shared array from every thread, which costs more than the work.

@njit(cache=True, inline="always")
def _encode(params, board, word_of, shift_of, mask_of, keys, k):
    """Pack the board into ``keys[k]``; False when a value does not fit its field."""
    if params[0] == gebeta.GAME_ID:
        return gebeta.pack_key(board, keys, k)
    for w in range(keys.shape[1]):
        keys[k, w] = 0
    for f in range(word_of.shape[0]):
        value = np.uint64(board[f])
        if board[f] < 0 or value > mask_of[f]:
            return False
        keys[k, word_of[f]] |= value << shift_of[f]
    return True


@njit(cache=True, inline="always")
def _decode(params, keys, k, word_of, shift_of, mask_of, board):
    if params[0] == gebeta.GAME_ID:
        gebeta.unpack_key(keys, k, board)
        return
    for f in range(word_of.shape[0]):
        board[f] = np.int64((keys[k, word_of[f]] >> shift_of[f]) & mask_of[f])
    board[-1] = 0


@njit(cache=True, inline="always")
def _hash(keys, k, n_words):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(n_words):
        h ^= keys[k, w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(32)
    return h


@njit(cache=True, inline="always")
def _partition(h):
    return np.int64(h >> np.uint64(64 - PARTITION_BITS))


@njit(cache=True, inline="always")
def _group(h):
    return np.int64(h >> np.uint64(64 - GROUP_BITS))


@njit(cache=True, inline="always")
def _home(h, capacity):
    """The first row a key with hash ``h`` probes: in its partition, by the low 32 bits."""
    offset = np.int64(((h & np.uint64(0xFFFFFFFF)) * np.uint64(capacity)) >> np.uint64(32))
    return _partition(h) * capacity + offset


# ----- 128-bit totals ---------------------------------------------------------------

@njit(cache=True, inline="always")
def add128(lo, hi, slot, amount):
    """totals[slot] += amount, with the carry into the high word."""
    before = lo[slot]
    lo[slot] = before + amount
    if lo[slot] < before:
        hi[slot] += np.uint64(1)


@njit(cache=True, inline="always")
def add_count(lo, hi, slot, count_lo, count_hi):
    """totals[slot] += a 128-bit multiplicity."""
    add128(lo, hi, slot, count_lo)
    hi[slot] += count_hi


@njit(cache=True, inline="always")
def _count(table, row, n_words):
    """The multiplicity of ``row`` as (low word, high word): one word or two after the key."""
    high = table[row, n_words + 1] if table.shape[1] > n_words + 1 else EMPTY
    return table[row, n_words], high


# ----- one batch of parents ---------------------------------------------------------

@njit(cache=True, parallel=True)
def _expand(params, parents, first, last, word_of, shift_of, mask_of, n_words, board_size,
            max_children, keep, held_keys, held_counts, held_groups, out_keys, out_counts, runs,
            chunk_lo, chunk_hi, chunk_incoming, bad_key):
    """Play every move of the parent rows first..last-1 (empty rows have none). Each chunk
    adds its turns and finished games to its own row of ``chunk_lo``/``chunk_hi``. When
    ``keep``, a chunk holds its going-on children (key, multiplicity, hash group) in its
    thread's ``held_*`` buffers, which stay in cache, then writes them sorted by group to its
    own stretch of ``out_keys``/``out_counts`` (from slot chunk * per_chunk * max_children):
    group g's run is ``runs[chunk, g]`` to ``runs[chunk, g + 1]``; and it counts them per
    partition in ``chunk_incoming``. (Writing the children to a batch-wide array and sorting
    them by group in a pass of its own moved every child through main memory twice more.)"""
    per_chunk = (last - first + CHUNKS - 1) // CHUNKS
    wide = out_counts.shape[1] > 1
    for chunk in prange(CHUNKS):
        board = np.empty(board_size, dtype=np.int64)
        child = np.empty(board_size, dtype=np.int64)
        lo, hi, incoming = chunk_lo[chunk], chunk_hi[chunk], chunk_incoming[chunk]
        run = runs[chunk]
        lo[:] = 0
        hi[:] = 0
        incoming[:] = 0
        run[:] = 0
        thread = get_thread_id()
        keys, counts, groups = held_keys[thread], held_counts[thread], held_groups[thread]
        held = 0
        for row in range(first + chunk * per_chunk, min(last, first + (chunk + 1) * per_chunk)):
            count, count_hi = _count(parents, row, n_words)
            legal = movemask.NONE
            if count != EMPTY or count_hi != EMPTY:
                _decode(params, parents, row, word_of, shift_of, mask_of, board)
                legal = kernels.legal_mask(params, board)
            while legal != movemask.NONE:
                move = movemask.lowest(legal)
                legal &= legal - movemask.ONE
                child[:] = board
                kernels.play(params, child, move)
                status = child[-1]
                if status != 0:
                    add_count(lo, hi, GAMES, count, count_hi)
                    add_count(lo, hi, STATUS_SLOT[status], count, count_hi)
                    continue
                add_count(lo, hi, TURNS, count, count_hi)
                replies = kernels.legal_mask(params, child)
                if replies & (replies - movemask.ONE) != movemask.NONE:
                    add_count(lo, hi, AGENCY, count, count_hi)
                if keep:
                    if not _encode(params, child, word_of, shift_of, mask_of, keys, held):
                        bad_key[0] = 1
                    h = _hash(keys, held, n_words)
                    incoming[_partition(h)] += 1
                    group = _group(h)
                    groups[held] = group
                    run[group + 1] += 1
                    counts[held, 0] = count
                    if wide:
                        counts[held, 1] = count_hi
                    held += 1
        if keep:
            run[0] = chunk * per_chunk * max_children
            for group in range(GROUPS):
                run[group + 1] += run[group]
            _write_grouped(keys, counts, groups, held, run, out_keys, out_counts, wide)


@njit(cache=True, inline="always")
def _write_grouped(keys, counts, groups, held, run, out_keys, out_counts, wide):
    """Copy the ``held`` children to their groups' runs (``run[g]``: where group g starts)."""
    cursor = run[:GROUPS].copy()
    for i in range(held):
        to = cursor[groups[i]]
        cursor[groups[i]] = to + 1
        for w in range(keys.shape[1]):
            out_keys[to, w] = keys[i, w]
        out_counts[to, 0] = counts[i, 0]
        if wide:
            out_counts[to, 1] = counts[i, 1]


@njit(cache=True)
def _add_chunk_totals(chunk_lo, chunk_hi, totals_lo, totals_hi):
    for chunk in range(chunk_lo.shape[0]):
        for slot in range(N_TOTALS):
            add128(totals_lo, totals_hi, slot, chunk_lo[chunk, slot])
            totals_hi[slot] += chunk_hi[chunk, slot]


@njit(cache=True, inline="always")
def _insert(table, capacity, h, keys, k, n_words, count, count_hi):
    """Add the multiplicity (``count``, ``count_hi``: low and high words) to the row of
    ``keys[k]`` (linear probing within its partition); 1 when the key is new, -1 when the sum
    does not fit the table's multiplicity (one word or two), else 0.

    A row holds the key words then the multiplicity (0: an empty row), so that one probe
    touches one cache line.
    """
    wide = table.shape[1] > n_words + 1
    row = _home(h, capacity)
    part_end = (_partition(h) + 1) * capacity
    while True:
        low, high = _count(table, row, n_words)
        if low == EMPTY and high == EMPTY:
            if count_hi != EMPTY and not wide:
                return -1
            for w in range(n_words):
                table[row, w] = keys[k, w]
            table[row, n_words] = count
            if wide:
                table[row, n_words + 1] = count_hi
            return 1
        same = True
        for w in range(n_words):
            if table[row, w] != keys[k, w]:
                same = False
                break
        if same:
            total = low + count
            carry = np.uint64(1) if total < low else EMPTY
            if not wide:
                if carry != EMPTY or count_hi != EMPTY:
                    return -1
                table[row, n_words] = total
                return 0
            total_hi = high + count_hi
            if total_hi < high or total_hi + carry < total_hi:
                return -1
            table[row, n_words] = total
            table[row, n_words + 1] = total_hi + carry
            return 0
        row += 1
        if row == part_end:
            row -= capacity


@njit(cache=True, inline="always")
def _step(runs, group, chunk, k):
    """The slot after ``k`` in ``group``'s runs, chunk after chunk: (chunk, slot), with
    chunk == CHUNKS after the last one."""
    k += 1
    while chunk < CHUNKS and k >= runs[chunk, group + 1]:
        chunk += 1
        if chunk < CHUNKS:
            k = runs[chunk, group]
    return chunk, k


@njit(cache=True, parallel=True)
def _merge(keys, counts, runs, n_words, table, capacity, fill, overflow):
    """Insert the grouped children into the table, a group at a time (its run in every chunk),
    so that no two threads write the same partition. Each insert prefetches its row
    PREFETCH_AHEAD inserts ahead: a batch brings about a third of an insert to each line of
    a big level's table, so the rows are rarely still in cache (without it: twice as slow)."""
    wide = counts.shape[1] > 1
    for group in prange(GROUPS):
        chunk, k = _step(runs, group, 0, runs[0, group] - 1)
        ahead_chunk, ahead = chunk, k
        for _ in range(PREFETCH_AHEAD):
            if ahead_chunk < CHUNKS:
                prefetch_row(table, _home(_hash(keys, ahead, n_words), capacity))
                ahead_chunk, ahead = _step(runs, group, ahead_chunk, ahead)
        while chunk < CHUNKS:
            if ahead_chunk < CHUNKS:
                prefetch_row(table, _home(_hash(keys, ahead, n_words), capacity))
                ahead_chunk, ahead = _step(runs, group, ahead_chunk, ahead)
            h = _hash(keys, k, n_words)
            count_hi = counts[k, 1] if wide else EMPTY
            added = _insert(table, capacity, h, keys, k, n_words, counts[k, 0], count_hi)
            if added < 0:
                overflow[0] = 1
            else:
                fill[_partition(h)] += added
            chunk, k = _step(runs, group, chunk, k)


@njit(cache=True, parallel=True)
def _rehash(old, old_capacity, new, new_capacity, n_words):
    for part in prange(PARTITIONS):
        for row in range(part * old_capacity, (part + 1) * old_capacity):
            count, count_hi = _count(old, row, n_words)
            if count != EMPTY or count_hi != EMPTY:
                _insert(new, new_capacity, _hash(old, row, n_words), old, row, n_words, count,
                        count_hi)


# ----- the driver -------------------------------------------------------------------

class _Level:
    """A level's hash table: PARTITIONS tables of ``capacity`` rows each, stored as one 2-D
    array; a row is the ``n_words`` key words then the multiplicity in one word, or two when
    ``wide`` (0: empty)."""

    def __init__(self, n_words: int, expected: int, wide: bool = False) -> None:
        self.n_words = n_words
        self.capacity = max(16, int(expected / PARTITIONS / TARGET_LOAD) + 1)
        self.table = np.zeros((PARTITIONS * self.capacity, n_words + 1 + wide), dtype=np.uint64)
        self.fill = np.zeros(PARTITIONS, dtype=np.int64)

    @classmethod
    def single(cls, key: np.ndarray, count: int = 1) -> _Level:
        """A one-row level holding ``key`` ``count`` times (the start position)."""
        level = cls.__new__(cls)
        level.n_words = len(key)
        level.capacity = 0  # never inserted into
        words = [count & 0xFFFFFFFFFFFFFFFF] + ([count >> 64] if count >> 64 else [])
        level.table = np.append(key, np.array(words, dtype=np.uint64)).reshape(1, -1)
        level.fill = np.array([1], dtype=np.int64)
        return level

    @property
    def positions(self) -> int:
        return int(self.fill.sum())

    @property
    def nbytes(self) -> int:
        return self.table.nbytes

    def make_room(self, incoming: np.ndarray) -> None:
        """Grow the tables when a partition could pass MAX_LOAD after the incoming children."""
        needed = int(np.max(self.fill + incoming))
        if needed <= MAX_LOAD * self.capacity:
            return
        capacity = int(max(needed / TARGET_LOAD, 1.5 * self.capacity)) + 1
        table = np.zeros((PARTITIONS * capacity, self.table.shape[1]), dtype=np.uint64)
        _rehash(self.table, self.capacity, table, capacity, self.n_words)
        self.table, self.capacity = table, capacity

    def rows(self) -> np.ndarray:
        """The rows in use (a copy)."""
        return self.table[self.table[:, self.n_words:].any(axis=1)]


class LevelRows:
    """A level held as bare rows (key words, multiplicity), as read back from a checkpoint or
    sent between workers: enough to be expanded, never inserted into."""

    def __init__(self, rows: np.ndarray) -> None:
        self.table = rows

    @property
    def positions(self) -> int:
        return len(self.table)

    @property
    def nbytes(self) -> int:
        return self.table.nbytes


class Checkpoint:
    """The deepest finished level of a run kept in a folder (``tree.json``: the game, the rows
    so far; ``level-L.npy``: that level's positions, written whole or not at all), so that a
    rerun with the same folder goes on from there instead of starting again."""

    def __init__(self, directory, game: Variant, start_multiplicity: int = 1) -> None:
        self.directory = Path(directory)
        self.identity = {"game": game.name, "options": _plain(game.options),
                         "start_multiplicity": start_multiplicity}

    def load(self) -> tuple[list[TreeRow], LevelRows] | None:
        """The rows and the last level kept, or None when the folder holds no run yet."""
        index = self.directory / "tree.json"
        if not index.exists():
            return None
        try:
            saved = json.loads(index.read_text())
            if {k: saved.get(k) for k in self.identity} != self.identity:
                raise MancalabError(
                    f"the checkpoint in {self.directory} is of another run "
                    f"({saved.get('game')} {saved.get('options')}); choose another folder")
            rows = [TreeRow(*values) for values in saved["rows"]]
            table = np.load(self.directory / saved["file"], mmap_mode="r").view(np.ndarray)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise MancalabError(f"the checkpoint in {self.directory} cannot be read: "
                                f"{error}") from None
        if len(table) != rows[-1].positions:
            raise MancalabError(f"the checkpoint in {self.directory} is damaged: level "
                                f"{rows[-1].level} holds {len(table):,} positions, not "
                                f"{rows[-1].positions:,}")
        return rows, LevelRows(table)

    def save(self, rows: list[TreeRow], level: _Level) -> None:
        """Keep ``level`` (the positions of ``rows[-1]``), then drop the level kept before."""
        from ..records import atomic_file, write_atomic

        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"level-{rows[-1].level}.npy"
        n_words, chunk = level.n_words, 1 << 22
        with atomic_file(self.directory / name) as handle:
            np.lib.format.write_array_header_1_0(handle, {
                "descr": np.lib.format.dtype_to_descr(np.dtype(np.uint64)),
                "fortran_order": False, "shape": (level.positions, level.table.shape[1])})
            for first in range(0, len(level.table), chunk):
                part = level.table[first:first + chunk]
                handle.write(part[part[:, n_words:].any(axis=1)].tobytes())
        write_atomic(self.directory / "tree.json", json.dumps(
            {**self.identity, "file": name, "rows": [list(r) for r in rows]}))
        for old in self.directory.glob("level-*.npy"):
            if old.name != name:
                old.unlink()


def _plain(options: dict) -> dict:
    """Options as JSON keeps them (tuples become lists)."""
    return json.loads(json.dumps(options))


def tree_stats(variant_or_name: Variant | str, depth: int, *, jobs: int | None = None,
               batch: int = 1 << 20,
               on_progress: Callable[[int, int, int, int], None] | None = None,
               on_level: Callable[[TreeRow], None] | None = None,
               start_multiplicity: int = 1, checkpoint=None, **options) -> list[TreeRow]:
    """The cumulative statistics of levels 1..depth from the start position.

    ``on_progress(level, rows_done, rows_total, positions)`` is called after each batch,
    ``on_level(row)`` after each level (also for levels read back from the checkpoint).
    ``start_multiplicity`` counts every sequence that many times (every count scales by it
    exactly: how the two-word counts are tested). ``checkpoint``: a folder where each
    finished level is kept, and from whose deepest level a rerun goes on.
    """
    game = _game(variant_or_name, options)
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise MancalabError(f"depth must be a whole number of at least 1, got {depth!r}")
    layout = key_layout(game)
    n_words = layout[3]
    level_table = start_level(game, start_multiplicity)
    sequences = start_multiplicity  # going on at the level before
    totals_lo = np.zeros(N_TOTALS, dtype=np.uint64)
    totals_hi = np.zeros(N_TOTALS, dtype=np.uint64)
    rows: list[TreeRow] = []
    growth, before = float(game.max_moves), 1  # the next level's size, guessed from the last
    kept = checkpoint and Checkpoint(checkpoint, game, start_multiplicity)
    resumed = kept and kept.load()
    if resumed:
        rows, level_table = resumed
        for row in rows[:depth]:
            if on_level:
                on_level(row)
        if len(rows) >= depth:
            return rows[:depth]
        sequences, growth, before = _going_on(rows, growth)
        for slot, total in enumerate(rows[-1][1:8]):
            totals_lo[slot], totals_hi[slot] = total & (2**64 - 1), total >> 64

    scratch = _Scratch()
    threads_before = get_num_threads()
    jobs = max(1, min(jobs or threads_before, threads_before))
    set_num_threads(jobs)
    try:
        for level in range(len(rows) + 1, depth + 1):
            started = time.perf_counter()
            keep = level < depth
            wide = needs_wide(sequences, game)
            expected = int(level_table.positions * growth) + 16 if keep else 0
            need = (expected / TARGET_LOAD) * (n_words + 1 + wide) * 8 + level_table.nbytes
            if keep and need > 0.8 * available_memory():
                raise TreeMemoryError(
                    f"level {level} would need about {need / 2**30:.1f} GiB of memory (about "
                    f"{expected:,} positions: the last level grew {growth:.2f} times), more "
                    f"than the {available_memory() / 2**30:.1f} GiB available here; levels "
                    f"1..{level - 1} are done", rows)
            phases = dict.fromkeys(PHASES, 0.0)
            level_table, peak = _expand_level(
                game, layout, level_table, batch, expected, keep, wide, totals_lo, totals_hi,
                lambda done, total, found, at=level: on_progress and on_progress(at, done, total,
                                                                                 found),
                phases, scratch)
            totals = [int(hi) << 64 | int(lo) for lo, hi in zip(totals_lo, totals_hi)]
            sequences = totals[TURNS] - (rows[-1].turns if rows else 0)
            positions = level_table.positions if keep else None
            row = TreeRow(level, totals[TURNS], totals[GAMES], totals[AGENCY], totals[A_WINS],
                          totals[B_WINS], totals[DRAWS], totals[TIMEOUTS], positions,
                          time.perf_counter() - started, peak,
                          {k: round(v, 3) for k, v in phases.items()})
            if keep:
                growth = max(1.0, positions / max(1, before)) * 1.05
                before = positions
            rows.append(row)
            if keep and kept:
                kept.save(rows, level_table)
            if on_level:
                on_level(row)
    finally:
        set_num_threads(threads_before)
    return rows


def _game(variant_or_name: Variant | str, options: dict) -> Variant:
    """The variant asked for, by name with ``options`` or as it is."""
    return (make_variant(variant_or_name, **options) if isinstance(variant_or_name, str)
            else variant_or_name)


def warm_up(variant_or_name: Variant | str, **options) -> None:
    """Compile or load every kernel of the tree statistics (a few levels and a table growth),
    so that a measurement that follows times the work, not the compiler."""
    game = _game(variant_or_name, options)
    tree_stats(game, 3)
    level = _Level(key_layout(game)[3], 16)
    level.make_room(np.full(PARTITIONS, level.capacity, dtype=np.int64))


def start_level(game: Variant, count: int = 1) -> _Level:
    """Level 0: the start position, reached ``count`` times (none if the game is over)."""
    layout = key_layout(game)
    start = game.start()
    key = np.zeros((1, layout[3]), dtype=np.uint64)
    if not _encode(game.params, start.board, *layout[:3], key, 0):
        raise TreeOverflowError("the start position does not fit the position key")
    return _Level.single(key[0], 0 if start.is_over else count)


def _going_on(rows: list[TreeRow], growth: float) -> tuple[int, float, int]:
    """Where a run read back from a checkpoint stands: the sequences going on at its last
    level, the growth to expect of the next, and the last level's positions."""
    sequences = rows[-1].turns - (rows[-2].turns if len(rows) > 1 else 0)
    before = rows[-1].positions
    if len(rows) > 1:
        growth = max(1.0, before / max(1, rows[-2].positions)) * 1.05
    return sequences, growth, before


def needs_wide(sequences: int, game: Variant) -> bool:
    """Whether the children of a level of ``sequences`` going-on sequences need two-word
    multiplicities: a child's is at most the sequences times the moves of a position."""
    return sequences * game.max_moves >= WIDE_FROM


class _Scratch:
    """The working arrays of a batch, kept from level to level instead of a fresh set that the
    system zeroes page by page at every level (about 0.1 GB for Gebeta's batches of 2**20
    parents: their children's keys and multiplicities)."""

    def __init__(self) -> None:
        self.held: dict = {}

    def arrays(self, parents: int, max_children: int, n_words: int, keep: bool,
               wide: bool) -> tuple:
        """Each thread's held children (keys, multiplicities, groups); the grouped keys and
        multiplicities of the batch and the chunks' runs; the per-chunk totals and
        partition counts."""
        shape = (parents, max_children, n_words, keep, wide)
        if self.held.get("shape") != shape:
            held = ((parents + CHUNKS - 1) // CHUNKS * max_children) if keep else 0
            slots = parents * max_children if keep else 0
            threads = config.NUMBA_NUM_THREADS
            self.held = {"shape": shape, "arrays": (
                np.zeros((threads, held, n_words), dtype=np.uint64),
                np.zeros((threads, held, 1 + wide), dtype=np.uint64),
                np.zeros((threads, held), dtype=np.uint16),
                np.zeros((slots, n_words), dtype=np.uint64),
                np.zeros((slots, 1 + wide), dtype=np.uint64),
                np.zeros((CHUNKS, GROUPS + 1), dtype=np.int64),
                np.zeros((CHUNKS, N_TOTALS), dtype=np.uint64),
                np.zeros((CHUNKS, N_TOTALS), dtype=np.uint64),
                np.zeros((CHUNKS, PARTITIONS), dtype=np.int64))}
        return self.held["arrays"]


def _expand_level(game, layout, parents, batch, expected, keep, wide, totals_lo, totals_hi,
                  progress, phases=None, scratch=None) -> tuple[_Level, int]:
    """Expand every position of one level (``parents.table``: rows of key words and a
    multiplicity of one or two words); the next level (empty unless ``keep``; two-word
    multiplicities when ``wide``) and the bytes held at the peak. ``phases`` (a dict) gets
    the seconds spent in each phase added; ``scratch``: working arrays kept between calls."""
    phases = dict.fromkeys(PHASES, 0.0) if phases is None else phases
    clock = time.perf_counter
    word_of, shift_of, mask_of, n_words = layout
    max_children = game.max_moves
    n_rows = len(parents.table)
    children = _Level(n_words, expected, wide)
    batch = max(1, min(batch, n_rows))
    scratch = _Scratch() if scratch is None else scratch
    arrays = scratch.arrays(batch, max_children, n_words, keep, wide)
    (held_keys, held_counts, held_groups, out_keys, out_counts, runs, chunk_lo, chunk_hi,
     chunk_incoming) = arrays
    flags = np.zeros(2, dtype=np.int64)  # [bad key, overflow]
    peak = 0
    for first in range(0, n_rows, batch):
        last = min(n_rows, first + batch)
        began = clock()
        _expand(game.params, parents.table, first, last, word_of, shift_of, mask_of, n_words,
                game.board_size, max_children, keep, held_keys, held_counts, held_groups,
                out_keys, out_counts, runs, chunk_lo, chunk_hi, chunk_incoming, flags[0:1])
        if flags[0]:
            raise TreeOverflowError("a position does not fit the position key of this game")
        _add_chunk_totals(chunk_lo, chunk_hi, totals_lo, totals_hi)
        expanded = clock()
        phases["expand"] += expanded - began
        if keep:
            children.make_room(chunk_incoming.sum(axis=0))
            grown = clock()
            phases["grow"] += grown - expanded
            _merge(out_keys, out_counts, runs, n_words, children.table, children.capacity,
                   children.fill, flags[1:2])
            if flags[1]:
                raise TreeOverflowError("a position's multiplicity passed its "
                                        f"{64 * (1 + wide)} bits")
            phases["merge"] += clock() - grown
        peak = max(peak, parents.nbytes + children.nbytes + sum(a.nbytes for a in arrays))
        progress(last, n_rows, children.positions)
    return children, peak


def write_csv(rows: list[TreeRow], path) -> None:
    """The reference program's results.csv, written whole or not at all."""
    from ..records import write_atomic

    write_atomic(path, HEADER + "\n" + "".join(row.csv() + "\n" for row in rows))


def plot(rows: list[TreeRow], path, title: str = "") -> None:
    """Turns and games per level on a log scale, and the outcome shares per level (PNG)."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..records import write_atomic_bytes

    levels = [r.level for r in rows]
    figure, (counts, shares) = plt.subplots(1, 2, figsize=(11, 4.2))
    counts.semilogy(levels, [max(r.turns, 1) for r in rows], "o-", label="turns")
    counts.semilogy(levels, [max(r.games, 1) for r in rows], "s-", label="games")
    stored = [r for r in rows if r.positions is not None]
    counts.semilogy([r.level for r in stored], [max(r.positions, 1) for r in stored], "^-",
                    label="distinct positions (of the level)")
    counts.set_xlabel("level")
    counts.set_ylabel("cumulative count")
    counts.legend()
    counts.grid(True, which="both", alpha=0.3)
    for attr, label in (("a_wins", "A wins"), ("b_wins", "B wins"), ("draws", "draws"),
                        ("timeouts", "timeouts")):
        shares.plot(levels, [getattr(r, attr) / r.games if r.games else 0 for r in rows], "o-",
                    label=label)
    shares.set_xlabel("level")
    shares.set_ylabel("share of finished games")
    shares.legend()
    shares.grid(True, alpha=0.3)
    figure.suptitle(title)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    plt.close(figure)
    write_atomic_bytes(path, buffer.getvalue())
