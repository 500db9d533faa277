"""The arena: two players meet over many games, and the result is measured with its error.

Each opening is played twice, once with each player moving first, so that neither player
gains from a lucky start. Kalah games start from the FairKalah boards (fair start positions);
the other games from the standard start after a few random moves (the same moves for both
colours). A player that raises an error or answers an illegal move loses that game, and the
arena goes on. A position that comes round a third time ends the game by the game's rule for
endless play, as in every driver (``GameRecord``; "repetition"). Games still going after
``max_plies`` moves without repeating (a long cycle) are scored by the margin of material
(``State.material``: the score, in 3-row Gabata the seeds held) on the board ("adjudicated").
A game played with ``adjudicate`` (``mancalab match``) ends as soon as the solver proves its
exact value within ``ADJUDICATION_SECONDS`` ("adjudication"), with that exact result; the
checks take at most ``JUDGING_SHARE`` of the players' thinking (plus ``JUDGING_ALLOWANCE``).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field

from ...cluster import each
from ...core import MancalabError
from ...players import player as make_player
from ...players import display_name, with_seed
from ...records import GameRecord
from .openings import balanced as balanced_openings
from ...variants import variant as make_variant

OPENING_PLIES = 4
MAX_PLIES = 1000
# The solver's time on each position of an adjudicated game: where its databases hold the
# position (Kalah: 16 seeds in play or fewer) or a short search ends, far less
ADJUDICATION_SECONDS = 0.02
# A game's checks take at most this share of its players' thinking, plus JUDGING_ALLOWANCE
# seconds: a position is skipped while they are over it (quick engines are judged less often)
JUDGING_SHARE = 0.1
JUDGING_ALLOWANCE = 0.1
JUDGING_EVERY = 4  # moves between checks while no seed leaves play


@dataclass(frozen=True)
class GameSpec:
    """One arena game: who plays which side, from which start."""

    number: int
    game: str
    options: dict
    first: str  # the spec of the player moving first (side A)
    second: str
    a_is_first_player: bool  # whether the arena's player A moves first in this game
    opening: tuple[int, ...]  # moves played from the start before the players take over
    max_plies: int = MAX_PLIES
    clock: float | None = None  # seconds a player has for the whole game (a loss on time)
    increment: float = 0.0  # seconds added to the mover's clock after each of its moves
    adjudicate: bool = False  # end the game at the first position of proven exact value


@dataclass
class GameResult:
    number: int
    a_is_first_player: bool
    score_for_a: float  # 1 win, 0.5 draw, 0 loss (from the arena's player A's view)
    margin_for_a: int
    plies: int
    how: str  # "win", "draw", "timeout", "repetition", "adjudicated", "adjudication" (exact),
    # "error", "illegal", "time"
    error: str = ""
    record: str = ""
    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0])  # thinking, A and B
    judging: float = 0.0  # seconds the referee spent looking for an exact value


OPENING_TRIES = 1000  # random openings drawn before taking only moves that keep the game going


def openings(game: str, options: dict, pairs: int, seed: int,
             kind: str = "random") -> Iterator[tuple[dict, tuple]]:
    """``pairs`` starts (game options, opening moves), each to be played twice. ``kind``
    "balanced": the shipped balanced openings of the game (``mancalab.analysis.compete.openings``),
    in an order drawn from ``seed``."""
    rng = random.Random(seed)
    if kind not in ("random", "balanced"):
        raise MancalabError(f"--openings must be random or balanced, got {kind!r}")
    variant = make_variant(game, **options)
    starts = variant.fair_starts() if kind == "balanced" else variant.random_starts()
    if starts:  # start positions (Kalah's fair boards), each under its own options
        rng.shuffle(starts)
        for i in range(pairs):
            yield {**options, **starts[i % len(starts)]}, ()
        return
    if kind == "balanced":
        chosen = list(balanced_openings(game, options))
        rng.shuffle(chosen)
        for i in range(pairs):
            yield options, chosen[i % len(chosen)]
        return
    for _ in range(pairs):
        yield options, _random_opening(variant, rng)


def _random_opening(variant, rng: random.Random) -> tuple[int, ...]:
    """``OPENING_PLIES`` random moves after which the game goes on, drawn again until they
    do; on a board where they seldom do (a tiny one), the moves that keep it going, as many
    as there are (none: the start itself)."""
    for _ in range(OPENING_TRIES):
        state, moves = variant.start(), []
        for _ in range(OPENING_PLIES):
            legal = state.legal_moves()
            if not legal:
                break
            moves.append(rng.choice(legal))
            state = state.play(moves[-1])
        if not state.is_over:
            return tuple(moves)
    state, moves = variant.start(), []
    for _ in range(OPENING_PLIES):
        going = [m for m in state.legal_moves() if not state.play(m).is_over]
        if not going:
            break
        moves.append(rng.choice(going))
        state = state.play(moves[-1])
    return tuple(moves)


def schedule(a: str, b: str, game: str, options: dict, games: int, seed: int,
             opening_kind: str = "random") -> list[GameSpec]:
    """``games`` games in pairs: the same start with A first, then with B first. A player
    given no seed gets one from ``seed`` and the game, so that the same arena run again plays
    the same games (except where a player thinks by the clock)."""
    specs = []
    for opts, opening in openings(game, options, (games + 1) // 2, seed, opening_kind):
        for a_first in (True, False):
            if len(specs) < games:
                number = len(specs) + 1
                first, second = (with_seed(spec, seed * 1_000_003 + 2 * number + side, game)
                                 for side, spec in enumerate((a, b) if a_first else (b, a)))
                specs.append(GameSpec(number, game, opts, first, second, a_first, opening))
    return specs


def exact_margin(state) -> int | None:
    """The final margin for player 0 under perfect play from ``state``, when the solver
    proves it within ``ADJUDICATION_SECONDS`` (no database is built for it), else None."""
    from ..solving import solve

    result = solve(state, time=ADJUDICATION_SECONDS, build=False, parallel=False)
    if not result.exact:
        return None
    return result.value if state.to_move == 0 else -result.value


@dataclass
class _Played:
    """How a game's play ended: why (empty: by the rules), the error, who lost by it, each
    seat's thinking, the exact margin it was adjudicated at and the time judging took."""

    how: str = ""
    error: str = ""
    loser: int | None = None
    thinking: list[float] = field(default_factory=lambda: [0.0, 0.0])
    exact: int | None = None
    judging: float = 0.0
    judged_at: tuple[int, int] | None = None  # the last check in vain: (seeds in play, ply)


def _in_play(state) -> int:
    return sum(state.cells) - sum(state.score)


def _worth_judging(state, ply: int, played: _Played, thinking: float) -> bool:
    """Whether to ask the solver about ``state``: within the checks' share of the players'
    thinking, once at most half the seeds are in play (the solver proves positions of fewer
    seeds sooner), and after a check in vain once more seeds have left play or
    ``JUDGING_EVERY`` moves on."""
    if state.is_over or played.judging > JUDGING_ALLOWANCE + JUDGING_SHARE * thinking:
        return False
    if 2 * _in_play(state) > sum(state.cells):
        return False
    if played.judged_at is None:
        return True
    seeds, at = played.judged_at
    return _in_play(state) < seeds or ply - at >= JUDGING_EVERY


def _play_out(record: GameRecord, seats: list, max_plies: int, clock: float | None = None,
              increment: float = 0.0, judge: Callable | None = None) -> _Played:
    """The players move until the game ends or ``max_plies``; a player that raises, answers
    an illegal move or, with a game ``clock`` of that many seconds each (and ``increment``
    after each move), runs out of time loses. ``judge(state)``, when given, ends the game at
    the first position whose exact margin it knows."""
    played = _Played()
    left = None if clock is None else [clock, clock]
    thinking = played.thinking
    while not record.state.is_over and len(record.moves) < max_plies and not record.at_cap:
        side = record.state.to_move
        if left is not None:  # each player is told both clocks, as over a chess board
            seats[side].clock = (left[0], left[1])
        started = time.perf_counter()
        try:
            move = seats[side].remember(record.states).choose(record.state)
        except Exception as exc:  # noqa: BLE001 - any crash of a player loses its game
            played.how, played.loser = "error", side
            played.error = f"{seats[side].spec}: {type(exc).__name__}: {exc}"
            break
        spent = time.perf_counter() - started
        thinking[side] += spent
        if left is not None:
            left[side] -= spent
            if left[side] < 0:
                control = f"{clock:g}+{increment:g}" if increment else f"{clock:g}"
                played.how, played.loser = "time", side
                played.error = f"{seats[side].spec} ran out of its {control} s"
                break
            left[side] += increment
        try:
            record.push(move)
        except MancalabError as exc:
            played.how, played.loser = "illegal", side
            played.error = f"{seats[side].spec} played {move!r}: {exc}"
            break
        if judge is not None and _worth_judging(record.state, len(record.moves), played,
                                                sum(thinking)):
            started = time.perf_counter()
            played.exact = judge(record.state)
            played.judging += time.perf_counter() - started
            played.judged_at = (_in_play(record.state), len(record.moves))
            if played.exact is not None:
                record.forfeit(1 if played.exact > 0 else 0, "adjudication",
                               draw=played.exact == 0)
                break
    return played


def play_game(spec: GameSpec) -> GameResult:
    """Play one arena game; a player's crash or illegal move loses it."""
    variant = make_variant(spec.game, **spec.options)
    record = GameRecord(variant, variant.start(),
                        (display_name(spec.first), display_name(spec.second)))
    for move in spec.opening:
        record.push(move)
    seats = [make_player(spec.first, spec.game), make_player(spec.second, spec.game)]
    judge = exact_margin if spec.adjudicate and _solvable(variant) else None
    try:
        played = _play_out(record, seats, spec.max_plies, spec.clock, spec.increment, judge)
    finally:
        for seat in seats:
            seat.close()  # an engine's process ends with its game
    state, loser, how = record.state, played.loser, played.how
    # material: the score, but in 3-row Gabata the seeds held, which a game cut off at
    # max_plies must be judged by (its stores are emptied at every reload)
    margin_first = state.material[0] - state.material[1]
    if played.exact is not None:
        margin_first = played.exact
    if loser is not None:
        first_score = 0.0 if loser == 0 else 1.0
    elif state.outcome is not None and state.outcome.kind == "win":
        how, first_score = "win", 1.0 if state.outcome.winner == 0 else 0.0
    elif state.outcome is not None:
        how, first_score = state.outcome.kind, 0.5
    else:
        how = "adjudicated"
        first_score = 1.0 if margin_first > 0 else (0.0 if margin_first < 0 else 0.5)
    if record.termination and loser is None:  # the rule for endless play decided it
        how = record.termination
    sign = 1 if spec.a_is_first_player else -1
    a_score = first_score if spec.a_is_first_player else 1.0 - first_score
    thinking = played.thinking
    seconds = thinking if spec.a_is_first_player else thinking[::-1]
    return GameResult(spec.number, spec.a_is_first_player, a_score, sign * margin_first,
                      len(record.moves), how, played.error, record.to_text(), seconds,
                      played.judging)


def _solvable(variant) -> bool:
    from ..solving import unsolvable

    return unsolvable(variant) is None


def run(specs: list[GameSpec], jobs: int = 1,
        on_result: Callable[[GameResult], None] | None = None,
        cluster: str | None = None) -> list[GameResult]:
    """Play the games, ``jobs`` at a time (separate processes) or on the workers of the Dask
    scheduler at ``cluster``; results in game order (``on_result`` hears each as it ends)."""
    results = []
    for result in each(play_game, specs, jobs=jobs, cluster=cluster):
        results.append(result)
        if on_result:
            on_result(result)
    return sorted(results, key=lambda r: r.number)


@dataclass
class Summary:
    games: int
    wins: int
    draws: int
    losses: int
    score: float  # A's mean score per game
    mean_margin: float  # A's mean score margin
    elo: float  # A's Elo difference over B (inf when B never scored)
    elo_low: float  # 95% confidence interval
    elo_high: float
    errors: list[str]

    def to_dict(self) -> dict:
        """The summary as JSON holds it: an unbounded Elo (one side scored every point) is
        null, and ``elo_unbounded`` says which way (+1, -1, or 0 when finite)."""
        out = {k: (v if not isinstance(v, float) or math.isfinite(v) else None)
               for k, v in asdict(self).items()}
        out["elo_unbounded"] = 0 if math.isfinite(self.elo) else int(math.copysign(1, self.elo))
        return out


def elo(score: float) -> float:
    """The Elo difference that predicts a mean score ``score`` (0..1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def summarize(results: list[GameResult]) -> Summary:
    """Wins, draws and losses for A, the mean margin and the Elo difference with its 95%
    confidence interval (normal approximation of the mean game score)."""
    n = len(results)
    scores = [r.score_for_a for r in results]
    mean = sum(scores) / n if n else 0.5
    variance = sum((s - mean) ** 2 for s in scores) / n if n else 0.0
    half_width = 1.96 * math.sqrt(variance / n) if n else 0.0
    return Summary(
        games=n,
        wins=sum(s == 1.0 for s in scores),
        draws=sum(s == 0.5 for s in scores),
        losses=sum(s == 0.0 for s in scores),
        score=mean,
        mean_margin=sum(r.margin_for_a for r in results) / n if n else 0.0,
        elo=elo(mean),
        elo_low=elo(max(0.0, mean - half_width)),
        elo_high=elo(min(1.0, mean + half_width)),
        errors=[f"game {r.number}: {r.how}: {r.error}" for r in results if r.error],
    )
