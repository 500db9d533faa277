"""The live game: a websocket per watcher, moves over it, every change pushed."""

from __future__ import annotations

import contextlib
import json
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ...core import MancalabError
from ..clients import Allowance, admits, scope_client
from ..errors import NotFoundError
from ..rooms import Room
from ..thinking import Limits
from ..hub import Hub
from ..guard import parse_json
from ..hub import send_quietly
from . import Rates


def router(hub: Hub, limits: Limits, rates: Rates) -> APIRouter:
    """The websocket's route, for the app of ``hub``."""
    router = APIRouter()

    @router.websocket("/api/games/{game_id}/ws")
    async def live(socket: WebSocket, game_id: str, token: str | None = None) -> None:
        try:
            room = hub.room(game_id)
        except NotFoundError:
            await socket.close(code=4404, reason="no such game")
            return
        if not _same_origin(socket):
            await socket.close(code=4403, reason="a page of another site may not connect")
            return
        watchers = hub.watchers.setdefault(game_id, set())
        if len(watchers) >= limits.watchers:
            await socket.close(code=4429, reason="too many watchers of this game")
            return
        client = scope_client(socket.scope)
        if not admits(hub.sockets_by_client[client], hub.sockets_by_client.total(),
                      limits.sockets, limits.client_sockets, limits.share_connections):
            await socket.close(code=4429, reason="too many live connections from one address")
            return
        hub.sockets_by_client[client] += 1
        await socket.accept()
        watcher = (socket, token)
        watchers.add(watcher)
        seated = room.mode == "online" and room.seat_of(token) is not None
        try:
            await socket.send_json({"type": "state", "state": hub.view(room, token)})
            if seated:  # the others see who is here
                hub._spawn(hub.broadcast(room, skip=socket))
            sent = Allowance(WS_MESSAGES, WS_SECONDS)
            while True:
                message = await socket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if sent.take(None, 1):
                    await socket.close(code=1008, reason=f"more than {WS_MESSAGES} messages in "
                                                         f"{WS_SECONDS:g} s")
                    break
                await _answer(hub, room, socket, token, message.get("text"))
        except WebSocketDisconnect:
            pass
        finally:
            watchers.discard(watcher)
            if seated:
                with contextlib.suppress(RuntimeError):  # the loop is closing
                    hub.after_change(room)
            hub.sockets_by_client[client] -= 1
            if hub.sockets_by_client[client] <= 0:
                del hub.sockets_by_client[client]

    return router


def _same_origin(socket: WebSocket) -> bool:
    """Whether a websocket comes from this server's own page (or from a program, which sends
    no Origin): a page of another site must not act with a visitor's link."""
    origin = socket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == socket.headers.get("host")



WS_MESSAGE = 1000  # characters: a move message is a few dozen
WS_MESSAGES, WS_SECONDS = 60, 10.0  # messages a websocket may send in that time (a person
# plays a move a second at most); beyond, it is closed


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
        async with hub.lock(room.id):
            move = room.play(hub.store, token, move, ply)
            ply = room.ply
    except (MancalabError, ValueError, TypeError, RecursionError) as error:
        reason = "the message is nested too deeply" if isinstance(error, RecursionError) \
            else str(error)
        await send_quietly(socket, json.dumps({"type": "error", "message": reason}))
        return
    await socket.send_json({"type": "ack", "move": move, "ply": ply})
    hub.after_change(room)

