"""Computer players, looked up by a spec string such as ``"mcts:time=1.5,seed=1"``."""

from __future__ import annotations

from ..core import UnknownOptionError
from .alphabeta import AlphaBetaPlayer
from .base import Player
from .classic import ClassicPlayer
from .greedy import GreedyPlayer
from .mcts import MCTSPlayer
from .random import RandomPlayer

PLAYERS: dict[str, type[Player]] = {
    cls.name: cls
    for cls in (RandomPlayer, GreedyPlayer, ClassicPlayer, MCTSPlayer, AlphaBetaPlayer)}


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and the raw options."""
    name, _, rest = spec.strip().partition(":")
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise UnknownOptionError(f"bad player option {item!r} in {spec!r}: write key=value")
        options[key.strip()] = value.strip()
    return name.strip().lower(), options


def player(spec: str) -> Player:
    """A new player from its spec string, e.g. ``player("mcts:playouts=20000,seed=1")``."""
    name, options = parse_spec(spec)
    if name not in PLAYERS:
        raise UnknownOptionError(
            f"unknown player {name!r} (players: {', '.join(sorted(PLAYERS))})")
    return PLAYERS[name](**options)


__all__ = ["PLAYERS", "Player", "player", "parse_spec"]
