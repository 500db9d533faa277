"""The web server: the page, a JSON API for everything it does, and websockets for live games.

``create_app(db_path)`` builds the FastAPI application; ``mancalab serve`` runs it on uvicorn.
Every change is committed to SQLite (mancalab.web.store) before it is answered; rooms are
loaded from the store on first use, so after a restart every game goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from ..core import MancalabError
from ..players import GAME_LEVELS, LEVELS, PLAYERS
from ..records import GameRecord
from ..variants import VARIANTS
from .rooms import MODES, ConflictError, NotAllowedError, Room
from .store import Store

STATIC = Path(__file__).parent / "static"
LANGUAGES = {"en": "English", "fr": "Français", "rn": "Kirundi", "am": "አማርኛ"}


# ----- request bodies -----------------------------------------------------------------
class NewGame(BaseModel):
    game: str = Field(description="gebeta, urubugu, gabata, kalah or gabata3")
    options: dict[str, Any] = Field(default_factory=dict, description="the game's options")
    mode: str = Field("local", description="local (two on one screen), computer or online")
    bot: str | None = Field(None, description="the computer player: a level or a player spec")
    human_seat: int = Field(0, description="the creator's seat: 0 (A, moves first) or 1 (B)")
    automove: bool = Field(True, description="the computer plays its own moves (else the "
                                             "person plays the move it shows)")
    names: list[str] | None = Field(None, description="the names of A and B")
    setup: bool = Field(False, description="Urubugu: the players arrange their beads first")


class LoadGame(BaseModel):
    record: str = Field(description="a game record (the text of a saved game)")
    mode: str = "local"
    bot: str | None = None
    human_seat: int = 0
    automove: bool = True


class Token(BaseModel):
    token: str | None = None


class Move(Token):
    move: int | str = Field(description="a cell index or the move in the game's notation")
    ply: int | None = Field(None, description="the number of moves played before it (0-based)"
                                              "; a stale number is refused, so a retry is safe")


class BotChange(Token):
    bot: str | None = None
    automove: bool | None = None


class Setting(Token):
    seat: int
    setting: list[int] = Field(description="16 counts, hole 1 first, 32 beads in all")


class Hint(Token):
    player: str = "expert"


# ----- the rooms the server holds -----------------------------------------------------
class Hub:
    """Rooms by id (loaded from the store on first use), a lock each, and their watchers."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.watchers: dict[str, set[tuple[WebSocket, str | None]]] = {}
        self.tasks: set[asyncio.Task] = set()

    def room(self, game_id: str) -> Room:
        if game_id not in self.rooms:
            stored = self.store.load(game_id)
            if stored is None:
                raise HTTPException(404, f"no game {game_id!r}")
            self.rooms[game_id] = Room.from_stored(stored)
        return self.rooms[game_id]

    def lock(self, game_id: str) -> asyncio.Lock:
        return self.locks.setdefault(game_id, asyncio.Lock())

    def add(self, room: Room) -> None:
        self.store.create(room.to_stored())
        self.rooms[room.id] = room

    async def broadcast(self, room: Room) -> None:
        for socket, token in list(self.watchers.get(room.id, ())):
            with contextlib.suppress(Exception):  # a closed socket leaves on its own
                await socket.send_json({"type": "state", "state": room.view(token)})

    async def change(self, game_id: str, token: str | None, action) -> dict:
        """Run ``action(room)`` under the room's lock (it stores what it changes), tell the
        watchers, and answer with the room as ``token`` sees it."""
        room = self.room(game_id)
        async with self.lock(game_id):
            action(room)
        self.after_change(room)
        return room.view(token)

    def after_change(self, room: Room) -> None:
        """Tell the watchers, and let the computer move if it is its turn."""
        self._spawn(self.broadcast(room))
        if room.bot_to_move() and not room.thinking and room.suggestion is None:
            self._spawn(self.computer_turns(room))

    def _spawn(self, coroutine) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def computer_turns(self, room: Room) -> None:
        """The computer thinks off the event loop, then plays (automove) or shows its move."""
        while room.bot_to_move() and room.suggestion is None:
            room.thinking = True
            version = room.version
            await self.broadcast(room)
            try:
                move = await asyncio.to_thread(room.computer_move)
            finally:
                room.thinking = False
            async with self.lock(room.id):
                if room.version != version:  # switched or changed meanwhile: think again if
                    continue                 # it is still the computer's turn
                if room.automove:
                    room.play(self.store, None, move, by_computer=True)
                else:
                    room.suggestion = move
                    room.version += 1
            await self.broadcast(room)
        await self.broadcast(room)  # no longer thinking


def create_app(db_path: str | Path) -> FastAPI:
    """The server's application, its games kept in the SQLite file ``db_path``."""
    hub = Hub(Store(db_path))

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        for task in list(hub.tasks):
            task.cancel()
        hub.store.close()

    app = FastAPI(title="mancalab", lifespan=lifespan,
                  description="Play mancala games: create a game, get its state, play moves, "
                              "ask the computer. Live updates: the websocket "
                              "/api/games/{id}/ws?token=...")
    app.state.hub = hub

    @app.exception_handler(MancalabError)
    async def bad_request(request: Request, error: MancalabError) -> JSONResponse:
        status = 403 if isinstance(error, NotAllowedError) else (
            409 if isinstance(error, ConflictError) else 400)
        return JSONResponse({"detail": str(error)}, status_code=status)

    @app.get("/api/games", summary="The games, their options, players, levels and languages")
    def catalogue() -> dict:
        games = {}
        for name, cls in VARIANTS.items():
            games[name] = {"title": cls.title,
                           "options": {k: {"default": o.default, "values": o.rule}
                                       for k, o in cls.option_specs.items()}}
        return {"games": games, "modes": list(MODES), "levels": LEVELS,
                "game_levels": GAME_LEVELS, "players": sorted(PLAYERS), "languages": LANGUAGES}

    @app.post("/api/games", status_code=201, summary="Create a game")
    async def create_game(body: NewGame) -> dict:
        room = Room.create(body.game, body.options, body.mode, bot=body.bot,
                           human_seat=body.human_seat, automove=body.automove, names=body.names,
                           setup=body.setup)
        return _created(hub, room, body.human_seat)

    @app.post("/api/games/load", status_code=201, summary="Go on with a saved game record")
    async def load_game(body: LoadGame) -> dict:
        record = GameRecord.from_text(body.record)
        room = Room.create(record.variant.name, {}, body.mode, bot=body.bot,
                           human_seat=body.human_seat, automove=body.automove,
                           names=list(record.names), record=record)
        return _created(hub, room, body.human_seat)

    @app.get("/api/games/{game_id}", summary="A game as the holder of the token sees it")
    def get_game(game_id: str, token: str | None = None) -> dict:
        return hub.room(game_id).view(token)

    @app.post("/api/games/{game_id}/moves", summary="Play a move for the seat to move")
    async def play(game_id: str, body: Move) -> dict:
        return await hub.change(game_id, body.token,
                                lambda room: room.play(hub.store, body.token, body.move, body.ply))

    @app.post("/api/games/{game_id}/undo", summary="Take back (online: ask, then agree)")
    async def undo(game_id: str, body: Token) -> dict:
        state = await hub.change(game_id, body.token,
                                 lambda room: room.undo(hub.store, body.token))
        asked = state["undo_request"] is not None  # online: waiting for the other's consent
        return {"undo": "asked" if asked else "undone", "state": state}

    @app.post("/api/games/{game_id}/switch", summary="Swap sides with the computer")
    async def switch(game_id: str, body: Token) -> dict:
        return await hub.change(game_id, body.token,
                                lambda room: room.switch(hub.store, body.token))

    @app.post("/api/games/{game_id}/computer", summary="Change the computer player or automove")
    async def change_bot(game_id: str, body: BotChange) -> dict:
        return await hub.change(game_id, body.token, lambda room: room.set_bot(
            hub.store, body.token, body.bot, body.automove))

    @app.post("/api/games/{game_id}/setup", summary="Urubugu: arrange a seat's 32 beads")
    async def setup(game_id: str, body: Setting) -> dict:
        return await hub.change(game_id, body.token, lambda room: room.set_beads(
            hub.store, body.token, body.seat, body.setting))

    @app.post("/api/games/{game_id}/hint", summary="The move a player would make here")
    async def hint(game_id: str, body: Hint) -> dict:
        room = hub.room(game_id)
        return await asyncio.to_thread(room.hint, body.player)

    @app.get("/api/games/{game_id}/record", response_class=PlainTextResponse,
             summary="The game record (text), to download")
    def record(game_id: str) -> PlainTextResponse:
        room = hub.room(game_id)
        if room.record is None:
            raise ConflictError("the game has not started yet")
        return PlainTextResponse(room.record.to_text(), headers={
            "Content-Disposition": f'attachment; filename="{room.game}-{room.id}.txt"'})

    @app.websocket("/api/games/{game_id}/ws")
    async def live(socket: WebSocket, game_id: str, token: str | None = None) -> None:
        try:
            room = hub.room(game_id)
        except HTTPException:
            await socket.close(code=4404, reason="no such game")
            return
        await socket.accept()
        watcher = (socket, token)
        hub.watchers.setdefault(game_id, set()).add(watcher)
        try:
            await socket.send_json({"type": "state", "state": room.view(token)})
            while True:
                await _answer(hub, room, socket, token, await socket.receive_text())
        except WebSocketDisconnect:
            pass
        finally:
            hub.watchers[game_id].discard(watcher)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _created(hub: Hub, room: Room, seat: int) -> dict:
    hub.add(room)
    hub.after_change(room)
    token = room.tokens[seat]
    links = {"play": f"/?game={room.id}&token={token}", "watch": f"/?game={room.id}"}
    if room.mode == "online":
        links["invite"] = f"/?game={room.id}&token={room.tokens[1 - seat]}"
    return {"id": room.id, "token": token, "links": links, "state": room.view(token)}


async def _answer(hub: Hub, room: Room, socket: WebSocket, token: str | None, text: str) -> None:
    """A move sent over the websocket: ``{"type": "move", "move": ..., "ply": ...}``; the
    answer is ``ack`` once the move is stored, or ``error`` with the reason."""
    try:
        message = json.loads(text)
        if not isinstance(message, dict) or message.get("type") != "move":
            raise MancalabError('send {"type": "move", "move": M, "ply": N}')
        async with hub.lock(room.id):
            move = room.play(hub.store, token, message.get("move"), message.get("ply"))
            ply = room.ply
    except (MancalabError, ValueError, TypeError) as error:
        await socket.send_json({"type": "error", "message": str(error)})
        return
    await socket.send_json({"type": "ack", "move": move, "ply": ply})
    hub.after_change(room)
