"""Computer players, looked up by a spec string such as ``"mcts:time=1.5,seed=1"``."""

from __future__ import annotations

import hashlib
import importlib.util
import re
import sys
from pathlib import Path

from ..core import UnknownOptionError
from ..variants import VARIANTS
from .alphabeta import AlphaBetaPlayer
from .base import Player
from .classic import ClassicPlayer
from .engine import EnginePlayer
from .greedy import GreedyPlayer
from .mcts import MCTSPlayer
from .perfect import PerfectPlayer
from .random import RandomPlayer
from .ugi import UGIPlayer

PLAYERS: dict[str, type[Player]] = {
    cls.name: cls
    for cls in (RandomPlayer, GreedyPlayer, ClassicPlayer, MCTSPlayer, AlphaBetaPlayer,
                PerfectPlayer, EnginePlayer, UGIPlayer)}


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``"name:key=value,key=value"`` into the name and the raw options. A player from
    a Python file is named ``FILE.py:CLASS`` (its options after another colon)."""
    spec = spec.strip()
    file_player = re.match(r"(.+?\.py:[A-Za-z_]\w*)(?::(.*))?$", spec)
    if file_player:
        name, rest = file_player.group(1), file_player.group(2) or ""
    else:
        name, _, rest = spec.partition(":")
        name = name.strip().lower()
    options: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip() or not value.strip():
            raise UnknownOptionError(f"bad player option {item!r} in {spec!r}: write key=value")
        options[key.strip()] = value.strip()
    return name, options


def from_file(name: str) -> type[Player]:
    """The player class ``CLASS`` of ``FILE.py:CLASS``, loaded from that file (once per
    process; worker processes load it again by its name, as the spec travels as text)."""
    path_text, _, class_name = name.rpartition(":")
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise UnknownOptionError(f"no player file {path_text!r} (write FILE.py:CLASS)")
    module = _module_of(path, path_text)
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Player)):
        raise UnknownOptionError(f"{path_text} has no player class {class_name!r} (a subclass "
                                 "of mancalab.players.Player)")
    return cls


def display_name(spec: str) -> str:
    """A player as records and results name it: a file's class as "CLASS (FILE.py)", a spec
    as written; at most 40 characters (a record's names are)."""
    if ".py:" in spec:
        path, _, rest = spec.partition(".py:")
        spec = f"{rest.partition(':')[0]} ({Path(path).name}.py)"
    spec = " ".join(spec.split())
    return spec if len(spec) <= 40 else spec[:39] + "…"


def players_in(folder: str | Path) -> list[str]:
    """The specs ``FILE.py:CLASS`` of every player class defined in the Python files of
    ``folder`` (a class of mancalab.players.Player made there, not one imported)."""
    folder = Path(folder).expanduser()
    if not folder.is_dir():
        raise UnknownOptionError(f"no folder {str(folder)!r}")
    specs = []
    for path in sorted(folder.glob("*.py")):
        module = _module_of(path.resolve(), str(path))
        for name, cls in vars(module).items():
            if (isinstance(cls, type) and issubclass(cls, Player) and cls is not Player
                    and cls.__module__ == module.__name__):
                specs.append(f"{path}:{name}")
    if not specs:
        raise UnknownOptionError(f"{folder} holds no player class (a subclass of "
                                 "mancalab.players.Player in a .py file)")
    return specs


def _module_of(path: Path, path_text: str):
    """The module of a player file, loaded once a process."""
    module_name = "mancalab_player_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    module = sys.modules.get(module_name)
    if module is None:
        loader = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[module_name] = module
        try:
            loader.loader.exec_module(module)
        except Exception as error:
            del sys.modules[module_name]
            raise UnknownOptionError(f"cannot load {path_text}: {type(error).__name__}: "
                                     f"{error}") from None
    return module


# Levels for people, weakest first; each is a player spec (measured strength: README).
LEVELS: dict[str, str] = {
    "beginner": "classic:level=-1",
    "easy": "greedy",
    "medium": "classic:level=4",
    "hard": "mcts:time=1",
    "expert": "alphabeta:time=1",
}
# A game's own levels, where the arena ordered its players otherwise: each level beats the one
# below it in that game (``Variant.teaching.levels``; the measurements, game by game:
# docs/players.md, "Levels for people").
GAME_LEVELS: dict[str, dict[str, str]] = {
    name: dict(cls.teaching.levels) for name, cls in VARIANTS.items() if cls.teaching.levels}


def level_spec(level: str, game: str | None = None) -> str:
    """The player spec a level stands for, in ``game`` if given."""
    return GAME_LEVELS.get(game or "", {}).get(level, LEVELS[level])


def resolve(spec: str, game: str | None = None) -> tuple[type[Player], dict[str, str]]:
    """The player class and options of a spec; a level name stands for its spec (in ``game``,
    when levels differ there), and options given with it win (``expert:time=3``)."""
    name, options = parse_spec(spec)
    if ".py:" in name:
        return from_file(name), options
    if name in LEVELS:
        name, level_options = parse_spec(level_spec(name, game))
        options = {**level_options, **options}
    if name not in PLAYERS:
        raise UnknownOptionError(
            f"unknown player {name!r} (players: {', '.join(sorted(PLAYERS))}; "
            f"levels: {', '.join(LEVELS)})")
    return PLAYERS[name], options


def player(spec: str, game: str | None = None) -> Player:
    """A new player from its spec string, e.g. ``player("mcts:playouts=20000,seed=1")`` or
    ``player("expert", game="gebeta")`` (a level is the one measured for that game)."""
    cls, options = resolve(spec, game)
    return cls(**options)


def with_time(spec: str, seconds: float, game: str | None = None) -> str:
    """``spec`` with a time a move, for players that think by the clock and were not given a
    time, a game clock or a fixed amount of work already."""
    cls, options = resolve(spec, game)
    fixed = {"time", "clock", "playouts", "depth"} & {k for k, v in options.items() if v != "0"}
    if not cls.thinks_by_clock or fixed - {"time"} or "time" in parse_spec(spec)[1]:
        return spec
    name, own = parse_spec(spec)
    return f"{name}:" + ",".join(f"{k}={v}" for k, v in {**own, "time": seconds}.items())


def with_seed(spec: str, seed: int, game: str | None = None) -> str:
    """``spec`` with ``seed``, unless it names one already or its player takes none (all of
    mancalab's take one; a player of your own may not)."""
    name, own = parse_spec(spec)
    if "seed" in own or "seed" not in resolve(spec, game)[0].option_specs:
        return spec
    return f"{name}:" + ",".join(f"{k}={v}" for k, v in {**own, "seed": seed}.items())


__all__ = ["GAME_LEVELS", "LEVELS", "PLAYERS", "Player", "level_spec", "parse_spec", "player",
           "display_name", "players_in", "resolve", "with_seed", "with_time"]
