"""What the running warm-up (``mancalab._cache``) has compiled, for the code it compiles,
and how long numba compiled in a block, for the timings that leave a first run's compiling out.

Kept apart from ``_cache``, which imports the players to compile their searches, so that a
player or an analysis can ask without importing it back (no import cycle).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

# a search kind's warm-up task by the game's ``Variant.solving.method``
SOLVER_SEARCHES = {"search": "solve", "retrograde": "retrograde", "forced": "forced"}

plan = None  # the warm-up running in this process (``_cache.Plan``), if any


def solver_compiled(variant) -> bool:
    """Whether ``variant``'s exact solver is compiled, as far as a running warm-up knows
    (True when none runs: it is compiled, or loaded, where it is first used)."""
    running = plan
    solver = SOLVER_SEARCHES.get(variant.solving.method or "")
    event = running.done.get(f"{solver}:{variant.name}") if running and solver else None
    return event is None or event.is_set()


@contextlib.contextmanager
def compiling_timed() -> Iterator[Callable[[], float]]:
    """Yields a function telling the seconds numba has spent compiling (or loading compiled
    code) in this process since the block began, during and after it (numba's event API): a
    first run's, which a timing names apart instead of passing it off as the work."""
    from numba.core.event import TimingListener, install_listener

    listener = TimingListener()
    with install_listener("numba:compile", listener):
        yield lambda: listener.duration if listener.done else 0.0
