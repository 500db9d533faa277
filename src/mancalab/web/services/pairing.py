"""The games the server starts by itself: an arena's (its waiting players paired as soon as
two may play, again after each game, its points scored once in the game's transaction) and
a class tournament's rounds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..arenas import Arena
from ..clocks import Clock
from ..errors import ConflictError, NotAllowedError, NotFoundError
from ..rooms import Room
from ..tournaments import Tournament

if TYPE_CHECKING:
    from ..hub import Hub


class Pairing:
    """Arenas' and tournaments' games, started and scored."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def score(self, room: Room) -> list[Room]:
        """In the transaction of an arena game's end: its points (once: an entrant counts
        the game it is playing only), and its players paired again: the games started."""
        if room.arena is None or room.record is None or room.record.state.outcome is None:
            return []
        try:
            with self.hub.arenas.changing(room.arena) as arena:
                if not any(e.playing == room.id for e in arena.entrants.values()):
                    return []
                if room.aborted:  # no result; the player who did not move is paired no more
                    arena.abandon(room.id, room.accounts, room.record.state.to_move)
                else:
                    outcome = room.record.state.outcome
                    arena.finish(room.id, room.accounts,
                                 0.5 if outcome.winner is None else float(outcome.winner == 0))
                self.hub.pushes.arena_changed(arena.id)
                return self._pair(arena)
        except NotFoundError:  # the arena was forgotten
            return []

    def join_arena(self, arena_id: str, name: str) -> Arena:
        """``name`` joins the arena and is paired at once if another waits (a BOT only where
        the arena admits bots)."""
        hub = self.hub
        with hub.arenas.changing(arena_id) as arena:
            if arena.class_id is None:
                hub.classes.check_public(name)
            elif (hub.classes.pupil(name) or {}).get("class_id") != arena.class_id:
                raise NotAllowedError("this arena is a class's: its pupils play in it",
                                      code="class_arena")
            if not arena.bots and hub.tokens.is_bot(name):
                raise NotAllowedError("this arena is for people: BOT accounts play in arenas "
                                      "that admit bots", code="arena_no_bots")
            hub.arenas.join(arena, name)
            started = self._pair(arena)
        hub.pushes.arena_changed(arena_id)
        for room in started:
            hub.games.after_change(room)
        if started:
            hub.pushes.lobby_changed()
        return arena

    def leave_arenas(self, account: str) -> None:
        """``account`` is no longer present in any arena (its account is being deleted)."""
        for found in self.hub.arenas.all():
            if account in found.entrants:
                with self.hub.arenas.changing(found.id) as arena:
                    arena.entrants[account].present = False
                self.hub.pushes.arena_changed(found.id)

    def start_round(self, tournament: Tournament, absent: set[str],
                    names: dict[str, str]) -> list[Room]:
        """Start the tournament's next round: a game for each of its pairings (an absent
        pupil's skipped), once every game of the round before has ended."""
        hub = self.hub
        if tournament.started >= tournament.total:
            raise ConflictError("every round has been played", code="tournament_over")
        results = hub.store.results(list(tournament.games.values()))
        if any(result is None for result in results.values()):
            raise ConflictError("games of the round are going on: end the stuck ones first",
                                code="round_going")
        number, started = tournament.started, []
        for index, pair in enumerate(tournament.next_pairs(results, absent)):
            if None in pair or set(pair) & absent:
                continue
            room = Room.create(tournament.game, dict(tournament.options), "online",
                               names=[names[p] for p in pair], helpers=False)
            room.accounts, room.tournament = list(pair), tournament.id
            room.clock = Clock(*tournament.clock)
            hub.games.add(room)
            tournament.games[f"{number}:{index}"] = room.id
            started.append(room)
        tournament.absent[str(number)] = sorted(absent)
        tournament.started += 1
        hub.tournaments.save(tournament)
        for room in started:
            hub.games.after_change(room)
        return started

    def _may_pair(self, name: str) -> bool:
        """Whether an arena may start a game for ``name`` now: within the games an account
        may have going on, its allowances of new games, and room on disk (one who may not is
        withdrawn from the arena; they may join again)."""
        return self.hub.games.live_games(name) < self.hub.limits.account_games and \
            self.hub.allowances.may_pair(name)

    def _pair(self, arena: Arena) -> list[Room]:
        """In the arena's transaction (``Arenas.changing``): start a game for every pair of
        its waiting players, each game charged to both players' accounts like any new game;
        the games started, to be announced once the transaction commits."""
        hub, started = self.hub, []
        for first, second in arena.pairs(self._may_pair):
            names = [first.name, second.name]
            for name in names:
                hub.allowances.charge(account=name)
                hub.allowances.pairings.take(name, 1)
            room = Room.create(arena.game, dict(arena.options), "online", names=names,
                               helpers=False)
            room.accounts, room.rated, room.arena = names, arena.rated, arena.id
            room.public, room.bots = True, hub.tokens.bot_names(names)
            room.ratings = [hub.accounts.shown_rating(name, room.game) for name in names]
            room.clock = Clock(*arena.clock)
            hub.games.add(room)
            arena.games.append(room.id)
            for seat, entrant in enumerate((first, second)):
                entrant.playing, entrant.token = room.id, room.tokens[seat]
                entrant.last = names[1 - seat]
            first.firsts += 1
            started.append(room)
        return started
