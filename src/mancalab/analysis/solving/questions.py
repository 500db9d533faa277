"""Closing a Gebeta or Gabata position's bounds by yes-or-no questions: "can the mover force
a final margin of at least v?" (L >= v) and "can the opponent hold it below v?" (U < v).

Each question goes first to the quick proof search (``proof``, each position searched once:
its proofs are proofs, its failures only hints), raced between the two sides, which brackets
L from below and U from above (down from the top in growing steps, then by halving); where
that leaves a gap, the exact proof search, then the attractor walk (``threshold``, minutes
and gigabytes for an opening position, only with ``walk``) answer each v in it from the top.
An answer not found in time leaves the bounds proven so far.
"""

from __future__ import annotations

import time as clock
from collections.abc import Callable

from ...core import State
from . import proof, threshold
from .graph import mover_view
from .results import Cancel, SolveResult
from .retrograde import Database, layout_of

QUICK_NODES = 5_000_000  # a quick question's budget (seconds at most)
RACE_FIRST = 20_000  # a race's first budget for each side
EXACT_NODES = 2_000_000  # an exact proof search's, before the attractor walk


class Asker:
    """The questions about one position (its mover's margins), within one deadline;
    ``on_answer(question)`` is told each answer (``proof.Question`` or
    ``threshold.Answer``)."""

    def __init__(self, state: State, database: Database | None, deadline: float | None,
                 walk: bool = False, on_answer: Callable | None = None,
                 cancel: Cancel | None = None):
        a, b = state.score
        self.state, self.database, self.deadline = state, database, deadline
        self.walk, self.on_answer, self.cancel = walk, on_answer, cancel
        self.banked = a - b if state.to_move == 0 else b - a
        self.pits = mover_view(state)

    def _left(self) -> float | None:
        return None if self.deadline is None else self.deadline - clock.monotonic()

    def proves(self, target: int, prover: int, quick: bool,
               max_nodes: int | None = None) -> bool | None:
        """Whether ``prover`` (0: the mover, for "at least ``target``"; 1: the opponent, for
        "below it") has a proof: True, False (proven not, exact only), or None when not
        found (quick: NOT_FOUND is answered False) or not answered within the budget."""
        left = self._left()
        if left is not None and left <= 0:
            return None
        question = proof.ask(self.state.variant, self.pits, target, self.database,
                             prover=prover, banked=self.banked, time=left, quick=quick,
                             max_nodes=max_nodes or (QUICK_NODES if quick else EXACT_NODES),
                             cancel=self.cancel)
        if self.on_answer:
            self.on_answer(question)
        if question.answer == proof.PROVEN:
            return True
        return False if question.answer in (proof.FAILED, proof.NOT_FOUND) else None

    def race(self, target: int) -> int | None:
        """Which side proves its half of "at least ``target``?" first by quick searches
        with budgets growing fourfold, each side in turn: 0 (the mover: L >= target), 1 (the
        opponent: U < target), or None. A true claim is usually proven fast and a false
        one searched long, so neither waits for the other's failure."""
        budget = RACE_FIRST
        done = [False, False]  # searched to the end without a proof
        while not all(done):
            for prover in (0, 1):
                if done[prover]:
                    continue
                found = self.proves(target, prover, True, budget)
                if found:
                    return prover
                if found is False:
                    done[prover] = True
            if budget >= QUICK_NODES or (self.cancel is not None and self.cancel.cancelled) \
                    or (self.deadline is not None and self._left() <= 0):
                return None
            budget = min(QUICK_NODES, 4 * budget)
        return None

    def exactly(self, target: int) -> tuple[bool | None, bool | None]:
        """(L >= target, U >= target), each None where not answered."""
        under_l = self.proves(target, 0, quick=False)
        held = self.proves(target, 1, quick=False)
        under_u = None if held is None else not held
        stopped = self.cancel is not None and self.cancel.cancelled
        if (under_l is None or under_u is None) and self.walk and not stopped:
            left = self._left()
            if left is None or left > 0:
                answer = threshold.at_least(self.state.variant, self.pits, target,
                                            self.database, banked=self.banked, time=left)
                if self.on_answer:
                    self.on_answer(answer)
                under_l = answer.under_l if under_l is None else under_l
                under_u = answer.under_u if under_u is None else under_u
        return under_l, under_u


def close(state: State, low: int, high: int, database: Database | None,
          deadline: float | None = None, on_answer=None, walk: bool = False,
          cancel: Cancel | None = None) -> tuple[int, int]:
    """(L, U) of ``state`` for its mover, from the proven [``low``, ``high``]: the quick
    proof searches close them, each step won by the side that proves its half: down from the
    top in growing steps, then by halving (a claim near the extremes is proven fastest: at
    "+48?" every marble the opponent could bank ends a line);
    where neither does (the rule for endless play decides, or a budget ran out) the gap left
    is asked exactly from the top (the first yes under U is U, the first yes under L is L)."""
    if low >= high:
        return low, high
    step = layout_of(state.variant).margin_step
    asker = Asker(state, database, deadline, walk, on_answer, cancel)
    gap = 0  # galloping down from the top until the mover proves something, then halving
    while low < high:
        if gap is None:
            middle = low + step * (((high - low) // step + 1) // 2)
        else:
            middle = max(low + step, high - gap)
        side = asker.race(middle)
        if side is None:
            break
        if side == 0:
            low, gap = middle, None
        else:
            high = middle - step
            gap = None if gap is None else max(step, 2 * gap)
    upper = high
    for target in range(high, low, -step):
        under_l, under_u = asker.exactly(target)
        if under_l is None or under_u is None:
            return low, upper
        if not under_u:
            upper = target - step
        if under_l:
            return target, upper
    return low, upper


def close_move(state, move, low, high, database, deadline, on_answer=None,
               walk: bool = False, cancel: Cancel | None = None) -> tuple[int, int]:
    """A move's bounds [``low``, ``high``] for the mover, closed over the position after it
    (``close``: the answers are about the player to move there)."""
    child = state.play(move)
    if child.is_over:
        return low, high
    if child.to_move == state.to_move:
        return close(child, low, high, database, deadline, on_answer, walk, cancel)
    child_low, child_high = close(child, -high, -low, database, deadline, on_answer, walk,
                                  cancel)
    return -child_high, -child_low


def tighten(state: State, result: SolveResult, database: Database | None,
            time: float | None = None, walk: bool = False,
            cancel: Cancel | None = None) -> SolveResult:
    """Close the bounds a walk cut short left in ``result`` by questions (``close``): the
    value's, then every move's it holds (with ``moves``), else, the value being exact, ask
    each move whether it reaches it, so the best moves are proven too. Each question within
    what is left of ``time``; what is not answered stays bounds. The questions' positions are
    added to ``result.nodes``."""
    deadline = None if time is None else clock.monotonic() + time

    def counted(question) -> None:
        result.nodes += question.nodes

    result.lower, result.upper = close(state, result.lower, result.upper, database, deadline,
                                       counted, walk, cancel)
    result.exact = result.lower == result.upper
    result.value = result.lower if result.exact else None
    for move, (low, high) in result.moves.items():
        if low < high:
            result.moves[move] = close_move(state, move, low, high, database, deadline,
                                            counted, walk, cancel)
    if not result.exact:
        return result
    if result.moves:
        best = [m for m, (low, _) in result.moves.items() if low >= result.value]
    else:
        best = [m for m in state.legal_moves()
                if _reaches(state, m, result.value, database, deadline, walk, cancel, counted)]
    result.best_moves = sorted(best)
    result.best_move_names = [state.move_name(m) for m in result.best_moves]
    return result


def _reaches(state, move, value, database, deadline, walk, cancel, on_answer=None) -> bool:
    """Whether ``move`` is proven to reach ``value`` for the mover."""
    child = state.play(move)
    a, b = child.score
    if child.is_over:
        return (a - b if state.to_move == 0 else b - a) >= value
    asker = Asker(child, database, deadline, walk, on_answer, cancel)
    if child.to_move == state.to_move:
        return asker.race(value) == 0 or asker.exactly(value)[0] is True
    # the opponent moves: the mover reaches ``value`` when the opponent cannot hold it
    # below, i.e. the opponent's U < 1 - value (proven by the mover as "prover 1")
    return asker.race(1 - value) == 1 or asker.exactly(1 - value)[1] is False
