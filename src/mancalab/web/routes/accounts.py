"""Accounts (optional: anyone plays without one), sessions by cookie (``sessions``),
profiles, leaderboards."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request, Response

from ..accounts import Accounts, Hashing, require
from ..clients import scope_client
from ..names import check_account_name, check_password
from ..errors import ConflictError, NotFoundError, UnauthorizedError
from ..schemas import GAMES, Confirmation, Credentials, PasswordChange
from ..sessions import COOKIE, guest_of, logged_in, session_token, set_cookie
from ..deps import (AccountsDep, ClassesDep, ForgetDep, GamesDep, HashingDep, LobbyDep,
                    MemberDep, StoreDep, log_ins, new_accounts)

router = APIRouter()


async def hashed(hashing: Hashing, request: Request, work, *args):
    """``work(*args)`` (a password's hash or check) in the hashing threads, in turn."""
    return await hashing.run(scope_client(request.scope), request.receive, work, *args)


async def checked(accounts: Accounts, hashing: Hashing, request: Request, name: str,
                  password: str) -> str:
    """The account's name when ``password`` is its password (hashing off the loop)."""
    found = accounts.canonical(name)
    stored = accounts.stored_hash(found) if found else None
    if not await hashed(hashing, request, accounts.verify, stored, password) or found is None:
        raise UnauthorizedError("wrong name or password", code="wrong_password")
    return found


@router.post("/api/accounts", status_code=201, summary="Make an account (and log in)")
@new_accounts
async def create_account(accounts: AccountsDep, hashing: HashingDep, request: Request,
                         response: Response, body: Credentials) -> dict:
    name = check_account_name(body.name)
    if accounts.held(name):
        raise ConflictError(f"the name {name!r} is taken (or one that looks the same)",
                            code="name_taken", name=name)
    check_password(body.password, name)
    made = await hashed(hashing, request, accounts.hash, body.password)
    set_cookie(request, response, accounts.create(name, made))
    return {"name": name}


@router.post("/api/session", summary="Log in: the session cookie is set")
@log_ins
async def log_in(accounts: AccountsDep, hashing: HashingDep, request: Request,
                 response: Response, body: Credentials) -> dict:
    name = await checked(accounts, hashing, request, body.name, body.password)
    set_cookie(request, response, accounts.new_session(name))
    return {"name": name}


@router.get("/api/session", summary="Who the session cookie logs in (name null: nobody)")
async def session(accounts: AccountsDep, request: Request) -> dict:
    return {"name": accounts.name_of(session_token(request))}


@router.delete("/api/session", summary="Log out")
async def log_out(accounts: AccountsDep, request: Request, response: Response) -> dict:
    logged_in(accounts, request)  # the Origin check
    accounts.end_session(session_token(request))
    response.delete_cookie(COOKIE, path="/")
    return {"name": None}


@router.post("/api/session/password", summary="Change the password (other sessions end)")
@log_ins
async def change_password(accounts: AccountsDep, hashing: HashingDep, member: MemberDep,
                          request: Request, body: PasswordChange) -> dict:
    name = await checked(accounts, hashing, request, member, body.old)
    check_password(body.new, name)
    made = await hashed(hashing, request, accounts.hash, body.new)
    accounts.set_hash(name, made, keep=session_token(request))
    return {"name": name}


@router.post("/api/accounts/delete", summary="Delete the account and its personal data "
                                             "(sessions, ratings); its games going on "
                                             "are resigned first, its games stay, and "
                                             "its name is not given to anybody else")
@log_ins
async def delete_account(accounts: AccountsDep, hashing: HashingDep, forget: ForgetDep,
                         member: MemberDep, request: Request, response: Response,
                         body: Confirmation) -> dict:
    name = await checked(accounts, hashing, request, member, body.password)
    await forget(name)
    response.delete_cookie(COOKIE, path="/")
    return {"deleted": name}


def owner(accounts: Accounts, request: Request) -> tuple[str | None, str | None]:
    """Whose the visitor's games and seeks are: (the account, None) when logged in,
    else (None, the guest cookie's digest or None)."""
    name = logged_in(accounts, request)
    return name, None if name is not None else guest_of(request)


@router.get("/api/session/games", summary="The games of the logged-in account (or of "
                                          "the guest cookie), newest first: each with "
                                          "its seat and the seat's token")
async def my_games(accounts: AccountsDep, store: StoreDep, request: Request) -> dict:
    name, guest = owner(accounts, request)
    if name is None and guest is None:
        return {"games": []}
    return {"games": [{"id": game_id, "seat": seat, "token": token}
                      for game_id, seat, token in store.games_of(name, guest=guest)]}


@router.get("/api/session/seeks", summary="The seeks of the logged-in account (or of the "
                                          "guest cookie): open ones with their secrets, "
                                          "and those just taken with the game and the "
                                          "seat's token")
async def my_seeks(accounts: AccountsDep, lobby: LobbyDep, request: Request) -> dict:
    name, guest = owner(accounts, request)
    if name is None and guest is None:
        return {"seeks": []}
    lobby.sweep_now_and_then()
    return {"seeks": [{**seek.public(), "secret": seek.secret, "game_id": seek.game_id,
                       "token": seek.token} for seek in lobby.of(name, guest)]}


@router.get("/api/games/{game_id}/seat", summary="The seat the logged-in account (or the "
                                                 "guest cookie) holds in the game, with "
                                                 "its token: a player reaches her game "
                                                 "from any device")
async def my_seat(accounts: AccountsDep, games: GamesDep, request: Request,
                  game_id: str) -> dict:
    name, guest = owner(accounts, request)
    if name is None and guest is None:
        require(name)
    room = games.room(game_id)
    holders = room.accounts if name is not None else room.guests
    for seat, holder in enumerate(holders):
        if holder == (name or guest) and room.tokens[seat] is not None:
            return {"seat": seat, "token": room.tokens[seat]}
    raise NotFoundError("your account holds no seat in this game", code="no_seat_here")


@router.get("/api/players/{name}", summary="A player's ratings, rating history and recent "
                                           "rated games")
async def player(accounts: AccountsDep, classes: ClassesDep, name: str) -> dict:
    found = accounts.canonical(name)
    if found is not None and classes.pupil(found) is not None:  # no public profile
        raise NotFoundError(f"no player {name[:40]!r}")
    return accounts.profile(name)


@router.get("/api/leaderboard/{game}", summary="A game's best established ratings "
                                               "(bots=true: the BOTs', a board apart)")
async def leaderboard(accounts: AccountsDep, game: Literal[GAMES], bots: bool = False) -> dict:
    return {"game": game, "bots": bots,
            "players": accounts.leaderboard(game, bots=bots)}


