"""What the running warm-up (``mancalab._cache``) has compiled, for the code it compiles.

Kept apart from ``_cache``, which imports the players to compile their searches, so that a
player can ask without importing it back (no import cycle).
"""

from __future__ import annotations

# a search kind's warm-up task by the game's ``Variant.solver``
SOLVER_SEARCHES = {"search": "solve", "retrograde": "retrograde", "forced": "forced"}

plan = None  # the warm-up running in this process (``_cache.Plan``), if any


def solver_compiled(variant) -> bool:
    """Whether ``variant``'s exact solver is compiled, as far as a running warm-up knows
    (True when none runs: it is compiled, or loaded, where it is first used)."""
    running = plan
    solver = SOLVER_SEARCHES.get(variant.solver or "")
    event = running.done.get(f"{solver}:{variant.name}") if running and solver else None
    return event is None or event.is_set()
