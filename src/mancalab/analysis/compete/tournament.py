"""A round robin in the FairKalah competitions' format: every ordered pair of players meets
on each of a set of random start boards (fair boards for Kalah), each player with a game
clock; a loss on time, on an illegal move or on a crash. The standings give each player's
points and an Elo rating with a 95% interval (maximum likelihood over all games, the
interval by resampling the games).

The games go to a JSON-lines file as they end, so a stopped tournament goes on where it
was; at the end the folder also holds every record, and the standings as CSV and JSON.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from ...core import MancalabError
from ...players import display_name, parse_spec, resolve, with_seed
from ...records import write_atomic
from . import arena

GAMES_FILE = "games.jsonl"
BOOTSTRAP = 400  # resamples of the games for the rating intervals


def clocked(spec: str, clock: float, game: str) -> str:
    """``spec`` for a game clock of ``clock`` seconds: mancalab's alpha-beta keeps the clock
    itself (``clock=``, with a margin for the referee's overhead), other players that think
    by the clock get a fortieth of it a move; engines are told the clock at every move."""
    cls, options = resolve(spec, game)
    fixed = {"time", "clock", "playouts", "depth", "level"} & set(parse_spec(spec)[1])
    if cls.name in ("engine", "ugi") or fixed or not cls.thinks_by_clock:
        return spec
    name, own = parse_spec(spec)
    extra = {"clock": round(0.9 * clock, 3)} if "clock" in cls.option_specs \
        else {"time": round(clock / 40, 3)}
    return f"{name}:" + ",".join(f"{k}={v}" for k, v in {**own, **extra}.items())


@dataclass(frozen=True)
class Pairing:
    """One tournament game: who is first (index into the players) and from which start."""

    number: int
    first: int
    second: int
    options: dict
    opening: tuple[int, ...]


def pairings(players: list[str], game: str, options: dict, boards: int,
             seed: int) -> list[Pairing]:
    """Every ordered pair of players on each of ``boards`` starts (Kalah: random fair boards
    of its size where mancalab has them; other games: a few random moves)."""
    from ...variants import variant

    kind = "balanced" if variant(game, **options).fair_starts() else "random"
    games = []
    for opts, opening in arena.openings(game, options, boards, seed, kind):
        for first in range(len(players)):
            for second in range(len(players)):
                if first != second:
                    games.append(Pairing(len(games) + 1, first, second, opts, opening))
    return games


def game_spec(pairing: Pairing, players: list[str], game: str, clock: float,
              seed: int) -> arena.GameSpec:
    first, second = (with_seed(clocked(players[i], clock, game),
                               seed * 1_000_003 + 2 * pairing.number + side, game)
                     for side, i in enumerate((pairing.first, pairing.second)))
    return arena.GameSpec(pairing.number, game, pairing.options, first, second, True,
                          pairing.opening, clock=clock)


@dataclass
class Standing:
    player: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    score: float  # points per game
    elo: float
    elo_low: float
    elo_high: float
    forfeits: int  # games lost on time, by an illegal move or a crash


def standings(players: list[str], games: list[dict]) -> list[Standing]:
    """Each player's results and Elo (mean 0) with a 95% interval, best first."""
    elo = ratings(len(players), games)
    rng = random.Random(0)
    samples = [ratings(len(players), [rng.choice(games) for _ in games])
               for _ in range(BOOTSTRAP)] if games else []
    table = []
    for i, name in enumerate(players):
        mine = [(g, g["first"] == i) for g in games if i in (g["first"], g["second"])]
        scores = [g["score_first"] if first else 1 - g["score_first"] for g, first in mine]
        spread = sorted(s[i] for s in samples) or [0.0]
        table.append(Standing(
            name, len(mine), sum(s == 1 for s in scores), sum(s == 0.5 for s in scores),
            sum(s == 0 for s in scores), sum(scores), sum(scores) / len(mine) if mine else 0.0,
            elo[i], spread[int(0.025 * (len(spread) - 1))], spread[int(0.975 * (len(spread) - 1))],
            sum(1 for g, first in mine if g["how"] in ("time", "illegal", "error")
                and (g["score_first"] == 0) == first)))
    return sorted(table, key=lambda s: (-s.points, -s.elo))


def ratings(n: int, games: list[dict], iterations: int = 200) -> list[float]:
    """Elo ratings (mean 0) that best explain the games' scores (Bradley-Terry by its
    minorize-maximize iteration; a draw is half a win). Every pair also gets one virtual
    draw, so that a player who won or lost every game still has a finite rating."""
    points = [0.0] * n
    meetings = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            if i != j:
                points[i] += 0.5
                meetings[i][j] += 1
    for g in games:
        i, j, s = g["first"], g["second"], g["score_first"]
        points[i] += s
        points[j] += 1 - s
        meetings[i][j] += 1
        meetings[j][i] += 1
    strength = [1.0] * n
    for _ in range(iterations):
        strength = [points[i] / sum(meetings[i][j] / (strength[i] + strength[j])
                                    for j in range(n) if j != i) if n > 1 else 1.0
                    for i in range(n)]
        mean_log = sum(math.log(s) for s in strength) / n
        strength = [s / math.exp(mean_log) for s in strength]
    return [400 * math.log10(s) for s in strength]


class Tournament:
    """A round robin and its folder: games as they end, then records and standings."""

    def __init__(self, players: list[str], game: str, options: dict, boards: int,
                 clock: float, seed: int, folder: str | Path) -> None:
        if len(players) < 2:
            raise MancalabError("a tournament needs at least two players")
        if len(set(players)) != len(players):
            raise MancalabError("each player may enter once (give two copies different "
                                "options, e.g. a seed)")
        self.players, self.game, self.options = players, game, options
        self.clock, self.seed = clock, seed
        self.folder = Path(folder)
        self.pairings = pairings(players, game, options, boards, seed)
        self.header = {"tournament": 1, "players": players, "game": game, "options": options,
                       "boards": boards, "clock": clock, "seed": seed}

    @property
    def games_path(self) -> Path:
        return self.folder / GAMES_FILE

    def done(self) -> list[dict]:
        """The games already played (a tournament with other settings is refused)."""
        if not self.games_path.exists():
            return []
        lines = self.games_path.read_text("utf-8").splitlines()
        try:
            header = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            header = None
        if header != json.loads(json.dumps(self.header)):
            raise MancalabError(f"{self.games_path} holds another tournament; choose another "
                                "--out folder")
        games = []
        for line in lines[1:]:
            try:
                games.append(json.loads(line))
            except json.JSONDecodeError:
                break  # a line cut by a stop: that game is played again
        return games

    def run(self, jobs: int = 1, on_game: Callable[[dict], None] | None = None,
            cluster: str | None = None) -> list[dict]:
        """Play the games not played yet (``jobs`` processes, or the workers of the Dask
        scheduler at ``cluster``), appending each to the games file as it ends."""
        self.folder.mkdir(parents=True, exist_ok=True)
        played = self.done()
        numbers = {g["number"] for g in played}
        if not self.games_path.exists() or not played:
            write_atomic(self.games_path, json.dumps(self.header) + "\n")
        todo = [game_spec(p, self.players, self.game, self.clock, self.seed)
                for p in self.pairings if p.number not in numbers]
        by_number = {p.number: p for p in self.pairings}
        with open(self.games_path, "a", encoding="utf-8") as out:
            def keep(result: arena.GameResult) -> None:
                pairing = by_number[result.number]
                entry = {"number": result.number, "first": pairing.first,
                         "second": pairing.second, "score_first": result.score_for_a,
                         "margin_first": result.margin_for_a, "plies": result.plies,
                         "how": result.how, "error": result.error,
                         "seconds": result.seconds, "record": result.record}
                out.write(json.dumps(entry) + "\n")
                out.flush()
                played.append(entry)
                if on_game:
                    on_game(entry)

            arena.run(todo, jobs, keep, cluster)
        return sorted(played, key=lambda g: g["number"])

    def write_results(self, games: list[dict]) -> list[Standing]:
        """The standings (CSV and JSON) and every record, each file whole or not at all."""
        table = standings(self.players, games)
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=list(asdict(table[0])))
        writer.writeheader()
        for row in table:
            writer.writerow({k: round(v, 3) if isinstance(v, float) else v
                             for k, v in asdict(row).items()})
        write_atomic(self.folder / "standings.csv", text.getvalue())
        write_atomic(self.folder / "results.json", json.dumps(
            {**self.header, "standings": [asdict(s) for s in table],
             "games": [{k: v for k, v in g.items() if k != "record"} for g in games]},
            indent=1))
        write_atomic(self.folder / "records.txt", "\n".join(g["record"] for g in games))
        write_atomic(self.folder / "results.html", results_page(self.header, table, games))
        return table

    @property
    def total(self) -> int:
        return len(self.pairings)


def results_page(header: dict, table: list[Standing], games: list[dict]) -> str:
    """The tournament as one HTML page to open in a browser: the standings with Elo and its
    95% interval, then every game to step through on the board."""
    import html

    from ...draw.html import replay_page
    from ...records import GameRecord

    players = [display_name(p) for p in header["players"]]
    rows = "\n".join(
        f"<tr><td>{rank}</td><td>{html.escape(display_name(row.player))}</td>"
        f"<td>{row.points:g}</td><td>{row.games}</td><td>{row.wins}</td><td>{row.draws}</td>"
        f"<td>{row.losses}</td><td>{100 * row.score:.1f}%</td><td>{row.elo:+.0f}</td>"
        f"<td>{row.elo_low:+.0f} .. {row.elo_high:+.0f}</td><td>{row.forfeits}</td></tr>"
        for rank, row in enumerate(table, start=1))
    intro = (f"<p>{html.escape(header['game'])}, {len(games)} games, {header['clock']:g} s "
             "a player a game; every ordered pair on each board.</p>"
             "<table><thead><tr><th>#</th><th>player</th><th>points</th><th>games</th>"
             "<th>W</th><th>D</th><th>L</th><th>score</th><th>Elo</th><th>95% interval</th>"
             f"<th>forfeits</th></tr></thead><tbody>{rows}</tbody></table>")
    shown, names = [], []
    for game in games:
        record = GameRecord.from_text(game["record"])
        first, second = players[game["first"]], players[game["second"]]
        result = {1.0: "1-0", 0.5: "½-½", 0.0: "0-1"}.get(game["score_first"], "?")
        how = f", {game['how']}" if game.get("how") not in (None, "", "win", "draw") else ""
        moves = [record.variant.move_name(state, move)
                 for state, move in zip(record.states, record.moves)]
        shown.append((f"Game {game['number']}: {first} – {second} {result}{how}",
                      list(record.states), moves))
        names.append((first, second))
    return replay_page(f"Tournament: {header['game']}", intro, shown, names)
