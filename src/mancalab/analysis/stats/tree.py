"""Exact game-tree statistics, level by level, as the Gebeta reference program's results.csv.

Level L holds every move sequence of length L from the start. Instead of walking the
sequences (117 billion at Gebeta level 18), each level keeps every *distinct* position once,
with its multiplicity (the number of sequences that reach it), in a hash table: a row holds
the position packed into a fixed number of 64-bit words (the variant's ``key_widths``) and
its multiplicity. A level's table is expanded in batches of rows, in parallel: each chunk
of parents plays its children with the game's kernels, adds the finished games and the turns
to its own totals, packs and hashes each going-on child and inserts it into the next level's
table a few children later, once the row it asked the CPU to prefetch has arrived (the table
is far bigger than the caches: without the prefetch, every insert would wait for main memory).
All threads insert into the one table at once, with atomic operations (``mancalab.atomic``):
the children need no pass of their own to be sorted by the part of the table they go to.

The helpers of the inner loop (packing, hashing, inserting, the switch over the games,
Gebeta's sowing) are inlined: a call with arrays as arguments costs more than the work (an
insert made as a call took 4 times as long as inlined). Their rare paths (a carry into a
further word, the children left at a chunk's end) are calls: each inlined copy would be
compiled again, seconds of the expansion's first compile. Where the time goes: the README,
"Game-tree statistics".

The next level is read straight from the table (no copying out), and the last level asked for
is counted but never stored. Counting is exact at any depth: a multiplicity takes as few
64-bit words as its level needs (one while no child can reach 2**64, that is while the level's
sequences times the moves of a position stay below it: Gebeta to about level 33; two to 2**128;
up to COUNT_WORDS), and the level totals are kept in TOTAL_WORDS words and returned as Python
integers. Any overflow is an error, never a wrap.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import get_num_threads, njit, prange, set_num_threads

from ... import kernels, movemask
from ...atomic import compare_and_swap, fetch_add, load_acquire, store_release
from ...core import MancalabError, MancalabFailure, Variant
from ...memory import available_memory
from ...prefetch import prefetch_row
from ...variants import variant as make_variant
from ...warming import compiling_timed
from .rows import (AGENCY, GAMES, HEADER, N_TOTALS, STATUS_SLOT, TOTAL_WORDS, TURNS, TreeRow,
                   number_of, shared_params, words_of)

TARGET_LOAD = 0.65  # a new or grown table starts this full (short probe runs)
MAX_LOAD = 0.85  # batches stop short of it; the table grows before it gets fuller
EMPTY = np.uint64(0)  # a first key word of 0 (and a multiplicity of 0) marks an empty row
PRESENT = np.uint64(1)  # bit 0 of the first word of a key packed field by field
COUNT_WORDS = 4  # the most 64-bit words a position's multiplicity takes (256 bits)
CHUNKS = 64  # pieces of a batch that the threads share out
PHASES = ("expand", "grow")  # how a level's time is split (TreeRow.details)
AHEAD = 8  # children played before the first of them goes into the table (a power of two)
BAD_KEY, OVERFLOW = 0, 1  # the flags a batch raises


class TreeOverflowError(MancalabError):
    """A count that does not fit its integer type (reported, never wrapped silently)."""


class TreeMemoryError(MancalabFailure):
    """The next level would not fit in memory; ``rows`` holds the levels done before it."""

    def __init__(self, message: str, rows: list) -> None:
        super().__init__(message)
        self.rows = rows


# ----- packing positions into words -------------------------------------------------

def key_layout(variant: Variant) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """For every board slot but the status: its word, its shift and its mask; the word count
    (the game's own ``key_words`` when it packs its positions itself). Bit 0 of the first
    word is always set, so that no key has a first word of 0 (an empty row, see ``_insert``)."""
    widths = variant.key_widths()
    word_of, shift_of, mask_of = [], [], []
    word, used = 0, 1
    for width in widths:
        if used + width > 64:
            word, used = word + 1, 0
        word_of.append(word)
        shift_of.append(used)
        mask_of.append((1 << width) - 1)
        used += width
    return (np.array(word_of, dtype=np.int64), np.array(shift_of, dtype=np.uint64),
            np.array(mask_of, dtype=np.uint64), variant.key_words or word + 1)


KEY_FORMAT = 2  # kept with a checkpoint: 2 since keys packed field by field set bit 0

# Keys are passed as (array, row) rather than as a row view throughout: in parallel code a
# view counts references on the shared array from every thread, which costs more than the work.

@njit(cache=True, inline="always")
def _encode(params, board, word_of, shift_of, mask_of, keys, k):
    """Pack the board into ``keys[k]``; False when a value does not fit its field, or when
    the first word is 0 (which marks an empty row: Gebeta's only such key is a finished game)."""
    own = kernels.pack_key(params, board, keys, k)
    if own >= 0:  # the game's own packing
        return own == 1 and keys[k, 0] != EMPTY
    for w in range(keys.shape[1]):
        keys[k, w] = 0
    keys[k, 0] = PRESENT
    for f in range(word_of.shape[0]):
        value = np.uint64(board[f])
        if board[f] < 0 or value > mask_of[f]:
            return False
        keys[k, word_of[f]] |= value << shift_of[f]
    return True


@njit(cache=True, inline="always")
def _decode(params, keys, k, word_of, shift_of, mask_of, board):
    if kernels.unpack_key(params, keys, k, board):
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
def _home(h, n_rows):
    """The first row a key with hash ``h`` probes: its low 32 bits scaled to the table (not
    the high bits: a cluster's shard holds the keys of a narrow range of those)."""
    return np.int64(((h & np.uint64(0xFFFFFFFF)) * np.uint64(n_rows)) >> np.uint64(32))


# ----- multi-word counts ------------------------------------------------------------

@njit(cache=True, inline="always")
def add_total(totals, slot, counts, c, words, flags):
    """totals[slot] += the ``words`` low words of ``counts[c]``, carried through every word of
    the total (the overflow flag is raised past its last word). The rare carry is a call:
    inlined, its loop would be compiled again at each of the expansion's four totals."""
    before = totals[slot, 0]
    totals[slot, 0] = before + counts[c, 0]
    carry = np.uint64(1) if totals[slot, 0] < before else EMPTY
    if words == 1 and carry == EMPTY:  # nearly always: one word, no carry
        return
    _carry_total(totals, slot, counts, c, words, flags, carry)


@njit(cache=True)
def _carry_total(totals, slot, counts, c, words, flags, carry):
    """The words of ``add_total`` above the first, with the first word's ``carry``."""
    for w in range(1, totals.shape[1]):
        if w >= words and carry == EMPTY:
            return
        add = (counts[c, w] if w < words else EMPTY) + carry
        carry = np.uint64(1) if add < carry else EMPTY
        before = totals[slot, w]
        totals[slot, w] = before + add
        if totals[slot, w] < before:
            carry = np.uint64(1)
    if carry != EMPTY:
        flags[OVERFLOW] = 1


@njit(cache=True, inline="always")
def _load_count(table, row, n_words, counts, c):
    """Copy the multiplicity of ``row`` (the words after its key) into ``counts[c]`` (whose
    words above them are 0); whether it is not 0 (an empty row's is)."""
    present = False
    for w in range(table.shape[1] - n_words):
        counts[c, w] = table[row, n_words + w]
        present = present or counts[c, w] != EMPTY
    return present


def count_words(sequences: int, game: Variant) -> int:
    """The 64-bit words the multiplicities of the children of a level of ``sequences``
    going-on sequences need: a child's is at most the sequences times the moves of a
    position."""
    words = max(1, -(-(sequences * game.max_moves).bit_length() // 64))
    if words > COUNT_WORDS:
        raise TreeOverflowError(f"a position's multiplicity could pass {64 * COUNT_WORDS} bits")
    return words


# ----- one batch of parents ---------------------------------------------------------

@njit(cache=True, parallel=True)
def _expand(params, parents, first, last, word_of, shift_of, mask_of, n_words, board_size,
            keep, table, chunk_totals, chunk_new, flags, boards, keys_waiting, counts_waiting):
    """Play every move of the parent rows first..last-1 (empty rows have none). Each chunk
    adds its turns and finished games to its own totals, ``chunk_totals[chunk]``. When
    ``keep``, every going-on child is inserted into ``table`` (all threads at once, see
    ``_insert``) AHEAD children after it was played: its row is prefetched when it is
    played, so the insert rarely waits for main memory. ``chunk_new[chunk]``: the rows the
    chunk added; ``flags``: [a position did not fit the key, a multiplicity overflowed]."""
    per_chunk = (last - first + CHUNKS - 1) // CHUNKS
    n_rows = table.shape[0]
    for chunk in prange(CHUNKS):
        board, child = boards[chunk, 0], boards[chunk, 1]
        keys = keys_waiting[chunk]  # the children waiting to go in
        counts = counts_waiting[chunk, :AHEAD]  # words above a parent's: 0
        count = counts_waiting[chunk, AHEAD:]  # the parent's multiplicity
        counts[:, :] = 0
        count[:, :] = 0
        hashes = np.empty(AHEAD, dtype=np.uint64)
        words = parents.shape[1] - n_words
        totals = chunk_totals[chunk]
        totals[:] = 0
        new, played = 0, 0
        for row in range(first + chunk * per_chunk, min(last, first + (chunk + 1) * per_chunk)):
            legal = movemask.NONE
            if _load_count(parents, row, n_words, count, 0):
                _decode(params, parents, row, word_of, shift_of, mask_of, board)
                legal = kernels.legal_mask(params, board)
            while legal != movemask.NONE:
                move = movemask.lowest(legal)
                legal &= legal - movemask.ONE
                for cell in range(board_size):
                    child[cell] = board[cell]
                kernels.play(params, child, move)
                status = child[-1]
                if status != 0:
                    add_total(totals, GAMES, count, 0, words, flags)
                    add_total(totals, STATUS_SLOT[status], count, 0, words, flags)
                    continue
                add_total(totals, TURNS, count, 0, words, flags)
                replies = kernels.legal_mask(params, child)
                if replies & (replies - movemask.ONE) != movemask.NONE:
                    add_total(totals, AGENCY, count, 0, words, flags)
                if keep:
                    slot = played & (AHEAD - 1)
                    if played >= AHEAD:
                        new += _insert_counted(table, hashes[slot], keys, slot, n_words,
                                               counts, slot, words, flags)
                    if not _encode(params, child, word_of, shift_of, mask_of, keys, slot):
                        flags[BAD_KEY] = 1
                        continue
                    hashes[slot] = _hash(keys, slot, n_words)
                    prefetch_row(table, _home(hashes[slot], n_rows))
                    for w in range(words):
                        counts[slot, w] = count[0, w]
                    played += 1
        new += _insert_waiting(table, hashes, keys, n_words, counts, words, flags,
                               max(0, played - AHEAD), played)
        chunk_new[chunk] = new


@njit(cache=True)
def _insert_waiting(table, hashes, keys, n_words, counts, words, flags, first, last):
    """Insert the children still waiting at the end of a chunk (those played ``first`` to
    ``last``); the rows added. A call, once a chunk: the insert inlined a second time
    into the expansion would cost seconds of its compile."""
    new = 0
    for waiting in range(first, last):
        slot = waiting & (AHEAD - 1)
        new += _insert_counted(table, hashes[slot], keys, slot, n_words, counts, slot, words,
                               flags)
    return new


@njit(cache=True, inline="always")
def _insert_counted(table, h, keys, k, n_words, counts, c, in_use, flags):
    """Insert as ``_insert`` does; 1 for a new row, else 0 (an overflow raises the flag)."""
    added = _insert(table, h, keys, k, n_words, counts, c, in_use)
    if added < 0:
        flags[OVERFLOW] = 1
        return 0
    return added


@njit(cache=True)
def _add_chunk_totals(chunk_totals, totals, flags):
    for chunk in range(chunk_totals.shape[0]):
        for slot in range(N_TOTALS):
            add_total(totals, slot, chunk_totals[chunk], slot, chunk_totals.shape[2], flags)


@njit(cache=True, inline="always")
def _insert(table, h, keys, k, n_words, counts, c, in_use):
    """Add the multiplicity ``counts[c]`` (its words, the lowest first; the words from
    ``in_use`` on are 0) to the row of
    ``keys[k]`` (linear probing); 1 when the key is new, -1 when the sum does not fit the
    table's multiplicity (the words after the key), else 0. Safe from several threads at once.

    A row holds the key words then the multiplicity, so that one probe touches one cache
    line. A row is empty while its first key word is 0 (no key has a first word of 0, see
    ``_encode``); a thread claims it by swapping its first word in, writes the other key
    words, then the multiplicity, which is never 0 (a plain store when it is one word: an
    atomic add cost 0.6 s more at Gebeta's level 17): a thread that finds the same first
    word waits for a multiplicity before it compares the other words or adds its own.
    """
    words = table.shape[1] - n_words
    for w in range(words, in_use):
        if counts[c, w] != EMPTY:
            return -1
    n_rows = table.shape[0]
    row = _home(h, n_rows)
    word = keys[k, 0]
    while True:
        held = load_acquire(table, row, 0)
        if held == EMPTY:
            held = compare_and_swap(table, row, 0, EMPTY, word)
            if held == EMPTY:
                for w in range(1, n_words):
                    table[row, w] = keys[k, w]
                if words > 1:
                    return _add_words(table, row, n_words, counts, c, 1)
                store_release(table, row, n_words, counts[c, 0])
                return 1
        if held == word and _rest_equal(table, row, keys, k, n_words):
            return _add_multiplicity(table, row, n_words, counts, c, 0)
        row += 1
        if row == n_rows:
            row = 0


@njit(cache=True, inline="always")
def _rest_equal(table, row, keys, k, n_words):
    """Whether the row's key words after the first are those of ``keys[k]``, once the thread
    that claimed the row has written them and its multiplicity (no longer 0)."""
    while load_acquire(table, row, n_words) == EMPTY:
        higher = False
        for w in range(n_words + 1, table.shape[1]):
            higher = higher or load_acquire(table, row, w) != EMPTY
        if higher:
            break
    for w in range(1, n_words):
        if table[row, w] != keys[k, w]:
            return False
    return True


@njit(cache=True, inline="always")
def _add_multiplicity(table, row, n_words, counts, c, added):
    """Add ``counts[c]`` to the row's multiplicity, word by word with atomic adds (the carry
    of each goes into the next: the sum is exact whatever the order of the threads);
    ``added``, or -1 when the sum passes the multiplicity's words."""
    if table.shape[1] == n_words + 1:  # one word
        count = counts[c, 0]
        before = fetch_add(table, row, n_words, count)
        if before + count >= before:
            return added
        if before + count == EMPTY:  # never leave 0: others wait on it
            store_release(table, row, n_words, ~EMPTY)
        return -1
    return _add_words(table, row, n_words, counts, c, added)


@njit(cache=True)
def _add_words(table, row, n_words, counts, c, added):
    """``_add_multiplicity`` where the multiplicity has several words (deep levels only): a
    call, so that the expansion's compile does not carry the loop at each insert."""
    carry = EMPTY
    for w in range(table.shape[1] - n_words):
        add = counts[c, w] + carry
        carry = np.uint64(1) if add < carry else EMPTY
        if add != EMPTY:
            before = fetch_add(table, row, n_words + w, add)
            if before + add < before:
                carry = np.uint64(1)
    return added if carry == EMPTY else -1


@njit(cache=True, parallel=True)
def _insert_rows(rows, table, n_words, chunk_new, flags):
    """Insert every non-empty row of ``rows`` (key words, multiplicity) into ``table``: a
    table's growth, or the pieces a cluster worker gathers."""
    per_chunk = (rows.shape[0] + CHUNKS - 1) // CHUNKS
    for chunk in prange(CHUNKS):
        counts = np.zeros((1, COUNT_WORDS), dtype=np.uint64)
        new = 0
        for row in range(chunk * per_chunk, min(rows.shape[0], (chunk + 1) * per_chunk)):
            if _load_count(rows, row, n_words, counts, 0):
                new += _insert_counted(table, _hash(rows, row, n_words), rows, row, n_words,
                                       counts, 0, rows.shape[1] - n_words, flags)
        chunk_new[chunk] = new


# ----- the driver -------------------------------------------------------------------

class _Level:
    """A level's hash table: rows of ``n_words`` key words then the multiplicity in ``words``
    words (an empty row is all 0)."""

    def __init__(self, n_words: int, expected: int, words: int = 1) -> None:
        self.n_words = n_words
        self.table = _table(n_words, expected / TARGET_LOAD, words)
        self.fill = 0

    @classmethod
    def single(cls, key: np.ndarray, count: int = 1) -> _Level:
        """A one-row level holding ``key`` ``count`` times (the start position)."""
        level = cls.__new__(cls)
        level.n_words = len(key)
        if count < 0 or count >= 2**(64 * COUNT_WORDS):
            raise TreeOverflowError(f"a multiplicity must be 0 to 2**{64 * COUNT_WORDS} - 1, "
                                    f"got {count}")
        words = words_of(count, max(1, -(-count.bit_length() // 64)))
        level.table = np.append(key, words).reshape(1, -1)
        level.fill = 1 if count else 0
        return level

    @property
    def positions(self) -> int:
        return self.fill

    @property
    def nbytes(self) -> int:
        return self.table.nbytes

    @property
    def words(self) -> int:
        """The words of a multiplicity."""
        return self.table.shape[1] - self.n_words

    def room(self) -> int:
        """The rows that may still be added before the table is fuller than MAX_LOAD."""
        return int(MAX_LOAD * len(self.table)) - self.fill

    def grow(self, more: int) -> None:
        """Move to a bigger table, with room for ``more`` rows beyond those it holds."""
        rows = max(1.5 * len(self.table), (self.fill + more) / TARGET_LOAD)
        old, self.table, self.fill = self.table, _table(self.n_words, rows, self.words), 0
        self._insert(old)

    def absorb(self, rows: np.ndarray) -> None:
        """Add ``rows`` (key words, multiplicity; none empty) to the table."""
        if len(rows) > self.room():
            self.grow(len(rows))
        self._insert(rows)

    def _insert(self, rows: np.ndarray) -> None:
        chunk_new = np.zeros(CHUNKS, dtype=np.int64)
        flags = np.zeros(2, dtype=np.int64)
        _insert_rows(rows, self.table, self.n_words, chunk_new, flags)
        _check(flags, self.words)
        self.fill += int(chunk_new.sum())

    def rows(self) -> np.ndarray:
        """The rows in use (a copy)."""
        return self.table[self.table[:, self.n_words:].any(axis=1)]


def _table(n_words: int, rows: float, words: int) -> np.ndarray:
    """An empty table of about ``rows`` rows (at least 16)."""
    rows = max(16, int(rows) + 1)
    if rows >= 1 << 32:  # _home scales 32 bits of the hash
        raise TreeMemoryError(f"a table of {rows:,} rows is more than one level may hold "
                              "(2**32 rows)", [])
    return np.zeros((rows, n_words + words), dtype=np.uint64)


def _check(flags: np.ndarray, words: int) -> None:
    if flags[BAD_KEY]:
        raise TreeOverflowError("a position does not fit the position key of this game")
    if flags[OVERFLOW]:
        raise TreeOverflowError(f"a position's multiplicity passed its {64 * words} bits, or "
                                f"a total its {64 * TOTAL_WORDS}")


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
        self.n_words = key_layout(game)[3]
        self.identity = {"game": game.name, "options": _plain(game.options),
                         "start_multiplicity": start_multiplicity, "key_format": KEY_FORMAT}

    def load(self) -> tuple[list[TreeRow], LevelRows] | None:
        """The rows and the last level kept, or None when the folder holds no run yet."""
        index = self.directory / "tree.json"
        if not index.exists():
            return None
        try:
            saved = json.loads(index.read_text())
            if saved.get("key_format") != KEY_FORMAT:
                raise MancalabError(
                    f"the checkpoint in {self.directory} was written by an older mancalab, "
                    "whose position keys differ; start the run again in a new folder")
            if {k: saved.get(k) for k in self.identity} != self.identity:
                raise MancalabError(
                    f"the checkpoint in {self.directory} is of another run "
                    f"({saved.get('game')} {saved.get('options')}); choose another folder")
            rows = [TreeRow(*values) for values in saved["rows"]]
            table = np.load(self.directory / saved["file"], mmap_mode="r").view(np.ndarray)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise MancalabError(f"the checkpoint in {self.directory} cannot be read: "
                                f"{error}") from None
        if len(table) != rows[-1].positions or not (
                0 < table.shape[1] - self.n_words <= COUNT_WORDS):
            raise MancalabError(f"the checkpoint in {self.directory} is damaged: level "
                                f"{rows[-1].level} holds {table.shape} words, not "
                                f"{rows[-1].positions:,} positions of {self.n_words} key words "
                                f"and 1 to {COUNT_WORDS} multiplicity words")
        return rows, LevelRows(table)

    def save(self, rows: list[TreeRow], level: _Level) -> None:
        """Keep ``level`` (the positions of ``rows[-1]``), then drop the level kept before."""
        from ...records import atomic_file, write_atomic

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
               start_multiplicity: int = 1, checkpoint=None, by_paths: bool | None = None,
               **options) -> list[TreeRow]:
    """The cumulative statistics of levels 1..depth from the start position.

    ``on_progress(level, rows_done, rows_total, positions)`` is called after each batch,
    ``on_level(row)`` after each level (also for levels read back from the checkpoint).
    ``start_multiplicity`` counts every sequence that many times (every count scales by it
    exactly: how the multi-word counts are tested). ``checkpoint``: a folder where each
    finished level is kept, and from whose deepest level a rerun goes on. ``by_paths``
    (default: where the end by repetition is the game's own rule, Oware) walks every sequence
    with its path instead, applying the record's end by repetition (``tree_paths``).
    """
    game = _game(variant_or_name, options)
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise MancalabError(f"depth must be a whole number of at least 1, got {depth!r}")
    if game.history.repetition_is_a_rule if by_paths is None else by_paths:
        return _by_paths(game, depth, jobs, on_progress, on_level, start_multiplicity,
                         checkpoint)
    layout = key_layout(game)
    n_words = layout[3]
    level_table = start_level(game, start_multiplicity)
    sequences = start_multiplicity  # going on at the level before
    totals = np.zeros((N_TOTALS, TOTAL_WORDS), dtype=np.uint64)
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
            totals[slot] = words_of(total, TOTAL_WORDS)

    threads_before = get_num_threads()
    jobs = max(1, min(jobs or threads_before, threads_before))
    set_num_threads(jobs)
    try:
        with compiling_timed() as compiled:
            def clock() -> float:  # stops while numba compiles: a level times the work
                return time.perf_counter() - compiled()

            for level in range(len(rows) + 1, depth + 1):
                started, compiled_before = clock(), compiled()
                keep = level < depth
                words = count_words(sequences, game)
                expected = int(level_table.positions * growth) + 16 if keep else 0
                need = (expected / TARGET_LOAD) * (n_words + words) * 8 + level_table.nbytes
                if keep and need > 0.8 * available_memory():
                    raise TreeMemoryError(
                        f"level {level} would need about {need / 2**30:.1f} GiB of memory (about "
                        f"{expected:,} positions: the last level grew {growth:.2f} times), more "
                        f"than the {available_memory() / 2**30:.1f} GiB available here; levels "
                        f"1..{level - 1} are done", rows)
                phases = dict.fromkeys(PHASES, 0.0)
                level_table, peak = _expand_level(
                    game, layout, level_table, batch, expected, keep, words, totals,
                    lambda done, total, found, at=level:
                        on_progress and on_progress(at, done, total, found),
                    phases, clock)
                counts = [number_of(total) for total in totals]
                sequences = counts[TURNS] - (rows[-1].turns if rows else 0)
                positions = level_table.positions if keep else None
                details = {k: round(v, 3) for k, v in phases.items()}
                compiling = compiled() - compiled_before
                if compiling >= 0.001:
                    details["compiling"] = round(compiling, 3)
                row = TreeRow(level, *counts, positions, clock() - started, peak, details)
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


def _by_paths(game, depth, jobs, on_progress, on_level, start_multiplicity,
              checkpoint) -> list[TreeRow]:
    """The path-by-path walk, which keeps no level to resume from or scale."""
    from .tree_paths import tree_by_paths

    if checkpoint is not None or start_multiplicity != 1:
        raise MancalabError(
            f"{game.title}'s tree is walked path by path (its end by repetition depends on the "
            "positions before): it keeps no levels to resume from or scale")
    return tree_by_paths(game, int(depth), jobs=jobs, on_progress=on_progress,
                         on_level=on_level)


def _game(variant_or_name: Variant | str, options: dict) -> Variant:
    """The variant asked for, by name with ``options`` or as it is."""
    return (make_variant(variant_or_name, **options) if isinstance(variant_or_name, str)
            else variant_or_name)


def warm_up(variant_or_name: Variant | str, **options) -> None:
    """Compile or load every kernel of the tree statistics (a few levels and a table growth),
    so that a measurement that follows times the work, not the compiler."""
    game = _game(variant_or_name, options)
    tree_stats(game, 3)
    _Level(key_layout(game)[3], 16).grow(16)


def read_only(table: np.ndarray) -> np.ndarray:
    """A read-only view of a level's rows, wherever they are (in memory, memory-mapped from a
    checkpoint, sent by a cluster's scheduler): numba compiles a function once for each
    writability of its arrays, 10-25 s for ``_expand``."""
    view = table.view()
    view.flags.writeable = False
    return view


def start_level(game: Variant, count: int = 1) -> _Level:
    """Level 0: the start position, reached ``count`` times (none if the game is over)."""
    layout = key_layout(game)
    start = game.start()
    key = np.zeros((1, layout[3]), dtype=np.uint64)
    if not _encode(shared_params(game), start.board, *layout[:3], key, 0):
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


def _expand_level(game, layout, parents, batch, expected, keep, words, totals,
                  progress, phases=None, clock=time.perf_counter) -> tuple[_Level, int]:
    """Expand every position of one level (``parents.table``: rows of key words and a
    multiplicity); the next level (empty unless ``keep``; multiplicities of ``words`` words),
    its totals added to ``totals`` (N_TOTALS rows of words), and the bytes held at the peak.
    ``phases`` (a dict) gets the seconds spent in each phase added, as ``clock`` tells them."""
    phases = dict.fromkeys(PHASES, 0.0) if phases is None else phases
    word_of, shift_of, mask_of, n_words = layout
    n_rows = len(parents.table)
    children = _Level(n_words, expected if keep else 0, words)
    batch = max(1, min(batch, n_rows))
    chunk_totals = np.zeros((CHUNKS, N_TOTALS, totals.shape[1]), dtype=np.uint64)
    boards, keys_waiting, counts_waiting = _chunk_work(game.board_size, n_words)
    chunk_new = np.zeros(CHUNKS, dtype=np.int64)
    flags = np.zeros(2, dtype=np.int64)
    peak, first = 0, 0
    while first < n_rows:
        began = clock()
        last = min(n_rows, first + batch)
        if keep:
            last = _batch_end(children, first, last, game.max_moves, batch)
        grown = clock()
        phases["grow"] += grown - began
        _expand(shared_params(game), read_only(parents.table), first, last, word_of, shift_of,
                mask_of, n_words, game.board_size, keep, children.table, chunk_totals,
                chunk_new, flags, boards, keys_waiting, counts_waiting)
        _add_chunk_totals(chunk_totals, totals, flags)
        _check(flags, words)
        children.fill += int(chunk_new.sum())
        phases["expand"] += clock() - grown
        peak = max(peak, parents.nbytes + children.nbytes)
        progress(last, n_rows, children.positions)
        first = last
    return children, peak


def _chunk_work(board_size: int, n_words: int) -> tuple[np.ndarray, ...]:
    """Each chunk's work space in ``_expand``: its board and child, the keys of the children
    waiting to go in, their multiplicities (AHEAD rows) and the parent's (one row). Made here
    rather than in the parallel loop: an array the loop allocates has an owner, whose
    reference numba counts atomically at every kernel call (``mancalab.borrow``)."""
    return (np.empty((CHUNKS, 2, board_size), dtype=np.int64),
            np.empty((CHUNKS, AHEAD, n_words), dtype=np.uint64),
            np.zeros((CHUNKS, AHEAD + 1, COUNT_WORDS), dtype=np.uint64))


def _batch_end(children: _Level, first: int, last: int, max_children: int, batch: int) -> int:
    """Where the batch of parents from ``first`` ends: at ``last`` at most, and before the
    children could fill the table past MAX_LOAD (each parent adds at most ``max_children``
    rows, and a full table would never end a probe). The table grows when its room left
    would cut the batch to less than an eighth."""
    wanted = last - first
    if children.room() // max_children < min(wanted, max(1, batch // 8)):
        children.grow(wanted * max_children)
    return first + min(wanted, children.room() // max_children)


def write_csv(rows: list[TreeRow], path) -> None:
    """The reference program's results.csv, written whole or not at all."""
    from ...records import write_atomic

    write_atomic(path, HEADER + "\n" + "".join(row.csv() + "\n" for row in rows))


def plot(rows: list[TreeRow], path, title: str = "") -> None:
    """Turns and games per level on a log scale, and the outcome shares per level (PNG)."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...records import write_atomic_bytes

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
