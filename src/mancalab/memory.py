"""Memory for the big tables: how much is available, and zeroed arrays on huge pages.

A solver's transposition table takes gigabytes and is probed at random, so with 4 KiB pages
almost every probe also misses the TLB; asking Linux for 2 MiB pages (transparent huge pages,
``madvise``) removes most of those misses. Pages are taken only when first written.
"""

from __future__ import annotations

import mmap
import os

import numpy as np

HUGE_PAGE = 2 << 20


def available_memory() -> int:
    """Bytes of memory available to a new allocation (Linux: MemAvailable), else the free
    physical memory."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def large_zeros(shape: tuple[int, ...], dtype) -> np.ndarray:
    """A zeroed array, on huge pages where the system offers them (small ones: np.zeros)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(shape)) * dtype.itemsize
    if size < HUGE_PAGE or not hasattr(mmap, "MADV_HUGEPAGE"):
        return np.zeros(shape, dtype=dtype)
    area = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        area.madvise(mmap.MADV_HUGEPAGE)
    except OSError:  # no transparent huge pages here: ordinary pages
        pass
    return np.frombuffer(area, dtype=dtype).reshape(shape)
