"""Endgame databases: the exact value of every Kalah position with at most K seeds in play.

A database entry is the mover's future net gain ``g`` from the seeds still in the pits (what
the mover will bank from now on minus what the opponent will): the stores do not change how
Kalah is played, so the value of a position for the mover is its store difference plus ``g``.
Entries are indexed by a perfect ranking of the pits *as the mover sees them* (the mover's m
pits in sowing order, then the opponent's m): the combinatorial number system ranks the
distributions of k seeds over the 2m pits (stars and bars), one block per k, so the index of a
position is ``C(k - 1 + 2m, 2m) + rank``, and a database of everything up to K seeds holds
``C(K + 2m, 2m)`` one-byte entries (Kalah(6,*): 30.4 M for K = 16, 225.8 M for K = 20).

Kalah needs no retrograde iteration: a move that reaches a store or captures lowers k, and a
move that keeps k (a quiet sowing on the mover's own side) lowers the summed distance of the
seeds to their owners' stores, so within a level a memoised depth-first pass terminates. Every
move is played by the game's own kernel (``mancalab.variants.kalah.play``), never a copy.

Files live under ``$XDG_CACHE_HOME/mancalab/databases`` (or ``--dir``): a JSON header line
(game, options, K, entries, CRC-32 of the entries), then the entries. They are written whole or
not at all (a temporary file, then a rename) and memory-mapped when opened; a header that does
not match the game, or entries whose checksum does not match, are refused.
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
from ...prefetch import prefetch_row
from ...variants.rules import kalah
from ...variants import variant as make_variant
from .files import DatabaseError, default_dir, largest, read_header, write_whole
from ...ranking import binomials, chunk_range, index, next_bars, pits_of, unrank

UNKNOWN = -128  # an entry not computed yet (values are within -K..K)
MAX_SEEDS = 100  # |g| <= k must fit a signed byte
FORMAT = "mancalab-endgame-1"
IN_MEMORY = 4 << 30  # bytes: a database up to this size is read into memory when opened


# ----- playing a database position with the rules' own kernel -------------------------
@njit(cache=True, inline="always")
def to_board(params, pits, board):
    """The Kalah board of ``pits`` seen by the mover: the mover is player 0, stores empty."""
    m = params[kalah.P_PITS]
    for i in range(m):
        board[i] = pits[i]
        board[m + 1 + i] = pits[m + i]
    board[m] = 0
    board[2 * m + 1] = 0
    board[-2] = 0
    board[-1] = ONGOING


@njit(cache=True, inline="always")
def child_of(params, board, child):
    """After player 0's move on ``board``: the child's pits as its mover sees them, and
    (gain for player 0, whether player 0 moves again, seeds left, over)."""
    m = params[kalah.P_PITS]
    gain = board[m] - board[2 * m + 1]
    again = board[-2] == 0
    seeds = 0
    for i in range(m):
        mine, theirs = board[i], board[m + 1 + i]
        seeds += mine + theirs
        if again:
            child[i], child[m + i] = mine, theirs
        else:
            child[i], child[m + i] = theirs, mine
    return gain, again, seeds, board[-1] != ONGOING


@njit(cache=True, nogil=True)
def _solve_range(params, seeds, values, binom, first, last, rows):
    """Fill in the entries of ranks ``first``..``last``-1 among those with ``seeds`` seeds,
    and every entry of the same level they need first: for each, a depth-first pass with
    an explicit stack (numba cannot cache a recursive function), each frame one position
    and the move it is at. A frame first plays every move and asks for the children's
    entries (``prefetch_row``), so their cache misses overlap; then it reads them.
    The positions are one loop rather than a call each: numba takes a reference on every
    array a compiled function is given (an atomic count unless the array is lent).
    ``rows``: the slice's bars, board, position and child, each a row (``rows_for``), lent:
    the rules' kernels are called with them."""
    params, values, binom, rows = (borrowed(params), borrowed(values), borrowed(binom),
                                   borrowed(rows))
    m = params[kalah.P_PITS]
    n = 2 * m
    depth_cap = seeds * m + 2  # each quiet move lowers the distance to the stores
    bars, board = rows[0, :n - 1], rows[1]
    here, child = rows[2, :n], rows[3, :n]  # the frame's position (the stack is not sliced)
    stack_pits = np.empty((depth_cap, n), dtype=np.int64)
    stack_move = np.empty(depth_cap, dtype=np.int64)
    stack_best = np.empty(depth_cap, dtype=np.int64)
    kid_index = np.empty((depth_cap, m), dtype=np.int64)
    kid_gain = np.empty((depth_cap, m), dtype=np.int64)
    unrank(first, seeds, n, binom, bars)
    base = binom[seeds - 1 + n, n] if seeds > 0 else 0
    for r in range(first, last):
        pits_of(bars, seeds, here)
        next_bars(bars, seeds + n - 1)
        if values[base + r] != UNKNOWN:
            continue  # found on the way to an earlier entry
        to_board(params, here, board)  # already over by the end rule?
        kalah.settle(params, board)
        if board[-1] != ONGOING:
            values[base + r] = board[m] - board[2 * m + 1]
            continue
        for j in range(n):
            stack_pits[0, j] = here[j]
        stack_move[0] = -1  # -1: the children are not played yet
        stack_best[0] = -127
        depth = 0
        while depth >= 0:
            for j in range(n):
                here[j] = stack_pits[depth, j]
            if stack_move[depth] < 0:
                for move in range(m):
                    if here[move] == 0:
                        continue
                    to_board(params, here, board)
                    kalah.play(params, board, move)
                    gain, again, left, over = child_of(params, board, child)
                    kid_gain[depth, move] = gain if again or over else -gain  # sign: below
                    if over:
                        kid_index[depth, move] = -1
                    else:
                        kid_index[depth, move] = (index(child, left, binom) * 2
                                                  + (1 if again else 0))
                        prefetch_row(values, kid_index[depth, move] >> 1)
                stack_move[depth] = 0
            pushed = False
            move = stack_move[depth]
            while move < m:
                if here[move] == 0:
                    move += 1
                    continue
                code = kid_index[depth, move]
                gain = kid_gain[depth, move]  # an extra turn's or an end's gain, else negated
                if code < 0:
                    value = gain
                else:
                    known = values[code >> 1]
                    if known == UNKNOWN:  # a quiet move: the same level, closer to the stores
                        to_board(params, here, board)
                        kalah.play(params, board, move)
                        child_of(params, board, child)
                        stack_move[depth] = move
                        depth += 1
                        for j in range(n):
                            stack_pits[depth, j] = child[j]
                        stack_move[depth] = -1
                        stack_best[depth] = -127
                        pushed = True
                        break
                    value = gain + known if code & 1 else -(gain + known)
                if value > stack_best[depth]:
                    stack_best[depth] = value
                move += 1
            if pushed:
                continue
            values[index(here, seeds, binom)] = stack_best[depth]
            depth -= 1


@njit(cache=True, parallel=True, nogil=True)
def build_level(params, seeds, values, binom, begin, end, chunks, progress, rows):
    """Compute the entries of ranks ``begin``..``end``-1 among those with exactly ``seeds``
    seeds (the lower levels are done; entries of the same level they need are computed on
    the way), in ``chunks`` slices shared among the threads; ``progress[0]`` counts the
    slices done. Two threads may meet at one entry: both write the same value. ``rows``
    (``rows_for``): each slice's work rows, made outside the parallel loop, where an array
    has no owner to count at every call of a rule (``mancalab.borrow``)."""
    for chunk in prange(chunks):
        first, last = chunk_range(chunk, chunks, begin, end)
        if first >= last:
            continue
        _solve_range(params, seeds, values, binom, first, last, rows[chunk])
        progress[0] += 1


def rows_for(variant: Variant, chunks: int) -> np.ndarray:
    """Work rows for ``build_level``'s ``chunks`` slices: four of a board's length each."""
    return np.empty((chunks, 4, variant.board_size), dtype=np.int64)


def _rules(variant: Variant) -> dict:
    """The options that change the values (the start board and seeds per pit do not)."""
    return {"pits": variant.options["pits"], "empty_capture": variant.options["empty_capture"],
            "end_rule": variant.options["end_rule"]}


def file_name(variant: Variant, seeds: int) -> str:
    rules = _rules(variant)
    capture = "ec" if rules["empty_capture"] else "noec"
    return f"kalah-{rules['pits']}-{capture}-{rules['end_rule']}-{seeds}.db"


def path_of(variant: Variant, seeds: int, folder: str | Path | None = None) -> Path:
    """Where the database of ``variant`` up to ``seeds`` is kept in ``folder``."""
    return (Path(folder) if folder else default_dir()) / file_name(variant, seeds)


def entries(pits: int, seeds: int) -> int:
    """Positions with at most ``seeds`` seeds on 2 * ``pits`` pits."""
    return int(binomials(seeds + 2 * pits + 1)[seeds + 2 * pits, 2 * pits])


@dataclass
class Database:
    """Values of every position with at most ``seeds`` seeds in play (memory-mapped)."""

    variant: Variant
    seeds: int
    values: np.ndarray  # int8, indexed by ``index``
    path: Path | None
    binom: np.ndarray

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes)

    def value(self, pits) -> int:
        """g of ``pits`` as the mover sees them (mover's pits first)."""
        pits = np.asarray(pits, dtype=np.int64)
        seeds = int(pits.sum())
        if seeds > self.seeds:
            raise DatabaseError(f"the position has {seeds} seeds; the database holds at most "
                                f"{self.seeds}")
        return int(self.values[index(pits, seeds, self.binom)])


def check_variant(variant: Variant) -> None:
    """These databases and the search over them are Kalah's (Gebeta's and Gabata's, whose
    positions can repeat, are ``retrograde``)."""
    if variant.name != "kalah":
        raise DatabaseError(f"this is for Kalah, not {variant.name}")


def build(variant: Variant, seeds: int, *, jobs: int | None = None,
          on_progress: Callable[[int, int, int], None] | None = None) -> Database:
    """Compute the database of ``variant`` up to ``seeds`` seeds in memory (on a Dask
    cluster: ``databases_cluster.build``). ``on_progress(level, done, total)`` is called as
    it goes."""
    from numba import get_num_threads, set_num_threads

    binom, total = plan(variant, seeds)
    n = 2 * variant.options["pits"]
    values = empty_values(total)
    before = get_num_threads()
    set_num_threads(max(1, min(jobs or before, before)))
    try:
        for level in range(seeds + 1):
            count = int(binom[level + n - 1, n - 1])
            chunks = max(1, min(4096, count // 2048))
            progress = np.zeros(1, dtype=np.int64)
            build_level(variant.params, level, values, binom, 0, count, chunks, progress,
                        rows_for(variant, chunks))
            if on_progress:
                on_progress(level, count, count)
    finally:
        set_num_threads(before)
    return Database(variant, seeds, values, None, binom)


def plan(variant: Variant, seeds: int) -> tuple[np.ndarray, int]:
    """The binomials a database of ``seeds`` seeds ranks with, and its entries (checked)."""
    check_variant(variant)
    if isinstance(seeds, bool) or not isinstance(seeds, int) or not 0 <= seeds <= MAX_SEEDS:
        raise DatabaseError(f"the seeds of a database must be 0..{MAX_SEEDS}, got {seeds!r}")
    n = 2 * variant.options["pits"]
    binom = binomials(seeds + n + 1)
    total = int(binom[seeds + n, n])
    if total > 8 * 2**30:
        raise DatabaseError(f"a database of {seeds} seeds on {n} pits has {total:,} entries "
                            "(more than 8 GiB): choose fewer seeds")
    return binom, total


def empty_values(total: int) -> np.ndarray:
    """``total`` entries, all unknown (huge pages: lookups of lower levels are random)."""
    values = large_zeros((total,), np.int8)
    values.fill(UNKNOWN)
    return values


def level_start(binom: np.ndarray, level: int, n: int) -> int:
    """The index of the first entry with ``level`` seeds on ``n`` pits."""
    return int(binom[level - 1 + n, n]) if level > 0 else 0


def save(database: Database, folder: str | Path | None = None) -> Path:
    """Write ``database`` whole or not at all; its path."""
    path = path_of(database.variant, database.seeds, folder)
    header = {"format": FORMAT, "game": "kalah", "rules": _rules(database.variant),
              "seeds": database.seeds, "entries": int(database.values.size),
              "crc32": zlib.crc32(database.values.data) & 0xFFFFFFFF}
    write_whole(path, header, [database.values])
    database.path = path
    return path


def load(path: str | Path, variant: Variant | None = None, verify: bool = True) -> Database:
    """Open a database file, checking its header and, with ``verify``, its checksum;
    DatabaseError for anything that does not match. A file that takes at most a quarter of
    the memory available (and 4 GiB) is read into memory on huge pages: the solver probes it
    at random, and with 4 KiB pages of a mapped file nearly every probe also misses the TLB
    (Kalah(6,4) with 20 seeds: 1.5 M nodes/s mapped). A bigger one stays memory-mapped."""
    path = Path(path)
    header, offset = read_header(path, FORMAT)
    rules = header.get("rules", {})
    try:
        own = make_variant("kalah", **rules)
    except MancalabError as error:
        raise DatabaseError(f"{path}: bad rules in its header: {error}") from None
    if variant is not None and _rules(variant) != _rules(own):
        raise DatabaseError(f"{path} is for Kalah with {_rules(own)}, not {_rules(variant)}")
    seeds, count = header.get("seeds"), header.get("entries")
    if not isinstance(seeds, int) or count != entries(rules.get("pits", 0), seeds):
        raise DatabaseError(f"{path}: its header does not match its size")
    if path.stat().st_size != offset + count:
        raise DatabaseError(f"{path} is truncated or too long ({path.stat().st_size:,} bytes, "
                            f"expected {offset + count:,})")
    values = np.memmap(path, dtype=np.int8, mode="r", offset=offset, shape=(count,))
    if count <= min(IN_MEMORY, available_memory() // 4):
        copy = large_zeros((count,), np.int8)
        copy[:] = values
        values = copy
    if verify and zlib.crc32(values) & 0xFFFFFFFF != header.get("crc32"):
        raise DatabaseError(f"{path} is corrupt: its checksum does not match")
    m = own.options["pits"]
    return Database(variant or own, seeds, values, path, binomials(seeds + 2 * m + 1))


def best_available(variant: Variant, folder: str | Path | None = None) -> Database | None:
    """The largest database built for ``variant``'s rules in ``folder``, opened."""
    return largest((path_of(variant, seeds, folder) for seeds in range(MAX_SEEDS, -1, -1)),
                   lambda path: load(path, variant, verify=False))


def ensure(variant: Variant, seeds: int, folder: str | Path | None = None,
           on_progress=None) -> Database:
    """The database of ``variant`` up to ``seeds``: opened if built, else built and saved."""
    check_variant(variant)
    path = path_of(variant, seeds, folder)
    if path.exists():
        return load(path, variant, verify=False)
    database = build(variant, seeds, on_progress=on_progress)
    save(database, folder)
    if database.nbytes > min(IN_MEMORY, available_memory() // 4):
        return load(path, variant, verify=False)  # mapped: the memory goes back
    return database
