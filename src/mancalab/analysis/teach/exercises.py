"""Exercises: endless practice of what a beginner must see on the board, checked by the rules.

Research on Gebeta in the early years (Thiel 2025, Educ. Sci. 15(10):1365) found that children
need to practise the direction of sowing, counting where a sowing ends, and telling kinds of
move apart. Each exercise is a position from seeded random play and a question:

- **landing**: a move is shown; where does the last seed of its first lap land? (any cell)
- **which move**: which of your moves does it (a lesson's kind: makes a family or a deposit,
  captures, relays, gives another turn), or **ends_turn**: which move ends your turn? There
  is at least one such move and at least one that is not.

An exercise is named by its game, kind and number, so the server keeps nothing: it is made
again from them to be checked. Whether a move does a kind is read from the move itself
(``lessons.does``, from ``State.sowing`` and ``State.play``); no rule is written here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

from ...core import MancalabError, State
from ...variants import variant as make_variant
from .lessons import LESSONS, does
from .worksheet import first_lap_end

TRIES = 400  # positions tried for an exercise before giving up
MOVE_KINDS = ("relay", "family", "deposit", "capture", "extra_turn")


@dataclass(frozen=True)
class Exercise:
    game: str
    kind: str
    number: int
    state: State
    move: int | None  # the move shown (landing), else None: the learner picks a move
    answers: frozenset[int]  # the right cells (landing) or moves


def kinds(game: str) -> tuple[str, ...]:
    """The kinds of exercise ``game`` has: landing, its lesson's kinds of move, and "which
    move ends your turn" where some moves give another."""
    if game not in LESSONS:
        raise MancalabError(f"no exercises for {game!r} (games: {', '.join(LESSONS)})")
    taught = [kind for kind in LESSONS[game] if kind in MOVE_KINDS]
    ends = ("ends_turn",) if "extra_turn" in taught else ()
    return ("landing", *taught, *ends)


@lru_cache(maxsize=512)
def exercise(game: str, kind: str, number: int) -> Exercise:
    """Exercise ``number`` of ``kind`` in ``game`` (the same every time)."""
    if kind not in kinds(game):
        raise MancalabError(f"{game} has no {kind!r} exercises (its kinds: "
                            f"{', '.join(kinds(game))})")
    rng = random.Random(f"{game}-{kind}-{number}")
    variant = make_variant(game)
    state = variant.start()
    for _ in range(TRIES):
        if state.is_over:
            state = variant.start()
        legal = state.legal_moves()
        if len(legal) >= 2 and rng.random() < 0.3:
            found = _question(state, kind, legal, rng)
            if found is not None:
                move, answers = found
                return Exercise(game, kind, number, state, move, frozenset(answers))
        state = state.play(rng.choice(legal))
    raise MancalabError(f"no {kind} exercise found for {game}")


def _question(state: State, kind: str, legal: list[int], rng: random.Random):
    """(the move shown or None, the right answers) at ``state``, or None if it asks
    nothing worth asking there."""
    if kind == "landing":
        move = rng.choice(legal)
        end = first_lap_end(state, move)
        return None if end is None or end == move else (move, {end})
    if kind == "ends_turn":  # some moves give another turn: tell the others
        right = {move for move in legal if not does(state, move, "extra_turn")}
        return (None, right) if right and len(right) < len(legal) else None
    right = {move for move in legal if does(state, move, kind)}
    # at most half the moves do it, so that the learner has to look (as in a lesson)
    return (None, right) if right and len(right) <= max(1, len(legal) // 2) else None


def check(found: Exercise, answer: int) -> bool:
    """Whether ``answer`` (a cell for landing, else a legal move) is right; MancalabError
    for an answer that is no cell, or no legal move where a move is asked for."""
    if isinstance(answer, bool) or not isinstance(answer, int):
        raise MancalabError(f"an answer is a cell number, not {answer!r}")
    if found.move is not None:
        if not 0 <= answer < found.state.variant.n_cells:
            raise MancalabError(f"{answer} is no cell of the board (0..."
                                f"{found.state.variant.n_cells - 1})")
    elif answer not in found.state.legal_moves():
        raise MancalabError(f"{answer} is not a legal move here (legal: "
                            f"{', '.join(map(str, found.state.legal_moves()))})")
    return answer in found.answers
