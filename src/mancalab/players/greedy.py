"""The greedy player: one ply, the move that leaves the mover the best margin of material
(``State.material``: the score; in 3-row Gabata the seeds held).

This is the Urubugu program's computer (docs/rules/urubugu.md): there the 64 beads are always
all on the board, so the best margin is exactly "the move that leaves the opponent the fewest
beads". Ties go to the first move in the game's move order (Urubugu: the lowest hole number;
the other games: the lowest pit). For every other game it is the natural one-ply greedy player.
"""

from __future__ import annotations

import time

from ..core import State
from .base import Player, seed_option


def greedy_values(state: State) -> dict[int, int]:
    """For each legal move, in the game's move order: the mover's margin of material after it."""
    mover = state.to_move
    values = {}
    for move in state.legal_moves():
        material = state.play(move).material
        values[move] = material[mover] - material[1 - mover]
    return values


class GreedyPlayer(Player):
    name = "greedy"
    option_specs = {"seed": seed_option("greedy is deterministic; kept for a uniform spec")}

    def choose(self, state: State) -> int:
        started = time.perf_counter()
        return self.choose_by_value(greedy_values(state), started)
