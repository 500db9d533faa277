"""Balanced openings for games that cannot be solved: short random openings whose value by a
fixed-depth alpha-beta search is close to 0, so that arena games do not start lopsided.

The arena's default openings (a few random moves) often hand one side a large lead: after 4
random moves of Urubugu the median material margin is 27 of 64 beads. ``--openings balanced``
draws from a list of openings made once per game by ``make`` and shipped with mancalab
(``src/mancalab/data/openings/GAME.txt``, made by ``python tools/make_openings.py``);
the default stays as it was, so earlier tables remain reproducible.
"""

from __future__ import annotations

import random
from functools import lru_cache
from importlib import resources
from typing import Callable

from ...core import MancalabError
from ...players.alphabeta import AlphaBetaPlayer
from ...search import WIN
from ...variants import variant as make_variant

PLIES = 4  # as the arena's random openings


@lru_cache(maxsize=None)
def shipped(game: str) -> tuple[tuple[int, ...], ...]:
    """The balanced openings shipped for ``game`` (moves as cells), or () if none."""
    source = resources.files("mancalab").joinpath(f"data/openings/{game}.txt")
    if not source.is_file():
        return ()
    found = []
    for line in source.read_text("utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            moves, _value = line.split()
            found.append(tuple(int(m) for m in moves.split(",")))
    return tuple(found)


def balanced(game: str, options: dict) -> tuple[tuple[int, ...], ...]:
    """The openings ``--openings balanced`` plays; a clear error where there are none."""
    if options:
        raise MancalabError(f"no fair starts are shipped for {game} with these options, and "
                            "balanced openings are made for the standard rules: leave out -o")
    found = shipped(game)
    if not found:
        raise MancalabError(f"no balanced openings are shipped for {game}")
    return found


def value_of(state, depth: int) -> int:
    """Player 0's margin expected by a ``depth``-ply alpha-beta search (a won or lost game
    counts as the margin it ends with)."""
    adviser = AlphaBetaPlayer(depth=depth)
    adviser.choose(state)
    value = int(adviser.last_info["value"])
    if abs(value) > WIN // 2:
        value -= WIN if value > 0 else -WIN
    return value if state.to_move == 0 else -value


def make(game: str, count: int, depth: int, margin: int, seed: int = 1,
         on_found: Callable[[tuple[int, ...], int], None] | None = None
         ) -> list[tuple[tuple[int, ...], int]]:
    """``count`` distinct openings of ``PLIES`` random moves from ``game``'s start whose
    ``depth``-ply value is within ``margin`` of 0: (moves, value) each."""
    rng = random.Random(seed)
    variant = make_variant(game)
    found, seen = [], set()
    while len(found) < count:
        state, moves = variant.start(), []
        for _ in range(PLIES):
            if state.is_over:
                break
            moves.append(rng.choice(state.legal_moves()))
            state = state.play(moves[-1])
        if state.is_over or tuple(moves) in seen:
            continue
        seen.add(tuple(moves))
        value = value_of(state, depth)
        if abs(value) <= margin:
            found.append((tuple(moves), value))
            if on_found:
                on_found(tuple(moves), value)
    return found
