"""Exact game-tree statistics, level by level, as the Gebeta reference program's results.csv.

Level L holds every move sequence of length L from the start. Instead of walking the
sequences (117 billion at Gebeta level 18), each level keeps every *distinct* position once,
with its multiplicity (the number of sequences that reach it). A level is expanded in
batches of parents:

1. in parallel, each parent's children are played with the game's kernels and packed into a
   fixed number of 64-bit words (the variant's ``key_widths``);
2. one pass adds the finished games and the turns to the running totals;
3. in parallel, the children are merged into the next level's hash table, which is split into
   partitions by the high bits of the hash so that each thread owns its partitions.

Per-position multiplicities are 64-bit and any overflow is an error; the level totals are
kept in 128 bits (two words with a carry) and returned as Python integers.
"""

from __future__ import annotations

import time
from typing import Callable, NamedTuple

import numpy as np
from numba import get_num_threads, njit, prange, set_num_threads

from .. import kernels, movemask
from ..core import MancalabError, Variant
from ..variants import variant as make_variant

# Totals slots, in the order of the reference file's columns where possible.
TURNS, GAMES, AGENCY, A_WINS, B_WINS, DRAWS, TIMEOUTS = range(7)
N_TOTALS = 7
STATUS_SLOT = (-1, A_WINS, B_WINS, DRAWS, TIMEOUTS)  # indexed by the status code
HEADER = "turns, level, games, agency, Awins, Bwins, draws, timeouts"
PARTITION_BITS = 12  # small partitions stay in the CPU cache while children are merged
PARTITIONS = 1 << PARTITION_BITS
MAX_LOAD = 0.8
EMPTY = np.uint64(0)  # a multiplicity of 0 marks an empty slot


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
    positions: int  # distinct positions at this level whose game goes on
    seconds: float  # time spent on this level
    peak_bytes: int  # memory held by this level's tables at its peak

    def csv(self) -> str:
        return ", ".join(str(v) for v in (self.turns, self.level, self.games, self.agency,
                                          self.a_wins, self.b_wins, self.draws, self.timeouts))


class TreeOverflowError(MancalabError):
    """A count that does not fit its integer type (reported, never wrapped silently)."""


# ----- packing positions into words -------------------------------------------------

def key_layout(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """For every board slot but the status: its word, its shift and its mask; the word count."""
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
            np.array(mask_of, dtype=np.uint64), word + 1)


@njit(cache=True)
def _encode(board, word_of, shift_of, mask_of, key):
    """Pack the board into ``key``; False when a value does not fit its field."""
    key[:] = 0
    for f in range(word_of.shape[0]):
        value = np.uint64(board[f])
        if board[f] < 0 or value > mask_of[f]:
            return False
        key[word_of[f]] |= value << shift_of[f]
    return True


@njit(cache=True)
def _decode(key, word_of, shift_of, mask_of, board):
    for f in range(word_of.shape[0]):
        board[f] = np.int64((key[word_of[f]] >> shift_of[f]) & mask_of[f])
    board[-1] = 0


@njit(cache=True)
def _hash(key):
    h = np.uint64(0x9E3779B97F4A7C15)
    for w in range(key.shape[0]):
        h ^= key[w]
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(29)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(32)
    return h


# ----- 128-bit totals ---------------------------------------------------------------

@njit(cache=True)
def add128(lo, hi, slot, amount):
    """totals[slot] += amount, with the carry into the high word."""
    before = lo[slot]
    lo[slot] = before + amount
    if lo[slot] < before:
        hi[slot] += np.uint64(1)


# ----- one batch of parents ---------------------------------------------------------

@njit(cache=True, parallel=True)
def _expand(params, parent_keys, first, last, word_of, shift_of, mask_of, board_size,
            max_children, child_keys, child_status, child_agency, child_hash, bad_key):
    """Play every move of parents first..last-1; write each child at parent*max_children+j."""
    n_chunks = 64
    per_chunk = (last - first + n_chunks - 1) // n_chunks
    for chunk in prange(n_chunks):
        board = np.empty(board_size, dtype=np.int64)
        child = np.empty(board_size, dtype=np.int64)
        for i in range(first + chunk * per_chunk, min(last, first + (chunk + 1) * per_chunk)):
            base = (i - first) * max_children
            _decode(parent_keys[i], word_of, shift_of, mask_of, board)
            legal = kernels.legal_mask(params, board)
            for j in range(max_children):
                slot = base + j
                if legal == movemask.NONE:
                    child_status[slot] = -1
                    continue
                move = movemask.lowest(legal)
                legal &= legal - movemask.ONE
                child[:] = board
                kernels.play(params, child, move)
                child_status[slot] = child[-1]
                if child[-1] == 0:
                    replies = kernels.legal_mask(params, child)
                    child_agency[slot] = replies & (replies - movemask.ONE) != movemask.NONE
                    if not _encode(child, word_of, shift_of, mask_of, child_keys[slot]):
                        bad_key[0] = 1
                    child_hash[slot] = _hash(child_keys[slot])


@njit(cache=True)
def _tally(parent_counts, first, max_children, child_status, child_agency, n_slots,
           totals_lo, totals_hi):
    """Add the batch's turns and finished games to the totals; count inserts per partition."""
    for slot in range(n_slots):
        status = child_status[slot]
        if status < 0:
            continue
        count = parent_counts[first + slot // max_children]
        if status == 0:
            add128(totals_lo, totals_hi, TURNS, count)
            if child_agency[slot]:
                add128(totals_lo, totals_hi, AGENCY, count)
        else:
            add128(totals_lo, totals_hi, GAMES, count)
            add128(totals_lo, totals_hi, STATUS_SLOT[status], count)


@njit(cache=True)
def _sort_by_partition(parent_counts, first, max_children, child_keys, child_status, child_hash,
                       n_slots, partition_start, sorted_keys, sorted_hash, sorted_counts):
    """Counting sort of the batch's going-on children by partition, moving their key, hash
    and multiplicity, so that each partition's merge reads memory in order; partition p's
    children end up at partition_start[p]:partition_start[p + 1]."""
    partition_start[:] = 0
    shift = np.uint64(64 - PARTITION_BITS)
    for slot in range(n_slots):
        if child_status[slot] == 0:
            partition_start[(child_hash[slot] >> shift) + 1] += 1
    for p in range(PARTITIONS):
        partition_start[p + 1] += partition_start[p]
    cursor = partition_start[:-1].copy()
    n_words = child_keys.shape[1]
    for slot in range(n_slots):
        if child_status[slot] == 0:
            p = child_hash[slot] >> shift
            at = cursor[p]
            cursor[p] += 1
            for w in range(n_words):
                sorted_keys[at, w] = child_keys[slot, w]
            sorted_hash[at] = child_hash[slot]
            sorted_counts[at] = parent_counts[first + slot // max_children]


@njit(cache=True)
def _insert(table, part, h, keys, row, count):
    """Add ``count`` to keys[row] in partition ``part``; 1 when new, -1 on overflow, else 0.

    A table slot holds the key words then the multiplicity (0: empty), so that one probe
    touches one cache line.
    """
    capacity = table.shape[1]
    n_words = keys.shape[1]
    index = np.int64(((h & np.uint64(0xFFFFFFFF)) * np.uint64(capacity)) >> np.uint64(32))
    while True:
        stored = table[part, index, n_words]
        if stored == EMPTY:
            for w in range(n_words):
                table[part, index, w] = keys[row, w]
            table[part, index, n_words] = count
            return 1
        same = True
        for w in range(n_words):
            if table[part, index, w] != keys[row, w]:
                same = False
                break
        if same:
            total = stored + count
            if total < stored:
                return -1
            table[part, index, n_words] = total
            return 0
        index += 1
        if index == capacity:
            index = 0


@njit(cache=True, parallel=True)
def _merge(partition_start, sorted_keys, sorted_hash, sorted_counts, table, fill, overflow):
    """Insert each partition's children into that partition's table, one thread a partition."""
    for part in prange(PARTITIONS):
        for k in range(partition_start[part], partition_start[part + 1]):
            added = _insert(table, part, sorted_hash[k], sorted_keys, k, sorted_counts[k])
            if added < 0:
                overflow[0] = 1
            else:
                fill[part] += added


@njit(cache=True, parallel=True)
def _rehash(old, new):
    n_words = old.shape[2] - 1
    for part in prange(old.shape[0]):
        keys = old[part]
        for index in range(old.shape[1]):
            count = keys[index, n_words]
            if count != EMPTY:
                _insert(new, part, _hash(keys[index, :n_words]), keys, index, count)


@njit(cache=True)
def _compact(table, keys, counts):
    n = 0
    n_words = keys.shape[1]
    for part in range(table.shape[0]):
        for index in range(table.shape[1]):
            if table[part, index, n_words] != EMPTY:
                for w in range(n_words):
                    keys[n, w] = table[part, index, w]
                counts[n] = table[part, index, n_words]
                n += 1
    return n


# ----- the driver -------------------------------------------------------------------

class _Level:
    """The next level's hash table: PARTITIONS tables of equal capacity (any whole number);
    a slot is the key words then the multiplicity."""

    def __init__(self, n_words: int, expected: int) -> None:
        capacity = max(16, int(expected / PARTITIONS / 0.6) + 1)
        self.table = np.zeros((PARTITIONS, capacity, n_words + 1), dtype=np.uint64)
        self.fill = np.zeros(PARTITIONS, dtype=np.int64)

    @property
    def capacity(self) -> int:
        return self.table.shape[1]

    @property
    def nbytes(self) -> int:
        return self.table.nbytes

    def make_room(self, partition_start: np.ndarray) -> None:
        """Grow the tables when a partition would pass MAX_LOAD after the incoming children."""
        incoming = np.diff(partition_start)
        needed = int(np.max(self.fill + incoming))
        if needed <= MAX_LOAD * self.capacity:
            return
        capacity = int(max(needed / 0.6, 1.5 * self.capacity)) + 1
        table = np.zeros((PARTITIONS, capacity, self.table.shape[2]), dtype=np.uint64)
        _rehash(self.table, table)
        self.table = table


def tree_stats(variant_or_name: Variant | str, depth: int, *, jobs: int | None = None,
               batch: int = 1 << 18,
               on_progress: Callable[[int, int, int, int], None] | None = None,
               on_level: Callable[[TreeRow], None] | None = None,
               **options) -> list[TreeRow]:
    """The cumulative statistics of levels 1..depth from the start position.

    ``on_progress(level, parents_done, parents_total, positions)`` is called after each batch,
    ``on_level(row)`` after each level.
    """
    game = (make_variant(variant_or_name, **options) if isinstance(variant_or_name, str)
            else variant_or_name)
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise MancalabError(f"depth must be a whole number of at least 1, got {depth!r}")
    word_of, shift_of, mask_of, n_words = key_layout(game)
    max_children = game.max_moves
    board_size = game.board_size
    params = game.params

    start = game.start()
    keys = np.zeros((1, n_words), dtype=np.uint64)
    if not _encode(start.board, word_of, shift_of, mask_of, keys[0]):
        raise TreeOverflowError("the start position does not fit the position key")
    counts = np.ones(1, dtype=np.uint64)
    if start.is_over:
        keys, counts = keys[:0], counts[:0]

    threads_before = get_num_threads()
    jobs = max(1, min(jobs or threads_before, threads_before))
    set_num_threads(jobs)
    totals_lo = np.zeros(N_TOTALS, dtype=np.uint64)
    totals_hi = np.zeros(N_TOTALS, dtype=np.uint64)
    rows: list[TreeRow] = []
    growth, row_parents = float(max_children), 1  # the next level's size, guessed from the last
    try:
        for level in range(1, depth + 1):
            started = time.perf_counter()
            expected = len(counts) * growth
            keys, counts, peak = _expand_level(
                params, keys, counts, word_of, shift_of, mask_of, board_size, max_children,
                n_words, batch, expected, totals_lo, totals_hi,
                lambda done, total, found: on_progress and on_progress(level, done, total, found))
            totals = [int(hi) << 64 | int(lo) for lo, hi in zip(totals_lo, totals_hi)]
            row = TreeRow(level, totals[TURNS], totals[GAMES], totals[AGENCY], totals[A_WINS],
                          totals[B_WINS], totals[DRAWS], totals[TIMEOUTS], len(counts),
                          time.perf_counter() - started, peak)
            growth = max(1.0, len(counts) / max(1, row_parents)) * 1.05
            row_parents = len(counts)
            rows.append(row)
            if on_level:
                on_level(row)
    finally:
        set_num_threads(threads_before)
    return rows


def _expand_level(params, keys, counts, word_of, shift_of, mask_of, board_size, max_children,
                  n_words, batch, expected, totals_lo, totals_hi, progress):
    """Expand every position of one level; the next level's keys and counts, and peak bytes."""
    n_parents = len(counts)
    table = _Level(n_words, int(expected) + 16)
    batch = max(1, min(batch, n_parents))
    slots = batch * max_children
    child_keys = np.zeros((slots, n_words), dtype=np.uint64)
    child_status = np.zeros(slots, dtype=np.int64)
    child_agency = np.zeros(slots, dtype=np.bool_)
    child_hash = np.zeros(slots, dtype=np.uint64)
    partition_start = np.zeros(PARTITIONS + 1, dtype=np.int64)
    sorted_keys = np.zeros((slots, n_words), dtype=np.uint64)
    sorted_hash = np.zeros(slots, dtype=np.uint64)
    sorted_counts = np.zeros(slots, dtype=np.uint64)
    flags = np.zeros(2, dtype=np.int64)  # [bad key, overflow]
    peak = 0
    for first in range(0, n_parents, batch):
        last = min(n_parents, first + batch)
        n_slots = (last - first) * max_children
        _expand(params, keys, first, last, word_of, shift_of, mask_of, board_size, max_children,
                child_keys, child_status, child_agency, child_hash, flags[0:1])
        if flags[0]:
            raise TreeOverflowError("a position does not fit the position key of this game")
        _tally(counts, first, max_children, child_status, child_agency, n_slots,
               totals_lo, totals_hi)
        _sort_by_partition(counts, first, max_children, child_keys, child_status, child_hash,
                           n_slots, partition_start, sorted_keys, sorted_hash, sorted_counts)
        table.make_room(partition_start)
        _merge(partition_start, sorted_keys, sorted_hash, sorted_counts, table.table,
               table.fill, flags[1:2])
        if flags[1]:
            raise TreeOverflowError("a position's multiplicity passed 2**64")
        peak = max(peak, table.nbytes + keys.nbytes + counts.nbytes + child_keys.nbytes
                   + child_status.nbytes + child_hash.nbytes + child_agency.nbytes
                   + sorted_keys.nbytes + sorted_hash.nbytes + sorted_counts.nbytes)
        progress(last, n_parents, int(table.fill.sum()))
    n = int(table.fill.sum())
    del child_keys, child_status, child_agency, child_hash, keys, counts
    del sorted_keys, sorted_hash, sorted_counts
    next_keys = np.empty((n, n_words), dtype=np.uint64)
    next_counts = np.empty(n, dtype=np.uint64)
    _compact(table.table, next_keys, next_counts)
    peak = max(peak, table.nbytes + next_keys.nbytes + next_counts.nbytes)
    return next_keys, next_counts, peak


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
    counts.semilogy(levels, [max(r.positions, 1) for r in rows], "^-", label="distinct positions")
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
