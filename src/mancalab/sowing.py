"""A move step by step: the rule kernels note every change they make to a cell.

Each game's ``play`` kernel takes an optional ``trace`` array. Without it (every search and
analysis) numba compiles a version in which ``note`` is nothing at all, so the hot loops pay
nothing; with it, the same kernel, the one set of rules, writes one row per change:

    (kind, cell, count after, seeds in hand after)

so the browser can animate a move seed by seed and a teacher can show how a relay went.
Replaying the rows on the cells before the move gives the cells after it exactly (a test).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types
from numba.extending import overload

# The kinds of change (column 0 of a trace row).
LIFT = 1     # a hole's seeds go into the hand, to be sown
DROP = 2     # one seed from the hand falls into a hole or store
CAPTURE = 3  # seeds leave a hole as a capture or a family (into the hand if they are re-sown)
BANK = 4     # a store, deposit or family count grows by captured or swept seeds
SET = 5      # any other change: a new round's filling, a hand given back
KINDS = {LIFT: "lift", DROP: "drop", CAPTURE: "capture", BANK: "bank", SET: "set"}

# Row 0 of a trace array is its header: [rows used, 1 if it ran out of room, 0, 0].
USED, FULL = 0, 1


def note(trace, kind, board, cell, hand):
    """Write a row for the change just made to ``board[cell]`` (nothing if ``trace`` is None).

    Compiled code only. When ``trace`` is None it compiles to an empty function, which LLVM
    inlines away: the playouts run as fast as with no note at all. (An overload inlined by
    numba itself, ``inline="always"``, did the same at twice a rule's compile time.)"""
    raise NotImplementedError("note is called from compiled rule kernels only")


@overload(note)
def _note(trace, kind, board, cell, hand):
    if isinstance(trace, (types.NoneType, types.Omitted)):
        return lambda trace, kind, board, cell, hand: None

    def write(trace, kind, board, cell, hand):
        n = trace[0, USED] + 1
        if n < trace.shape[0]:
            trace[n, 0] = kind
            trace[n, 1] = cell
            trace[n, 2] = board[cell]
            trace[n, 3] = hand
            trace[0, USED] = n
        else:
            trace[0, FULL] = 1
    return write


class Step(NamedTuple):
    """One change of a move: ``cell`` now holds ``count``; ``hand`` seeds are in the hand."""

    kind: str  # "lift" | "drop" | "capture" | "bank" | "set"
    cell: int
    count: int
    hand: int


def new_trace(steps: int) -> np.ndarray:
    """An empty trace with room for ``steps`` rows: its header zeroed, the rows left as the
    memory holds them (only the rows written are read). Zeroing them all cost a server
    about 0.5 ms a move: freed and taken again, the memory came back as fresh pages."""
    trace = np.empty((steps + 1, 4), dtype=np.int64)
    trace[0] = 0
    return trace


def read_trace(trace: np.ndarray, n_cells: int) -> list[Step] | None:
    """The steps of a filled trace (changes to the game's cells only); None if it overflowed."""
    if trace[0, FULL]:
        return None
    rows = trace[1: trace[0, USED] + 1]
    return [Step(KINDS[int(kind)], int(cell), int(count), int(hand))
            for kind, cell, count, hand in rows if cell < n_cells]


def narrate(state, move: int, limit: int = 100_000) -> list[str]:
    """``move`` in words, a line for each lift and what follows it, in the notation of the
    player to move (the opponent's holes are "their ..."): for showing how a relay went."""
    steps = state.sowing(move, limit)
    if steps is None:
        return [f"(more than {limit:,} steps)"]
    mover, variant = state.to_move, state.variant

    def name(cell: int, noun: bool = True) -> str:
        own = variant.cell_label(state, mover, cell)
        if own:
            return f"hole {own}" if noun and own.isdigit() else own
        theirs = variant.cell_label(state, 1 - mover, cell)
        return f"their {theirs}" if theirs else f"cell {cell}"

    lines: list[str] = []
    sown: list[str] = []

    def flush() -> None:
        if sown:
            lines[-1] += f", sows {', '.join(sown)}"
            sown.clear()

    for step in steps:
        if step.kind == "lift":
            flush()
            lines.append(f"lifts {step.hand} from {name(step.cell)}")
        elif step.kind == "drop":
            sown.append(name(step.cell, noun=False))
        elif step.kind == "capture":
            flush()
            lines.append(f"captures {name(step.cell)} (hand {step.hand})")
        elif step.kind == "bank":
            flush()
            lines.append(f"banks into {name(step.cell)}")
    flush()
    return lines


def gain(state, move: int) -> int:
    """What ``move`` adds to its mover's score."""
    after = state.play(move)
    return after.score[state.to_move] - state.score[state.to_move]


def preview(state, move: int, limit: int = 100_000) -> dict:
    """What ``move`` would do, for a player deciding: the cell where its last seed lands (None
    for a relay longer than ``limit`` steps), its laps (lifts), the cells it captures from,
    what it adds to the mover's score, whether the mover plays again and whether the game
    ends, and its ``way`` (``way``). Worked out by the rules' own kernels, never guessed."""
    steps = state.sowing(move, limit)
    after = state.play(move)
    mover = state.to_move
    drops = [step.cell for step in steps or [] if step.kind == "drop"]
    return {"cell": int(move),
            "lands": drops[-1] if steps is not None and drops else None,
            "laps": None if steps is None else sum(step.kind == "lift" for step in steps),
            "captured": None if steps is None else sorted(
                {step.cell for step in steps if step.kind == "capture"}),
            "gain": after.score[mover] - state.score[mover],
            "again": not after.is_over and after.to_move == mover,
            "ends": after.is_over,
            "way": way(steps, move)}


def way(steps, move: int, drops: int = 2) -> list[int]:
    """The way a move sows (its ``steps``), without giving its end away: the hole it lifts
    from and the cells its first ``drops`` seeds fall into, never its first lap's last (drawn
    as an arrow; the rest the learner counts)."""
    steps = steps or []
    lifts = [i for i, step in enumerate(steps) if step.kind == "lift"]
    lap = steps[:lifts[1]] if len(lifts) > 1 else steps
    cells = [step.cell for step in lap if step.kind == "drop"][:-1]
    return [move, *cells[:drops]]
