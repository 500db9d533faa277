"""The random player: a uniformly random legal move (a baseline, and a sparring partner)."""

from __future__ import annotations

import numpy as np

from ..core import MancalabError, State
from .base import Player, new_seed, seed_option


class RandomPlayer(Player):
    name = "random"
    option_specs = {"seed": seed_option("of the moves")}

    def __init__(self, **options) -> None:
        super().__init__(**options)
        seed = self.options["seed"]
        self._rng = np.random.default_rng(new_seed() if seed is None else seed)

    def choose(self, state: State) -> int:
        legal = state.legal_moves()
        if not legal:
            raise MancalabError("the game is over: there is no move to choose")
        return legal[int(self._rng.integers(len(legal)))]
