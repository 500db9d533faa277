"""Engine matches: two players over many games on a clock with an increment, colours swapped
for each start, judged exactly where the solver knows the end, stopped by an SPRT.

A match is the arena (``arena``: pairs of games from the same start, a crash or an illegal
move or a flag losing the game) with what engine authors test with (cutechess, fishtest):

- a time control ``BASE+INCREMENT`` in seconds (``TimeControl``);
- adjudication by exact tables: after every move the referee asks the solver for the
  position's exact value (at most ``arena.ADJUDICATION_SECONDS``, no database built); where
  it is proven the game ends there with that exact result and margin (``[Termination
  "adjudication"]`` in its record), so no game is played out whose result is known;
- a sequential probability ratio test on the pairs' results (``SPRT``: the pentanomial
  generalized SPRT that fishtest uses), which stops the match once it decides between "A is
  no better than ELO0" and "A is ELO1 better";
- a record file of every game (PGN-like, ``mancalab.records``), written as each ends.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...core import MancalabError
from . import arena
from .tournament import clocked

MAX_SECONDS = 86_400.0  # a day: a longer base is a typo
MAX_INCREMENT = 600.0
PRIOR = 1e-3  # added to each of the five pair results' counts, as fishtest regularizes them


@dataclass(frozen=True)
class TimeControl:
    """Seconds each player has for the game, and seconds added after each of its moves."""

    base: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``"10+0.1"`` (10 s a game, 0.1 s a move added) or ``"60"``."""
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)(?:\s*\+\s*(\d+(?:\.\d+)?))?\s*", str(text))
        if not match:
            raise MancalabError(f"a clock is BASE+INCREMENT in seconds, e.g. 10+0.1, not "
                                f"{str(text)[:40]!r}")
        base, increment = float(match.group(1)), float(match.group(2) or 0)
        if not 0 < base <= MAX_SECONDS or increment > MAX_INCREMENT:
            raise MancalabError(f"a clock's base is above 0 and at most {MAX_SECONDS:g} s, its "
                                f"increment at most {MAX_INCREMENT:g} s, not {text!r}")
        return cls(base, increment)

    def __str__(self) -> str:
        return f"{self.base:g}+{self.increment:g}"


def expected_score(elo: float) -> float:
    """The mean score that an Elo difference predicts (the logistic curve)."""
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class SPRT:
    """H0: A is ``elo0`` better than B (or less); H1: A is ``elo1`` better; ``alpha`` and
    ``beta`` the chances of accepting H1 wrongly and H0 wrongly."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise MancalabError(f"the SPRT's {name} must be a finite number")
        if not -1000 <= self.elo0 < self.elo1 <= 1000:
            raise MancalabError(f"--sprt takes ELO0,ELO1 with ELO0 < ELO1 within ±1000, not "
                                f"{self.elo0:g},{self.elo1:g}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise MancalabError("--alpha and --beta are above 0 and below 0.5")

    @classmethod
    def parse(cls, text: str, alpha: float = 0.05, beta: float = 0.05) -> SPRT:
        try:
            elo0, elo1 = (float(part) for part in str(text).split(","))
        except ValueError:
            raise MancalabError(f"--sprt takes ELO0,ELO1, e.g. 0,10, not {str(text)[:40]!r}") \
                from None
        return cls(elo0, elo1, alpha, beta)

    @property
    def bounds(self) -> tuple[float, float]:
        """The log-likelihood ratios at which H0, then H1, is accepted."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, pair_scores: list[float]) -> float:
        """The log-likelihood ratio of H1 over H0 after these pairs (each pair's mean score
        for A: 0, 1/4, 1/2, 3/4 or 1): the generalized SPRT over the five pair results, each
        hypothesis's distribution the likeliest one with its expected score (each count
        given ``PRIOR``), as fishtest computes it."""
        if not pair_scores:
            return 0.0
        counts = [PRIOR] * 5
        for score in pair_scores:
            counts[round(score * 4)] += 1
        total = sum(counts)
        observed = [c / total for c in counts]
        q0 = _likeliest(observed, expected_score(self.elo0))
        q1 = _likeliest(observed, expected_score(self.elo1))
        return sum(c * math.log(b / a) for c, a, b in zip(counts, q0, q1))

    def verdict(self, llr: float) -> str | None:
        """"H0" or "H1" once a bound is crossed, else None."""
        lower, upper = self.bounds
        return "H1" if llr >= upper else ("H0" if llr <= lower else None)


def _likeliest(observed: list[float], mean: float) -> list[float]:
    """The distribution over the pair scores 0, 1/4, ..., 1 closest to ``observed`` (the
    maximum likelihood) whose mean score is ``mean``: ``observed[k] / (1 + x (k/4 - mean))``
    with ``x`` found by bisection where every weight stays positive."""
    gaps = [k / 4 - mean for k in range(5)]
    low = -1 / max(gaps) if max(gaps) > 0 else -1e9
    high = -1 / min(gaps) if min(gaps) < 0 else 1e9
    low, high = low + 1e-12 * abs(low), high - 1e-12 * abs(high)

    def slope(x: float) -> float:
        return sum(p * g / (1 + x * g) for p, g in zip(observed, gaps))

    for _ in range(200):  # slope falls with x: its zero is the likeliest distribution
        middle = (low + high) / 2
        low, high = (middle, high) if slope(middle) > 0 else (low, middle)
    x = (low + high) / 2
    weights = [p / (1 + x * g) for p, g in zip(observed, gaps)]
    total = sum(weights)
    return [w / total for w in weights]


@dataclass
class MatchResult:
    """The games played (in order), the SPRT's last ratio and verdict, and the
    adjudications."""

    results: list[arena.GameResult]
    planned: int
    llr: float | None = None
    verdict: str | None = None
    adjudicated: list[arena.GameResult] = field(default_factory=list)

    @property
    def judging_seconds(self) -> float:
        return sum(r.judging for r in self.results)

    def adjudication_dict(self) -> dict:
        done = self.adjudicated
        return {"adjudicated": len(done),
                "mean_adjudication_ply": (sum(r.plies for r in done) / len(done)
                                          if done else None),
                "mean_played_out_ply": _mean([r.plies for r in self.results if r not in done]),
                "judging_seconds": round(self.judging_seconds, 3)}


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def schedule(a: str, b: str, game: str, options: dict, games: int, control: TimeControl,
             seed: int, openings: str = "random", adjudicate: bool = True) -> list[arena.GameSpec]:
    """The games of the match: the arena's pairs, each player given the clock (mancalab's own
    players share out their time by it; engines are told both clocks at every move)."""
    kind = "balanced" if openings == "fair" else openings
    specs = arena.schedule(clocked(a, control.base, game), clocked(b, control.base, game),
                           game, options, games, seed, kind)
    return [replace(spec, clock=control.base, increment=control.increment,
                    adjudicate=adjudicate) for spec in specs]


def run(specs: list[arena.GameSpec], sprt: SPRT | None = None, jobs: int = 1,
        on_result: Callable[[arena.GameResult, float | None], None] | None = None,
        cluster: str | None = None) -> MatchResult:
    """Play the match, ``jobs`` games at a time; with ``sprt`` it stops (the games under way
    dropped) once the ratio crosses a bound. ``on_result(result, llr)`` hears each game."""
    from ...cluster import each

    done: dict[int, arena.GameResult] = {}
    match = MatchResult([], len(specs))
    games = each(arena.play_game, specs, jobs=jobs, cluster=cluster)
    try:
        for result in games:
            done[result.number] = result
            if sprt is not None:
                match.llr = sprt.llr(pair_scores(done))
                match.verdict = sprt.verdict(match.llr)
            if on_result:
                on_result(result, match.llr)
            if match.verdict:
                break
    finally:
        games.close()
    match.results = [done[n] for n in sorted(done)]
    match.adjudicated = [r for r in match.results if r.how == "adjudication"]
    return match


def pair_scores(done: dict[int, arena.GameResult]) -> list[float]:
    """A's mean score in each pair of games both played (games 1 and 2, 3 and 4, ...)."""
    return [(done[n].score_for_a + done[n + 1].score_for_a) / 2
            for n in range(1, max(done, default=0), 2) if n in done and n + 1 in done]


def record_text(result: arena.GameResult, control: TimeControl) -> str:
    """A game's record for the match's file: its round and time control, and for an
    adjudicated game the exact margin it was stopped at, in headers after the result."""
    lines = result.record.rstrip("\n").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("[Result "))
    extra = [f'[Round "{result.number}"]', f'[TimeControl "{control}"]']
    if result.how == "adjudication":
        margin = result.margin_for_a if result.a_is_first_player else -result.margin_for_a
        extra.append(f'[Adjudication "exact margin {margin:+d} for the first player, proven '
                     f'after move {result.plies}"]')
    if result.error:
        extra.append('[Error "{}"]'.format(result.error[:200].replace('"', "'")))
    return "\n".join(lines[:at + 1] + extra + lines[at + 1:]) + "\n"
