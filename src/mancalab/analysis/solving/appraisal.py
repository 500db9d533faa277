"""A position's appraisal: its value for the player to move, exact when the solver proves
it in the time given (with every move's proven value), else an alpha-beta estimate in the
same units, said as such. The review (``analysis.teach.review``) marks moves by appraisals; the
perfect player makes them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ...core import State
from ...search import WIN

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
