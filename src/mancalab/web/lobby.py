"""The lobby: open seeks (a game, its options, rated or casual, a colour) that anyone sees
and anyone else may accept; accepting one starts an online game for both.

Seeks are kept in the store, so every process of a site sees the same lobby and a seek
outlives the page that made it: its seeker's pages (any of them, after any reload) learn
the game it started. They are bounded in all and per client address or account, and expire
when nobody takes them. A seek leaves the lobby when it is taken: it is kept aside for
``TAKEN_SECONDS`` for its seeker to learn the game, and counts toward no bound meanwhile, so
taken seeks cannot fill the lobby. A seek is taken once, whichever process is asked: the
taking is an update guarded by "not taken yet".
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass, field

from .errors import BusyError, ConflictError, NotAllowedError, NotFoundError
from .store import Store
from .thinking import Limits

COLORS = ("first", "second", "random")
SEEK_SECONDS = 30 * 60  # an open seek nobody takes goes after this
SWEEP_SECONDS = 1.0  # the lobby's views and new seeks sweep it at most this often
TAKEN_SECONDS = 60  # a taken seek is kept this long for its seeker to learn the game (the
# seeker's page asks every few seconds)


@dataclass
class Seek:
    id: str
    game: str
    options: dict
    rated: bool
    color: str
    by: str  # the account's name, or a guest's
    account: str | None
    client: str | None
    clock: list | None = None  # [base, increment, per move] (seconds), or None
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(16))  # the seeker's
    created: float = field(default_factory=time.time)
    game_id: str | None = None  # once taken: the game, and the seeker's token in it
    token: str | None = None
    taken_at: float | None = None
    delivered: bool = False  # a page of the seeker's was given the game
    to: str | None = None  # a challenge: the only account that sees it and may take it
    guest: str | None = None  # a guest's seek: the digest of their guest cookie
    declined: str | None = None  # a challenge declined: the reason

    def kept(self) -> dict:
        """What the store keeps as the seek (its state once taken is kept in columns)."""
        return {"id": self.id, "game": self.game, "options": self.options, "rated": self.rated,
                "color": self.color, "by": self.by, "account": self.account,
                "client": self.client, "clock": self.clock, "secret": self.secret,
                "created": self.created, "to": self.to, "guest": self.guest}

    def public(self) -> dict:
        return {"id": self.id, "game": self.game, "options": self.options,
                "rated": self.rated, "color": self.color, "by": self.by,
                "clock": None if self.clock is None else {
                    "base": self.clock[0], "increment": self.clock[1],
                    "per_move": self.clock[2]},
                "created": self.created, "to": self.to, "declined": self.declined}


class Lobby:
    """The seeks of one site, in its store."""

    def __init__(self, limits: Limits, store: Store, on_change=lambda: None) -> None:
        self.limits = limits
        self.store = store
        self.on_change = on_change  # called after each change of the open seeks
        self.swept = -SWEEP_SECONDS  # when this process last swept (time.monotonic)

    def add(self, seek: Seek) -> Seek:
        """Open ``seek``; BusyError beyond the lobby's or the seeker's bound."""
        self.sweep_now_and_then()
        with self.store.transaction():
            self.store.lock_named("lobby")
            (mine,) = self.store.execute(
                "SELECT COUNT(*) FROM seeks WHERE game_id IS NULL AND declined IS NULL AND "
                "(account = ? OR client = ?)", (seek.account, seek.client)).fetchone()
            if mine >= self.limits.client_seeks:
                raise BusyError(f"at most {self.limits.client_seeks} open seeks each: cancel "
                                "one or wait for a player", code="too_many_seeks",
                                count=self.limits.client_seeks)
            if len(self._open()) >= self.limits.seeks:
                raise BusyError("the lobby is full; try again later", code="lobby_full")
            self.store.execute(
                "INSERT INTO seeks (id, seek, account, client, to_name, created, guest) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)", (seek.id, json.dumps(seek.kept()),
                                                 seek.account, seek.client, seek.to,
                                                 seek.created, seek.guest))
        self.on_change()
        return seek

    def _open(self, where: str = "", params: tuple = ()) -> list[Seek]:
        return [_seek(*row) for row in self.store.execute(
            f"SELECT seek, game_id, token, taken_at, declined, delivered FROM seeks WHERE "
            f"game_id IS NULL AND declined IS NULL{where} ORDER BY created", params)]

    def open(self) -> list[Seek]:
        """The seeks anyone may take (challenges are for their addressee alone)."""
        return self._open(" AND to_name IS NULL")

    def get(self, seek_id: str) -> Seek:
        row = None
        if len(seek_id) <= 40:
            row = self.store.execute("SELECT seek, game_id, token, taken_at, declined, "
                                     "delivered FROM seeks WHERE id = ?", (seek_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no seek {seek_id[:40]!r} (taken long ago, cancelled or "
                                "expired)", code="no_seek")
        return _seek(*row)

    def check_taker(self, seek: Seek, account: str | None) -> None:
        """Whether the visitor (``account``: None for a guest) may take ``seek``. Guests are
        not told apart by address: a classroom behind one address plays within itself (a
        page does not offer its own seek)."""
        if seek.game_id is not None or seek.declined is not None:
            raise ConflictError("this seek was taken already", code="seek_taken")
        if account is not None and account == seek.account:
            raise ConflictError("this is your own seek", code="own_seek")
        if seek.to is not None and account != seek.to:
            raise NotAllowedError(f"this challenge is for {seek.to}", code="not_for_you",
                                  name=seek.to)
        if seek.rated and account is None:
            raise NotAllowedError("a rated game needs an account: log in to take this seek",
                                  code="rated_needs_account")

    def cancel(self, seek_id: str, secret: str | None) -> None:
        seek = self.get(seek_id)
        if not secret or not secrets.compare_digest(seek.secret.encode(), secret.encode()):
            raise NotAllowedError("only the seeker may cancel a seek")
        if not self.store.execute("DELETE FROM seeks WHERE id = ? AND game_id IS NULL AND "
                                  "declined IS NULL", (seek_id,)).rowcount:
            raise ConflictError("this seek was taken already")
        self.on_change()

    def take(self, seek: Seek, game_id: str, token: str) -> None:
        """Take ``seek`` for the game ``game_id`` (the seeker's token in it): kept aside for
        the seeker to learn, out of the lobby and of every bound. ConflictError if another
        took it first (on any process)."""
        seek.game_id, seek.token, seek.taken_at = game_id, token, time.time()
        if not self.store.execute("UPDATE seeks SET game_id = ?, token = ?, taken_at = ? "
                                  "WHERE id = ? AND game_id IS NULL AND declined IS NULL",
                                  (game_id, token, seek.taken_at, seek.id)).rowcount:
            raise ConflictError("this seek was taken already", code="seek_taken")
        self.on_change()

    def challenges_to(self, account: str) -> list[Seek]:
        """The open challenges for ``account``."""
        return self._open(" AND to_name = ?", (account,))

    def challenges_of(self, account: str) -> list[Seek]:
        """The open challenges to ``account`` and by it."""
        return self._open(" AND to_name IS NOT NULL AND (to_name = ? OR account = ?)",
                          (account, account))

    def decline(self, seek: Seek, account: str | None, reason: str) -> None:
        """The addressee declines a challenge: it closes, and the challenger's pages are
        told why (kept aside as a taken seek is)."""
        if seek.to is None or account != seek.to:
            raise NotAllowedError("only the player challenged may decline", code="not_for_you",
                                  name=seek.to or "")
        seek.declined, seek.taken_at = reason, time.time()
        if not self.store.execute("UPDATE seeks SET declined = ?, taken_at = ? WHERE id = ? "
                                  "AND game_id IS NULL AND declined IS NULL",
                                  (reason, seek.taken_at, seek.id)).rowcount:
            raise ConflictError("this seek was taken already", code="seek_taken")
        self.on_change()

    def delivered(self, seek: Seek) -> None:
        """A page of the seeker's was given the seek's game (or its refusal)."""
        seek.delivered = True
        self.store.execute("UPDATE seeks SET delivered = 1 WHERE id = ?", (seek.id,))

    def of(self, account: str | None, guest: str | None = None) -> list[Seek]:
        """The seeks of ``account`` (or of the ``guest`` cookie's digest): the open ones, and
        those taken (or, a challenge, declined) in the last ``TAKEN_SECONDS`` that none of
        its pages has been told of yet (each is told once: marked delivered)."""
        column, owner = ("account", account) if account is not None else ("guest", guest)
        found = [_seek(*row) for row in self.store.execute(
            f"SELECT seek, game_id, token, taken_at, declined, delivered FROM seeks WHERE "
            f"{column} = ? AND delivered = 0 ORDER BY created", (owner,))]
        for seek in found:
            if seek.taken_at is not None:
                self.delivered(seek)
        return found

    def sweep(self) -> int:
        """Forget the seeks open too long and those taken long enough ago (one statement):
        how many."""
        now = time.time()
        self.swept = time.monotonic()
        gone = [taken for (taken,) in self.store.execute(
            "DELETE FROM seeks WHERE (taken_at IS NULL AND created < ?) OR taken_at < ? "
            "RETURNING taken_at", (now - SEEK_SECONDS, now - TAKEN_SECONDS))]
        if any(taken is None for taken in gone):  # an open seek expired
            self.on_change()
        return len(gone)

    def sweep_now_and_then(self) -> None:
        """``sweep``, unless this process swept within ``SWEEP_SECONDS``: every view of the
        lobby and every new seek asks for it, and each sweep is a statement the event loop
        waits for (an expired seek stays at most that much longer)."""
        if time.monotonic() - self.swept >= SWEEP_SECONDS:
            self.sweep()


def _seek(kept: str, game_id, token, taken_at, declined, delivered) -> Seek:
    return Seek(**json.loads(kept), game_id=game_id, token=token, taken_at=taken_at,
                declined=declined, delivered=bool(delivered))
