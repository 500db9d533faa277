"""Arena tournaments: made and joined by players with accounts; each player's next game is
found by asking about the arena (``me``)."""

from __future__ import annotations

import time

from fastapi import APIRouter, Request

from ..accounts import require
from ..arenas import Arena
from ..hub import Hub
from ..rooms import Room
from ..schemas import NewArena
from ..thinking import Limits
from . import Rates
from .accounts import logged_in


def router(hub: Hub, limits: Limits, rates: Rates) -> APIRouter:
    """The arenas' routes, for the app of ``hub``."""
    router = APIRouter()

    def view(arena: Arena, name: str | None) -> dict:
        out = arena.view()
        entrant = arena.entrants.get(name) if name else None
        out["me"] = None if entrant is None else {
            **entrant.row(), "game_id": entrant.playing, "token": entrant.token}
        return out

    @router.post("/api/arenas", status_code=201, summary="Open an arena (an account needed)")
    @rates.new_games
    async def open_arena(request: Request, body: NewArena) -> dict:
        name = require(logged_in(hub, request))
        room = Room.create(body.game, body.options, "online")  # the game and options checked
        arena = hub.arenas.open(Arena("", room.game, room.options,
                                      [body.clock.base, body.clock.increment], body.rated,
                                      time.time() + body.seconds, name))
        return view(arena, name)

    @router.get("/api/arenas", summary="The arenas going on and those just finished")
    async def arenas() -> dict:
        hub.arenas.sweep()
        return {"arenas": [a.view() for a in hub.arenas.all()]}

    @router.get("/api/arenas/{arena_id}", summary="An arena: its standings and, for a player "
                                                  "in it, their game going on")
    async def one(request: Request, arena_id: str) -> dict:
        arena = hub.arenas.get(arena_id)
        return view(arena, logged_in(hub, request))

    @router.post("/api/arenas/{arena_id}/join", summary="Join an arena: paired at once")
    async def join(request: Request, arena_id: str) -> dict:
        name = require(logged_in(hub, request))
        return view(hub.join_arena(arena_id, name), name)

    @router.post("/api/arenas/{arena_id}/leave", summary="Leave an arena: no more pairings "
                                                         "(a game going on goes on)")
    async def leave(request: Request, arena_id: str) -> dict:
        name = require(logged_in(hub, request))
        with hub.arenas.changing(arena_id) as arena:
            hub.arenas.leave(arena, name)
        return view(arena, name)

    return router
