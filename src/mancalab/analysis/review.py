"""A game's review: each position's value, and each move judged by what it gave away.

A position is appraised exactly when the solver proves it in the time given (every move's
value), else by the expert's search (an estimate, said as such). A move is judged against the
best move of its position: "best", "good", "inaccuracy", "mistake" by the units it lost (the
game's ``review_bands``: seeds, families, beads), and "blunder" when it changed the result
under perfect play (a win into a draw or a loss) or lost more than the bands. The terminal's
``mancalab review`` and the browser's review both use this module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..core import State
from ..players.alphabeta import WIN

MARKS = ("best", "good", "inaccuracy", "mistake", "blunder")
FORCED_MOVES = 20  # forced moves followed at most to estimate a position
WON = WIN // 2  # an estimate beyond this is a won (or lost) game: alpha-beta's WIN plus margin


@dataclass
class Appraisal:
    """A position's value for the player to move (its final margin), ``exact`` or an
    estimate; with an exact one, each move's proven value (None where not proven)."""

    value: float | None
    exact: bool
    moves: dict[int, int | None] = field(default_factory=dict)
    best_cells: list[int] = field(default_factory=list)
    won: bool = False  # an estimate that sees a won (lost) game: the value is its margin


def final_margin(state: State) -> int:
    """A finished game's margin for the player to move."""
    a, b = state.score
    return a - b if state.to_move == 0 else b - a


def from_estimate(value: float | None) -> tuple[float | None, bool]:
    """An alpha-beta value as a margin, and whether it sees the game won or lost."""
    if value is None or abs(value) < WON:
        return value, False
    return value - (WIN if value > 0 else -WIN), True


def appraise(state: State, solve: Callable[[State], object] | None,
             estimate: Callable[[State], float | None]) -> Appraisal:
    """``state`` valued by ``solve(state)`` (a ``SolveResult`` with its moves, or None for a
    game with no solver) when it proves it, else by ``estimate(state)``."""
    if state.is_over:
        return Appraisal(final_margin(state), True)
    if solve is not None:
        result = solve(state)
        if result.exact:
            moves = {cell: (low if low == high else None)
                     for cell, (low, high) in result.moves.items()}
            return Appraisal(result.value, True, moves, list(result.best_moves))
    value, won = _estimated(state, estimate)
    return Appraisal(value, False, won=won)


def _estimated(state: State, estimate: Callable[[State], float | None]):
    """``estimate(state)`` as a margin and whether it sees the game decided; a search with
    a single legal move gives no value, so the position after a forced move is asked (and
    turned to this mover's side)."""
    sign = 1
    for _ in range(FORCED_MOVES):
        if state.is_over:
            return sign * final_margin(state), True
        value, won = from_estimate(estimate(state))
        legal = state.legal_moves()
        if value is not None or len(legal) != 1:
            return (None if value is None else sign * value), won
        following = state.play(legal[0])
        if following.to_move != state.to_move:
            sign = -sign
        state = following
    return None, False


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
        mark, lost = judge(best, value, exact, state.variant.review_bands)
        yield {"ply": ply, "mover": state.to_move, "move": move,
               "name": state.move_name(move), "value": value, "best_value": best,
               "exact": exact, "mark": mark, "lost": lost, "best_cells": before.best_cells,
               "best_moves": [state.move_name(cell) for cell in before.best_cells]}


def for_player_a(state: State, appraisal: Appraisal) -> float | None:
    """An appraisal's value from the first player's side (the evaluation graph's)."""
    if appraisal.value is None:
        return None
    return appraisal.value if state.to_move == 0 else -appraisal.value
