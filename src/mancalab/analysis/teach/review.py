"""A game's review: each position's value, and each move judged by what it gave away.

Positions are appraised (``solving.appraisal``): exactly when the solver proves them in the
time given, else by the expert's search (an estimate, said as such). A move is judged against the
best move of its position: "best", "good", "inaccuracy", "mistake" by the units it lost (the
game's ``review_bands``: seeds, families, beads), and "blunder" when it changed the result
under perfect play (a win into a draw or a loss) or lost more than the bands. The terminal's
``mancalab review`` and the browser's review both use this module.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...core import State
from ..solving.appraisal import Appraisal

MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")


def played_value(before: Appraisal, after: Appraisal, state: State, move: int,
                 following: State) -> tuple[float | None, bool]:
    """The value of ``move`` for its mover: proven in ``before``'s moves when it is there,
    else ``after``'s value turned to the mover's side; and whether it is exact."""
    proven = before.moves.get(move) if before.exact else None
    if proven is not None:
        return proven, True
    if after.value is None:
        return None, False
    value = after.value if following.to_move == state.to_move else -after.value
    return value, after.exact and before.exact


def judge(best: float | None, played: float | None, exact: bool,
          bands: tuple[float, float, float]) -> tuple[str | None, float | None]:
    """The mark of a move worth ``played`` where the best is worth ``best`` (both for the
    mover), and what it lost. ``bands`` (good, inaccuracy, mistake): the most a move may lose
    and still be marked so; more is a blunder, as is (exact) a change of the result."""
    if best is None or played is None:
        return None, None
    lost = max(0.0, best - played)
    if lost == 0:
        return "best", 0
    sign = (lambda v: (v > 0) - (v < 0))
    if exact and sign(played) < sign(best):
        return "blunder", lost
    good, inaccuracy, mistake = bands
    for mark, most in (("good", good), ("inaccuracy", inaccuracy), ("mistake", mistake)):
        if lost <= most:
            return mark, lost
    return "blunder", lost


def judged(states: list[State], moves: list[int], appraisals: list[Appraisal]) -> Iterator[dict]:
    """Each move of a game with its mark: ``appraisals`` of ``states`` (one more state than
    moves when the last position is appraised too; a move after the last appraisal is
    left out)."""
    for ply, move in enumerate(moves):
        if ply + 1 >= len(appraisals):
            return
        state, following = states[ply], states[ply + 1]
        before, after = appraisals[ply], appraisals[ply + 1]
        value, exact = played_value(before, after, state, move, following)
        best = before.value
        mark, lost = judge(best, value, exact, state.variant.teaching.review_bands)
        yield {"ply": ply, "mover": state.to_move, "move": move,
               "name": state.move_name(move), "value": value, "best_value": best,
               "exact": exact, "mark": mark, "lost": lost, "best_cells": before.best_cells,
               "best_moves": [state.move_name(cell) for cell in before.best_cells]}


def for_player_a(state: State, appraisal: Appraisal) -> float | None:
    """An appraisal's value from the first player's side (the evaluation graph's)."""
    if appraisal.value is None:
        return None
    return appraisal.value if state.to_move == 0 else -appraisal.value
