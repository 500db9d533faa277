"""mancalab: play, analyse and solve mancala (sowing) games.

    import mancalab
    g = mancalab.variant("gebeta")
    s = g.start().play(0)
    bot = mancalab.player("mcts:playouts=20000,seed=1")
"""

from .core import (IllegalMoveError, InvalidPositionError, MancalabError, Outcome, State,
                   UnknownOptionError, Variant)
from .players import player
from .variants import variant, variants

__version__ = "0.1.0"

__all__ = ["variant", "variants", "player", "State", "Outcome", "Variant", "MancalabError",
           "IllegalMoveError", "InvalidPositionError", "UnknownOptionError", "__version__"]
