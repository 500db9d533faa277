"""Arena tournaments: made and joined by players with accounts; each player's next game is
found by asking about the arena (``me``)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request, WebSocket

from ..accounts import require
from ..arenas import Arena
from ..rooms import Room
from ..schemas import NewArena
from ..errors import NotFoundError
from .accounts import COOKIE, logged_in
from .live import following, refuse
from ..deps import HubDep, LimitsDep, PushesDep, new_games


router = APIRouter()


@router.post("/api/arenas", status_code=201, summary="Open an arena (an account needed)")
@new_games
async def open_arena(hub: HubDep, request: Request, body: NewArena) -> dict:
    name = require(logged_in(hub, request))
    room = Room.create(body.game, body.options, "online")  # the game and options checked
    arena = hub.arenas.open(Arena("", room.game, room.options,
                                  [body.clock.base, body.clock.increment], body.rated,
                                  time.time() + body.seconds, name, bots=body.bots))
    hub.pushes.arena_changed(arena.id)  # the lobby's list
    return arena.view_for(name)


@router.get("/api/arenas", summary="The arenas going on and those just finished")
async def arenas(pushes: PushesDep) -> dict:
    return {"arenas": pushes.arenas_view()}


@router.get("/api/arenas/{arena_id}", summary="An arena: its standings and, for a player "
                                              "in it, their game going on")
async def one(hub: HubDep, request: Request, arena_id: str) -> dict:
    arena = hub.arenas.get(arena_id)
    return arena.view_for(logged_in(hub, request))


@router.post("/api/arenas/{arena_id}/join", summary="Join an arena: paired at once")
async def join(hub: HubDep, request: Request, arena_id: str) -> dict:
    name = require(logged_in(hub, request))
    return hub.pairing.join_arena(arena_id, name).view_for(name)


@router.post("/api/arenas/{arena_id}/leave", summary="Leave an arena: no more pairings "
                                                     "(a game going on goes on)")
async def leave(hub: HubDep, request: Request, arena_id: str) -> dict:
    name = require(logged_in(hub, request))
    with hub.arenas.changing(arena_id) as arena:
        hub.arenas.leave(arena, name)
    hub.pushes.arena_changed(arena_id)
    return arena.view_for(name)


@router.websocket("/api/arenas/{arena_id}/ws")
async def follow(hub: HubDep, limits: LimitsDep, socket: WebSocket, arena_id: str) -> None:
    """The arena as the page's account sees it, pushed on every change (from any process
    of the site): ``{"type": "arena", "arena": ...}``."""
    try:
        hub.arenas.get(arena_id)
    except NotFoundError:
        await refuse(socket, 4404, "no such arena")
        return
    name = hub.accounts.name_of(socket.cookies.get(COOKIE))
    async with following(hub, limits, socket) as admitted:
        if not admitted:
            return
        hub.pushes.arena_sockets.setdefault(arena_id, set()).add((socket, name))
        try:
            await socket.send_text(hub.pushes.arena_text(hub.arenas.get(arena_id), name))
            while (await socket.receive())["type"] != "websocket.disconnect":
                pass  # the page sends nothing; whatever it sends is not read
        finally:
            hub.pushes.arena_sockets.get(arena_id, set()).discard((socket, name))


