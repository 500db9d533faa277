"""Which seats of a game have a page open, whether each ever had, and since when one that
came has been gone (a player gone ``CLAIM_SECONDS`` from a game on the clock loses if the
other claims it): counted over every process of a site.

A process knows its own sockets; with a shared database it also keeps a row per game and
seat it has seen (here or not, since when gone), and a heartbeat, so that the others count
its pages too, and a process that died counts as gone since its last heartbeat.
"""

from __future__ import annotations

import secrets
import time

from .store import Store

ALIVE_SECONDS = 10.0  # a process whose heartbeat is older is gone (its pages with it)
FLUSH_SECONDS = 0.1  # this process's pages that came or went are told to the others within


class Presence:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.process = secrets.token_hex(8)  # this process, among the site's
        self.came: dict[str, set[int]] = {}  # the seats that have had a page open here
        self.gone: dict[str, dict[int, float]] = {}  # since when a seat that came is gone
        self.told: dict[str, set[int]] = {}  # the seats here last written to the store
        self.others: dict[str, tuple] = {}  # the other processes' rows, by game: (when, rows)
        self.dirty: dict[str, list] = {}  # this process's rows to write, by game
        self.alive: dict[str, float] = {}  # every process's last heartbeat (read each second)

    def of(self, game_id: str, here: set[int]) -> dict:
        """The game's presence with ``here`` the seats with a page on this process:
        ``present`` and ``came`` by seat, and ``gone_for`` (seconds, or None)."""
        came_here = self.came.setdefault(game_id, set())
        came_here.update(here)
        left_here, now = self.gone.setdefault(game_id, {}), time.time()
        for seat in (0, 1):
            if seat in here:
                left_here.pop(seat, None)
            elif seat in came_here:
                left_here.setdefault(seat, now)
        present, came, gone = set(here), set(came_here), dict(left_here)
        if self.store.shared:
            self._tell(game_id, here, left_here)
            for seat, is_here, left, process in self._elsewhere(game_id):
                came.add(seat)
                seen = self.alive.get(process, now)  # one not read yet has just begun
                if is_here and seen > now - ALIVE_SECONDS:
                    present.add(seat)
                else:  # gone there: since it left, or since its process was last alive
                    since = seen if is_here else left
                    gone[seat] = max(gone.get(seat, since), since)
        return {"present": [0 in present, 1 in present], "came": [0 in came, 1 in came],
                "gone_for": [round(now - gone[seat], 1) if seat in gone and seat not in present
                             else None for seat in (0, 1)]}

    def _elsewhere(self, game_id: str) -> list[tuple]:
        """The other processes' rows of the game (seat, here, gone since, process): read
        once (``read``, ahead of the view where it can), and again when one says they
        changed."""
        kept = self.others.get(game_id)
        if kept is None:
            kept = self.others[game_id] = self._rows(game_id)
        return kept

    def _rows(self, game_id: str) -> list[tuple]:
        return self.store.execute("SELECT seat, here, gone, process FROM presence WHERE "
                                  "game_id = ? AND process != ?",
                                  (game_id, self.process)).fetchall()

    async def read(self, game_id: str, again: bool = False) -> None:
        """Read the other processes' rows of the game off the event loop: where they have
        not been read yet, or (``again``) because one said they changed."""
        if self.store.shared and (again or game_id not in self.others):
            self.others[game_id] = await self.store.off_loop(self._rows, game_id)

    def _tell(self, game_id: str, here: set[int], gone: dict[int, float]) -> None:
        """Note this process's seats of the game where they changed: written, and told to
        the others, by the next ``flush`` (a burst of pages opening costs one transaction)."""
        if self.told.get(game_id) != here:
            self.told[game_id] = set(here)
            self.dirty[game_id] = [(seat, int(seat in here), gone.get(seat))
                                   for seat in self.came[game_id]]

    def flush(self) -> None:
        """Write the seats noted since the last flush and tell the other processes (run
        every ``FLUSH_SECONDS`` where processes share the store)."""
        if not self.dirty:
            return
        dirty, self.dirty = self.dirty, {}
        with self.store.of_the_moment():
            for game_id, rows in dirty.items():
                for seat, here, gone in rows:
                    self.store.execute(
                        "INSERT INTO presence VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, "
                        "seat, process) DO UPDATE SET here = excluded.here, gone = "
                        "excluded.gone", (game_id, seat, self.process, here, gone))
                self.store.backend.notify(f"seen {game_id}")

    def heartbeat(self) -> None:
        """This process is alive (each second), and so are those whose heartbeats it reads;
        the rows of processes long gone go."""
        now = time.time()
        with self.store.of_the_moment():
            self.store.execute("INSERT INTO processes VALUES (?, ?) ON CONFLICT (id) DO "
                               "UPDATE SET seen = excluded.seen", (self.process, now))
            self.store.execute("DELETE FROM processes WHERE seen < ?", (now - 24 * 3600,))
        self.alive = dict(self.store.execute("SELECT id, seen FROM processes").fetchall())

    def forget(self, game_id: str) -> None:
        """The game is no longer held here."""
        self.came.pop(game_id, None)
        self.gone.pop(game_id, None)
        self.others.pop(game_id, None)
        self.dirty.pop(game_id, None)
        if self.told.pop(game_id, None) is not None:
            self.store.execute("DELETE FROM presence WHERE game_id = ? AND process = ?",
                               (game_id, self.process))
