"""Arena tournaments (lichess's model, simpler): players with accounts join for a fixed time
and are paired again as soon as they finish a game, with the clock the arena sets; a win
scores 2, a draw 1, a loss 0; standings are live and the top score wins.

Simpler than lichess: no streak bonus and no berserk; a waiting player is paired with the
waiting player nearest in score, not the one just played when another waits; ties are broken
by wins, then by fewer games. Arenas are kept in the store, each a row changed under its
lock by whichever process is asked (a restart or a dead process ends nothing), bounded in
number and in players.

An arena pairs until its time is over, whatever its games are doing; a game still going then
counts when it ends (its clock and the first-move rule bound how long: a game nobody starts
is aborted within 30 s), and the standings are final once the last one has. An aborted game
counts for nobody, and the player who did not move is paired no more (they may join again).
Only running arenas count toward ``ARENAS`` and toward a maker's one.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Iterator

from .errors import BusyError, ConflictError, NotFoundError
from .store import Store

ARENAS = 20  # arenas open at once
PLAYERS = 200  # players in one arena
KEPT_SECONDS = 3600  # a finished arena is shown this long


@dataclass
class Entrant:
    name: str
    points: int = 0
    wins: int = 0
    games: int = 0
    firsts: int = 0  # games played in the first seat
    playing: str | None = None  # the game going on, if any
    token: str | None = None  # the entrant's token in it
    last: str | None = None  # the last opponent
    present: bool = True  # False once they left: not paired again

    def row(self) -> dict:
        return {"name": self.name, "points": self.points, "wins": self.wins,
                "games": self.games, "playing": self.playing is not None,
                "present": self.present}


@dataclass
class Arena:
    id: str
    game: str
    options: dict
    clock: list[int]  # [base, increment] seconds
    rated: bool
    ends_at: float
    by: str
    entrants: dict[str, Entrant] = field(default_factory=dict)
    games: list[str] = field(default_factory=list)
    bots: bool = False  # BOT accounts may join (people's arenas admit none)
    class_id: str | None = None  # a class's arena: its pupils alone, not listed to all

    def kept(self) -> dict:
        """The arena as the store keeps it (JSON)."""
        return {**{name: getattr(self, name) for name in self.__dataclass_fields__},
                "entrants": {name: vars(e) for name, e in self.entrants.items()}}

    @classmethod
    def of(cls, kept: dict) -> Arena:
        return cls(**{**kept, "entrants": {name: Entrant(**e)
                                           for name, e in kept["entrants"].items()}})

    @property
    def running(self) -> bool:
        return time.time() < self.ends_at

    @property
    def finished(self) -> bool:
        return not self.running and not any(e.playing for e in self.entrants.values())

    def standings(self) -> list[Entrant]:
        return sorted(self.entrants.values(), key=lambda e: (-e.points, -e.wins, e.games))

    def view(self) -> dict:
        table = [e.row() for e in self.standings()]
        pairings: dict[str, list[str]] = {}
        for entrant in self.entrants.values():
            if entrant.playing is not None:
                pairings.setdefault(entrant.playing, []).append(entrant.name)
        return {"id": self.id, "pairings": [{"game_id": game_id, "names": names}
                                            for game_id, names in pairings.items()], "game": self.game, "options": self.options,
                "clock": {"base": self.clock[0], "increment": self.clock[1]},
                "rated": self.rated, "bots": self.bots, "class_id": self.class_id,
                "ends_at": self.ends_at, "by": self.by,
                "running": self.running, "finished": self.finished, "standings": table,
                "winner": table[0]["name"] if self.finished and table and table[0]["games"]
                else None, "games": len(self.games)}

    def view_for(self, name: str | None) -> dict:
        """The arena as the account ``name`` sees it: ``me``, its row, game and token."""
        entrant = self.entrants.get(name) if name else None
        return {**self.view(), "me": None if entrant is None else {
            **entrant.row(), "game_id": entrant.playing, "token": entrant.token}}

    def pairs(self, may_play=lambda name: True) -> list[tuple[Entrant, Entrant]]:
        """Who plays whom now: the waiting players by score, each with the nearest in score
        who was not their last opponent when another is waiting; the first seat to the one
        who had it less. A waiting player for whom ``may_play(name)`` is False (asked once
        each, in order, until a partner is found) is withdrawn."""
        if not self.running:
            return []
        waiting = []
        for entrant in self.standings():
            if entrant.present and entrant.playing is None:
                if may_play(entrant.name):
                    waiting.append(entrant)
                else:
                    entrant.present = False
        found = []
        while len(waiting) >= 2:
            first = waiting.pop(0)
            partner = next((e for e in waiting if e.name != first.last), waiting[0])
            waiting.remove(partner)
            found.append((first, partner) if first.firsts <= partner.firsts
                         else (partner, first))
        return found

    def finish(self, game_id: str, seats: list[str], score_first: float) -> None:
        """The game ``game_id`` between ``seats`` (names) ended; ``score_first``: the first
        seat's score."""
        for seat, name in enumerate(seats):
            entrant = self.entrants.get(name)
            if entrant is None or entrant.playing != game_id:
                continue
            score = score_first if seat == 0 else 1 - score_first
            entrant.points += int(2 * score)
            entrant.wins += score == 1
            entrant.games += 1
            entrant.playing = entrant.token = None


    def abandon(self, game_id: str, seats: list[str], idle: int) -> None:
        """The game ``game_id`` between ``seats`` was aborted: it counts for nobody, and the
        player of seat ``idle``, who did not move, is withdrawn."""
        for seat, name in enumerate(seats):
            entrant = self.entrants.get(name)
            if entrant is not None and entrant.playing == game_id:
                entrant.playing = entrant.token = None
                if seat == idle:
                    entrant.present = False


class Arenas:
    """The site's arenas, in its store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def open(self, arena: Arena) -> Arena:
        self.sweep()
        with self.store.transaction():
            self.store.lock_named("arenas")
            live = [a for a in self.all() if a.running]
            if len(live) >= ARENAS:
                raise BusyError(f"at most {ARENAS} arenas at once; join one",
                                code="too_many_arenas", count=ARENAS)
            if any(a.by == arena.by for a in live):
                raise ConflictError("you have an arena going on already",
                                    code="arena_running")
            arena.id = secrets.token_urlsafe(6)
            self.store.execute("INSERT INTO arenas VALUES (?, ?, ?, ?)",
                               (arena.id, json.dumps(arena.kept()), arena.ends_at, arena.by))
        return arena

    def all(self) -> list[Arena]:
        return [Arena.of(json.loads(text)) for (text,) in self.store.execute(
            "SELECT arena FROM arenas ORDER BY ends_at")]

    def get(self, arena_id: str) -> Arena:
        row = None
        if len(arena_id) <= 40:
            row = self.store.execute("SELECT arena FROM arenas WHERE id = ?",
                                     (arena_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no arena {arena_id[:40]!r}")
        return Arena.of(json.loads(row[0]))

    @contextlib.contextmanager
    def changing(self, arena_id: str) -> Iterator[Arena]:
        """The arena, to change: held against every other process until the transaction
        this opens (or joins) ends, and kept as it is left."""
        with self.store.transaction():
            self.store.execute("SELECT id FROM arenas WHERE id = ?" + self.store.for_update,
                               (arena_id,))
            arena = self.get(arena_id)
            yield arena
            self.store.execute("UPDATE arenas SET arena = ? WHERE id = ?",
                               (json.dumps(arena.kept()), arena_id))

    @staticmethod
    def join(arena: Arena, name: str) -> None:
        if not arena.running:
            raise ConflictError("the arena is over", code="arena_over")
        entrant = arena.entrants.get(name)
        if entrant is not None:
            entrant.present = True
            return
        if len(arena.entrants) >= PLAYERS:
            raise BusyError(f"the arena is full ({PLAYERS} players)", code="arena_full",
                            count=PLAYERS)
        arena.entrants[name] = Entrant(name)

    @staticmethod
    def leave(arena: Arena, name: str) -> None:
        entrant = arena.entrants.get(name)
        if entrant is None:
            raise ConflictError("you are not in this arena")
        entrant.present = False

    def sweep(self) -> None:
        """Forget the arenas finished more than ``KEPT_SECONDS`` ago."""
        now = time.time()
        for arena in self.all():
            if arena.finished and now - arena.ends_at > KEPT_SECONDS:
                self.store.execute("DELETE FROM arenas WHERE id = ?", (arena.id,))
