"""The games, one module each: compiled kernels, layout and notation."""

from __future__ import annotations

from ..core import UnknownOptionError, Variant
from .gabata import Gabata
from .gabata3 import Gabata3
from .gebeta import Gebeta
from .kalah import Kalah
from .urubugu import Urubugu

VARIANTS: dict[str, type[Variant]] = {
    cls.name: cls for cls in (Gebeta, Urubugu, Gabata, Kalah, Gabata3)}


def variant(name: str, **options) -> Variant:
    """The game ``name`` with its options, e.g. ``variant("gebeta")``."""
    key = str(name).strip().lower()
    if key not in VARIANTS:
        raise UnknownOptionError(f"unknown game {name!r} (games: {', '.join(VARIANTS)})")
    return VARIANTS[key](**options)


def variants() -> list[str]:
    return list(VARIANTS)
