"""Lessons: a few steps per game, each a task on a real board that the rules check.

A step asks for a kind of move: any sowing, a relay (the sowing goes on from where it ends),
a move that makes a family or a deposit (the score grows), an extra turn, a capture, a move
that ends the round (3-row Gabata: the board is filled again and a race decides who starts). Its
position is found in seeded random play: one where some moves do what the step asks and
some do not, so the learner has to look. Whether a move does it is read from the move
itself, as the rules play it (``State.sowing`` and ``State.play``): no rule is written here.
"""

from __future__ import annotations

import random
from functools import lru_cache

from ...core import MancalabError, State
from ...variants import VARIANTS, variant as make_variant

LESSONS = {name: cls.teaching.lessons for name, cls in VARIANTS.items()}  # Variant.teaching.lessons
SEED = 7
TRIES = 5000


def does(state: State, move: int, kind: str) -> bool:
    """Whether ``move`` at ``state`` is a move of ``kind``, as the rules play it."""
    if kind == "sow":
        return True
    steps = state.sowing(move) or []
    if kind == "relay":
        return sum(step.kind == "lift" for step in steps) >= 2
    if kind == "capture":
        return any(step.kind == "capture" for step in steps)
    if kind == "round_end":  # a new round's filling follows the move
        return any(step.kind == "set" for step in steps)
    after = state.play(move)
    if kind in ("family", "deposit"):
        return after.score[state.to_move] > state.score[state.to_move]
    if kind == "extra_turn":
        return not after.is_over and after.to_move == state.to_move
    raise MancalabError(f"unknown kind of move {kind!r}")


@lru_cache(maxsize=None)
def position(game: str, kind: str) -> State:
    """The position of a step: the start for "sow", else the first position of seeded
    random play where at most half the legal moves (one at least) are of ``kind``."""
    variant = make_variant(game)
    if kind == "sow":
        return variant.start()
    rng = random.Random(f"{SEED}-{game}-{kind}")
    state = variant.start()
    for _ in range(TRIES):
        if state.is_over:
            state = variant.start()
        legal = state.legal_moves()
        doing = [move for move in legal if does(state, move, kind)]
        if doing and len(doing) <= max(1, len(legal) // 2) and rng.random() < 0.5:
            return state
        state = state.play(rng.choice(legal))
    raise MancalabError(f"no position found for a {kind} lesson in {game}")


def steps(game: str) -> list[tuple[str, State]]:
    """The lesson of ``game``: (kind, position) for each step."""
    if game not in LESSONS:
        raise MancalabError(f"no lesson for {game!r} (games: {', '.join(LESSONS)})")
    return [(kind, position(game, kind)) for kind in LESSONS[game]]
