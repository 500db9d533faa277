"""The games, one module each (compiled kernels, layout, notation, its ``Variant`` class), and
the registry of them.

mancalab's own games are the modules named in ``BUILT_IN``; a game from another installed
package registers through the entry-point group ``mancalab.games`` (the entry point names
its ``Variant`` class, docs/adding-a-game.md) and is then everywhere mancalab's own are: the
commands, the terminal, the browser, the arena and the environments. Everything that goes
over every game (the compiled rule switch of ``mancalab.kernels``, the web catalogue, the
generic tests) reads this registry; an unknown game raises.
"""

from __future__ import annotations

import importlib
import warnings
from importlib.metadata import entry_points

from ..core import UnknownOptionError, Variant

BUILT_IN = ("gebeta", "urubugu", "gabata", "kalah", "gabata3", "oware")
ENTRY_POINTS = "mancalab.games"
DEFAULT_GAME = "kalah"  # where a command or an environment is not told which game


def _check(cls: object, games: dict[str, type[Variant]]) -> str | None:
    """Why ``cls`` cannot be registered next to ``games``, or None."""
    if not (isinstance(cls, type) and issubclass(cls, Variant)):
        return "it is not a mancalab.core.Variant subclass"
    if not cls.name or not cls.name.isidentifier() or cls.name != cls.name.lower():
        return f"its name {cls.name!r} is not a lower-case identifier"
    if cls.name in games:
        return f"the game {cls.name!r} is registered already"
    if not isinstance(cls.__dict__.get("game_id"), int) or cls.game_id < 0:
        return "it has no game_id of its own (a whole number, params[0] of its kernels)"
    taken = {other.game_id: name for name, other in games.items()}
    if cls.game_id in taken:
        return f"its game_id {cls.game_id} is {taken[cls.game_id]}'s"
    return None


def _registry() -> dict[str, type[Variant]]:
    games: dict[str, type[Variant]] = {}
    for module in BUILT_IN:
        cls = next(value for value in vars(importlib.import_module(f".{module}", __name__))
                   .values() if isinstance(value, type) and issubclass(value, Variant)
                   and value is not Variant and value.name == module)
        why = _check(cls, games)
        if why:
            raise TypeError(f"mancalab's game {module!r} cannot be registered: {why}")
        games[cls.name] = cls
    for point in sorted(entry_points(group=ENTRY_POINTS), key=lambda point: point.name):
        try:
            cls = point.load()
        except Exception as error:  # a broken plugin must not stop mancalab's own games
            warnings.warn(f"the game {point.name!r} ({point.value}) did not load: "
                          f"{type(error).__name__}: {error}", stacklevel=2)
            continue
        why = _check(cls, games)
        if why:
            warnings.warn(f"the game {point.name!r} ({point.value}) is not registered: {why}",
                          stacklevel=2)
            continue
        games[cls.name] = cls
    return games


VARIANTS: dict[str, type[Variant]] = _registry()


def variant(name: str, **options) -> Variant:
    """The game ``name`` with its options, e.g. ``variant("gebeta")``."""
    key = str(name).strip().lower()
    if key not in VARIANTS:
        raise UnknownOptionError(f"unknown game {name!r} (games: {', '.join(VARIANTS)})")
    return VARIANTS[key](**options)


def variants() -> list[str]:
    return list(VARIANTS)


def examples() -> list[Variant]:
    """Every registered game with its default options, then with each of its ``examples``:
    what the tests over every game play."""
    return [cls(**options) for cls in VARIANTS.values() for options in ({}, *cls.examples)]
