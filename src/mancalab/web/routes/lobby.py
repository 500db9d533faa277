"""The lobby: open seeks shown to everyone; accepting one starts an online game for both (the
seeker learns it by asking about the seek with its secret)."""

from __future__ import annotations

import secrets

from fastapi import APIRouter, Request, Response

from ..accounts import require
from ..errors import NotAllowedError
from ..schemas import Decline, NewSeek, Short
from ..sessions import guest_of, logged_in
from ..thinking import CLIENT
from ..deps import (AccountsDep, ClassesDep, GamesDep, LobbyDep, PushesDep, SeekingDep, ViewerDep,
                    new_games)


router = APIRouter()


@router.post("/api/seeks", status_code=201, summary="Open a seek in the lobby; keep the "
                                                    "secret to learn the game or cancel")
@new_games
async def seek(seeking: SeekingDep, classes: ClassesDep, account: ViewerDep, request: Request,
               response: Response, body: NewSeek) -> dict:
    cookie = None if account is not None else guest_of(request, response)
    if body.rated and account is None:
        raise NotAllowedError("a rated game needs an account: log in first",
                              code="rated_needs_account")
    to = None if body.to is None else seeking.challenged(require(account), body.to)
    if to is None:
        classes.check_public(account)  # a pupil challenges classmates only
    opened = seeking.open(body, account, account, CLIENT.get(), to=to,  # a pupil: by account
                          cookie=cookie)
    return {"id": opened.id, "secret": opened.secret, "seek": opened.public()}


@router.get("/api/seeks", summary="The open seeks, newest first (pushed on every change "
                                  "by the websocket /api/lobby/ws)")
async def seeks(pushes: PushesDep) -> dict:
    return {"seeks": pushes.lobby_view()["seeks"]}


@router.get("/api/live", summary="Games from the lobby and arenas being played now, to "
                                 "watch (newest first; a friend's game is not listed)")
async def live_games(pushes: PushesDep) -> dict:
    return {"games": pushes.lobby_view()["live"]}


@router.get("/api/session/challenges", summary="The challenges for the logged-in account "
                                               "(take one with /accept, or /decline it)")
async def challenges(lobby: LobbyDep, account: ViewerDep) -> dict:
    lobby.sweep_now_and_then()
    found = [] if account is None else lobby.challenges_to(account)
    return {"challenges": [seek.public() for seek in found]}


@router.post("/api/seeks/{seek_id}/decline", summary="Decline a challenge, saying why "
                                                     "(the challenger is told)")
async def decline(lobby: LobbyDep, accounts: AccountsDep, request: Request, seek_id: str,
                  body: Decline) -> dict:
    found = lobby.get(seek_id)
    lobby.decline(found, logged_in(accounts, request), body.reason)
    return {"declined": seek_id, "reason": body.reason}


@router.get("/api/seeks/{seek_id}", summary="A seek; with its secret, the game once taken")
async def one_seek(lobby: LobbyDep, seek_id: str, secret: Short | None = None) -> dict:
    found = lobby.get(seek_id)
    out = {**found.public(), "taken": found.game_id is not None}
    if secret and secrets.compare_digest(found.secret.encode(), secret.encode()) \
            and found.game_id is not None:
        out.update(game_id=found.game_id, token=found.token,
                   play=f"/?game={found.game_id}&token={found.token}")
        lobby.delivered(found)
    return out


@router.delete("/api/seeks/{seek_id}", summary="Cancel a seek (its secret)")
async def cancel(lobby: LobbyDep, seek_id: str, secret: Short | None = None) -> dict:
    lobby.cancel(seek_id, secret)
    return {"cancelled": seek_id}


@router.post("/api/seeks/{seek_id}/accept", status_code=201,
             summary="Take a seek: the game starts for both; the answer is the game with "
                     "the taker's seat and token")
@new_games
async def accept(seeking: SeekingDep, lobby: LobbyDep, games: GamesDep, accounts: AccountsDep,
                 request: Request, response: Response, seek_id: str) -> dict:
    found = lobby.get(seek_id)
    account = logged_in(accounts, request)
    cookie = None if account is not None else guest_of(request, response)
    room, seat = seeking.take(found, account, cookie)
    answer = games.seat_view(room, seat)
    answer.pop("links", None)  # the seeker's token is theirs alone
    return {**answer, "seat": seat}
