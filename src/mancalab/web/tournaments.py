"""Class tournaments: a round robin or a Swiss system of a class's pupils, run by their
teacher (not playing); a class's arena is ``web.arenas`` with the class's pupils only.

A round robin's schedule is the circle method: every pupil meets every other once, the first
seat alternating; with an odd number one sits out each round (a bye). A Swiss system plays
``planned`` rounds, each paired when it starts: pupils by points, each with the nearest in the
standings they have not met, the one who had the first seat less often taking it; with an odd
number the lowest without a bye yet sits out. The teacher starts each round: its games are
made at once (the pupils find them on their class page), a pairing with a pupil marked absent
is skipped (no game, no points; in a Swiss round the absent are left out of the pairing). Standings come from the games'
results (1 a win, ½ a draw); a game stuck at the end of a lesson is ended by the teacher:
by its exact value where the solver proves it within ``EXACT_SECONDS``, else by the score.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import asdict, dataclass, field

from .errors import ConflictError, NotFoundError

MAX_PLAYERS = 40
TOURNAMENTS_KEPT = 50  # a class's tournaments at most


def round_robin(players: list[str]) -> list[list[tuple[str | None, str | None]]]:
    """The circle method's rounds: pairs (first seat, second seat), None for a bye."""
    names: list[str | None] = list(players) + ([None] if len(players) % 2 else [])
    count = len(names)
    rounds = []
    for number in range(count - 1):
        pairs = []
        for i in range(count // 2):
            a, b = names[i], names[count - 1 - i]
            pairs.append((a, b) if (number + i) % 2 == 0 else (b, a))
        rounds.append(pairs)
        names = [names[0], names[-1], *names[1:-1]]  # all but the first turn round
    return rounds


def swiss_round(players: list[str], points: dict[str, float], met: set[frozenset],
                firsts: dict[str, int], byes: set[str]) -> list[list[str | None]]:
    """One Swiss round: pairs (first seat, second seat), [player, None] for a bye."""
    order = sorted(players, key=lambda p: (-points[p], players.index(p)))
    pairs: list[list[str | None]] = []
    if len(order) % 2:
        rest = [p for p in reversed(order) if p not in byes] or list(reversed(order))
        pairs.append([rest[0], None])
        order.remove(rest[0])
    while order:
        first = order.pop(0)
        other = next((p for p in order if frozenset((first, p)) not in met), order[0])
        order.remove(other)
        pair = [first, other] if firsts[first] <= firsts[other] else [other, first]
        pairs.append(pair)
    return pairs


@dataclass
class Tournament:
    id: str
    class_id: str
    kind: str
    game: str
    options: dict
    clock: list  # [base, increment] seconds
    players: list[str]  # pupils' accounts
    rounds: list = field(default_factory=list)  # [[first, second] ...] a round
    started: int = 0  # rounds started
    games: dict = field(default_factory=dict)  # "round:pair" -> game id
    absent: dict = field(default_factory=dict)  # round -> pupils skipped
    created: float = field(default_factory=time.time)
    planned: int = 0  # a Swiss system's rounds (a round robin's are all made at once)

    @property
    def total(self) -> int:
        return self.planned or len(self.rounds)

    def scores(self, results: dict[str, str | None]) -> tuple[dict, dict]:
        """Each player's points and games played, from the games' results."""
        points = {p: 0.0 for p in self.players}
        played = {p: 0 for p in self.players}
        for key, game_id in self.games.items():
            number, index = map(int, key.split(":"))
            result = results.get(game_id)
            if result in ("A", "B", "D"):
                for seat, player in enumerate(self.rounds[number][index]):
                    played[player] += 1
                    points[player] += 1.0 if result == "AB"[seat] else (
                        0.5 if result == "D" else 0.0)
        return points, played

    def next_pairs(self, results: dict[str, str | None], absent: set[str]) -> list[list]:
        """The pairs of the round to start (a Swiss round is paired now, the absent left
        out)."""
        if self.kind != "swiss":
            return self.rounds[self.started]
        points, _ = self.scores(results)
        met, firsts, byes = set(), {p: 0 for p in self.players}, set()
        for pairs in self.rounds:
            for first, second in pairs:
                if second is None:
                    byes.add(first)
                elif first is not None:
                    met.add(frozenset((first, second)))
                    firsts[first] += 1
        here = [p for p in self.players if p not in absent]
        self.rounds.append(swiss_round(here, points, met, firsts, byes))
        return self.rounds[-1]

    def view(self, results: dict[str, str | None], names: dict[str, str]) -> dict:
        """The pairings round by round with their games and results, and the standings
        (``results``: each game's A/B/D, X for none, or None while going on; ``names``:
        shown names)."""
        points, played = self.scores(results)
        rounds = []
        for number, pairs in enumerate(self.rounds):
            shown = []
            for index, (first, second) in enumerate(pairs):
                game_id = self.games.get(f"{number}:{index}")
                shown.append({"first": first, "second": second,
                              "names": [names.get(first, first), names.get(second, second)],
                              "game_id": game_id,
                              "result": results.get(game_id) if game_id else None,
                              "skipped": number < self.started and game_id is None
                              and None not in (first, second)})
            rounds.append(shown)
        table = sorted(self.players, key=lambda p: (-points[p], played[p], names.get(p, p)))
        return {"id": self.id, "kind": self.kind, "game": self.game, "clock": self.clock,
                "started": self.started, "planned": self.total, "rounds": rounds,
                "finished": self.started == self.total and all(
                    r["result"] or r["skipped"] or None in (r["first"], r["second"])
                    for pairs in rounds for r in pairs),
                "standings": [{"pupil": p, "name": names.get(p, p), "points": points[p],
                               "games": played[p]} for p in table]}


class Tournaments:
    """The class tournaments of one site (in its ``Store``)."""

    def __init__(self, store) -> None:
        self.store = store

    def create(self, class_id: str, kind: str, game: str, options: dict, clock: list,
               players: list[str], planned: int = 0) -> Tournament:
        (count,) = self.store.execute("SELECT COUNT(*) FROM tournaments WHERE class_id = ?",
                                      (class_id,)).fetchone()
        if count >= TOURNAMENTS_KEPT:
            raise ConflictError(f"a class keeps at most {TOURNAMENTS_KEPT} tournaments",
                                code="too_many_tournaments", count=TOURNAMENTS_KEPT)
        made = Tournament(secrets.token_urlsafe(9), class_id, kind, game, options, clock,
                          players, planned=planned if kind == "swiss" else 0)
        if kind == "round-robin":
            made.rounds = [[list(pair) for pair in pairs] for pairs in round_robin(players)]
        self.store.execute("INSERT INTO tournaments VALUES (?, ?, ?, ?)",
                           (made.id, class_id, json.dumps(asdict(made)), made.created))
        return made

    def get(self, tournament_id: str, class_id: str | None = None) -> Tournament:
        row = self.store.execute("SELECT tournament FROM tournaments WHERE id = ?",
                                 (tournament_id[:40],)).fetchone()
        found = None if row is None else Tournament(**json.loads(row[0]))
        if found is None or (class_id is not None and found.class_id != class_id):
            raise NotFoundError("no such tournament", code="no_tournament")
        return found

    def of_class(self, class_id: str) -> list[Tournament]:
        return [Tournament(**json.loads(text)) for (text,) in self.store.execute(
            "SELECT tournament FROM tournaments WHERE class_id = ? ORDER BY created",
            (class_id,))]

    def save(self, tournament: Tournament) -> None:
        self.store.execute("UPDATE tournaments SET tournament = ? WHERE id = ?",
                           (json.dumps(asdict(tournament)), tournament.id))
