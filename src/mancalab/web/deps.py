"""What the routes get from the app they serve, through FastAPI's ``Depends``: its hub (the
services over the store), its limits, and its request rates. The routers are module-level
(FastAPI's "bigger applications"); a test overrides a dependency with
``app.dependency_overrides``."""

from __future__ import annotations

import functools
import math
from typing import Annotated

from fastapi import Depends
from limits import parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from starlette.requests import HTTPConnection

from .hub import Hub
from .thinking import CLIENT, Limits


# coroutines, so FastAPI calls them on the event loop (a plain function would be run in its
# thread pool: a thread's hop for every request)
async def hub_of(connection: HTTPConnection) -> Hub:
    return connection.app.state.hub


async def limits_of(connection: HTTPConnection) -> Limits:
    return connection.app.state.hub.limits


HubDep = Annotated[Hub, Depends(hub_of)]
LimitsDep = Annotated[Limits, Depends(limits_of)]


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
