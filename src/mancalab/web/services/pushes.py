"""What reaches open pages without their asking: a game's watchers get each change, the
lobby's and an arena's followers their pages, all at most one send at a time per socket;
and what other processes changed (PostgreSQL's notifications) is followed here."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from typing import TYPE_CHECKING

from fastapi import WebSocket

from ..arenas import Arena
from ..clients import CLASS_ADDRESSES, admits, scope_client
from ..errors import NotFoundError
from ..rooms import Room
from ..thinking import Limits

if TYPE_CHECKING:
    from ..hub import Hub

LIVE_SHOWN = 30  # games being played now, listed to watch
LOBBY_PAUSE = 0.2  # seconds: the lobby's changes within it are pushed as one
SEND_SECONDS = 5.0  # a watcher's socket that takes no update for this long is dropped


class Pushes:
    """The open pages of this process (a game's watchers with their tokens, the lobby's and
    each arena's followers) and what they are sent."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.watchers: dict[str, set[tuple[WebSocket, str | None]]] = {}
        self.lobby_sockets: set[WebSocket] = set()  # pages following the lobby
        self.lobby_due = False  # a push of the lobby is scheduled
        # pages following an arena: (socket, account) by arena, and the pushes scheduled
        self.arena_sockets: dict[str, set[tuple[WebSocket, str | None]]] = {}
        self.arenas_due: set[str] = set()
        self.sockets_by_client: Counter[str | None] = Counter()  # open websockets
        self.sending: dict[WebSocket, str | None] = {}  # sockets being sent to: the next text
        self.stop_listening = None  # stops following other processes' changes

    # ----- what other processes changed ----------------------------------------------
    def listen(self) -> None:
        """Follow the other processes' changes (PostgreSQL's notifications): a game this
        process holds is made current and its watchers told; after a lost connection every
        game held is compared by version, since notifications may have been missed."""
        if self.stop_listening is not None:  # the app started again: once is enough
            return
        loop, store = asyncio.get_running_loop(), self.hub.store
        if store.shared:
            self.hub.seen.heartbeat()
        self.stop_listening = store.backend.listen(
            lambda message: loop.call_soon_threadsafe(self.told, message))

    def told(self, message: str | None) -> None:
        """Act on a notification (None: the listener reconnected, anything may be missed)."""
        hub, games = self.hub, self.hub.games
        if message is None:
            hub.spawn(games.catch_up(list(games.rooms)))
            return
        kind, _, rest = message.partition(" ")
        if kind == "game":
            game_id, _, version = rest.partition(" ")
            room = games.rooms.get(game_id)
            # a version the room has, or has passed (its own change's, told after the next
            # one was made), is nothing to load
            if room is not None and room.stored_version < int(version):
                hub.spawn(games.catch_up([game_id], known=True))
        elif kind == "seen" and rest in games.rooms:  # a page came or went elsewhere
            hub.spawn(self._seen_elsewhere(games.rooms[rest]))
        elif kind == "lobby" and self.lobby_sockets and not self.lobby_due:
            hub.spawn(self.tell_lobby())
        elif kind == "arena":  # its pages, and the lobby's list of arenas
            if self.arena_sockets.get(rest) and rest not in self.arenas_due:
                hub.spawn(self.tell_arena(rest))
            self.told("lobby")

    def _notify(self, message: str) -> None:
        """Tell every process (through the database where several share it; this one too)."""
        if self.hub.store.shared:
            self.hub.store.backend.notify(message)
        else:
            self.told(message)

    async def _seen_elsewhere(self, room: Room) -> None:
        await self.hub.seen.read(room.id, again=True)
        await self.broadcast(room)

    # ----- the lobby ------------------------------------------------------------------
    def lobby_changed(self) -> None:
        """A seek or a listed game came or went: every process pushes its lobby pages."""
        self._notify("lobby")

    def lobby_view(self) -> dict:
        """The open seeks (newest first, with their seeker's rating), the listed games
        being played (newest first) and the arenas (going on and just finished)."""
        hub = self.hub
        hub.lobby.sweep_now_and_then()
        seeks = sorted(hub.lobby.open(), key=lambda s: s.created, reverse=True)
        bots = hub.tokens.bots_among(s.account for s in seeks)
        going = [room for room in map(hub.games.room, hub.store.listed_games(LIVE_SHOWN))
                 if room.record is not None and not room.record.state.is_over and room.ply]
        return {"seeks": [{**s.public(),
                           "rating": hub.accounts.shown_rating(s.account, s.game),
                           "bot": s.account in bots}
                          for s in seeks],
                "live": [{"id": room.id, "game": room.game, "names": room.names,
                          "ply": room.ply, "rated": room.rated,
                          "clock": None if room.clock is None else room.clock.view()}
                         for room in going],
                "arenas": self.arenas_view()}

    def arenas_view(self) -> list[dict]:
        """The arenas listed to everybody (a class's arena is its pupils' alone)."""
        self.hub.arenas.sweep()
        return [arena.view() for arena in self.hub.arenas.all() if arena.class_id is None]

    def lobby_text(self) -> str:
        return json.dumps({"type": "lobby", **self.lobby_view()})

    async def tell_lobby(self) -> None:
        """Push the lobby to this process's lobby pages, the changes of ``LOBBY_PAUSE``
        as one."""
        if self.lobby_due or not self.lobby_sockets:
            return
        self.lobby_due = True
        await asyncio.sleep(LOBBY_PAUSE)
        self.lobby_due = False
        text = self.lobby_text()
        await asyncio.gather(*(self.send_latest(None, socket, text)
                               for socket in list(self.lobby_sockets)))

    # ----- arenas ---------------------------------------------------------------------
    def arena_changed(self, arena_id: str) -> None:
        """An arena's standings or pairings changed: every process pushes its pages of it
        (told at the commit where a change's transaction is open)."""
        self._notify(f"arena {arena_id}")

    def arena_text(self, arena: Arena, name: str | None) -> str:
        return json.dumps({"type": "arena", "arena": arena.view_for(name)})

    async def tell_arena(self, arena_id: str) -> None:
        """Push the arena to this process's pages of it, the changes of ``LOBBY_PAUSE`` as
        one, each as its account sees it."""
        if arena_id in self.arenas_due or not self.arena_sockets.get(arena_id):
            return
        self.arenas_due.add(arena_id)
        await asyncio.sleep(LOBBY_PAUSE)
        self.arenas_due.discard(arena_id)
        try:
            arena = await self.hub.store.off_loop(self.hub.arenas.get, arena_id)
        except NotFoundError:
            return
        followers = list(self.arena_sockets.get(arena_id, ()))
        await asyncio.gather(*(self.send_latest(None, socket, self.arena_text(arena, name))
                               for socket, name in followers))

    # ----- a game's watchers ----------------------------------------------------------
    async def broadcast(self, room: Room, skip: WebSocket | None = None) -> None:
        """Send the game to its watchers (but ``skip``): the view built once, then once per
        seat seen."""
        watchers = [w for w in self.watchers.get(room.id, ()) if w[0] is not skip]
        if not watchers:
            return
        shared = {**room.shared_view(), **self.presence(room)}
        texts: dict[int | None, str] = {}
        for _, token in watchers:
            seat = room.seat_of(token)
            if seat not in texts:
                texts[seat] = json.dumps({"type": "state",
                                          "state": room.view(token, shared)})
        await asyncio.gather(*(self.send_latest(room.id, socket, texts[room.seat_of(token)])
                               for socket, token in watchers))

    async def send_latest(self, game_id: str | None, socket: WebSocket, text: str) -> None:
        """Send a view to one watcher, at most one send at a time and one waiting (a newer
        view replaces the waiting one: it says everything the older said), so a socket
        that does not read holds two texts at most; one that takes no text for
        ``SEND_SECONDS`` is dropped."""
        if socket in self.sending:
            self.sending[socket] = text
            return
        self.sending[socket] = None
        try:
            while text is not None:
                try:
                    await asyncio.wait_for(socket.send_text(text), timeout=SEND_SECONDS)
                except Exception:  # noqa: BLE001 - closed, or not reading: dropped
                    for watcher in [w for w in self.watchers.get(game_id, ()) if w[0] is socket]:
                        self.watchers[game_id].discard(watcher)
                    self.lobby_sockets.discard(socket)
                    self.hub.spawn(close_quietly(socket, 1008, "the page did not read its "
                                                               "updates"))
                    return
                text, self.sending[socket] = self.sending[socket], None
        finally:
            self.sending.pop(socket, None)

    def presence(self, room: Room) -> dict:
        """Whether each seat has a page open on the game (a websocket holding its token, on
        any process), whether it ever had (``came``: a player who left, not one not yet
        come), and for how long one that came has been gone."""
        return self.hub.seen.of(room.id, {room.seat_of(token)
                                          for _, token in self.watchers.get(room.id, ())}
                                - {None})

    def broadcast_soon(self, room: Room, skip=None) -> None:
        """``broadcast`` as a task of its own (a page's coming seen by the others)."""
        self.hub.spawn(self.broadcast(room, skip=skip))

    # ----- the site's socket limits --------------------------------------------------
    def admits(self, client: str | None, limits: Limits) -> bool:
        """Whether ``client`` (an address) may open one more websocket: a class's pupils
        seen there each add their share (``clients.ClassAddresses``)."""
        extra = CLASS_ADDRESSES.count(client) * CLASS_ADDRESSES.sockets
        sockets = self.sockets_by_client
        return admits(sockets[client], sockets.total(), limits.sockets,
                      limits.client_sockets + extra, limits.share_connections + extra)

    def opened(self, client: str | None) -> None:
        self.sockets_by_client[client] += 1

    def closed(self, client: str | None) -> None:
        self.sockets_by_client[client] -= 1
        if self.sockets_by_client[client] <= 0:
            del self.sockets_by_client[client]

    def shed(self, game_id: str | None = None, client: str | None = None) -> bool:
        """Close one spectator's socket to make room for a player's: of ``game_id``'s
        watchers, or of ``client``'s, or any. True when one was found (its count drops as
        it closes)."""
        rooms = self.hub.games.rooms
        for found in ([game_id] if game_id else list(self.watchers)):
            room = rooms.get(found)
            for socket, token in list(self.watchers.get(found, ())):
                if room is not None and room.seat_of(token) is not None:
                    continue
                if client is not None and scope_client(socket.scope) != client:
                    continue
                self.watchers[found].discard((socket, token))
                self.hub.spawn(close_quietly(socket, 4429, "room made for a player"))
                return True
        if game_id is not None:
            return False
        # a page following the lobby or an arena is a spectator too (it asks while away)
        followers = [(self.lobby_sockets, socket) for socket in self.lobby_sockets] + \
            [(pages, page) for pages in self.arena_sockets.values() for page in pages]
        for pages, page in followers:
            socket = page[0] if isinstance(page, tuple) else page
            if client is None or scope_client(socket.scope) == client:
                pages.discard(page)
                self.hub.spawn(close_quietly(socket, 4429, "room made for a player"))
                return True
        return False

    def room_for_player(self, client: str | None, limits: Limits) -> bool:
        """Shed a spectator's socket for a player's: one of the player's own address when
        it holds its most, else one of the address holding the most sockets that has one."""
        if self.sockets_by_client[client] >= limits.client_sockets:
            return self.shed(client=client)
        return any(self.shed(client=other) for other, _ in self.sockets_by_client.most_common())


async def close_quietly(socket: WebSocket, code: int, reason: str) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.close(code=code, reason=reason), timeout=1)


async def send_quietly(socket: WebSocket, text: str) -> None:
    """Send to one watcher; a closed or stuck socket is left behind, not waited for."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.send_text(text), timeout=5)
