"""What the routes get from the app they serve, through FastAPI's ``Depends``: each of the
hub's services a route uses (the services over the store), who the request comes from, its
limits, and its request rates. The routers are module-level (FastAPI's "bigger
applications"); a test overrides a dependency with ``app.dependency_overrides``."""

from __future__ import annotations

import functools
import math
from collections.abc import Awaitable, Callable
from typing import Annotated

from fastapi import Depends
from limits import parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from starlette.requests import HTTPConnection, Request

from .accounts import Accounts, Hashing, require
from .arenas import Arenas
from .classes import Classes
from .errors import NotAllowedError
from .lobby import Lobby
from .reviews import Reviews
from .services.allowances import Allowances
from .services.computer import Computer
from .services.games import Games
from .services.pairing import Pairing
from .services.pushes import Pushes
from .services.seeking import Seeking
from .sessions import logged_in
from .store import Store
from .thinking import CLIENT, Limits, Thinker
from .tokens import Tokens
from .tournaments import Tournaments


# coroutines, so FastAPI calls them on the event loop (a plain function would be run in its
# thread pool: a thread's hop for every request)
async def limits_of(connection: HTTPConnection) -> Limits:
    return connection.app.state.hub.limits


def _provider(name: str):
    """The dependency of one of the hub's services: a route asks for what it uses, so a
    test may override that one (``app.dependency_overrides[deps.games_of]``)."""
    async def service_of(connection: HTTPConnection):
        return getattr(connection.app.state.hub, name)

    service_of.__name__ = service_of.__qualname__ = f"{name}_of"
    return service_of


games_of, pushes_of, computer_of, pairing_of = map(
    _provider, ("games", "pushes", "computer", "pairing"))
allowances_of, accounts_of, classes_of = map(_provider, ("allowances", "accounts", "classes"))
lobby_of, tokens_of, reviews_of = map(_provider, ("lobby", "tokens", "reviews"))
hashing_of, thinker_of, arenas_of, tournaments_of, seeking_of, store_of, forget_of = map(
    _provider, ("hashing", "thinker", "arenas", "tournaments", "seeking", "store", "forget"))

LimitsDep = Annotated[Limits, Depends(limits_of)]
GamesDep = Annotated[Games, Depends(games_of)]
PushesDep = Annotated[Pushes, Depends(pushes_of)]
ComputerDep = Annotated[Computer, Depends(computer_of)]
PairingDep = Annotated[Pairing, Depends(pairing_of)]
AllowancesDep = Annotated[Allowances, Depends(allowances_of)]
AccountsDep = Annotated[Accounts, Depends(accounts_of)]
ClassesDep = Annotated[Classes, Depends(classes_of)]
LobbyDep = Annotated[Lobby, Depends(lobby_of)]
TokensDep = Annotated[Tokens, Depends(tokens_of)]
ReviewsDep = Annotated[Reviews, Depends(reviews_of)]
HashingDep = Annotated[Hashing, Depends(hashing_of)]
ThinkerDep = Annotated[Thinker, Depends(thinker_of)]
ArenasDep = Annotated[Arenas, Depends(arenas_of)]
TournamentsDep = Annotated[Tournaments, Depends(tournaments_of)]
SeekingDep = Annotated[Seeking, Depends(seeking_of)]
StoreDep = Annotated[Store, Depends(store_of)]
# an account deleted: its games going on resigned, its arenas left, its personal data gone
ForgetDep = Annotated[Callable[[str], Awaitable[None]], Depends(forget_of)]


async def viewer_of(accounts: AccountsDep, request: Request) -> str | None:
    """The account the session cookie logs in, or None (``sessions.logged_in``: a change
    from another site's page refused)."""
    return logged_in(accounts, request)


ViewerDep = Annotated[str | None, Depends(viewer_of)]


async def member_of(viewer: ViewerDep) -> str:
    """The logged-in account (401 without one)."""
    return require(viewer)


MemberDep = Annotated[str, Depends(member_of)]


async def teacher_of(name: MemberDep, classes: ClassesDep) -> str:
    """The logged-in account, a teacher's (a pupil's account cannot teach)."""
    if classes.pupil(name) is not None:
        raise NotAllowedError("a pupil's account cannot teach", code="pupil_only")
    return name


TeacherDep = Annotated[str, Depends(teacher_of)]


class TooManyRequests(Exception):
    """A client past one of the request rates: answered 429 with the rate and when to come
    back (``app``'s handler)."""

    def __init__(self, rate: str, retry_after: int) -> None:
        super().__init__(rate)
        self.rate, self.retry_after = rate, retry_after


class Rates:
    """The app's request rates, each shared by the routes of its scope and counted per
    client (an address, or a class's pupil: ``thinking.CLIENT``) in fixed windows, in this
    process or where the limits name a Redis server (``Limits.rate_storage``): then per
    site, not per process."""

    SCOPES = {"new games": "create_rate", "searches": "hint_rate",
              "new accounts": "account_rate", "log-ins": "login_rate", "moves": "move_rate"}

    def __init__(self, limits: Limits) -> None:
        self.counter = FixedWindowRateLimiter(storage_from_string(limits.rate_storage))
        self.items = {scope: parse_many(getattr(limits, setting))
                      for scope, setting in self.SCOPES.items()}

    def hit(self, scope: str, client: str) -> None:
        """Count one request of ``client`` in ``scope``: TooManyRequests past its rate."""
        for item in self.items[scope]:
            if not self.counter.hit(item, scope, client):
                raise TooManyRequests(str(item), max(1, math.ceil(item.get_expiry())))


def rated(scope: str):
    """Count the route's requests against the app's rate of ``scope`` (a route so decorated
    takes the ``request``)."""
    if scope not in Rates.SCOPES:
        raise ValueError(f"no rate {scope!r}")

    def decorate(endpoint):
        @functools.wraps(endpoint)
        async def counted(*args, **kwargs):
            request = kwargs["request"]
            request.app.state.rates.hit(scope, CLIENT.get() or "")
            return await endpoint(*args, **kwargs)

        return counted

    return decorate


new_games = rated("new games")
searches = rated("searches")
new_accounts = rated("new accounts")
log_ins = rated("log-ins")
moves = rated("moves")
