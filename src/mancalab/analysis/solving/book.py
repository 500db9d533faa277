"""The start's book: every position Gebeta's start reaches above a retrograde database,
with its bounds, solved once and kept on disk (sorted keys, memory-mapped), so that a
position of any game from the start is looked up instead of walked."""

from __future__ import annotations

import threading
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...core import State, Variant
from .files import DatabaseError, read_header, write_whole
from .graph import Graph, capacity_for, graph_key, mover_view, reachable
from ...ranking import binomials
from .retrograde import (NODE, NODE_SAME, PITS, STORED, Database, _in_database, _moves,
                         _stored_index, kept_key, path_of, rules_of, slots_of, total_seeds)


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
_BOOKS_LOCK = threading.Lock()


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
    """Look again for the book of ``variant``'s rules (built since)."""
    with _BOOKS_LOCK:
        _BOOKS.pop(kept_key(variant), None)


BOOK_COST = "about 6 minutes once, 0.45 GB on disk, 6.6 GB of memory while it builds"


def book_advice(variant: Variant) -> str | None:
    """How to build the start's book of ``variant``'s rules when it can be built here and is
    not yet: without it the perfect player searches until few counters are left."""
    seeds = variant.solving.book_seeds  # a game whose start's book fits here, over this database
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
    key = kept_key(variant)
    with _BOOKS_LOCK:
        if key not in _BOOKS:
            path = book_path(variant)
            _BOOKS[key] = load_book(path, variant, verify=False) if path.exists() else None
        return _BOOKS[key]


def book_graph(variant: Variant, book: Book, database: Database | None,
                pits: np.ndarray) -> Graph | None:
    """The root ``pits``, its children and theirs, with bounds from the book and the
    database: what ``solve`` reads of a walked graph; None when the book lacks one."""
    root_bounds = book.bounds(pits)
    if root_bounds is None:
        return None
    slots, params = slots_of(variant), variant.params
    board = np.zeros(variant.board_size, dtype=np.int64)
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
