"""The live game: a websocket per watcher, moves over it, every change pushed."""

from __future__ import annotations

import contextlib
import json
import time
from collections import deque
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ...core import MancalabError
from ..clients import scope_client
from ..errors import BusyError, NotFoundError
from ..rooms import Room
from ..thinking import Limits
from ..guard import parse_json
from ..services.games import Games
from ..services.pushes import Pushes, send_quietly
from ..deps import GamesDep, LimitsDep, PushesDep


router = APIRouter()


@router.websocket("/api/games/{game_id}/ws")
async def live(games: GamesDep, pushes: PushesDep, limits: LimitsDep, socket: WebSocket,
               game_id: str, token: str | None = None) -> None:
    # refusals are closes after the handshake, so the page reads their codes (a refused
    # handshake is a bare 403 to a browser)
    try:
        room = await games.load(game_id)
    except NotFoundError:
        await refuse(socket, 4404, "no such game")
        return
    if not _same_origin(socket):
        await refuse(socket, 4403, "a page of another site may not connect")
        return
    seated = room.seat_of(token) is not None
    watchers = pushes.watchers.setdefault(game_id, set())
    client = scope_client(socket.scope)
    if len(watchers) >= limits.watchers and not (seated and pushes.shed(game_id)):
        await refuse(socket, 4429, "too many watchers of this game")
        return
    if not pushes.admits(client, limits) and \
            not (seated and pushes.room_for_player(client, limits)):
        await refuse(socket, 4429, "too many live connections from one address")
        return
    pushes.opened(client)
    await socket.accept()
    watcher = (socket, token)
    watchers.add(watcher)
    seated = room.mode == "online" and seated
    try:
        await socket.send_json({"type": "state", "state": games.view(room, token)})
        if seated:  # the others see who is here
            pushes.broadcast_soon(room, skip=socket)
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
            await _answer(games, room, socket, token, message.get("text"))
    except WebSocketDisconnect:
        pass
    finally:
        watchers.discard(watcher)
        if seated:
            pushes.presence(room)  # a seat with no page from now: counted for a claim
            with contextlib.suppress(RuntimeError):  # the loop is closing
                games.after_change(room)
        pushes.closed(client)


@router.websocket("/api/lobby/ws")
async def lobby(pushes: PushesDep, limits: LimitsDep, socket: WebSocket) -> None:
    """The lobby's seeks, the games being played and the arenas, pushed on every change
    (from any process of the site): ``{"type": "lobby", "seeks", "live", "arenas"}``."""
    async with following(pushes, limits, socket) as admitted:
        if not admitted:
            return
        pushes.lobby_sockets.add(socket)
        try:
            await socket.send_text(pushes.lobby_text())
            while (await socket.receive())["type"] != "websocket.disconnect":
                pass  # the page sends nothing; whatever it sends is not read
        finally:
            pushes.lobby_sockets.discard(socket)


@contextlib.asynccontextmanager
async def following(pushes: Pushes, limits: Limits, socket: WebSocket):
    """A page's socket that follows something pushed (the lobby, an arena), within the
    site's socket limits: yields whether it was admitted (else it was closed with 4403 or
    4429), and counts it against its address while it is open."""
    if not _same_origin(socket):
        await refuse(socket, 4403, "a page of another site may not connect")
        yield False
        return
    client = scope_client(socket.scope)
    if not pushes.admits(client, limits):
        await refuse(socket, 4429, "too many live connections from one address")
        yield False
        return
    pushes.opened(client)
    await socket.accept()
    try:
        yield True
    except WebSocketDisconnect:
        pass
    finally:
        pushes.closed(client)


async def refuse(socket: WebSocket, code: int, reason: str) -> None:
    await socket.accept()
    await socket.close(code=code, reason=reason)


def _same_origin(socket: WebSocket) -> bool:
    """Whether a websocket comes from this server's own page (or from a program, which sends
    no Origin): a page of another site must not act with a visitor's link."""
    origin = socket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == socket.headers.get("host")


WS_MESSAGE = 1000  # characters: a move message is a few dozen
WS_MESSAGES, WS_SECONDS = 60, 10.0  # messages a websocket may send in any such time (a
# person plays a move a second at most); the 61st within 10 s closes it


async def _answer(games: Games, room: Room, socket: WebSocket, token: str | None,
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
        games.pace(room.id)
        move, ply = await games.apply(room, lambda r: (r.play(games.store, token, move, ply),
                                                  r.ply))
    except (MancalabError, BusyError, ValueError, TypeError, RecursionError) as error:
        reason = "the message is nested too deeply" if isinstance(error, RecursionError) \
            else str(error)
        await send_quietly(socket, json.dumps({"type": "error", "message": reason}))
        return
    await socket.send_json({"type": "ack", "move": move, "ply": ply})

