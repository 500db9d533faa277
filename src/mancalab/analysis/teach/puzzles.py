"""Puzzles proven by the solver: positions from real play where exactly one move keeps the
best value and every other move gives away at least a clear margin.

Positions come from self-play of the levels with some random moves mixed in (a position
after a mistake often has one saving move), Kalah's games from the FairKalah boards. Each
candidate is solved with every move's value (``solve``); it is a puzzle when the value is
exact, one move reaches it and every other move is proven to lose more than the game's
inaccuracy band (``Variant.teaching.review_bands``: 4 seeds or more in Kalah and Gabata, 2
families in Gebeta) or to turn the result. Its difficulty is how many of the game's levels miss the move,
as a rating (800 when every level finds it, 250 more for each level that does not).

Urubugu's puzzles are its one-turn wipe-outs (IMPAGA): the opponent's setting drawn at
random, and the starter's setting, found by the counter-setting search, from which exactly one
move takes every one of the opponent's beads at once (checked by playing every legal move).

A game without a solver (3-row Gabata) has capture puzzles: positions of the same self-play
where one move captures clearly the most this turn (at least the clear margin, and that much
more than any other) and no move ends the round, so what each move takes is exactly what it
banks: proven by playing every legal move.

Oware's puzzles are proven wins: positions of the same self-play within reach of its endgame
tables (``oware_tables``) where exactly one move wins whatever the moves before it, every
other move proven not to win (the opponent can then draw or win), by the tables' bounds, which
hold for every history, or by the game's end.

``mancalab puzzles GAME --count N --out FILE`` writes them as JSON lines, resumable: a rerun
goes on from the last game played. The package ships a set for each game
(``mancalab/data/puzzles``), which the browser's puzzle mode serves.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ...core import MancalabError, State, Variant
from ...sowing import preview
from ...variants import VARIANTS, variant as make_variant

SHIPPED = Path(__file__).parents[2] / "data" / "puzzles"
GAMES = tuple(name for name, cls in VARIANTS.items() if cls.teaching.puzzles)
RATING_LEVELS = ("beginner", "easy", "medium", "hard")
LEVEL_SECONDS = 0.3  # the levels that think by the clock get this long to find the move
RANDOM_SHARE = 0.3  # of the self-play moves, those played at random (mistakes to punish)
MIN_PLY = 6  # the opening's first moves are not puzzles


@dataclass
class Puzzle:
    """A position, its one best move and what every move is worth (for the player to move,
    proven: the final margin with perfect play)."""

    id: str
    game: str
    cells: list[int]
    to_move: int
    best: int
    best_name: str
    value: int
    values: dict[str, int | None]  # a cell (as text) -> its move's value (a wipe-out puzzle:
    # the winning move's only; the others do not win at once)
    rating: int
    source: dict
    kind: str = "best"  # or "wipeout" (Urubugu's one move that takes every bead at once) or
    # "capture" (the one move that captures clearly the most this turn)
    extra: dict = field(default_factory=dict)  # the position's other state (``State.extra``)

    def state(self) -> State:
        return make_variant(self.game).state(self.cells, self.to_move, **self.extra)

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, line: str) -> Puzzle:
        return cls(**json.loads(line))


def clear_margin(variant: Variant) -> int:
    """The least a move other than the best must lose: more than an inaccuracy."""
    return int(variant.teaching.review_bands[1]) + 1


def judge(state: State, result) -> tuple[int, dict[int, int]] | None:
    """The one best move and every move's value when ``result`` (a ``solve`` with moves)
    makes ``state`` a puzzle, else None."""
    if not result.exact or len(result.moves) < 2:
        return None
    margin = clear_margin(state.variant)
    best = [m for m, (low, high) in result.moves.items() if low == high == result.value]
    if len(best) != 1:
        return None
    sign = (lambda v: (v > 0) - (v < 0))
    values = {}
    for move, (low, high) in result.moves.items():
        if move == best[0]:
            values[move] = result.value
            continue
        if low != high:
            return None  # every value is shown to the solver of the puzzle: proven ones only
        if not (high <= result.value - margin or sign(high) < sign(result.value)):
            return None
        values[move] = high
    return best[0], values


def rating(state: State, best: int, seed: int) -> int:
    """800, and 250 more for each of the game's levels (beginner to hard, the clocked ones
    at ``LEVEL_SECONDS``) that does not play ``best``."""
    from ...players import player, with_seed, with_time

    missed = 0
    for level in RATING_LEVELS:
        spec = with_seed(with_time(level, LEVEL_SECONDS, state.variant.name), seed,
                         state.variant.name)
        if player(spec, state.variant.name).choose(state) != best:
            missed += 1
    return 800 + 250 * missed


def positions(game: str, index: int, seed: int) -> Iterator[tuple[State, int]]:
    """The positions of self-play game ``index`` (reproducible from ``seed``), with their
    ply: the medium level against itself, a share of the moves at random."""
    from ...players import player, with_seed

    rng = random.Random(seed * 1_000_003 + index)
    starts = make_variant(game).random_starts()  # Kalah: a FairKalah board
    state = make_variant(game, **(rng.choice(starts) if starts else {})).start()
    bot = player(with_seed("medium", rng.randrange(1_000_000), game), game)
    ply = 0
    while not state.is_over and ply < 400:
        yield state, ply
        legal = state.legal_moves()
        move = rng.choice(legal) if rng.random() < RANDOM_SHARE else bot.choose(state)
        state = state.play(move)
        ply += 1


def generate(game: str, count: int, seed: int = 1, time: float = 2.0,
             done: list[Puzzle] = (), on_puzzle: Callable[[Puzzle], None] | None = None,
             ) -> list[Puzzle]:
    """``count`` puzzles of ``game`` (default rules) with ``done`` among them (a rerun of
    the same seed goes on after the games ``done`` came from); ``on_puzzle(p)`` as each new
    one is found."""
    from ..solving import solve, unsolvable

    if game not in GAMES:
        raise MancalabError(f"puzzles are made for {', '.join(GAMES)}, not {game!r}")
    variant = make_variant(game)
    if variant.teaching.puzzles == "wipeout":
        return _wipeouts(game, count, seed, time, done, on_puzzle)
    if variant.teaching.puzzles == "capture":
        judging = captures
    elif variant.teaching.puzzles == "win":
        judging = _proving_wins(variant)
    elif unsolvable(variant):
        raise MancalabError(unsolvable(variant))
    else:
        def judging(position: State) -> tuple[int, dict[int, int]] | None:
            return judge(position, solve(position, time=time, moves=True))
    found = list(done)
    seen = {(tuple(p.cells), p.to_move) for p in found}
    index = max((p.source["game"] for p in found if p.source.get("seed") == seed),
                default=-1) + 1
    while len(found) < count:
        # the game's positions in a random order: puzzles from every phase of the game
        candidates = [(state, ply) for state, ply in positions(game, index, seed)
                      if ply >= MIN_PLY
                      and (variant.teaching.puzzle_seeds is None
                           or sum(state.cells) - sum(state.score) <= variant.teaching.puzzle_seeds)]
        random.Random(seed * 7_919 + index).shuffle(candidates)
        for state, ply in candidates:
            key = (tuple(state.cells), state.to_move)
            if key in seen:
                continue
            seen.add(key)
            position = variant.state(state.cells, state.to_move, **state.extra)
            judged = judging(position)
            if judged is None:
                continue
            best, values = judged
            puzzle = Puzzle(f"{game}-{seed}-{index}-{ply}", game, list(state.cells),
                            state.to_move, best, position.move_name(best), values[best],
                            {str(m): v for m, v in values.items()},
                            rating(position, best, seed + ply),
                            {"seed": seed, "game": index, "ply": ply},
                            kind=variant.teaching.puzzles, extra=position.extra)
            found.append(puzzle)
            if on_puzzle:
                on_puzzle(puzzle)
            break  # one puzzle a game: the set spreads over many games
        index += 1
    return found


def captures(state: State) -> tuple[int, dict[int, int]] | None:
    """The one move of ``state`` that captures clearly the most this turn, and what every
    move banks (seeds), when ``state`` is a capture puzzle (the module's docstring), else
    None."""
    legal = state.legal_moves()
    if len(legal) < 2:
        return None
    mover, margin = state.to_move, clear_margin(state.variant)
    gains = {}
    for move in legal:
        steps = state.sowing(move)
        after = state.play(move)
        if steps is None or after.is_over or any(step.kind == "set" for step in steps):
            return None  # a round (or the game) ends: a new round's filling, not a capture
        gains[move] = after.score[mover] - state.score[mover]
    best = max(gains, key=gains.get)
    if gains[best] < margin or any(gain > gains[best] - margin
                                   for move, gain in gains.items() if move != best):
        return None
    return best, gains


def _proving_wins(variant: Variant) -> Callable[[State], tuple[int, dict[int, int]] | None]:
    """``proven_wins`` with the largest endgame tables built for ``variant``."""
    from ..solving import oware_tables

    tables = oware_tables.for_search(variant)
    if tables[0].size == 0:
        raise MancalabError(f"{variant.name}'s puzzles are proven by its endgame tables: "
                            f"build them first (mancalab db build {variant.name} --seeds "
                            f"{variant.teaching.puzzle_seeds})")
    return lambda state: proven_wins(state, tables)


def proven_wins(state: State, tables: tuple) -> tuple[int, dict[int, int]] | None:
    """The one move of ``state`` that wins whatever the moves before it, and every move's
    word (1: wins, 0: proven not to win), when ``state`` is a win puzzle, else None.
    ``tables``: the endgame tables as the search takes them (``oware_tables.for_search``);
    a move is proven by the game's end or by the bounds of the position it leads to."""
    from ... import kernels

    legal = state.legal_moves()
    if len(legal) < 2:
        return None
    mover, words = state.to_move, {}
    for move in legal:
        after = state.play(move)
        if after.is_over:
            words[move] = int(after.outcome.winner == mover)
            continue
        reach, least, greatest = kernels.table_bounds(state.variant.params, after.board,
                                                      *tables)
        if not reach or least < 0 <= greatest:
            return None  # not proven either way
        words[move] = int(greatest < 0)  # the opponent loses whatever they do
    winning = [move for move, word in words.items() if word]
    return (winning[0], words) if len(winning) == 1 else None


def wipeouts(state: State) -> list[int]:
    """The moves of ``state`` that take every one of the opponent's beads at once."""
    mover = state.to_move
    return [move for move in state.legal_moves()
            if (after := state.play(move)).is_over and after.outcome.winner == mover]


def _wipeouts(game: str, count: int, seed: int, time: float, done: list[Puzzle],
              on_puzzle: Callable[[Puzzle], None] | None) -> list[Puzzle]:
    """Urubugu's puzzles: the opponent's setting drawn at random, a first hole drawn too, and
    the starter's setting that wipes the opponent out from that hole found by the
    counter-setting search (``counter``); kept when no other move wins at once."""
    from ..research.counter import counter
    from ..research.settings import uniform

    found = list(done)
    index = max((p.source["game"] for p in found if p.source.get("seed") == seed),
                default=-1) + 1
    variant = make_variant(game)
    while len(found) < count:
        rng = random.Random(seed * 1_000_003 + index)
        theirs, hole = uniform(rng), rng.randint(1, 16)
        answer = counter(theirs, time_limit=time, first_moves=[hole])
        if answer.status == "found":
            state = variant.start(answer.setting, theirs)
            winning = wipeouts(state)
            if len(winning) == 1:
                best = winning[0]
                after = state.play(best)
                values = {str(m): None for m in state.legal_moves()}
                values[str(best)] = after.score[0] - after.score[1]
                puzzle = Puzzle(f"{game}-{seed}-{index}-0", game, list(state.cells), 0,
                                best, state.move_name(best), values[str(best)], values,
                                rating(state, best, seed + index),
                                {"seed": seed, "game": index, "ply": 0,
                                 "opponent": theirs}, kind="wipeout")
                found.append(puzzle)
                if on_puzzle:
                    on_puzzle(puzzle)
        index += 1
    return found


def read(path: str | Path) -> list[Puzzle]:
    """The puzzles of a JSON-lines file (a line cut short by a stop is left out)."""
    path = Path(path)
    if not path.exists():
        return []
    found = []
    for line in path.read_text().splitlines():
        try:
            found.append(Puzzle.from_json(line))
        except (ValueError, TypeError):
            continue
    return found


def shipped(game: str) -> list[Puzzle]:
    """The puzzles that come with mancalab for ``game``."""
    return read(SHIPPED / f"{game}.jsonl")


_SHIPPED: dict[str, list[Puzzle]] = {}


def catalogue(game: str) -> list[Puzzle]:
    """``shipped(game)``, read once a process."""
    if game not in _SHIPPED:
        _SHIPPED[game] = shipped(game) if game in GAMES else []
    return _SHIPPED[game]


def find(puzzle_id: str) -> Puzzle | None:
    """A shipped puzzle by its id."""
    game = puzzle_id.partition("-")[0]
    return next((p for p in catalogue(game) if p.id == puzzle_id), None)


def pick(game: str, rating: float, draw: int, theme: str | None = None) -> Puzzle | None:
    """A shipped puzzle of ``game`` near ``rating`` (of ``theme`` if given): one of the ten
    nearest, the ``draw``-th (a number the asker chooses at random, so that the next puzzle is
    another)."""
    chosen = [p for p in catalogue(game) if theme is None or theme in themes(p)]
    nearest = sorted(chosen, key=lambda p: (abs(p.rating - rating), p.id))[:10]
    return nearest[draw % len(nearest)] if nearest else None


# What a puzzle's answer does, to choose puzzles by: the best move wins material (a capture,
# or a family in Gebeta), gives another turn, or comes late in the game; Urubugu's take every
# bead at once.
THEMES = ("capture", "family", "again", "endgame", "wipeout")
ENDGAME_SHARE = 1 / 4  # an endgame: at most this share of the start's seeds left in the holes
_THEMES: dict[str, tuple[str, ...]] = {}


def themes(puzzle: Puzzle) -> tuple[str, ...]:
    """The themes of ``puzzle`` (``THEMES``), from its best move played by the rules."""
    if puzzle.id not in _THEMES:
        _THEMES[puzzle.id] = _themes_of(puzzle)
    return _THEMES[puzzle.id]


def _themes_of(puzzle: Puzzle) -> tuple[str, ...]:
    if puzzle.kind == "wipeout":
        return ("wipeout",)
    state = puzzle.state()
    done = preview(state, puzzle.best)
    found = []
    if done["gain"] > 0 and done["captured"]:
        found.append("family" if state.variant.texts.score_noun == "families" else "capture")
    if done["again"]:
        found.append("again")
    if _in_holes(state) <= ENDGAME_SHARE * _in_holes(state.variant.start()):
        found.append("endgame")
    return tuple(found)


def _in_holes(state: State) -> int:
    """The seeds in the players' holes (not in stores or captured)."""
    variant = state.variant
    return sum(count for cell, count in enumerate(state.cells[:variant.n_cells])
               if any(variant.cell_label(state, seat, cell) for seat in (0, 1)))


def theme_counts(game: str) -> dict[str, int]:
    """How many shipped puzzles of ``game`` each theme has (the themes it has at all)."""
    counts = {theme: 0 for theme in THEMES}
    for puzzle in catalogue(game):
        for theme in themes(puzzle):
            counts[theme] += 1
    return {theme: count for theme, count in counts.items() if count}
