"""The clocks' timers: a game with a deadline ends on time (or is aborted, its first move
not made) whether or not anybody sends anything; every process holding the game keeps a
timer, the first to fire ends it (a guarded change: once), and a sweep ends the games whose
process stopped before their deadline."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from ..rooms import Room

if TYPE_CHECKING:
    from ..hub import Hub

LOG = logging.getLogger("mancalab.web")
DUE_GRACE = 0.5  # seconds a deadline may pass before a process other than its timer's acts


class Timers:
    """One timer a game with a deadline, by game."""

    def __init__(self, hub: Hub) -> None:
        self.hub, self.store = hub, hub.store
        self.timers: dict[str, asyncio.Task] = {}

    def keep(self, room: Room) -> None:
        """Keep one timer for the game at its deadline (``Room.deadline``), none without."""
        timer = self.timers.pop(room.id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        if room.deadline() is not None:
            task = asyncio.get_running_loop().create_task(self._at_deadline(room))
            self.timers[room.id] = task
            self.hub.tasks.add(task)
            task.add_done_callback(self.hub.tasks.discard)

    async def _at_deadline(self, room: Room) -> None:
        while True:
            deadline = room.deadline()
            if deadline is None:
                return
            wait = deadline - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            self.timers.pop(room.id, None)
            await self.hub.games.apply(room, self.end_if_due)
            return

    def end_if_due(self, room: Room) -> bool:
        """A change: the game ends on time (or is aborted, a first move not made) if its
        deadline has passed; else only its stored deadline is brought up to date."""
        deadline = room.deadline()
        if deadline is None or deadline > time.time():
            room.save(self.store)
            return False
        if not room.both_moved():  # a first move not made: no result
            room.abort(self.store, None, by_server=True)
        else:
            room.flag(self.store)
        return True

    async def resume(self, before: float | None = None) -> None:
        """Every game with a deadline before ``before`` (all, after a start) that is not
        timed here: ended now if the deadline passed (while the server was stopped, or its
        process died), else timed by this process."""
        games = self.hub.games
        for game_id in self.store.due_games(before):
            if game_id not in self.timers:
                await games.apply(games.room(game_id), self.end_if_due)

    async def sweeping(self) -> None:
        """Each second, the games whose deadline passed more than ``DUE_GRACE`` ago with
        nobody's timer ending them (their process stopped): ended here, once."""
        while True:
            await asyncio.sleep(1.0)
            try:
                if self.store.shared:
                    self.hub.seen.heartbeat()
                await self.resume(time.time() - DUE_GRACE)
            except Exception as error:  # noqa: BLE001 - the database away: the next second
                LOG.warning("ending the games due: %s", error)
