"""mancalab: play, analyse and solve mancala (sowing) games.

    import mancalab
    g = mancalab.variant("gebeta")
    s = g.start().play(0)
    bot = mancalab.player("mcts:playouts=20000,seed=1")
"""

from __future__ import annotations

from ._cache import configure_numba_cache

configure_numba_cache()  # before any kernel module is imported

from .core import (IllegalMoveError, InvalidPositionError, MancalabError,  # noqa: E402
                   Outcome, State, UnknownOptionError, Variant)
from .board import Board  # noqa: E402
from .draw.html import notebook_html  # noqa: E402
from .players import player  # noqa: E402
from .variants import variant, variants  # noqa: E402

__version__ = "0.1.0"

State._repr_html_ = notebook_html  # a board in a notebook, drawn as the browser draws it


def solve(state: State, time: float | None = None, moves: bool = False, **options):
    """The exact value of ``state`` for the player to move with perfect play (its final
    margin), the moves that keep it and, with ``moves``, every move's value; with ``time``
    (seconds) the bounds proven by then. See ``mancalab.analysis.solving.solve``."""
    from .analysis import solving  # the solver loads only when asked for

    return solving.solve(state, time=time, moves=moves, **options)


__all__ = ["variant", "variants", "player", "solve", "State", "Board", "Outcome", "Variant",
           "MancalabError", "IllegalMoveError", "InvalidPositionError", "UnknownOptionError", "__version__"]
