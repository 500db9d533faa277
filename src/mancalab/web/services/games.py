"""The games this process holds: loaded from the store on first use, dropped from memory
when idle, a lock each, and every change made as one transaction on the game's row (so that
any process may change any game: the database orders the changes)."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING

from ...core import MancalabError
from ..backends import Stale
from ..errors import NotFoundError
from ..rooms import Room

if TYPE_CHECKING:
    from ..hub import Hub


class Games:
    """Rooms by id and their locks; ``change`` and ``apply`` are the one way a game
    changes."""

    def __init__(self, hub: Hub) -> None:
        self.hub, self.store = hub, hub.store
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    def room(self, game_id: str) -> Room:
        """The game ``game_id``, loaded from the store if it is not in memory. Called on the
        event loop only, so a game is never loaded twice. A loaded game whose computer is to
        move goes on thinking (the server may have stopped while it thought)."""
        room = self.rooms.get(game_id)
        if room is not None and room.stored_version == -1:  # a change that did not commit
            room.refresh(self.store.load(game_id))
        if room is None:
            stored = self.store.load(game_id) if len(game_id) <= 40 else None
            if stored is None:
                raise NotFoundError(f"no game {game_id[:40]!r}", code="no_game")
            room = self.rooms[game_id] = Room.from_stored(stored)
            self.hub.computer.resume(room)
        room.touched = time.monotonic()
        return room

    async def load(self, game_id: str) -> Room:
        """``room(game_id)``, its loading from the store (and, where processes share it,
        the other processes' presence in it) off the event loop."""
        if game_id not in self.rooms and len(game_id) <= 40:
            stored = await self.store.off_loop(self.store.load, game_id)
            if stored is not None and game_id not in self.rooms:  # not loaded meanwhile
                self.rooms[game_id] = Room.from_stored(stored)
                self.hub.computer.resume(self.rooms[game_id])
        room = self.room(game_id)
        await self.hub.seen.read(game_id)
        return room

    def lock(self, game_id: str) -> asyncio.Lock:
        return self.locks.setdefault(game_id, asyncio.Lock())

    def add(self, room: Room) -> None:
        """Store a new game and hold it."""
        room.await_first_move()
        self.store.create(room.to_stored(), room.record.moves if room.record else [],
                          room.deadline())
        room.touched = time.monotonic()
        self.rooms[room.id] = room

    def view(self, room: Room, token: str | None) -> dict:
        """The game as the holder of ``token`` sees it, with who has a page open on it."""
        return {**room.view(token), **self.hub.pushes.presence(room)}

    def seat_view(self, room: Room, seat: int) -> dict:
        """A game as the holder of ``seat`` is answered: its token, links and state."""
        token = room.tokens[seat]
        links = {"play": f"/?game={room.id}&token={token}", "watch": f"/?game={room.id}"}
        if room.mode == "online":
            links["invite"] = f"/?game={room.id}&token={room.tokens[1 - seat]}"
        return {"id": room.id, "token": token, "links": links, "state": self.view(room, token)}

    def created(self, room: Room, seat: int) -> dict:
        """A new game kept and announced, as its maker (holding ``seat``) is answered."""
        self.add(room)
        self.after_change(room)
        return self.seat_view(room, seat)

    def pace(self, game_id: str) -> None:
        """Count a move sent to ``game_id`` by the updates it will send its watchers
        (``Allowances.pace``)."""
        self.hub.allowances.pace(game_id, len(self.hub.pushes.watchers.get(game_id, ())))

    async def change(self, game_id: str, token: str | None, action) -> dict:
        """Run ``action(room)`` as one change of the game (``apply``) and answer with the
        room as ``token`` sees it."""
        room = await self.load(game_id)
        await self.apply(room, action)
        return self.view(room, token)

    async def apply(self, room: Room, action):
        """Run ``action(room)`` (it stores what it changes) as one transaction of the game,
        the room first made current if another process changed the game, then the end
        marked and rated once, the version raised (and told to the other processes at the
        commit). Then the watchers are told. Answers what ``action`` answered.

        Where processes share the store, the room is taken to be current and the version
        raised only if it still is (one round trip fewer than holding the row first); a
        change that finds it was not, or that is refused, is rolled back and made again on
        the row held, the room made current first."""
        async with self.lock(room.id):
            if self.store.shared and room.stored_version >= 0:
                try:
                    return await self._transaction(room, action, room.stored_version)
                except (Stale, MancalabError, self.store.IntegrityError) as error:
                    if not isinstance(error, MancalabError):  # it was changed: reload
                        room.stored_version = -1
            return await self._transaction(room, action)

    async def _transaction(self, room: Room, action, expected: int | None = None):
        """``apply``'s transaction: the game's row held first, or (``expected``) its
        version checked where it is raised (Stale if it is not ``expected``)."""
        listed = is_listed(room)
        try:
            async with self.store.change():
                # the round trips off the event loop; the room changed on it
                if expected is None:
                    stored = await self.store.off_loop(self.store.lock_game, room.id)
                else:
                    stored = expected
                with self.store.saving_once(room.id):
                    result = self._change(room, action, stored)
                    saved = self.store.saved(room.id)
                if expected is None:
                    version = await self.store.off_loop(self.store.changed, room.id, saved)
                else:  # checked at the commit: nothing to wait for here
                    version = self.store.changed(room.id, saved, expected)
                if version is None:
                    raise Stale()
                room.stored_version = version
                started = self.hub.pairing.score(room)
                if room.public and is_listed(room) != listed or started:
                    self.hub.pushes.lobby_changed()  # told at the commit, with the change
        except MancalabError:
            raise  # a request refused changes nothing (each checks before it changes)
        except BaseException:
            room.stored_version = -1  # what it holds may be ahead of the store: reload
            raise
        self.after_change(room)
        for paired in started:  # the arena's next games
            self.after_change(paired)
        return result

    def _change(self, room: Room, action, stored: int | None):
        """In the change's transaction, the game's row held at version ``stored``: the room
        made current, ``action``, and what follows from it (the end marked, the ratings,
        the first move's wait)."""
        if stored is None:
            raise NotFoundError(f"no game {room.id!r}", code="no_game")
        if stored != room.stored_version:  # made current: the moves it lacks read
            if not room.refresh(self.store.load(room.id, room.held_moves())):
                room.refresh(self.store.load(room.id))
        result = action(room)
        self._mark_end(room)
        self._rate(room)
        if room.await_first_move():
            room.save(self.store)
        return result

    def after_change(self, room: Room) -> None:
        """Keep the game's timer, tell the watchers, and let the computer move if it is its
        turn."""
        self.hub.timers.keep(room)
        self.hub.pushes.broadcast_soon(room)
        self.hub.computer.resume(room)

    def _mark_end(self, room: Room) -> None:
        """When a game ended: its clock's moment for a flag, else now; kept once."""
        if room.ended_at is not None or room.record is None or not room.record.state.is_over:
            return
        clock = room.clock
        room.ended_at = clock.ended_at if clock is not None and clock.ended_at else time.time()
        room.first_move_by = None
        room.save(self.store)

    def _rate(self, room: Room) -> None:
        """Both accounts' ratings after a rated game's end, once (the room remembers, in the
        transaction that rates). A game that ended before both players moved (aborted, or
        resigned at once) is not rated: two accounts of one person cannot pass rating
        points by resigning at once."""
        if not room.rated or room.rated_done or room.record is None or not room.both_moved():
            return
        outcome = room.record.state.outcome
        if outcome is None:
            return
        score = 0.5 if outcome.winner is None else float(outcome.winner == 0)
        room.rating_change = self.hub.accounts.rate(room.id, room.game, room.accounts, score)
        room.rated_done = True
        room.save(self.store)

    async def catch_up(self, game_ids: list[str], known: bool = False) -> None:
        """Make the rooms of ``game_ids`` current where the store has a newer version
        (``known``: it has, a notification said so), and tell their watchers."""
        versions = {game_id: None for game_id in game_ids} if known else \
            self.store.versions(game_ids)
        for game_id, version in versions.items():
            room = self.rooms.get(game_id)
            if room is None or room.stored_version == version:
                continue
            async with self.lock(game_id):
                stored = await self.store.off_loop(self.store.load, game_id,
                                                   room.held_moves())
                if stored.version == room.stored_version:
                    continue
                if not room.refresh(stored):  # it does not continue the room's moves
                    room.refresh(await self.store.off_loop(self.store.load, game_id))
            self.hub.timers.keep(room)
            self.hub.pushes.broadcast_soon(room)

    def live_games(self, account: str) -> int:
        """The games going on in which ``account`` holds a seat."""
        return len(self.store.live_games_of(account))

    async def resign_all(self, account: str) -> None:
        """Resign ``account``'s games going on (rated as any resignation: a loser cannot
        take the winner's rating change away by leaving)."""
        for game_id in self.store.live_games_of(account):
            room = self.room(game_id)
            seats = [seat for seat, name in enumerate(room.accounts) if name == account]
            if room.record is None or room.record.state.is_over or not seats:
                continue
            token = room.tokens[seats[0]]
            await self.change(game_id, token, lambda r, token=token: r.resign(self.store, token))

    def sweep(self, idle_player: float, idle_room: float) -> None:
        """Free the computer players of games idle ``idle_player`` seconds, and drop games
        idle ``idle_room`` seconds and unwatched from memory (they load again from the
        store when asked for)."""
        hub, now = self.hub, time.monotonic()
        for game_id, room in list(self.rooms.items()):
            idle = now - room.touched
            if room.thinking or self.lock(game_id).locked() or game_id in hub.timers.timers:
                continue  # a clocked game's timer holds its room
            if idle > idle_player and room.player is not None:
                hub.computer.free(room)
            if idle > idle_room and not hub.pushes.watchers.get(game_id):
                del self.rooms[game_id]
                self.locks.pop(game_id, None)
                hub.pushes.watchers.pop(game_id, None)
                hub.computer.free(room)
                hub.seen.forget(game_id)
                hub.reviews.forget(game_id)


def is_listed(room: Room) -> bool:
    """Whether the game is among those being played now (begun, not ended)."""
    return room.record is not None and room.ply > 0 and not room.record.state.is_over
