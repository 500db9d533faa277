"""The games, one module each: compiled kernels, layout and notation."""

from __future__ import annotations

from ..core import UnknownOptionError, Variant
from .gebeta import Gebeta

VARIANTS: dict[str, type[Variant]] = {cls.name: cls for cls in (Gebeta,)}


def variant(name: str, **options) -> Variant:
    """The game ``name`` with its options, e.g. ``variant("gebeta")``."""
    key = str(name).strip().lower()
    if key not in VARIANTS:
        raise UnknownOptionError(f"unknown game {name!r} (games: {', '.join(VARIANTS)})")
    return VARIANTS[key](**options)


def variants() -> list[str]:
    return list(VARIANTS)
