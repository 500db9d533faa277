"""Every game's compiled rules behind one switch, for the game-independent compiled code.

Search and analysis kernels (MCTS playouts, tree statistics, ...) call these functions, which
branch on ``params[0]`` (the game's ``game_id``) to the game's own kernels (``Kernels``). A
switch rather than passing functions around keeps numba's on-disk cache working: numba
cannot cache a function that takes another compiled function as an argument.

The switch is written from the registry (``mancalab.variants.VARIANTS``) when this module is
imported: every registered game, a plugin's too, gets its branch, and an id no game has
raises. Its source is compiled under this file's name, so that numba caches it here like the
functions written out below (the cache folder is keyed by the games' sources and the
plugins registered, ``mancalab._cache``). ``legal_mask`` and ``play`` are inlined into their
callers (numba ``inline="always"``): the extra call layer of the switch cost the tree
statistics a quarter of their playing time.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import movemask
from .core import ONGOING
from .variants import VARIANTS

# name, arguments, inlined into its caller
SWITCHED = (("legal_mask", "params, board", True), ("play", "params, board, move", True),
            ("settle", "params, board", False), ("score", "params, board, player", False),
            ("material", "params, board, player", False))
DOCS = {
    "legal_mask": "The legal moves as a mask (``mancalab.movemask``); 0 once the game is over.",
    "play": "Play a legal move in place.",
    "settle": "Apply the end rule to a position given directly (not reached by a move).",
    "score": "``player``'s score (families, store, beads held ...: the game's ``score_noun``).",
    "material": "``player``'s material, what the players weigh short of the game's end: the "
                "game's ``Kernels.material``, else its score.",
}


def switch_source(games: dict) -> tuple[str, dict]:
    """The source of the switch over ``games`` (name -> Variant class) and the globals it
    reads (each game's kernels as ``_<game>_<kernel>``)."""
    lines, names = [], {}
    for kernel, arguments, inline in SWITCHED:
        lines += ['@njit(cache=True, inline="always")' if inline else "@njit(cache=True)",
                  f"def {kernel}({arguments}):", f'    """{DOCS[kernel]}"""', "    game = params[0]"]
        for name, cls in games.items():
            function = getattr(cls.kernels, kernel) or cls.kernels.score  # material: score
            names[f"_{name}_{kernel}"] = function
            lines += [f"    if game == {int(cls.game_id)}:",
                      f"        return _{name}_{kernel}({arguments})"]
        lines += ['    raise ValueError("params[0] is the id of no registered game")', ""]
    return "\n".join(lines), names


def _build_switch() -> dict:
    source, names = switch_source(VARIANTS)
    namespace = {"__name__": __name__, "njit": njit, **names}
    exec(compile(source, __file__, "exec"), namespace)
    return namespace


_switch = _build_switch()
legal_mask, play, settle, score, material = (_switch[kernel] for kernel, _, _ in SWITCHED)


@njit(cache=True)
def margin(params, board):
    """Player 0's score minus player 1's."""
    return score(params, board, 0) - score(params, board, 1)


@njit(cache=True)
def material_margin(params, board):
    """Player 0's material minus player 1's."""
    return material(params, board, 0) - material(params, board, 1)


@njit(cache=True)
def seed_rng(seed):
    """Seed the random numbers of compiled code (numba keeps its own generator)."""
    np.random.seed(seed)


@njit(cache=True)
def random_moves(params, board, max_plies):
    """Play uniformly random legal moves in place until the game ends or ``max_plies`` moves
    have been played; return how many were played."""
    plies = 0
    while board[-1] == ONGOING and plies < max_plies:
        legal = legal_mask(params, board)
        play(params, board, movemask.nth(legal, np.random.randint(movemask.count(legal))))
        plies += 1
    return plies
