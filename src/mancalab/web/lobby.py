"""The lobby: open seeks (a game, its options, rated or casual, a colour) that anyone sees
and anyone else may accept; accepting one starts an online game for both.

Seeks live in memory (a seek is a person waiting now: after a restart they seek again),
bounded in all and per client address or account, and expire when nobody takes them. A seek
leaves the lobby when it is taken: it is kept aside for ``TAKEN_SECONDS`` for its seeker to
learn the game, and counts toward no bound meanwhile, so taken seeks cannot fill the lobby.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from .errors import BusyError, ConflictError, NotAllowedError, NotFoundError
from .thinking import Limits

COLORS = ("first", "second", "random")
SEEK_SECONDS = 30 * 60  # an open seek nobody takes goes after this
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
    declined: str | None = None  # a challenge declined: the reason

    def public(self) -> dict:
        return {"id": self.id, "game": self.game, "options": self.options,
                "rated": self.rated, "color": self.color, "by": self.by,
                "clock": None if self.clock is None else {
                    "base": self.clock[0], "increment": self.clock[1],
                    "per_move": self.clock[2]},
                "created": self.created, "to": self.to, "declined": self.declined}


class Lobby:
    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.seeks: dict[str, Seek] = {}  # the open seeks
        self.taken: dict[str, Seek] = {}  # the seeks taken in the last TAKEN_SECONDS

    def add(self, seek: Seek) -> Seek:
        """Open ``seek``; BusyError beyond the lobby's or the seeker's bound."""
        self.sweep()
        mine = [s for s in self.seeks.values() if (seek.account and s.account == seek.account)
                or s.client == seek.client]
        if len(mine) >= self.limits.client_seeks:
            raise BusyError(f"at most {self.limits.client_seeks} open seeks each: cancel one "
                            "or wait for a player", code="too_many_seeks",
                            count=self.limits.client_seeks)
        if len(self.seeks) >= self.limits.seeks:
            raise BusyError("the lobby is full; try again later", code="lobby_full")
        self.seeks[seek.id] = seek
        return seek

    def open(self) -> list[Seek]:
        """The seeks anyone may take (challenges are for their addressee alone)."""
        return [seek for seek in self.seeks.values() if seek.to is None]

    def get(self, seek_id: str) -> Seek:
        seek = None
        if len(seek_id) <= 40:
            seek = self.seeks.get(seek_id) or self.taken.get(seek_id)
        if seek is None:
            raise NotFoundError(f"no seek {seek_id[:40]!r} (taken long ago, cancelled or "
                                "expired)", code="no_seek")
        return seek

    def check_taker(self, seek: Seek, account: str | None) -> None:
        """Whether the visitor (``account``: None for a guest) may take ``seek``. Guests are
        not told apart by address: a classroom behind one address plays within itself (a
        page does not offer its own seek)."""
        if seek.game_id is not None:
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
        if seek.game_id is not None:
            raise ConflictError("this seek was taken already")
        del self.seeks[seek_id]

    def take(self, seek: Seek, game_id: str, token: str) -> None:
        """``seek`` was taken: its game (and the seeker's token in it) kept aside for the
        seeker to learn, out of the lobby and of every bound. At most as many taken seeks
        are kept as the lobby holds open ones (the oldest go first)."""
        seek.game_id, seek.token, seek.taken_at = game_id, token, time.time()
        self.seeks.pop(seek.id, None)
        self.taken[seek.id] = seek
        while len(self.taken) > self.limits.seeks:
            del self.taken[next(iter(self.taken))]

    def challenges_to(self, account: str) -> list[Seek]:
        """The open challenges for ``account``."""
        return [seek for seek in self.seeks.values() if seek.to == account]

    def decline(self, seek: Seek, account: str | None, reason: str) -> None:
        """The addressee declines a challenge: it closes, and the challenger's pages are
        told why (kept aside as a taken seek is)."""
        if seek.to is None or account != seek.to:
            raise NotAllowedError("only the player challenged may decline", code="not_for_you",
                                  name=seek.to or "")
        if seek.game_id is not None or seek.id not in self.seeks:
            raise ConflictError("this seek was taken already", code="seek_taken")
        seek.declined, seek.taken_at = reason, time.time()
        del self.seeks[seek.id]
        self.taken[seek.id] = seek

    def of(self, account: str) -> list[Seek]:
        """``account``'s seeks: the open ones, and those taken (or, a challenge, declined) in
        the last ``TAKEN_SECONDS`` that none of its pages has been told of yet (each is told
        once: marked delivered)."""
        found = [seek for seek in self.seeks.values() if seek.account == account]
        for seek in self.taken.values():
            if seek.account == account and not seek.delivered:  # taken, or declined
                seek.delivered = True
                found.append(seek)
        return found

    def sweep(self) -> None:
        now = time.time()
        for seek_id, seek in list(self.seeks.items()):
            if now - seek.created > SEEK_SECONDS:
                del self.seeks[seek_id]
        for seek_id, seek in list(self.taken.items()):
            if now - seek.taken_at > TAKEN_SECONDS:
                del self.taken[seek_id]
