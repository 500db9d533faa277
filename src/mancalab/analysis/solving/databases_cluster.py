"""Endgame databases built on a Dask cluster: each level (a seed count) cut into slices of
ranks, one task a slice.

A level needs every level below it, so each worker keeps one array of the database being
built (a process-wide cache) and copies into it the lower levels its task brings: Dask sends
each finished level to a worker once, when a task there first needs it. Positions of the same
level that a slice's positions lead to (quiet sowings) are computed on the way where they are
needed, as on one machine, so slices never wait for each other. The client holds the futures
of every level: a worker that dies takes nothing with it that Dask cannot compute again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from ...core import Variant
from ...variants import variant as make_variant
from . import databases

SLICES_PER_WORKER = 4  # a level's tasks: enough to even out the workers, few enough to
# keep each task seconds long on the big levels
MIN_SLICE = 1 << 16  # ranks: smaller levels are one task

_built: dict[str, tuple[np.ndarray, set[int]]] = {}  # per worker: the arrays being built
_lock = threading.Lock()  # a worker's compiled builds run one at a time


def build_slice(options: dict, seeds: int, level: int, begin: int, end: int,
                *lower: np.ndarray) -> np.ndarray:
    """The values of ranks ``begin``..``end``-1 of ``level`` (``lower``: the levels below)."""
    from numba import get_num_threads

    variant = make_variant("kalah", **options)
    binom, total = databases.plan(variant, seeds)
    n = 2 * variant.options["pits"]
    key = databases.file_name(variant, seeds)  # the rules and the seeds
    with _lock:
        values, filled = _built.get(key) or (databases.empty_values(total), set())
        _built.clear()  # one database at a time on a worker
        _built[key] = values, filled
        for below, block in enumerate(lower):
            if below not in filled:
                start = databases.level_start(binom, below, n)
                values[start:start + len(block)] = block
                filled.add(below)
        chunks = max(1, min(4096, (end - begin) // 2048, 64 * get_num_threads()))
        databases.build_level(variant.params, level, values, binom, begin, end, chunks,
                              np.zeros(1, dtype=np.int64), databases.rows_for(variant, chunks))
        start = databases.level_start(binom, level, n)
        return values[start + begin:start + end].copy()


def join(*slices: np.ndarray) -> np.ndarray:
    return np.concatenate(slices)


def build(variant: Variant, seeds: int, cluster: str,
          on_progress: Callable[[int, int, int], None] | None = None) -> databases.Database:
    """The database of ``variant`` up to ``seeds`` seeds, built on the workers of the Dask
    scheduler at ``cluster``."""
    from ...cluster import connect

    binom, total = databases.plan(variant, seeds)
    n = 2 * variant.options["pits"]
    options = dict(variant.options)
    client = connect(cluster)
    try:
        workers = max(1, len(client.scheduler_info()["workers"]))
        levels: list = []  # a future per level, held until the end
        for level in range(seeds + 1):
            count = int(binom[level + n - 1, n - 1])
            per = max(MIN_SLICE, -(-count // (SLICES_PER_WORKER * workers)))
            slices = [client.submit(build_slice, options, seeds, level, begin,
                                    min(count, begin + per), *levels, pure=False)
                      for begin in range(0, count, per)]
            levels.append(client.submit(join, *slices, pure=False))
            levels[-1].result()  # the next level needs it: wait, and report
            if on_progress:
                on_progress(level, count, count)
        values = databases.empty_values(total)
        for level, future in enumerate(levels):
            block = future.result()
            start = databases.level_start(binom, level, n)
            values[start:start + len(block)] = block
        return databases.Database(variant, seeds, values, None, binom)
    finally:
        client.close()
