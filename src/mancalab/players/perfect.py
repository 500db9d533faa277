"""The perfect player: a move of the best exact value, from ``mancalab.analysis.solving``.

Each move it gives the solver half its time; when the position is solved, it plays one of the
best moves (ties broken at random with its seed) and ``last_info`` holds the exact value. When
it is not solved in time (the opening of Kalah(6,4) takes minutes), or the game has no exact
solver yet (Urubugu, 3-row Gabata), it plays the fallback player's move (``fallback``:
alpha-beta, or MCTS on ``threads`` cores, the stronger on Gebeta) in the time left and says
so: ``last_info["exact"]`` is False and ``last_info["fallback"]`` names the reason.

With ``turn`` a whole turn, its extra moves included, takes at most about that long: a move
that goes on with the turn gets half of what the turn has left (Gabata's level: a turn there
can be ten moves and more, the person having none, and the person waits for all of them).

In Gebeta and Gabata a solved position can still have no exact value: where neither player
can force the game to end, the value depends on the rule for endless play and the solver
gives final bounds. The player then plays a move with the best guaranteed value (lower
bound), then the best upper bound: nobody can do better without knowing the rule's outcome.

Among moves of the best value it first prefers those to positions this game has not seen yet
(the fewest times seen): a best value keeps the result but not always progress, and in
Gebeta and Gabata moves of equal value can go round in circles until the rule for endless
play ends the game, at a worse result than the value (the player remembers the positions of
the game it plays; an unseen one with more seeds in play than the last begins a new game).
Then it prefers (``traps``, Gebeta and Gabata) those after which a
reply taken at random most often turns the result (win, draw, loss) our way, then gives away
the most on average: against perfect play they are all the same, against a fallible opponent
they are not.
With ``fallback=mcts`` the MCTS search then breaks the remaining ties in the time left: of
moves equal against perfect play it picks the one whose games go best against anyone, and,
in positions that can repeat, moves that get on with the game rather than go round in
circles (a random choice among equal moves can cycle until the rule for endless play ends
the game at a worse result).
"""

from __future__ import annotations

import random
import time
from collections import Counter

from ..warming import solver_compiled
from ..core import MancalabError, Option, State, real, whole
from ..variants.common import bool_option
from .alphabeta import AlphaBetaPlayer
from .base import Player, new_seed, seed_option
from .mcts import MCTSPlayer

FALLBACKS = {"alphabeta": AlphaBetaPlayer, "mcts": MCTSPlayer}
MIN_SHARE = 0.05  # of a move's time: the least a move of a turn short of time gets
LAST_SHARE = 0.01  # ... once the turn has less than that left: a long turn's tail stays short


class PerfectPlayer(Player):
    name = "perfect"
    thinks_by_clock = True
    option_specs = {
        "time": Option(2.0, real, lambda v: v > 0, "seconds a move, above 0"),
        "turn": Option(0.0, real, lambda v: v >= 0,
                       "seconds a whole turn takes at most, its extra moves included "
                       "(0: no limit)"),
        "seed": seed_option("breaks ties among equally good moves"),
        "fallback": Option("alphabeta", str, lambda v: v in FALLBACKS,
                           "the player of a position not solved in time: alphabeta or mcts"),
        "threads": Option(1, whole, lambda v: 1 <= v <= 64,
                          "with fallback=mcts: its searches side by side, 1..64"),
        "traps": Option(True, bool_option, lambda v: True,
                        "true or false: among moves of the best value, prefer those after "
                        "which a random reply gives away the most (Gebeta, Gabata)"),
    }

    def __init__(self, **options) -> None:
        super().__init__(**options)
        seed = self.options["seed"]
        self.rng = random.Random(new_seed() if seed is None else seed)
        fallback = self.options["fallback"]
        self.fallback = (MCTSPlayer(threads=self.options["threads"], seed=seed)
                         if fallback == "mcts" else AlphaBetaPlayer())
        self._cancel = None
        self._seen: Counter = Counter()  # the positions of this game: before and after a move
        self._in_play = None  # seeds in play at the last move: more begin a new game
        self._known = None  # (state, settled analysis) proven before: played from, not solved
        self._turn_at = None  # where this player's last move left the game
        self._turn_spent = 0.0  # seconds spent on the turn going on

    def know(self, state: State, answer: dict | None) -> None:
        """Play ``state`` from ``answer``, a settled analysis of it proven before (a server
        keeps those it proves), instead of solving it again."""
        self._known = (state, answer) if answer and answer.get("best_cells") else None

    def stop(self) -> None:
        super().stop()
        self.fallback.stop()
        if self._cancel is not None:
            self._cancel.cancel()

    def advice(self, state: State) -> str | None:
        """What would make this player stronger on ``state``'s game (the start's book when
        it can be built and is not), or None."""
        from ..analysis.solving import book as books  # loads only when a game asks

        return books.book_advice(state.variant)

    def analyse(self, state: State) -> dict:
        """Every legal move's exact value for the player to move, or its bounds when not
        proven in the player's time: ``SolveResult.to_dict`` with the moves' cells.
        MancalabError for a game with no exact solver."""
        from ..analysis import solving

        reason = solving.unsolvable(state.variant)
        if reason is not None:
            raise MancalabError(reason)
        return self._solve(state, self.capped(self.options["time"]), moves=True).answer()

    def appraise(self, state: State):
        """``state``'s value for the player to move (``solving.appraisal.Appraisal``): exact
        with every move's value when solved in half the player's time, else the fallback
        search's estimate in the time left."""
        from ..analysis import solving
        from ..analysis.solving.appraisal import appraise

        started = time.perf_counter()
        budget = self.capped(self.options["time"])

        def solve(position: State):
            return self._solve(position, budget / 2, moves=True)

        def estimate(position: State):
            fallback = self._ready_fallback(budget, started)
            fallback.choose(position)
            return fallback.last_info.get("value")

        solvable = solving.unsolvable(state.variant) is None
        return appraise(state, solve if solvable else None, estimate)

    def _solve(self, state: State, seconds: float, moves: bool = False,
               exact_only: bool = False):
        """``solve`` for this player, stopped by ``stop``; a server (which caps its players)
        gets no database build and no extra threads."""
        from ..analysis import solving

        served = self.cap is not None
        self._cancel = solving.Cancel()
        return solving.solve(state, time=seconds, moves=moves, build=not served,
                             cancel=self._cancel, parallel=not served,
                             exact_only=exact_only)

    def _remember(self, state: State) -> None:
        """Count ``state`` among this game's positions (one not seen with seeds come back
        into play begins a new game)."""
        in_play = sum(state.cells) - sum(state.score)
        if self._in_play is not None and in_play > self._in_play and state not in self._seen:
            self._seen.clear()
        self._in_play = in_play
        self._seen[state] += 1

    def _fresh(self, state: State, moves: list[int]) -> list[int]:
        """Of ``moves``, those to the positions this game has seen the fewest times."""
        seen = {m: self._seen[state.play(m)] for m in moves}
        fewest = min(seen.values())
        return [m for m in moves if seen[m] == fewest]

    def _budget(self, state: State) -> float:
        """This move's seconds: ``time`` (capped), and with ``turn`` at most what the turn
        has left: the whole of it for a turn's first move, half of it for a move that goes
        on with the turn (``state`` is where this player's last move left the game: an
        extra move, or the opponent had none), and never less than ``MIN_SHARE`` of ``time``,
        or ``LAST_SHARE`` once the turn has less than that left (at ``MIN_SHARE`` a move, a
        Gabata turn of twenty moves runs 0.4 s past its time)."""
        seconds = self.capped(self.options["time"])
        if state != self._turn_at:
            self._turn_spent = 0.0
        turn = self.options["turn"]
        if not turn:
            return seconds
        left = turn - self._turn_spent
        least = seconds * (MIN_SHARE if left > seconds * MIN_SHARE else LAST_SHARE)
        return max(least, min(seconds, left / 2 if self._turn_spent else left))

    def _played(self, state: State, move: int, started: float) -> int:
        """``move``, counted in this game's positions and in the turn's time."""
        self._turn_at = state.play(move)
        self._turn_spent += time.perf_counter() - started
        self._remember(self._turn_at)
        return move

    def _traps(self, result, moves: list[int]) -> list[int]:
        """Of ``moves``, those after which a random reply is worth the most (``traps``): the
        mean result (1 a win, 1/2 a draw), then the mean margin."""
        if not self.options["traps"] or not result.replies:
            return moves

        def worth(move: int) -> tuple[float, float]:
            values = result.replies[move]
            return (sum((v > 0) + (v == 0) / 2 for v in values) / len(values),
                    sum(values) / len(values))

        most = max(worth(m) for m in moves)
        return [m for m in moves if worth(m) == most]

    def _among(self, state: State, moves: list[int], budget: float, started: float) -> int:
        """One of ``moves`` (all of one value): MCTS's choice in the time left with
        ``fallback=mcts``, else one at random."""
        if len(moves) == 1 or self.options["fallback"] != "mcts":
            return self.rng.choice(moves)
        return self._ready_fallback(budget, started).choose(state, among=moves)

    def _ready_fallback(self, budget: float, started: float):
        """The fallback player, given the time left of ``budget`` and this player's cap."""
        self.fallback.options["time"] = max(0.01, budget - (time.perf_counter() - started))
        self.fallback.cap, self.fallback.thread_cap = self.cap, self.thread_cap
        return self.fallback

    def _choose_by_bounds(self, state: State, result, budget: float, started: float) -> int:
        """A move of the best final bounds, the lower (guaranteed) one first."""
        best = max(result.moves.values())
        move = self._among(state, self._traps(result, self._fresh(state, [
            m for m, bounds in result.moves.items() if bounds == best])), budget, started)
        self.last_info = {"value": None, "exact": False, "lower": result.lower,
                          "upper": result.upper, "endless": True,
                          "best": [result.move_names[move]], "nodes": result.nodes,
                          "seconds": time.perf_counter() - started}
        return move

    def choose(self, state: State) -> int:
        from ..analysis import solving  # the solver loads only when a game asks

        legal = state.legal_moves()
        if not legal:
            raise MancalabError("the game is over: there is no move to choose")
        started = time.perf_counter()
        self._remember(state)
        budget = self._budget(state)
        known, self._known = self._known, None
        if known is not None and known[0] == state:
            best = [cell for cell in known[1]["best_cells"] if cell in legal]
            if best:
                move = self._among(state, self._fresh(state, best), budget, started)
                self.last_info = {"value": known[1]["value"], "exact": True,
                                  "best": [state.move_name(m) for m in best],
                                  "seconds": time.perf_counter() - started}
                return self._played(state, move, started)
        reason = solving.unsolvable(state.variant)
        if reason is None and not solver_compiled(state.variant):
            reason = "the exact solver is still being compiled"
        if reason is None:
            result = self._solve(state, budget / 2, exact_only=True,
                                 moves=solving.repeats(state.variant))
            if result.exact and result.best_moves:
                move = self._among(state, self._traps(result, self._fresh(
                    state, result.best_moves)), budget, started)
                self.last_info = {"value": result.value, "exact": True,
                                  "best": result.best_move_names, "nodes": result.nodes,
                                  "seconds": time.perf_counter() - started}
                return self._played(state, move, started)
            if result.endless:
                return self._played(state, self._choose_by_bounds(state, result, budget,
                                                                  started), started)
            reason = (f"not solved in {budget / 2:g} s (the value is between "
                      f"{result.lower:+d} and {result.upper:+d})")
        move = self._ready_fallback(budget, started).choose(state)
        self.last_info = {**self.fallback.last_info, "exact": False,
                          "fallback": f"{self.options['fallback']}: {reason}",
                          "seconds": time.perf_counter() - started}
        return self._played(state, move, started)
