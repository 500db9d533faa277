"""Arena tournaments: made and joined by players with accounts; each player's next game is
found by asking about the arena (``me``)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request, WebSocket

from ..arenas import Arena
from ..rooms import Room
from ..schemas import NewArena
from ..errors import NotFoundError
from ..sessions import COOKIE
from .live import following, refuse
from ..deps import (AccountsDep, ArenasDep, LimitsDep, MemberDep, PairingDep, PushesDep,
                    ViewerDep, new_games)


router = APIRouter()


@router.post("/api/arenas", status_code=201, summary="Open an arena (an account needed)")
@new_games
async def open_arena(arenas: ArenasDep, pushes: PushesDep, name: MemberDep, request: Request,
                     body: NewArena) -> dict:
    room = Room.create(body.game, body.options, "online")  # the game and options checked
    arena = arenas.open(Arena("", room.game, room.options,
                                  [body.clock.base, body.clock.increment], body.rated,
                                  time.time() + body.seconds, name, bots=body.bots))
    pushes.arena_changed(arena.id)  # the lobby's list
    return arena.view_for(name)


@router.get("/api/arenas", summary="The arenas going on and those just finished")
async def arenas(pushes: PushesDep) -> dict:
    return {"arenas": pushes.arenas_view()}


@router.get("/api/arenas/{arena_id}", summary="An arena: its standings and, for a player "
                                              "in it, their game going on")
async def one(arenas: ArenasDep, viewer: ViewerDep, arena_id: str) -> dict:
    return arenas.get(arena_id).view_for(viewer)


@router.post("/api/arenas/{arena_id}/join", summary="Join an arena: paired at once")
async def join(pairing: PairingDep, name: MemberDep, arena_id: str) -> dict:
    return pairing.join_arena(arena_id, name).view_for(name)


@router.post("/api/arenas/{arena_id}/leave", summary="Leave an arena: no more pairings "
                                                     "(a game going on goes on)")
async def leave(arenas: ArenasDep, pushes: PushesDep, name: MemberDep, arena_id: str) -> dict:
    with arenas.changing(arena_id) as arena:
        arenas.leave(arena, name)
    pushes.arena_changed(arena_id)
    return arena.view_for(name)


@router.websocket("/api/arenas/{arena_id}/ws")
async def follow(arenas: ArenasDep, accounts: AccountsDep, pushes: PushesDep,
                 limits: LimitsDep, socket: WebSocket, arena_id: str) -> None:
    """The arena as the page's account sees it, pushed on every change (from any process
    of the site): ``{"type": "arena", "arena": ...}``."""
    try:
        arenas.get(arena_id)
    except NotFoundError:
        await refuse(socket, 4404, "no such arena")
        return
    name = accounts.name_of(socket.cookies.get(COOKIE))
    async with following(pushes, limits, socket) as admitted:
        if not admitted:
            return
        pushes.arena_sockets.setdefault(arena_id, set()).add((socket, name))
        try:
            await socket.send_text(pushes.arena_text(arenas.get(arena_id), name))
            while (await socket.receive())["type"] != "websocket.disconnect":
                pass  # the page sends nothing; whatever it sends is not read
        finally:
            pushes.arena_sockets.get(arena_id, set()).discard((socket, name))


