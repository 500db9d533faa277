"""The API's routes by area, each a router built for one app (its hub, limits and rates):
``catalogue`` (the games, examples, the page), ``games`` (making and playing games),
``advice`` (hints, analysis, reviews), ``learning`` (puzzles, lessons), ``live`` (the websocket),
``accounts`` (accounts, sessions, profiles, ratings), ``lobby`` (seeks), ``arenas``
and ``bots`` (API tokens, the Bot API, challenges by token)."""

from __future__ import annotations

from typing import Callable, NamedTuple


class Rates(NamedTuple):
    """The rate limits shared by routes: new games (and seeks), searches (hints, analyses,
    reviews), new accounts, log-ins (and what checks a password), and moves over HTTP."""

    new_games: Callable
    searches: Callable
    accounts: Callable
    logins: Callable
    moves: Callable
