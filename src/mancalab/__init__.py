"""mancalab: play, analyse and solve mancala (sowing) games.

    import mancalab
    g = mancalab.variant("gebeta")
    s = g.start().play(0)
    bot = mancalab.player("mcts:playouts=20000,seed=1")
"""

from ._cache import configure_numba_cache

configure_numba_cache()  # before any kernel module is imported

from .core import (IllegalMoveError, InvalidPositionError, MancalabError,  # noqa: E402
                   Outcome, State, UnknownOptionError, Variant)
from .players import player  # noqa: E402
from .variants import variant, variants  # noqa: E402

__version__ = "0.1.0"

__all__ = ["variant", "variants", "player", "State", "Outcome", "Variant", "MancalabError",
           "IllegalMoveError", "InvalidPositionError", "UnknownOptionError", "__version__"]
