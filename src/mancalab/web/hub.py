"""The services of one app, made once over its store: the store-level ones (accounts,
tokens, classes, tournaments, the lobby's seeks, arenas, presence, reviews) and those of
``services`` (games, pushes, timers, pairing, the computer, allowances, seeking), with the
background tasks they share. Domain errors only: the app maps them to HTTP answers."""

from __future__ import annotations

import asyncio
import logging

from .accounts import Accounts, Hashing
from .arenas import Arenas
from .classes import Classes
from .lobby import Lobby
from .presence import FLUSH_SECONDS, Presence
from .reviews import Reviews
from .services.allowances import Allowances
from .services.computer import Computer
from .services.games import Games
from .services.pairing import Pairing
from .services.pushes import Pushes
from .services.seeking import Seeking
from .services.timers import Timers
from .store import Store
from .thinking import Limits, Thinker
from .tokens import Tokens
from .tournaments import Tournaments

LOG = logging.getLogger("mancalab.web")


class Hub:
    """One app's services, each reaching the others through the hub, and its background
    tasks (cancelled when the app stops)."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store, self.limits = store, limits
        self.tasks: set[asyncio.Task] = set()
        self.accounts = Accounts(store)
        self.tokens = Tokens(store)
        self.classes = Classes(store, self.accounts)
        self.tournaments = Tournaments(store)
        self.hashing = Hashing(limits.hash_queue)
        self.arenas = Arenas(store)
        self.thinker = Thinker(limits)
        self.seen = Presence(store)  # the seats with a page open, on every process
        self.allowances = Allowances(store, limits)
        self.pushes = Pushes(self)
        self.games = Games(self)
        self.timers = Timers(self)
        self.pairing = Pairing(self)
        self.computer = Computer(self)
        self.lobby = Lobby(limits, store, on_change=self.pushes.lobby_changed)
        self.seeking = Seeking(self)  # seeks made into games
        self.reviews = Reviews(self)  # games looked back at, position by position

    def spawn(self, coroutine) -> None:
        """Run ``coroutine`` as a background task of the app, its failure logged."""
        try:
            task = asyncio.get_running_loop().create_task(
                coroutine, context=self.store.backend.context())
        except (RuntimeError, AttributeError):  # the server is stopping (a late notification:
            # its loop gone, or its store closed)
            coroutine.close()
            return
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(_log_failure)

    async def start(self) -> list[asyncio.Task]:
        """Follow the other processes, end or time the games with a deadline, and start the
        sweeps: the sweeps' tasks, to cancel when the app stops."""
        loop = asyncio.get_running_loop()
        sweepers = [loop.create_task(self.sweeping()), loop.create_task(self.timers.sweeping()),
                    loop.create_task(self.telling_presence())]
        self.pushes.listen()
        await self.timers.resume()
        return sweepers

    def stop(self) -> None:
        """Stop following the other processes and cancel the background tasks."""
        if self.computer.preparation is not None:
            self.computer.preparation.stop()
        if self.pushes.stop_listening is not None:
            self.pushes.stop_listening()
            self.pushes.stop_listening = None
        for task in list(self.tasks):
            task.cancel()

    async def forget(self, account: str) -> None:
        """Delete ``account``: first its games going on are resigned and it leaves every
        arena; then its personal data go (``Accounts.delete``)."""
        await self.games.resign_all(account)
        self.pairing.leave_arenas(account)
        self.accounts.delete(account)

    def sweep(self) -> None:
        """Forget expired seeks and refilled allowances, free idle games' computer players
        and drop idle, unwatched games from memory."""
        self.lobby.sweep()
        self.allowances.sweep()
        self.games.sweep(self.limits.idle_player, self.limits.idle_room)

    async def sweeping(self) -> None:
        pause = max(0.05, min(self.limits.idle_player, self.limits.idle_room) / 4)
        while True:
            await asyncio.sleep(pause)
            self.sweep()

    async def telling_presence(self) -> None:
        """Where processes share the store: this process's pages that came or went, told
        to the others every ``FLUSH_SECONDS``."""
        while self.store.shared:
            await asyncio.sleep(FLUSH_SECONDS)
            try:
                self.seen.flush()
            except Exception as error:  # noqa: BLE001 - the database away: the next time
                LOG.warning("telling who is here: %s", error)


def _log_failure(task: asyncio.Task) -> None:
    """Log a background task's failure (a task's error is otherwise never seen)."""
    if not task.cancelled() and task.exception() is not None:
        LOG.error("a background task failed", exc_info=task.exception())
