"""Game metrics in the spirit of Ludii's: what self-play of a player says about a game.

Each game is played through a ``GameRecord`` (so the rule for endless play applies, as in
every driver) and measured move by move: the legal moves (branching factor; agency is the
share of turns with a choice), extra turns (the mover moves again), relays (seeds lifted
again within a move, from the move's own trace), captures, and the lead changes of the
material margin. Per game: the winner, the margin, the moves, and how it ended. ``summary``
gives each metric over the games with its 95% interval.

The games go to a results file as they end (``journal.Journal``), so a long run goes on
after a stop, and they run in ``jobs`` processes.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path

from ...cluster import each
from ...players import player as make_player
from ...players import with_seed
from ...records import GameRecord
from ...variants import variant as make_variant
from .journal import Journal
from .settings import draw

MAX_PLIES = 5000
OPENING = 2  # random moves before the players take over


def play_measured(game: str, options: dict, spec: str, seed: int,
                  max_plies: int = MAX_PLIES, opening: int = OPENING,
                  family: str | None = None) -> dict:
    """One self-play game of ``spec`` (each seat its own player, seeded from ``seed``),
    measured; its first ``opening`` moves are random (from ``seed``), so that a player that
    always answers alike still plays different games. Urubugu: ``family`` draws both
    players' initial settings (``mancalab.analysis.research.settings``)."""
    variant = make_variant(game, **options)
    rng = random.Random(seed)
    if family is not None:
        start = variant.start(setting_a=draw(family, rng), setting_b=draw(family, rng))
    else:
        start = variant.start()
    record = GameRecord(variant, start)
    seats = [make_player(with_seed(spec, seed * 2 + side, game), game) for side in (0, 1)]
    legal, choices, extra_turns, relays, captures, lead_changes = 0, 0, 0, 0, 0, 0
    leader = 0
    try:
        while not record.state.is_over and len(record.moves) < max_plies:
            state = record.state
            moves = state.legal_moves()
            legal += len(moves)
            choices += len(moves) > 1
            if len(record.moves) < opening:
                move = rng.choice(moves)
            else:
                move = seats[state.to_move].choose(state)
            steps = state.sowing(move) or []
            lifts = sum(step.kind == "lift" for step in steps)
            relays += max(0, lifts - 1)
            captures += any(step.kind == "capture" for step in steps)
            after = record.push(move)
            extra_turns += not after.is_over and after.to_move == state.to_move
            held = after.material
            now = (held[0] > held[1]) - (held[0] < held[1])
            if now and now != leader:
                lead_changes += leader != 0
                leader = now
    finally:
        for seat in seats:
            seat.close()
    state = record.state
    plies = len(record.moves)
    outcome = state.outcome
    if outcome is None:
        ended, winner = "move cap", None
    else:
        ended = record.termination or outcome.kind
        winner = outcome.winner if outcome.kind == "win" else None
    score = state.score
    return {"seed": seed, "start": list(start.cells) if family else None, "plies": plies, "ended": ended, "winner": winner,
            "margin": score[0] - score[1], "branching": legal / plies if plies else 0.0,
            "agency": choices / plies if plies else 0.0,
            "extra_turns": extra_turns, "relays": relays, "captures": captures,
            "lead_changes": lead_changes, "rounds": state.extra.get("round")}


def measure(game: str, options: dict, spec: str, games: int, seed: int, path: str | Path,
            jobs: int = 1, max_plies: int = MAX_PLIES, opening: int = OPENING,
            on_game: Callable[[dict], None] | None = None,
            family: str | None = None, cluster: str | None = None) -> list[dict]:
    """``games`` self-play games of ``spec`` (game ``i`` seeded ``seed * 100_003 + i``),
    each kept in ``path`` as it ends; a stopped run goes on from there."""
    header = {"metrics": game, "options": dict(sorted(options.items())), "player": spec,
              "seed": seed, "max_plies": max_plies, "opening": opening}
    if family is not None:
        header["family"] = family
    journal = Journal(path, header, key=lambda row: row["index"],
                      mismatch="another metrics run (game, options, player, seed)")
    todo = [i for i in range(games) if i not in journal]
    with journal:
        for row in each(_measured, todo, game, options, spec, seed, max_plies, opening, family,
                        jobs=jobs, cluster=cluster):
            journal.add(row)
            if on_game:
                on_game(row)
    return journal.finish(range(games))


def _measured(index: int, game: str, options: dict, spec: str, seed: int, max_plies: int,
              opening: int, family: str | None) -> dict:
    """Game ``index`` of a run (seeded ``seed * 100_003 + index``), with its index."""
    row = play_measured(game, options, spec, seed * 100_003 + index, max_plies, opening, family)
    return {"index": index, **row}


def mean_interval(values: list[float]) -> dict:
    """The mean with its 95% interval (normal approximation)."""
    n = len(values)
    if not n:
        return {"mean": None, "low": None, "high": None}
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half}


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% (Wilson score) interval of a share."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def share_interval(k: int, n: int) -> dict:
    """A share with its 95% (Wilson) interval."""
    low, high = wilson(k, n)
    return {"mean": k / n if n else None, "low": low, "high": high}


METRICS = {  # name: what it is, for tables and plots
    "balance": "first player's score (win 1, draw 1/2)",
    "draws": "share of games drawn",
    "unfinished": "share of games not ended by the rules (repetition, move cap, timeout)",
    "length": "moves a game",
    "branching": "legal moves a turn",
    "agency": "share of turns with a choice",
    "lead_changes": "lead changes a game",
    "extra_turns": "share of moves followed by another move of the same player",
    "relays": "relay lifts a move",
    "captures": "moves with a capture, a game",
}


def summary(rows: list[dict]) -> dict[str, dict]:
    """Each metric of ``METRICS`` over the games, with its 95% interval."""
    n = len(rows)
    plies = [r["plies"] for r in rows]
    total = sum(plies) or 1
    first = [1.0 if r["winner"] == 0 else 0.0 if r["winner"] == 1 else 0.5 for r in rows]
    return {
        "games": {"mean": n},
        "balance": mean_interval(first),
        "draws": share_interval(sum(r["winner"] is None and r["ended"] not in
                                    ("move cap", "timeout") for r in rows), n),
        "unfinished": share_interval(sum(r["ended"] in ("repetition", "move cap", "timeout")
                                         for r in rows), n),
        "length": mean_interval(plies),
        "branching": mean_interval([r["branching"] for r in rows]),
        "agency": mean_interval([r["agency"] for r in rows]),
        "lead_changes": mean_interval([r["lead_changes"] for r in rows]),
        "extra_turns": {"mean": sum(r["extra_turns"] for r in rows) / total},
        "relays": {"mean": sum(r["relays"] for r in rows) / total},
        "captures": mean_interval([r["captures"] for r in rows]),
    }
