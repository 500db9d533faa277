"""Accounts (optional: anyone plays without one), sessions by cookie, profiles, leaderboards.

The session cookie is HttpOnly and SameSite=Lax (Secure behind HTTPS); a request that the
cookie logs in and that changes something must come from this server's own page (its Origin,
when a browser sends one, is this host), so a page of another site cannot act for a player.
"""

from __future__ import annotations

import secrets

from typing import Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Request, Response

from ..accounts import digest, require
from ..clients import scope_client
from ..names import check_account_name, check_password
from ..hub import Hub
from ..errors import ConflictError, NotAllowedError, NotFoundError, UnauthorizedError
from ..schemas import GAMES, Confirmation, Credentials, PasswordChange
from ..deps import AccountsDep, HubDep, log_ins, new_accounts

COOKIE = "mancalab_session"
COOKIE_SECONDS = 365 * 24 * 3600
GUEST_COOKIE = "mancalab_guest"  # a visitor without an account: their seeks are the cookie's


def session_token(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


def logged_in(hub: Hub, request: Request) -> str | None:
    """The account the request's session cookie logs in, or None; for a request that changes
    something, refused when it comes from another site's page."""
    token = session_token(request)
    if token is None:
        return None
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            raise NotAllowedError("a page of another site may not act for a logged-in player")
    return hub.accounts.name_of(token)


def _set_cookie(request: Request, response: Response, token: str,
                name: str = COOKIE) -> None:
    response.set_cookie(name, token, max_age=COOKIE_SECONDS, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https", path="/")


def guest_of(request: Request, response: Response | None = None) -> str | None:
    """The digest of the guest cookie that makes a visitor without an account the owner of
    their seeks on every page of the browser: set on ``response`` when there is none yet
    (None without a ``response`` to set it on)."""
    token = request.cookies.get(GUEST_COOKIE)
    if not token or len(token) > 100:
        if response is None:
            return None
        token = secrets.token_urlsafe(32)
        _set_cookie(request, response, token, GUEST_COOKIE)
    return digest(token)


router = APIRouter()


async def hashed(hub: Hub, request: Request, work, *args):
    """``work(*args)`` (a password's hash or check) in the hashing threads, in turn."""
    return await hub.hashing.run(scope_client(request.scope), request.receive, work, *args)


async def checked(hub: Hub, request: Request, name: str, password: str) -> str:
    """The account's name when ``password`` is its password (hashing off the loop)."""
    found = hub.accounts.canonical(name)
    stored = hub.accounts.stored_hash(found) if found else None
    if not await hashed(hub, request, hub.accounts.verify, stored, password) or found is None:
        raise UnauthorizedError("wrong name or password", code="wrong_password")
    return found


@router.post("/api/accounts", status_code=201, summary="Make an account (and log in)")
@new_accounts
async def create_account(hub: HubDep, request: Request, response: Response,
                         body: Credentials) -> dict:
    name = check_account_name(body.name)
    if hub.accounts.held(name):
        raise ConflictError(f"the name {name!r} is taken (or one that looks the same)",
                            code="name_taken", name=name)
    check_password(body.password, name)
    made = await hashed(hub, request, hub.accounts.hash, body.password)
    _set_cookie(request, response, hub.accounts.create(name, made))
    return {"name": name}


@router.post("/api/session", summary="Log in: the session cookie is set")
@log_ins
async def log_in(hub: HubDep, request: Request, response: Response, body: Credentials) -> dict:
    name = await checked(hub, request, body.name, body.password)
    _set_cookie(request, response, hub.accounts.new_session(name))
    return {"name": name}


@router.get("/api/session", summary="Who the session cookie logs in (name null: nobody)")
async def session(accounts: AccountsDep, request: Request) -> dict:
    return {"name": accounts.name_of(session_token(request))}


@router.delete("/api/session", summary="Log out")
async def log_out(hub: HubDep, request: Request, response: Response) -> dict:
    logged_in(hub, request)  # the Origin check
    hub.accounts.end_session(session_token(request))
    response.delete_cookie(COOKIE, path="/")
    return {"name": None}


@router.post("/api/session/password", summary="Change the password (other sessions end)")
@log_ins
async def change_password(hub: HubDep, request: Request, body: PasswordChange) -> dict:
    name = await checked(hub, request, require(logged_in(hub, request)), body.old)
    check_password(body.new, name)
    made = await hashed(hub, request, hub.accounts.hash, body.new)
    hub.accounts.set_hash(name, made, keep=session_token(request))
    return {"name": name}


@router.post("/api/accounts/delete", summary="Delete the account and its personal data "
                                             "(sessions, ratings); its games going on "
                                             "are resigned first, its games stay, and "
                                             "its name is not given to anybody else")
@log_ins
async def delete_account(hub: HubDep, request: Request, response: Response,
                         body: Confirmation) -> dict:
    name = await checked(hub, request, require(logged_in(hub, request)), body.password)
    await hub.forget(name)
    response.delete_cookie(COOKIE, path="/")
    return {"deleted": name}


def owner(hub: Hub, request: Request) -> tuple[str | None, str | None]:
    """Whose the visitor's games and seeks are: (the account, None) when logged in,
    else (None, the guest cookie's digest or None)."""
    name = logged_in(hub, request)
    return name, None if name is not None else guest_of(request)


@router.get("/api/session/games", summary="The games of the logged-in account (or of "
                                          "the guest cookie), newest first: each with "
                                          "its seat and the seat's token")
async def my_games(hub: HubDep, request: Request) -> dict:
    name, guest = owner(hub, request)
    if name is None and guest is None:
        return {"games": []}
    return {"games": [{"id": game_id, "seat": seat, "token": token}
                      for game_id, seat, token in hub.store.games_of(name, guest=guest)]}


@router.get("/api/session/seeks", summary="The seeks of the logged-in account (or of the "
                                          "guest cookie): open ones with their secrets, "
                                          "and those just taken with the game and the "
                                          "seat's token")
async def my_seeks(hub: HubDep, request: Request) -> dict:
    name, guest = owner(hub, request)
    if name is None and guest is None:
        return {"seeks": []}
    hub.lobby.sweep_now_and_then()
    return {"seeks": [{**seek.public(), "secret": seek.secret, "game_id": seek.game_id,
                       "token": seek.token} for seek in hub.lobby.of(name, guest)]}


@router.get("/api/games/{game_id}/seat", summary="The seat the logged-in account (or the "
                                                 "guest cookie) holds in the game, with "
                                                 "its token: a player reaches her game "
                                                 "from any device")
async def my_seat(hub: HubDep, request: Request, game_id: str) -> dict:
    name, guest = owner(hub, request)
    if name is None and guest is None:
        require(name)
    room = hub.games.room(game_id)
    holders = room.accounts if name is not None else room.guests
    for seat, holder in enumerate(holders):
        if holder == (name or guest) and room.tokens[seat] is not None:
            return {"seat": seat, "token": room.tokens[seat]}
    raise NotFoundError("your account holds no seat in this game", code="no_seat_here")


@router.get("/api/players/{name}", summary="A player's ratings, rating history and recent "
                                           "rated games")
async def player(hub: HubDep, name: str) -> dict:
    found = hub.accounts.canonical(name)
    if found is not None and hub.classes.pupil(found) is not None:  # no public profile
        raise NotFoundError(f"no player {name[:40]!r}")
    return hub.accounts.profile(name)


@router.get("/api/leaderboard/{game}", summary="A game's best established ratings "
                                               "(bots=true: the BOTs', a board apart)")
async def leaderboard(accounts: AccountsDep, game: Literal[GAMES], bots: bool = False) -> dict:
    return {"game": game, "bots": bots,
            "players": accounts.leaderboard(game, bots=bots)}


