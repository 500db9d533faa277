"""The exact game tree on a Dask cluster: each level's distinct positions sharded across the
workers by the hash of their key.

A level is held as ``shards`` arrays of rows (key words, multiplicity of one or two words, as
in ``tree``), shard ``t`` holding
the positions whose hash falls in its range of PARTITIONS (the hash's top bits). Each level:

1. every shard is expanded where it lies, with the one-machine code (``tree._expand_level``:
   the compiled kernels, the same totals); its children, merged once there, are cut into
   one piece per shard;
2. shard ``t`` of the next level gathers piece ``t`` of every expansion and merges them.

So each child is sent once, to the worker that owns it. The level totals are summed in 128
bits and equal the one-machine run's exactly (a test compares them level by level). The
futures of the level being built are kept, and Dask keeps the lineage back to the start: a
worker that dies takes no result with it, Dask computes what it held again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from numba import njit

from ...core import MancalabError, Variant
from ...variants import variant as make_variant
from . import tree

BATCH = 1 << 20
PARTITION_BITS = 12  # a level is sharded by these top bits of a position's hash
PARTITIONS = 1 << PARTITION_BITS


def _bounds(shards: int) -> list[int]:
    """The first partition of each shard, and the end."""
    return [t * PARTITIONS // shards for t in range(shards + 1)]


def expand_shard(name: str, options: dict, rows: np.ndarray, keep: bool, words: int,
                 shards: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Expand one shard: its totals (a row of words each) and, when ``keep``, its children
    (multiplicities of ``words`` words) merged and cut into one array of rows per shard."""
    game = make_variant(name, **options)
    layout = tree.key_layout(game)
    totals = np.zeros((tree.N_TOTALS, tree.TOTAL_WORDS), dtype=np.uint64)
    expected = 2 * len(rows) + 16 if keep else 0
    children, _ = tree._expand_level(game, layout, tree.LevelRows(rows), BATCH, expected, keep,
                                     words, totals, lambda *progress: None)
    pieces = []
    if keep:
        owner = np.searchsorted(_bounds(shards), np.arange(PARTITIONS), side="right") - 1
        rows, starts = _cut(children.table, layout[3], owner, shards)
        pieces = [rows[starts[t]:starts[t + 1]] for t in range(shards)]
    return totals, pieces


def piece(expanded: tuple, t: int) -> np.ndarray:
    return expanded[1][t]


def totals_of(expanded: tuple) -> np.ndarray:
    return expanded[0]


@njit(cache=True, inline="always")
def _partition(h):
    """The top bits of a hash (the tree's tables probe from the low ones)."""
    return np.int64(h >> np.uint64(64 - PARTITION_BITS))


@njit(cache=True)
def _cut(table, n_words, owner, shards):
    """The rows in use of ``table`` in one array, shard after shard (``owner``: the shard of
    each partition), and where each shard's rows start (and the end): two passes over the
    table, whatever the number of shards."""
    shard = np.full(table.shape[0], -1, dtype=np.int64)
    starts = np.zeros(shards + 1, dtype=np.int64)
    count = np.zeros((1, table.shape[1] - n_words), dtype=np.uint64)
    for r in range(table.shape[0]):
        if tree._load_count(table, r, n_words, count, 0):
            shard[r] = owner[_partition(tree._hash(table, r, n_words))]
            starts[shard[r] + 1] += 1
    for t in range(shards):
        starts[t + 1] += starts[t]
    rows = np.empty((starts[shards], table.shape[1]), dtype=np.uint64)
    cursor = starts[:shards].copy()
    for r in range(table.shape[0]):
        if shard[r] >= 0:
            rows[cursor[shard[r]]] = table[r]
            cursor[shard[r]] += 1
    return rows, starts


def merge_shard(n_words: int, *pieces: np.ndarray) -> np.ndarray:
    """One shard of the next level: the pieces sent to it (``n_words`` key words a row),
    equal positions added up."""
    rows = np.concatenate(pieces)
    level = tree._Level(n_words, len(rows), rows.shape[1] - n_words)
    level.absorb(rows)
    return level.rows()


def start_shard(name: str, options: dict, t: int, count: int) -> np.ndarray:
    """Shard ``t`` of level 0: the start position ``count`` times in shard 0, nothing
    elsewhere."""
    rows = tree.start_level(make_variant(name, **options), count).table
    return rows if t == 0 else rows[:0]


def _worker_figures(client) -> tuple[int, int]:
    """The bytes the workers have sent each other so far, and the largest peak resident
    memory of a worker process."""

    def figures(dask_worker) -> tuple[int, int]:
        import resource

        return (dask_worker.transfer_outgoing_bytes_total,
                resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)

    found = client.run(figures).values()
    return sum(f[0] for f in found), max((f[1] for f in found), default=0)


def tree_stats(game: Variant, depth: int, cluster: str, shards: int | None = None,
               on_level: Callable[[tree.TreeRow], None] | None = None,
               start_multiplicity: int = 1) -> list[tree.TreeRow]:
    """``tree.tree_stats`` on the workers of the Dask scheduler at ``cluster`` (levels of
    positions: not for a game whose end by repetition is its own rule, ``tree_paths``)."""
    from ...cluster import connect

    if game.history.repetition_is_a_rule:
        raise MancalabError(f"{game.title}'s tree is walked path by path on one machine: its "
                            "end by repetition depends on the positions before")

    client = connect(cluster)
    try:
        name, options = game.name, dict(game.options)
        workers = len(client.scheduler_info()["workers"])
        shards = shards or max(1, 2 * workers)
        # no warm-up plugin here: a plugin runs in another thread than the tasks, and numba's
        # default threading layer must launch its parallel code from one thread only
        n_words = tree.key_layout(game)[3]
        sequences = start_multiplicity  # going on at the level before
        # made by tasks, not scattered: a task Dask can run again if its worker dies
        level_rows = [client.submit(start_shard, name, options, t, start_multiplicity,
                                    pure=False)
                      for t in range(shards)]
        counts = [0] * tree.N_TOTALS
        moved_before = _worker_figures(client)[0]
        rows: list[tree.TreeRow] = []
        for level in range(1, depth + 1):
            started = time.perf_counter()
            keep = level < depth
            words = tree.count_words(sequences, game)
            expanded = [client.submit(expand_shard, name, options, part, keep, words, shards,
                                      pure=False) for part in level_rows]
            for totals in client.gather(
                    [client.submit(totals_of, e, pure=False) for e in expanded]):
                counts = [c + tree.number_of(t) for c, t in zip(counts, totals)]
            positions, held = None, 0
            if keep:
                # every future is held until the level is done: Dask forgets a released one
                pieces = [[client.submit(piece, e, t, pure=False) for e in expanded]
                          for t in range(shards)]
                level_rows = [client.submit(merge_shard, n_words, *pieces[t], pure=False)
                              for t in range(shards)]
                sizes = [client.submit(len, part, pure=False) for part in level_rows]
                positions = sum(client.gather(sizes))
                # the level's rows, over the workers
                held = positions * (n_words + words) * 8
            sequences = counts[tree.TURNS] - (rows[-1].turns if rows else 0)
            moved, peak = _worker_figures(client)
            row = tree.TreeRow(level, *counts, positions,
                               time.perf_counter() - started, held,
                               {"moved_bytes": moved - moved_before,
                                "worker_peak_bytes": peak})
            moved_before = moved
            rows.append(row)
            if on_level:
                on_level(row)
        return rows
    finally:
        client.close()
