"""What a client, an account or a game may spend: new games and loaded moves a day (shared
by the processes of one store), arena pairings, the API's moves and games, and the updates
a game's moves send to its watchers."""

from __future__ import annotations

import functools
import math

from ..clients import Allowance, SharedAllowance
from ..errors import BusyError, FullError
from ..store import Store
from ..thinking import CLIENT, Limits


class Allowances:
    """The allowances of one app (in the store where processes share it, so they are the
    site's, not a process's)."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store, self.limits = store, limits
        allowance = functools.partial(SharedAllowance, store) if store.shared else \
            (lambda kind, amount, seconds: Allowance(amount, seconds))
        self.games_made = allowance("games", limits.client_games, 24 * 3600)  # by client
        self.moves_loaded = allowance("moves", limits.load_moves, 3600)  # by client
        # the updates a game's moves make this process send to its own watchers
        self.updates_sent = Allowance(limits.game_updates, 1.0, clients=10_000)  # by game
        # arena games, by account: at the create rate, as the games a client makes
        self.pairings = _allowance_of(limits.create_rate, allowance)
        # what a token's account does through the API, whichever address it comes from (per
        # account: every token of the account shares it): moves at the move rate; challenges,
        # seeks and acceptances at the create rate
        self.api_moves = _allowance_of(limits.move_rate, allowance, "api moves")
        self.api_games = _allowance_of(limits.create_rate, allowance, "api games")

    def charge(self, moves: int = 0, account: str | None = None) -> None:
        """Count a new game (and the ``moves`` of a loaded record) against the client's
        allowances (``account``'s, for a game the server makes for it: an arena's) and the
        disk: BusyError or FullError, and nothing counted, beyond them."""
        if self.store.size() > self.limits.db_bytes:
            raise FullError("the server's storage for games is full; try again later")
        client = CLIENT.get() if account is None else f"account {account}"
        charges = [(self.moves_loaded, moves, "moves of loaded records"),
                   (self.games_made, 1, "new games")]
        for allowance, amount, what in charges:  # every one checked before any is spent
            wait = allowance.wait(client, amount) if amount else 0.0
            if wait:
                hours = allowance.seconds / 3600
                raise BusyError(
                    f"at most {allowance.amount:,} {what} a client in "
                    f"{'an hour' if hours == 1 else f'{hours:g} hours'}"
                    + ("" if wait == float("inf") else f"; try again in {math.ceil(wait / 60)} "
                       "minutes"))
        for allowance, amount, _ in charges:
            if amount:
                allowance.take(client, amount)

    def pace(self, game_id: str, watchers: int) -> None:
        """Count a move sent to ``game_id`` by the updates it will send (one a watcher):
        BusyError beyond ``game_updates`` a second, so that moves cannot be pushed to many
        watchers faster than anybody watches them."""
        cost = min(self.limits.game_updates, max(1, watchers))
        if self.updates_sent.take(game_id, cost):
            raise BusyError(f"too many moves a second in this game for its {watchers} "
                            f"watchers: at most {self.limits.game_updates} updates a second")

    def may_pair(self, name: str) -> bool:
        """Whether ``name``'s allowances admit an arena game now (a day's new games, and the
        create rate) with room on disk."""
        return not self.games_made.wait(f"account {name}", 1) and \
            not self.pairings.wait(name, 1) and self.store.size() <= self.limits.db_bytes

    def sweep(self) -> None:
        """Forget the clients whose shared allowance has refilled (as if never seen)."""
        for allowance in (self.games_made, self.moves_loaded, self.pairings):
            if isinstance(allowance, SharedAllowance):
                allowance.forget_full()


def _allowance_of(rate: str, allowance, kind: str = "pairings") -> Allowance:
    """An allowance of ``rate`` ("30/minute"), as the rate limiter reads it."""
    from limits import parse

    item = parse(rate)
    return allowance(kind, item.amount, item.get_expiry())
