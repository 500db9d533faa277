"""A Kalah player to improve: the template of the FairKalah classroom kit (docs/classroom.md).

Run it against the computer's levels, on the 254 fair boards, with a game clock:

    mancalab tournament --folder players/ easy medium --boards 4 --clock 60

A player is a class with ``choose(state) -> move``. ``state`` is a ``mancalab.State``:

- ``state.legal_moves()``  the cells you may sow from (your pits, 0..5 for the first player,
  7..12 for the second; 6 and 13 are the stores);
- ``state.play(move)``     the position after a move (a new State: nothing is changed);
- ``state.to_move``        0 or 1: whose turn it is (after a move ending in your store, yours
  again);
- ``state.score``          the seeds in each store; ``state.cells`` every count;
- ``state.is_over``        whether the game has ended.

``self.clock`` is set before each move in a tournament: the seconds left to each player,
(first, second). Run out of it and you lose the game, so look at it when you search deeper.
"""

import time

from mancalab.players import Player


def evaluate(state, me):
    """How good ``state`` is for player ``me``: here only the stores' difference. Improve it:
    seeds still on your side, empty pits that can capture, extra turns in reach..."""
    return state.score[me] - state.score[1 - me]


def search(state, me, depth, deadline):
    """The value of ``state`` for ``me`` looking ``depth`` moves ahead (minimax: we take our
    best move, the opponent theirs). An extra turn is searched as the same player's turn."""
    if depth == 0 or state.is_over or time.perf_counter() > deadline:
        return evaluate(state, me)
    values = [search(state.play(move), me, depth - 1, deadline)
              for move in state.legal_moves()]
    return max(values) if state.to_move == me else min(values)


class StudentPlayer(Player):
    """Looks two moves ahead with ``evaluate``; uses at most a fortieth of its clock."""

    name = "student"
    depth = 2

    def choose(self, state):
        me = state.to_move
        seconds_left = self.clock[me] if self.clock else 60.0
        deadline = time.perf_counter() + seconds_left / 40
        best_move, best_value = None, None
        for move in state.legal_moves():
            value = search(state.play(move), me, self.depth - 1, deadline)
            if best_value is None or value > best_value:
                best_move, best_value = move, value
        self.last_info = {"value": best_value}
        return best_move


class DeeperStudent(StudentPlayer):
    """The same, four moves ahead: the first improvement to try (is it stronger? measure)."""

    name = "deeper-student"
    depth = 4
