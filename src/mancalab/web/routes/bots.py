"""API tokens, and the Bot and challenge API: programs play on the server by a token.

Modelled on lichess's Bot API: a BOT account (``POST /api/bot/account/upgrade``, before its
first game, for ever) follows ``GET /api/stream/event`` (challenges and games starting, as
NDJSON lines) and each game's ``GET /api/bot/game/stream/{id}`` (the game in full, then its
state at every change), and acts by ``POST`` (a move, resign, abort; challenges accepted,
declined or made; seeks). Tokens are made, listed and revoked on the account page (a
session cookie); the API reads the ``Authorization: Bearer`` header only, never a cookie.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import StreamingResponse

from ...core import LARGEST
from ..clients import scope_client
from ..errors import BusyError, NotAllowedError, NotFoundError
from ..lobby import Lobby
from ..rooms import Room
from ..schemas import Decline, NewSeek, NewToken
from ..store import Store
from ..tokens import Tokens
from ..deps import (AllowancesDep, GamesDep, LobbyDep, MemberDep, PairingDep, PushesDep,
                    SeekingDep, TokensDep, moves, new_games)

KEEPALIVE_SECONDS = 6.0  # an empty line this often keeps a stream's connection open
ACCOUNT_STREAMS = 16  # streams one account may hold open at once (its games and events)
NDJSON = "application/x-ndjson"


class Waker:
    """Stands in a hub's set of watchers for a stream: each push wakes it up (from the
    stream's own event loop, whichever loop pushes)."""

    def __init__(self) -> None:
        self.event = asyncio.Event()
        self.loop = asyncio.get_running_loop()

    async def send_text(self, text: str) -> None:
        self.loop.call_soon_threadsafe(self.event.set)

    async def wait(self, seconds: float) -> bool:
        """Whether a push came within ``seconds``."""
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.event.wait(), seconds)
        woke, _ = self.event.is_set(), self.event.clear()
        return woke


def game_state(room: Room) -> dict:
    """A game's state as a bot reads it: the moves, the position string, the legal moves,
    the clock and how it ended."""
    state = room.record.state
    outcome = room.record.state.outcome
    return {"type": "gameState", "ply": room.ply,
            "moves": [move["name"] for move in room.move_list()],
            "fen": state.fen(room.ply // 2 + 1), "to_move": state.to_move,
            "legal": [state.move_name(m) for m in state.legal_moves()],
            "clock": None if room.clock is None else room.clock.view(),
            "status": "started" if outcome is None else "ended",
            "result": None if outcome is None else room.record.result,
            "termination": room.record.termination}


def game_full(room: Room, seat: int) -> dict:
    """The game in full (the stream's first line): who plays which seat, the rules, the
    start and the state."""
    return {"type": "gameFull", "id": room.id, "game": room.game, "options": room.options,
            "rated": room.rated, "seat": seat, "names": room.names, "bots": room.bots,
            "ratings": room.ratings, "start": room.record.start.fen(),
            "state": game_state(room)}


router = APIRouter()


def account_of(tokens: Tokens, request: Request, *scopes: str) -> str:
    """The account of the request's token, holding one of ``scopes``."""
    return tokens.owner(request.headers.get("authorization"), scopes)


def bot_of(tokens: Tokens, request: Request) -> str:
    name = account_of(tokens, request, "bot:play")
    if not tokens.is_bot(name):
        raise NotAllowedError("this is for BOT accounts: upgrade the account first "
                              "(POST /api/bot/account/upgrade)", code="not_a_bot")
    return name


def spend(allowance, name: str) -> None:
    """One of the account's actions, within its allowance (BusyError, a 429, beyond)."""
    wait = allowance.take(f"account {name}", 1)
    if wait:
        raise BusyError(f"too many requests from this account: try again in "
                        f"{max(1, round(wait))} s", code="too_many")


def seat_token(room: Room, name: str) -> str:
    """The token of ``name``'s seat in ``room``: a bot acts only where it is seated."""
    for seat, holder in enumerate(room.accounts):
        if holder == name and room.tokens[seat] is not None:
            return room.tokens[seat]
    raise NotAllowedError("this account holds no seat in the game", code="no_seat")


# ----- tokens, on the account page ----------------------------------------------


@router.post("/api/tokens", status_code=201, summary="Make an API token (shown once; "
                                                    "only its digest is kept)")
async def new_token(tokens: TokensDep, name: MemberDep, body: NewToken) -> dict:
    return tokens.create(name, body.label, body.scopes)


@router.get("/api/tokens", summary="The account's API tokens (never the tokens)")
async def tokens(tokens: TokensDep, name: MemberDep) -> dict:
    return {"tokens": tokens.of(name)}


@router.delete("/api/tokens/{token_id}", summary="Revoke an API token")
async def revoke(tokens: TokensDep, name: MemberDep, token_id: str) -> dict:
    tokens.revoke(name, token_id)
    return {"revoked": token_id}


# ----- the account of a token ---------------------------------------------------


@router.get("/api/account", summary="The account of the token, and whether it is a BOT")
async def account(tokens: TokensDep, request: Request) -> dict:
    name = account_of(tokens, request, "bot:play", "challenge:read", "challenge:write")
    return {"name": name, "bot": tokens.is_bot(name)}


@router.post("/api/bot/account/upgrade", summary="Make the token's account a BOT: only "
                                                 "before its first game, and for ever")
async def upgrade(tokens: TokensDep, request: Request) -> dict:
    name = account_of(tokens, request, "bot:play")
    tokens.upgrade(name)
    return {"name": name, "bot": True}


# ----- streams --------------------------------------------------------------------


def stream(request: Request, name: str,
           lines: Callable[[], AsyncIterator[dict]]) -> StreamingResponse:
    """An NDJSON response of ``lines``, an empty line every ``KEEPALIVE_SECONDS``
    between them; at most ``ACCOUNT_STREAMS`` open for one account (counted by the app, in
    this process)."""
    state = request.app.state
    if getattr(state, "bot_streams", None) is None:
        state.bot_streams = {}
    streams: dict[str, int] = state.bot_streams
    if streams.get(name, 0) >= ACCOUNT_STREAMS:
        raise BusyError(f"at most {ACCOUNT_STREAMS} streams open for one account",
                        code="too_many_streams", count=ACCOUNT_STREAMS)
    streams[name] = streams.get(name, 0) + 1

    async def body():
        try:
            async for line in lines():
                yield "\n" if line is None else json.dumps(line) + "\n"
        finally:
            streams[name] -= 1
            if streams[name] <= 0:
                del streams[name]

    return StreamingResponse(body(), media_type=NDJSON)


@router.get("/api/stream/event", summary="The account's events as NDJSON: challenges "
                                         "to it (and their end), its games starting "
                                         "and finishing")
async def events(tokens: TokensDep, pushes: PushesDep, lobby: LobbyDep, games: GamesDep,
                 request: Request) -> StreamingResponse:
    name = account_of(tokens, request, "bot:play", "challenge:read")

    async def lines():
        waker, known_games, known_challenges = Waker(), set(), set()
        pushes.lobby_sockets.add(waker)
        try:
            while True:
                for line in _event_lines(lobby, games.store, name, known_games,
                                         known_challenges):
                    yield line
                if not await waker.wait(KEEPALIVE_SECONDS):
                    yield None
        finally:
            pushes.lobby_sockets.discard(waker)

    return stream(request, name, lines)


@router.get("/api/bot/game/stream/{game_id}", summary="A game of the BOT's as NDJSON: "
                                                      "gameFull, then gameState at "
                                                      "every change")
async def game_stream(tokens: TokensDep, games: GamesDep, pushes: PushesDep, request: Request,
                      game_id: str) -> StreamingResponse:
    name = bot_of(tokens, request)
    room = await games.load(game_id)
    token = seat_token(room, name)
    seat = room.seat_of(token)

    async def lines():
        # the stream holds the bot's seat as a page does: the bot is here while it follows
        waker = Waker()
        watchers = pushes.watchers.setdefault(game_id, set())
        watchers.add((waker, token))
        pushes.broadcast_soon(room, skip=waker)  # the other sees the bot come
        try:
            current = games.room(game_id)
            yield game_full(current, seat)
            seen = (current.ply, current.version)
            while current.record.state.outcome is None:
                woke = await waker.wait(KEEPALIVE_SECONDS)
                current = games.room(game_id)
                if (current.ply, current.version) != seen:
                    seen = (current.ply, current.version)
                    yield game_state(current)
                elif not woke:
                    yield None
        finally:
            watchers.discard((waker, token))
            pushes.presence(room)  # gone from now: counted for a claim, as a page's leaving
            with contextlib.suppress(RuntimeError):  # the loop is closing
                games.after_change(room)

    return stream(request, name, lines)


# ----- acting in a game ---------------------------------------------------------


@router.post("/api/bot/game/{game_id}/move/{move}", summary="Play a move (its name in the "
                                                            "game's notation); with ``ply``, "
                                                            "only at that ply (409 if not)")
@moves
async def move(tokens: TokensDep, games: GamesDep, allowances: AllowancesDep, request: Request,
               game_id: str, move: str,
               ply: Annotated[int | None, Query(ge=0, le=LARGEST)] = None) -> dict:
    name = bot_of(tokens, request)
    token = seat_token(await games.load(game_id), name)
    spend(allowances.api_moves, name)
    games.pace(game_id)
    await games.change(game_id, token,
                       lambda room: room.play(games.store, token, move[:40], ply))
    return {"ok": True}


@router.post("/api/bot/game/{game_id}/resign", summary="Resign the game")
async def resign(tokens: TokensDep, games: GamesDep, request: Request, game_id: str) -> dict:
    token = seat_token(await games.load(game_id), bot_of(tokens, request))
    await games.change(game_id, token, lambda room: room.resign(games.store, token))
    return {"ok": True}


@router.post("/api/bot/game/{game_id}/abort", summary="Abort the game before both "
                                                      "players moved")
async def abort(tokens: TokensDep, games: GamesDep, request: Request, game_id: str) -> dict:
    token = seat_token(await games.load(game_id), bot_of(tokens, request))
    await games.change(game_id, token, lambda room: room.abort(games.store, token))
    return {"ok": True}


@router.post("/api/bot/seek", status_code=201, summary="Open a seek in the lobby as the "
                                                       "BOT (people who take it accept a "
                                                       "bot)")
@new_games
async def bot_seek(tokens: TokensDep, seeking: SeekingDep, allowances: AllowancesDep,
                   request: Request, body: NewSeek) -> dict:
    name = bot_of(tokens, request)
    spend(allowances.api_games, name)
    if body.to is not None:
        raise NotAllowedError("challenge a player by POST /api/challenge/{name}")
    opened = seeking.open(body, name, name, scope_client(request.scope))
    return {"id": opened.id, "seek": opened.public()}


@router.post("/api/bot/arena/{arena_id}/join", summary="Join an arena that admits bots")
async def join_arena(tokens: TokensDep, pairing: PairingDep, request: Request,
                     arena_id: str) -> dict:
    name = bot_of(tokens, request)
    return pairing.join_arena(arena_id, name).view_for(name)


# ----- challenges -----------------------------------------------------------------


@router.post("/api/challenge/{player}", status_code=201,
             summary="Challenge a player (a person or a bot); they accept or decline")
@new_games
async def challenge(tokens: TokensDep, seeking: SeekingDep, allowances: AllowancesDep,
                    request: Request, player: str, body: NewSeek) -> dict:
    name = account_of(tokens, request, "challenge:write", "bot:play")
    spend(allowances.api_games, name)
    to = seeking.challenged(name, player)
    opened = seeking.open(body, name, name, scope_client(request.scope), to=to)
    return {"id": opened.id, "challenge": opened.public()}


@router.post("/api/challenge/{seek_id}/accept", status_code=201,
             summary="Accept a challenge: the game starts (its id and the seat)")
@new_games
async def accept(tokens: TokensDep, seeking: SeekingDep, allowances: AllowancesDep,
                 lobby: LobbyDep, request: Request, response: Response, seek_id: str) -> dict:
    name = account_of(tokens, request, "challenge:write", "bot:play")
    spend(allowances.api_games, name)
    found = lobby.get(seek_id)
    room, seat = seeking.take(found, name, None)
    return {"id": room.id, "seat": seat}


@router.post("/api/challenge/{seek_id}/decline", summary="Decline a challenge, saying why")
async def decline(tokens: TokensDep, lobby: LobbyDep, request: Request, seek_id: str,
                  body: Decline) -> dict:
    name = account_of(tokens, request, "challenge:write", "bot:play")
    lobby.decline(lobby.get(seek_id), name, body.reason)
    return {"declined": seek_id, "reason": body.reason}


def _challenge_end(lobby: Lobby, seek_id: str) -> dict:
    """How a challenge left: declined (with why), taken (its game starts) or cancelled."""
    try:
        seek = lobby.get(seek_id)
    except NotFoundError:
        seek = None
    if seek is not None and seek.declined is not None:
        return {"type": "challengeDeclined", "challenge": {"id": seek_id,
                                                           "reason": seek.declined}}
    if seek is not None and seek.game_id is not None:
        return {"type": "challengeAccepted", "challenge": {"id": seek_id,
                                                           "game": seek.game_id}}
    return {"type": "challengeCanceled", "challenge": {"id": seek_id}}


def _event_lines(lobby: Lobby, store: Store, name: str, games: set,
                 challenges: set) -> list[dict]:
    """The events of ``name`` since ``games`` and ``challenges`` (what was told before,
    updated): games started and finished, challenges come and gone."""
    lines = []
    live = set(store.live_games_of(name))
    for game_id in sorted(live - games):
        lines.append({"type": "gameStart", "game": {"id": game_id}})
    for game_id in sorted(games - live):
        lines.append({"type": "gameFinish", "game": {"id": game_id}})
    games.clear()
    games.update(live)
    lobby.sweep_now_and_then()
    now = {seek.id: seek for seek in lobby.challenges_of(name)}
    for seek_id, seek in now.items():
        if seek_id not in challenges:
            lines.append({"type": "challenge", "challenge": seek.public()})
            challenges.add(seek_id)
    for seek_id in sorted(challenges - set(now)):
        challenges.discard(seek_id)
        lines.append(_challenge_end(lobby, seek_id))
    return lines
