"""Seeks opened and taken, by a page or a bot: the checks a seek's maker and its taker pass
(an account's games going on, a class's pupils apart) and the game a taken seek starts for
both."""

from __future__ import annotations

import random
import secrets
from typing import TYPE_CHECKING

from ..clocks import Clock
from ..errors import BusyError, ConflictError, NotAllowedError, NotFoundError
from ..lobby import Seek
from ..rooms import Room
from ..schemas import NewSeek

if TYPE_CHECKING:
    from ..hub import Hub


def guest() -> str:
    return f"Guest {secrets.randbelow(10_000):04d}"


class Seeking:
    """The lobby's seeks made into games (``Lobby`` keeps the seeks themselves)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def check_live(self, account: str | None) -> None:
        """Refused (BusyError) when ``account`` plays as many games at once as it may."""
        most = self.hub.limits.account_games
        if account is not None and self.hub.games.live_games(account) >= most:
            raise BusyError(f"at most {most} games going on at once: finish one first",
                            code="too_many_games", count=most)

    def challenged(self, account: str, name: str) -> str:
        """The account ``name`` that ``account`` challenges (NotFoundError, ConflictError)."""
        hub = self.hub
        found = hub.accounts.canonical(name)
        if found is None or hub.classes.apart(account, found):  # pupils not seen outside
            raise NotFoundError(f"no player {name[:40]!r}", code="no_player", name=name[:40])
        if found == account:
            raise ConflictError("you cannot challenge yourself", code="own_seek")
        return found

    def open(self, body: NewSeek, by: str | None, account: str | None, client: str | None,
             to: str | None = None, cookie: str | None = None) -> Seek:
        """A seek of ``account`` (or of the guest of ``cookie``) shown as ``by`` (a guest's
        made-up name when None), a challenge when ``to`` is given; ``client``: the address
        whose seeks are counted."""
        self.check_live(account)
        room = Room.create(body.game, body.options, "online")  # the game and options checked
        clock = None if body.clock is None else [body.clock.base, body.clock.increment,
                                                 body.clock.per_move]
        return self.hub.lobby.add(Seek(secrets.token_urlsafe(6), room.game, room.options,
                                       body.rated, body.color, by or guest(), account, client,
                                       clock, to=to, guest=cookie))

    def take(self, found: Seek, account: str | None, cookie: str | None) -> tuple[Room, int]:
        """``account`` (or the guest of ``cookie``) takes the seek ``found``: the game starts
        for both, kept and announced (the lobby told again, so that streams find it). The
        room and the taker's seat."""
        hub = self.hub
        hub.lobby.check_taker(found, account)
        if hub.classes.apart(found.account, account):
            raise NotAllowedError("a class account plays its classmates only",
                                  code="class_account")
        self.check_live(account)
        self.check_live(found.account)  # the seeker may have started other games meanwhile
        seeker_seat = {"first": 0, "second": 1}.get(found.color, random.randint(0, 1))
        names = [found.by, account or guest()]
        accounts, guests = [found.account, account], [found.guest, cookie]
        if seeker_seat == 1:
            for pair in (names, accounts, guests):
                pair.reverse()
        if names[0] == names[1]:
            names[1 - seeker_seat] += " (2)"
        hub.allowances.charge()
        room = Room.create(found.game, found.options, "online", names=names,
                           human_seat=1 - seeker_seat, helpers=False)
        room.accounts, room.guests, room.rated, room.public = accounts, guests, found.rated, True
        room.bots = hub.tokens.bot_names(accounts)
        room.ratings = [hub.accounts.shown_rating(name, room.game) for name in accounts]
        if found.clock is not None:
            room.clock = Clock(*found.clock)
        hub.lobby.take(found, room.id, room.tokens[seeker_seat])
        hub.games.add(room)
        hub.games.after_change(room)
        hub.pushes.lobby_changed()
        return room, 1 - seeker_seat
