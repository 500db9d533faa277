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


class Presence:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.process = secrets.token_hex(8)  # this process, among the site's
        self.came: dict[str, set[int]] = {}  # the seats that have had a page open here
        self.gone: dict[str, dict[int, float]] = {}  # since when a seat that came is gone
        self.told: dict[str, set[int]] = {}  # the seats here last written to the store
        self.others: dict[str, tuple] = {}  # the other processes' rows, by game: (when, rows)

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
            for seat, is_here, left, seen in self._elsewhere(game_id, now):
                came.add(seat)
                if is_here and seen > now - ALIVE_SECONDS:
                    present.add(seat)
                else:  # gone there: since it left, or since its process was last alive
                    since = seen if is_here else left
                    gone[seat] = max(gone.get(seat, since), since)
        return {"present": [0 in present, 1 in present], "came": [0 in came, 1 in came],
                "gone_for": [round(now - gone[seat], 1) if seat in gone and seat not in present
                             else None for seat in (0, 1)]}

    def _elsewhere(self, game_id: str, now: float) -> list[tuple]:
        """The other processes' rows of the game: read again when one said it changed
        (``stale``), or once a heartbeat's time has passed (a process may have died)."""
        kept = self.others.get(game_id)
        if kept is None or now - kept[0] > 1.0:
            kept = self.others[game_id] = (now, self.store.execute(
                "SELECT seat, here, gone, seen FROM presence JOIN processes ON processes.id "
                "= presence.process WHERE game_id = ? AND process != ?",
                (game_id, self.process)).fetchall())
        return kept[1]

    def stale(self, game_id: str) -> None:
        """Another process's pages of the game came or went."""
        self.others.pop(game_id, None)

    def _tell(self, game_id: str, here: set[int], gone: dict[int, float]) -> None:
        """Write this process's seats of the game where they changed, and tell the others."""
        if self.told.get(game_id) == here:
            return
        for seat in self.came[game_id]:  # the seats that have had a page here
            self.store.execute(
                "INSERT INTO presence VALUES (?, ?, ?, ?, ?) ON CONFLICT (game_id, seat, "
                "process) DO UPDATE SET here = excluded.here, gone = excluded.gone",
                (game_id, seat, self.process, int(seat in here), gone.get(seat)))
        self.told[game_id] = set(here)
        self.store.backend.notify(f"seen {game_id}")

    def heartbeat(self) -> None:
        """This process is alive (each second); the rows of processes long gone go."""
        now = time.time()
        self.store.execute("INSERT INTO processes VALUES (?, ?) ON CONFLICT (id) DO UPDATE "
                           "SET seen = excluded.seen", (self.process, now))
        self.store.execute("DELETE FROM processes WHERE seen < ?", (now - 24 * 3600,))

    def forget(self, game_id: str) -> None:
        """The game is no longer held here."""
        self.came.pop(game_id, None)
        self.gone.pop(game_id, None)
        self.others.pop(game_id, None)
        if self.told.pop(game_id, None) is not None:
            self.store.execute("DELETE FROM presence WHERE game_id = ? AND process = ?",
                               (game_id, self.process))
