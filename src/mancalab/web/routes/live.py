"""The live game: a websocket per watcher, moves over it, every change pushed."""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ...core import MancalabError
from ..clients import CLASS_ADDRESSES, admits, scope_client
from ..errors import BusyError, NotFoundError
from ..rooms import Room
from ..thinking import Limits
from ..hub import Hub
from ..guard import parse_json
from ..services.pushes import close_quietly, send_quietly
from ..deps import HubDep, LimitsDep


router = APIRouter()


@router.websocket("/api/games/{game_id}/ws")
async def live(hub: HubDep, limits: LimitsDep, socket: WebSocket, game_id: str,
               token: str | None = None) -> None:
    # refusals are closes after the handshake, so the page reads their codes (a refused
    # handshake is a bare 403 to a browser)
    try:
        room = await hub.games.load(game_id)
    except NotFoundError:
        await refuse(socket, 4404, "no such game")
        return
    if not _same_origin(socket):
        await refuse(socket, 4403, "a page of another site may not connect")
        return
    seated = room.seat_of(token) is not None
    watchers = hub.pushes.watchers.setdefault(game_id, set())
    client = scope_client(socket.scope)
    if len(watchers) >= limits.watchers and not (seated and _shed(hub, game_id)):
        await refuse(socket, 4429, "too many watchers of this game")
        return
    if not _admitted(hub, client, limits) and \
            not (seated and _room_for_player(hub, client, limits)):
        await refuse(socket, 4429, "too many live connections from one address")
        return
    hub.pushes.sockets_by_client[client] += 1
    await socket.accept()
    watcher = (socket, token)
    watchers.add(watcher)
    seated = room.mode == "online" and seated
    try:
        await socket.send_json({"type": "state", "state": hub.games.view(room, token)})
        if seated:  # the others see who is here
            hub.spawn(hub.pushes.broadcast(room, skip=socket))
        recent: deque[float] = deque(maxlen=WS_MESSAGES)
        while True:
            message = await socket.receive()
            if message["type"] == "websocket.disconnect":
                break
            now = time.monotonic()
            if len(recent) == WS_MESSAGES and now - recent[0] < WS_SECONDS:
                await socket.close(code=1008, reason=f"more than {WS_MESSAGES} messages in "
                                                     f"{WS_SECONDS:g} s")
                break
            recent.append(now)
            await _answer(hub, room, socket, token, message.get("text"))
    except WebSocketDisconnect:
        pass
    finally:
        watchers.discard(watcher)
        if seated:
            hub.pushes.presence(room)  # a seat with no page from now: counted for a claim
            with contextlib.suppress(RuntimeError):  # the loop is closing
                hub.games.after_change(room)
        hub.pushes.sockets_by_client[client] -= 1
        if hub.pushes.sockets_by_client[client] <= 0:
            del hub.pushes.sockets_by_client[client]


@router.websocket("/api/lobby/ws")
async def lobby(hub: HubDep, limits: LimitsDep, socket: WebSocket) -> None:
    """The lobby's seeks, the games being played and the arenas, pushed on every change
    (from any process of the site): ``{"type": "lobby", "seeks", "live", "arenas"}``."""
    async with following(hub, limits, socket) as admitted:
        if not admitted:
            return
        hub.pushes.lobby_sockets.add(socket)
        try:
            await socket.send_text(hub.pushes.lobby_text())
            while (await socket.receive())["type"] != "websocket.disconnect":
                pass  # the page sends nothing; whatever it sends is not read
        finally:
            hub.pushes.lobby_sockets.discard(socket)


def _admitted(hub: Hub, client: str | None, limits: Limits) -> bool:
    """Whether ``client`` (an address) may open one more websocket: a class's pupils seen
    there each add their share (``clients.ClassAddresses``)."""
    extra = CLASS_ADDRESSES.count(client) * CLASS_ADDRESSES.sockets
    sockets = hub.pushes.sockets_by_client
    return admits(sockets[client], sockets.total(), limits.sockets,
                  limits.client_sockets + extra, limits.share_connections + extra)


@contextlib.asynccontextmanager
async def following(hub: Hub, limits: Limits, socket: WebSocket):
    """A page's socket that follows something pushed (the lobby, an arena), within the
    site's socket limits: yields whether it was admitted (else it was closed with 4403 or
    4429), and counts it against its address while it is open."""
    if not _same_origin(socket):
        await refuse(socket, 4403, "a page of another site may not connect")
        yield False
        return
    client = scope_client(socket.scope)
    if not _admitted(hub, client, limits):
        await refuse(socket, 4429, "too many live connections from one address")
        yield False
        return
    hub.pushes.sockets_by_client[client] += 1
    await socket.accept()
    try:
        yield True
    except WebSocketDisconnect:
        pass
    finally:
        hub.pushes.sockets_by_client[client] -= 1
        if hub.pushes.sockets_by_client[client] <= 0:
            del hub.pushes.sockets_by_client[client]


async def refuse(socket: WebSocket, code: int, reason: str) -> None:
    await socket.accept()
    await socket.close(code=code, reason=reason)


def _shed(hub: Hub, game_id: str | None = None, client: str | None = None) -> bool:
    """Close one spectator's socket to make room for a player's: of ``game_id``'s watchers,
    or of ``client``'s, or any. True when one was found (its count drops as it closes)."""
    for found in ([game_id] if game_id else list(hub.pushes.watchers)):
        room = hub.games.rooms.get(found)
        for socket, token in list(hub.pushes.watchers.get(found, ())):
            if room is not None and room.seat_of(token) is not None:
                continue
            if client is not None and scope_client(socket.scope) != client:
                continue
            hub.pushes.watchers[found].discard((socket, token))
            hub.spawn(close_quietly(socket, 4429, "room made for a player"))
            return True
    if game_id is not None:
        return False
    # a page following the lobby or an arena is a spectator too (it asks while it is away)
    followers = [(hub.pushes.lobby_sockets, socket) for socket in hub.pushes.lobby_sockets] + \
        [(pages, page) for pages in hub.pushes.arena_sockets.values() for page in pages]
    for pages, page in followers:
        socket = page[0] if isinstance(page, tuple) else page
        if client is None or scope_client(socket.scope) == client:
            pages.discard(page)
            hub.spawn(close_quietly(socket, 4429, "room made for a player"))
            return True
    return False


def _room_for_player(hub: Hub, client: str | None, limits: Limits) -> bool:
    """Shed a spectator's socket for a player's: one of the player's own address when it
    holds its most, else one of the address holding the most sockets that has one."""
    if hub.pushes.sockets_by_client[client] >= limits.client_sockets:
        return _shed(hub, client=client)
    return any(_shed(hub, client=other) for other, _ in hub.pushes.sockets_by_client.most_common())


def _same_origin(socket: WebSocket) -> bool:
    """Whether a websocket comes from this server's own page (or from a program, which sends
    no Origin): a page of another site must not act with a visitor's link."""
    origin = socket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == socket.headers.get("host")



WS_MESSAGE = 1000  # characters: a move message is a few dozen
WS_MESSAGES, WS_SECONDS = 60, 10.0  # messages a websocket may send in any such time (a
# person plays a move a second at most); the 61st within 10 s closes it


async def _answer(hub: Hub, room: Room, socket: WebSocket, token: str | None,
                  text: str | None) -> None:
    """A move sent over the websocket: ``{"type": "move", "move": ..., "ply": ...}``; the
    answer is ``ack`` once the move is stored, or ``error`` with the reason (the socket stays
    open). Types are as strict as over HTTP: a move is a whole number or its name."""
    try:
        if text is None:
            raise MancalabError("send text frames holding JSON")
        if len(text) > WS_MESSAGE:
            raise MancalabError(f"a message has at most {WS_MESSAGE} characters")
        message = parse_json(text)
        if not isinstance(message, dict) or message.get("type") != "move":
            raise MancalabError('send {"type": "move", "move": M, "ply": N}')
        move, ply = message.get("move"), message.get("ply")
        if isinstance(move, bool) or not isinstance(move, (int, str)) or \
                (isinstance(move, str) and len(move) > 40):
            raise MancalabError("the move must be a cell index (a whole number) or its name")
        if ply is not None and (isinstance(ply, bool) or not isinstance(ply, int) or ply < 0):
            raise MancalabError("ply must be a whole number >= 0")
        hub.games.pace(room.id)
        move, ply = await hub.games.apply(room, lambda r: (r.play(hub.store, token, move, ply),
                                                      r.ply))
    except (MancalabError, BusyError, ValueError, TypeError, RecursionError) as error:
        reason = "the message is nested too deeply" if isinstance(error, RecursionError) \
            else str(error)
        await send_quietly(socket, json.dumps({"type": "error", "message": reason}))
        return
    await socket.send_json({"type": "ack", "move": move, "ply": ply})

