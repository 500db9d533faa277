"""Long computations on a Dask cluster (``--cluster tcp://HOST:8786``), or on this machine.

Dask distributed is an optional extra (``pip install "mancalab[cluster]"``). A cluster is
started with ``dask scheduler`` and ``dask worker tcp://HOST:8786`` on each machine; the same
command then runs here (``--jobs``, worker processes) or there (``--cluster ADDRESS``).

``workers(jobs, cluster, initializer)`` gives a ``concurrent.futures`` executor either way:
a process pool, or the cluster's executor. The initializer (load the compiled kernels, open a
database) runs once on every worker, also on workers that join or restart later, through a
worker plugin, so tasks find their worker warm. Dask reschedules the tasks of a worker that
dies; the sweeps write each result as it comes, so a run stopped by a lost scheduler goes on
from its results file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any

from .core import MancalabError

CONNECT_SECONDS = 10


def _distributed():
    try:
        import distributed
    except ImportError:
        raise MancalabError('--cluster needs Dask: pip install "mancalab[cluster]"') from None
    return distributed


def connect(address: str):
    """A Dask client of the scheduler at ``address``; MancalabError in one line if the
    extra is missing or the scheduler cannot be reached."""
    distributed = _distributed()
    try:
        return distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        raise MancalabError(f"cannot reach the Dask scheduler at {address}: "
                            f"{type(error).__name__}: {error}") from None


class _Warm:
    """A worker plugin that runs ``initializer(*initargs)`` on every worker, now and on
    those that join later."""

    def __init__(self, initializer: Callable, initargs: tuple) -> None:
        self.initializer, self.initargs = initializer, initargs

    def setup(self, worker) -> None:
        self.initializer(*self.initargs)


@contextlib.contextmanager
def workers(jobs: int, cluster: str | None = None, initializer: Callable | None = None,
            initargs: tuple = ()) -> Iterator[Executor]:
    """An executor: ``jobs`` local processes, or the workers of the Dask scheduler at
    ``cluster``; ``initializer`` runs once in each."""
    if cluster is None:
        # spawned, not forked: a fork of a process whose compiled code started threads can
        # hang in the child
        with ProcessPoolExecutor(jobs, mp_context=get_context("spawn"), initializer=initializer,
                                 initargs=initargs) as pool:
            yield pool
        return
    client = connect(cluster)
    try:
        if initializer is not None:
            warm_workers(client, initializer, initargs)
        yield client.get_executor()
    finally:
        client.close()


def warm_workers(client, initializer: Callable, initargs: tuple = ()) -> None:
    """Run ``initializer(*initargs)`` on every worker of ``client``'s cluster, now and on
    any worker that joins or restarts later (a worker plugin)."""
    distributed = _distributed()
    plugin = type("MancalabWarm", (_Warm, distributed.WorkerPlugin), {})(initializer, initargs)
    client.register_plugin(plugin, name=f"mancalab-{initializer.__module__}."
                                        f"{initializer.__name__}")


def map_unordered(pool: Executor, fn: Callable, items: list, *args: Any,
                  ahead: int = 4) -> Iterator[Any]:
    """``fn(item, *args)`` for each item on ``pool``, results as they finish (a few tasks
    queued a worker, so a long run never holds every task at once)."""
    from concurrent.futures import FIRST_COMPLETED, wait

    waiting = iter(items)
    running: set = set()
    limit = ahead * max(1, getattr(pool, "_max_workers", 0) or 8)
    try:
        while True:
            for item in waiting:
                running.add(pool.submit(fn, item, *args))
                if len(running) >= limit:
                    break
            if not running:
                return
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
    finally:  # the caller stopped early (a match decided): the tasks not begun are dropped
        for future in running:
            future.cancel()


def each(fn: Callable, items: list, *args: Any, jobs: int = 1, cluster: str | None = None,
         initializer: Callable | None = None, initargs: tuple = ()) -> Iterator[Any]:
    """``fn(item, *args)`` for each item, results as they come: in this process when
    ``jobs`` is 1 and there is no cluster (``initializer`` run here first), else on
    ``workers(jobs, cluster, initializer, initargs)``."""
    if jobs <= 1 and cluster is None:
        if initializer is not None:
            initializer(*initargs)
        for item in items:
            yield fn(item, *args)
        return
    with workers(jobs, cluster, initializer, initargs) as pool:
        yield from map_unordered(pool, fn, items, *args)
