"""The lobby: open seeks shown to everyone; accepting one starts an online game for both (the
seeker learns it by asking about the seek with its secret)."""

from __future__ import annotations

import random
import secrets

from fastapi import APIRouter, Request, Response

from ..hub import Hub
from ..clocks import Clock
from ..lobby import Seek
from ..accounts import require
from ..errors import BusyError, ConflictError, NotAllowedError, NotFoundError
from ..rooms import Room
from ..schemas import Decline, NewSeek, Short
from ..thinking import CLIENT, Limits
from .accounts import guest_of, logged_in
from .games import seat_view
from ..deps import HubDep, LimitsDep, LobbyDep, PushesDep, new_games


def guest() -> str:
    return f"Guest {secrets.randbelow(10_000):04d}"


router = APIRouter()


@router.post("/api/seeks", status_code=201, summary="Open a seek in the lobby; keep the "
                                                    "secret to learn the game or cancel")
@new_games
async def seek(hub: HubDep, limits: LimitsDep, request: Request, response: Response,
               body: NewSeek) -> dict:
    account = logged_in(hub, request)
    cookie = None if account is not None else guest_of(request, response)
    if body.rated and account is None:
        raise NotAllowedError("a rated game needs an account: log in first",
                              code="rated_needs_account")
    to = None if body.to is None else challenged(hub, require(account), body.to)
    if to is None:
        hub.classes.check_public(account)  # a pupil challenges classmates only
    check_live(hub, limits, account)
    room = Room.create(body.game, body.options, "online")  # the game and options checked
    clock = None if body.clock is None else [body.clock.base, body.clock.increment,
                                             body.clock.per_move]
    opened = hub.lobby.add(Seek(secrets.token_urlsafe(6), room.game, room.options,
                                body.rated, body.color, account or guest(), account,
                                CLIENT.get(), clock, to=to,  # a pupil: by account
                                guest=cookie))
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
async def challenges(hub: HubDep, request: Request) -> dict:
    account = logged_in(hub, request)
    hub.lobby.sweep_now_and_then()
    found = [] if account is None else hub.lobby.challenges_to(account)
    return {"challenges": [seek.public() for seek in found]}


@router.post("/api/seeks/{seek_id}/decline", summary="Decline a challenge, saying why "
                                                     "(the challenger is told)")
async def decline(hub: HubDep, request: Request, seek_id: str, body: Decline) -> dict:
    found = hub.lobby.get(seek_id)
    hub.lobby.decline(found, logged_in(hub, request), body.reason)
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
async def accept(hub: HubDep, limits: LimitsDep, request: Request, response: Response,
                 seek_id: str) -> dict:
    found = hub.lobby.get(seek_id)
    account = logged_in(hub, request)
    cookie = None if account is not None else guest_of(request, response)
    room, seat = take(hub, limits, found, account, cookie)
    answer = seat_view(hub, room, seat)
    answer.pop("links", None)  # the seeker's token is theirs alone
    return {**answer, "seat": seat}


def check_live(hub: Hub, limits: Limits, account: str | None) -> None:
    if account is not None and hub.games.live_games(account) >= limits.account_games:
        raise BusyError(f"at most {limits.account_games} games going on at once: finish "
                        "one first", code="too_many_games", count=limits.account_games)


def challenged(hub: Hub, account: str, name: str) -> str:
    """The account ``name`` that ``account`` challenges (NotFoundError, ConflictError)."""
    found = hub.accounts.canonical(name)
    if found is None or hub.classes.apart(account, found):  # pupils are not seen outside
        raise NotFoundError(f"no player {name[:40]!r}", code="no_player", name=name[:40])
    if found == account:
        raise ConflictError("you cannot challenge yourself", code="own_seek")
    return found


def take(hub: Hub, limits: Limits, found: Seek, account: str | None,
         cookie: str | None) -> tuple[Room, int]:
    """``account`` (or the guest of ``cookie``) takes the seek ``found``: the game starts
    for both, kept and announced (the lobby told again, so that streams find it). The room
    and the taker's seat."""
    hub.lobby.check_taker(found, account)
    if hub.classes.apart(found.account, account):
        raise NotAllowedError("a class account plays its classmates only",
                              code="class_account")
    check_live(hub, limits, account)
    check_live(hub, limits, found.account)  # the seeker may have started other games meanwhile
    seeker_seat = {"first": 0, "second": 1}.get(found.color, random.randint(0, 1))
    names = [found.by, account or guest()]
    accounts, guests = [found.account, account], [found.guest, cookie]
    if seeker_seat == 1:
        for pair in (names, accounts, guests):
            pair.reverse()
    if names[0] == names[1]:
        names[1 - seeker_seat] += " (2)"
    hub.allowances.charge()
    room = Room.create(found.game, found.options, "online", names=names,
                       human_seat=1 - seeker_seat, helpers=False)
    room.accounts, room.guests, room.rated, room.public = accounts, guests, found.rated, True
    room.bots = hub.tokens.bot_names(accounts)
    room.ratings = [hub.accounts.shown_rating(name, room.game) for name in accounts]
    if found.clock is not None:
        room.clock = Clock(*found.clock)
    hub.lobby.take(found, room.id, room.tokens[seeker_seat])
    hub.games.add(room)
    hub.games.after_change(room)
    hub.pushes.lobby_changed()
    return room, 1 - seeker_seat
