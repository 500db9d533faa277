"""The server's services: the rooms it holds (loaded from the store on first use, dropped
from memory when idle), their locks and watchers, the computer's turns, hints, exact
analysis, reviews and the preparation of exact play. Domain errors only: the app maps them
to HTTP answers."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import math
import time
from collections import Counter, OrderedDict

from fastapi import WebSocket

from ..analysis import solving
from ..analysis.solving.preparation import Step, is_settled
from ..core import MancalabError
from ..players import Player
from .clients import Allowance, SharedAllowance
from .accounts import Accounts, Hashing
from .arenas import Arena, Arenas
from .classes import Classes
from .clocks import Clock
from .lobby import Lobby
from .preparing import Preparation
from .presence import FLUSH_SECONDS, Presence
from .errors import BusyError, ConflictError, FullError, NotAllowedError, NotFoundError
from .reviews import Reviews
from .rooms import Room
from .store import Store, analysis_key
from .tokens import Tokens
from .tournaments import Tournament, Tournaments
from .thinking import CLIENT, Limits, Thinker

LOG = logging.getLogger("mancalab.web")
DUE_GRACE = 0.5  # seconds a deadline may pass before a process other than its timer's acts
LIVE_SHOWN = 30  # games being played now, listed to watch
LOBBY_PAUSE = 0.2  # seconds: the lobby's changes within it are pushed as one
SEND_SECONDS = 5.0  # a watcher's socket that takes no update for this long is dropped


# ----- the rooms the server holds -----------------------------------------------------
class Hub:
    """Rooms by id (loaded from the store on first use, dropped from memory when idle), a
    lock each, their watchers, and the computer's thinking."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.accounts = Accounts(store)
        self.tokens = Tokens(store)
        self.classes = Classes(store, self.accounts)
        self.tournaments = Tournaments(store)
        self.hashing = Hashing(limits.hash_queue)
        self.lobby = Lobby(limits, store, on_change=self.lobby_changed)
        self.arenas = Arenas(store)
        self.timers: dict[str, asyncio.Task] = {}  # a game's clock timer, by game
        self.thinker = Thinker(limits)
        self.rooms: dict[str, Room] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.watchers: dict[str, set[tuple[WebSocket, str | None]]] = {}
        self.tasks: set[asyncio.Task] = set()
        self.kept: OrderedDict[str, Room] = OrderedDict()  # rooms holding a computer player
        self.lobby_sockets: set[WebSocket] = set()  # pages following the lobby
        self.lobby_due = False  # a push of the lobby is scheduled
        # pages following an arena: (socket, account) by arena, and the pushes scheduled
        self.arena_sockets: dict[str, set[tuple[WebSocket, str | None]]] = {}
        self.arenas_due: set[str] = set()
        self.stop_listening = None  # stops following other processes' changes
        self.computing: set[str] = set()  # the games whose computer's turns are being played
        self.sockets_by_client: Counter[str | None] = Counter()  # open websockets
        self.sending: dict[WebSocket, str | None] = {}  # sockets being sent to: the next text
        self.seen = Presence(store)  # the seats with a page open, on every process
        self.preparation: Preparation | None = None  # exact play's files, built meanwhile
        self.reviews = Reviews(self)  # games looked back at, position by position
        # a client's allowances are the site's: kept in the store where processes share it
        allowance = functools.partial(SharedAllowance, store) if store.shared else \
            (lambda kind, amount, seconds: Allowance(amount, seconds))
        self.games_made = allowance("games", limits.client_games, 24 * 3600)  # by client
        self.moves_loaded = allowance("moves", limits.load_moves, 3600)  # by client
        # the updates a game's moves make this process send to its own watchers
        self.updates_sent = Allowance(limits.game_updates, 1.0, clients=10_000)  # by game
        self.pairings = _allowance_of(limits.create_rate, allowance)  # arena games, by account: at
        # the create rate, as the games a client makes
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

    def pace(self, game_id: str) -> None:
        """Count a move sent to ``game_id`` by the updates it will send (one a watcher):
        BusyError beyond ``game_updates`` a second, so that moves cannot be pushed to many
        watchers faster than anybody watches them."""
        cost = min(self.limits.game_updates, max(1, len(self.watchers.get(game_id, ()))))
        if self.updates_sent.take(game_id, cost):
            raise BusyError(f"too many moves a second in this game for its "
                            f"{len(self.watchers.get(game_id, ()))} watchers: at most "
                            f"{self.limits.game_updates} updates a second")

    def room(self, game_id: str) -> Room:
        """The game ``game_id``, loaded from the store if it is not in memory. Called on the
        event loop only, so a game is never loaded twice. A loaded game whose computer is to
        move goes on thinking (the server may have stopped while it thought)."""
        room = self.rooms.get(game_id)
        if room is not None and room.stored_version == -1:  # a change that did not commit
            room.refresh(self.store.load(game_id))
        if room is None:
            stored = self.store.load(game_id) if len(game_id) <= 40 else None
            if stored is None:
                raise NotFoundError(f"no game {game_id[:40]!r}", code="no_game")
            room = self.rooms[game_id] = Room.from_stored(stored)
            self._resume(room)
        room.touched = time.monotonic()
        return room

    async def load(self, game_id: str) -> Room:
        """``room(game_id)``, its loading from the store (and, where processes share it,
        the other processes' presence in it) off the event loop."""
        if game_id not in self.rooms and len(game_id) <= 40:
            stored = await self.store.off_loop(self.store.load, game_id)
            if stored is not None and game_id not in self.rooms:  # not loaded meanwhile
                self.rooms[game_id] = Room.from_stored(stored)
                self._resume(self.rooms[game_id])
        room = self.room(game_id)
        await self.seen.read(game_id)
        return room

    def _resume(self, room: Room) -> None:
        if room.bot_to_move() and room.id not in self.computing and room.suggestion is None:
            self._spawn(self.computer_turns(room))

    def lock(self, game_id: str) -> asyncio.Lock:
        return self.locks.setdefault(game_id, asyncio.Lock())

    def add(self, room: Room) -> None:
        room.await_first_move()
        self.store.create(room.to_stored(), room.record.moves if room.record else [],
                          room.deadline())
        room.touched = time.monotonic()
        self.rooms[room.id] = room

    # ----- what other processes changed ----------------------------------------------
    def listen(self) -> None:
        """Follow the other processes' changes (PostgreSQL's notifications): a game this
        process holds is made current and its watchers told; after a lost connection every
        game held is compared by version, since notifications may have been missed."""
        if self.stop_listening is not None:  # the app started again: once is enough
            return
        loop = asyncio.get_running_loop()
        if self.store.shared:
            self.seen.heartbeat()
        self.stop_listening = self.store.backend.listen(
            lambda message: loop.call_soon_threadsafe(self._told, message))

    def _told(self, message: str | None) -> None:
        if message is None:
            self._spawn(self.catch_up(list(self.rooms)))
            return
        kind, _, rest = message.partition(" ")
        if kind == "game":
            game_id, _, version = rest.partition(" ")
            room = self.rooms.get(game_id)
            if room is not None and room.stored_version != int(version):
                self._spawn(self.catch_up([game_id], known=True))
        elif kind == "seen" and rest in self.rooms:  # a page came or went elsewhere
            self._spawn(self._seen_elsewhere(self.rooms[rest]))
        elif kind == "lobby" and self.lobby_sockets and not self.lobby_due:
            self._spawn(self.tell_lobby())
        elif kind == "arena":  # its pages, and the lobby's list of arenas
            if self.arena_sockets.get(rest) and rest not in self.arenas_due:
                self._spawn(self.tell_arena(rest))
            self._told("lobby")

    # ----- the lobby, pushed ----------------------------------------------------------
    def lobby_changed(self) -> None:
        """A seek or a listed game came or went: every process pushes its lobby pages
        (through the database's notifications where several processes share it)."""
        if self.store.shared:
            self.store.backend.notify("lobby")  # this process is told too
        else:
            self._told("lobby")

    def lobby_view(self) -> dict:
        """The open seeks (newest first, with their seeker's rating), the listed games
        being played (newest first) and the arenas (going on and just finished)."""
        self.lobby.sweep()
        seeks = sorted(self.lobby.open(), key=lambda s: s.created, reverse=True)
        bots = self.tokens.bots_among(s.account for s in seeks)
        going = [room for room in map(self.room, self.store.listed_games(LIVE_SHOWN))
                 if room.record is not None and not room.record.state.is_over and room.ply]
        return {"seeks": [{**s.public(),
                           "rating": self.accounts.shown_rating(s.account, s.game),
                           "bot": s.account in bots}
                          for s in seeks],
                "live": [{"id": room.id, "game": room.game, "names": room.names,
                          "ply": room.ply, "rated": room.rated,
                          "clock": None if room.clock is None else room.clock.view()}
                         for room in going],
                "arenas": self.arenas_view()}

    def arenas_view(self) -> list[dict]:
        """The arenas listed to everybody (a class's arena is its pupils' alone)."""
        self.arenas.sweep()
        return [arena.view() for arena in self.arenas.all() if arena.class_id is None]

    def lobby_text(self) -> str:
        return json.dumps({"type": "lobby", **self.lobby_view()})

    async def tell_lobby(self) -> None:
        """Push the lobby to this process's lobby pages, the changes of ``LOBBY_PAUSE``
        as one."""
        if self.lobby_due or not self.lobby_sockets:
            return
        self.lobby_due = True
        await asyncio.sleep(LOBBY_PAUSE)
        self.lobby_due = False
        text = self.lobby_text()
        await asyncio.gather(*(self._send_latest(None, socket, text)
                               for socket in list(self.lobby_sockets)))

    async def _seen_elsewhere(self, room: Room) -> None:
        await self.seen.read(room.id, again=True)
        await self.broadcast(room)

    # ----- arenas, pushed ---------------------------------------------------------------
    def arena_changed(self, arena_id: str) -> None:
        """An arena's standings or pairings changed: every process pushes its pages of it
        (told at the commit where a change's transaction is open)."""
        if self.store.shared:
            self.store.backend.notify(f"arena {arena_id}")
        else:
            self._told(f"arena {arena_id}")

    def arena_text(self, arena: Arena, name: str | None) -> str:
        return json.dumps({"type": "arena", "arena": arena.view_for(name)})

    async def tell_arena(self, arena_id: str) -> None:
        """Push the arena to this process's pages of it, the changes of ``LOBBY_PAUSE`` as
        one, each as its account sees it."""
        if arena_id in self.arenas_due or not self.arena_sockets.get(arena_id):
            return
        self.arenas_due.add(arena_id)
        await asyncio.sleep(LOBBY_PAUSE)
        self.arenas_due.discard(arena_id)
        try:
            arena = await self.store.off_loop(self.arenas.get, arena_id)
        except NotFoundError:
            return
        followers = list(self.arena_sockets.get(arena_id, ()))
        await asyncio.gather(*(self._send_latest(None, socket, self.arena_text(arena, name))
                               for socket, name in followers))

    async def catch_up(self, game_ids: list[str], known: bool = False) -> None:
        """Make the rooms of ``game_ids`` current where the store has a newer version
        (``known``: it has, a notification said so), and tell their watchers."""
        versions = {game_id: None for game_id in game_ids} if known else \
            self.store.versions(game_ids)
        for game_id, version in versions.items():
            room = self.rooms.get(game_id)
            if room is None or room.stored_version == version:
                continue
            async with self.lock(game_id):
                stored = await self.store.off_loop(self.store.load, game_id)
                if stored.version == room.stored_version:
                    continue
                room.refresh(stored)
            self._time(room)
            self._spawn(self.broadcast(room))

    async def broadcast(self, room: Room, skip: WebSocket | None = None) -> None:
        """Send the game to its watchers (but ``skip``): the view built once, then once per
        seat seen."""
        watchers = [w for w in self.watchers.get(room.id, ()) if w[0] is not skip]
        if not watchers:
            return
        shared = {**room.shared_view(), **self.presence(room)}
        texts: dict[int | None, str] = {}
        for _, token in watchers:
            seat = room.seat_of(token)
            if seat not in texts:
                texts[seat] = json.dumps({"type": "state",
                                          "state": room.view(token, shared)})
        await asyncio.gather(*(self._send_latest(room.id, socket, texts[room.seat_of(token)])
                               for socket, token in watchers))

    async def _send_latest(self, game_id: str, socket: WebSocket, text: str) -> None:
        """Send a view to one watcher, at most one send at a time and one waiting (a newer
        view replaces the waiting one: it says everything the older said), so a socket
        that does not read holds two texts at most; one that takes no text for
        ``SEND_SECONDS`` is dropped."""
        if socket in self.sending:
            self.sending[socket] = text
            return
        self.sending[socket] = None
        try:
            while text is not None:
                try:
                    await asyncio.wait_for(socket.send_text(text), timeout=SEND_SECONDS)
                except Exception:  # noqa: BLE001 - closed, or not reading: dropped
                    for watcher in [w for w in self.watchers.get(game_id, ()) if w[0] is socket]:
                        self.watchers[game_id].discard(watcher)
                    self.lobby_sockets.discard(socket)
                    self._spawn(_close(socket, 1008, "the page did not read its updates"))
                    return
                text, self.sending[socket] = self.sending[socket], None
        finally:
            self.sending.pop(socket, None)

    def presence(self, room: Room) -> dict:
        """Whether each seat has a page open on the game (a websocket holding its token, on
        any process), whether it ever had (``came``: a player who left, not one not yet
        come), and for how long one that came has been gone."""
        return self.seen.of(room.id, {room.seat_of(token)
                                      for _, token in self.watchers.get(room.id, ())} - {None})

    def view(self, room: Room, token: str | None) -> dict:
        return {**room.view(token), **self.presence(room)}

    async def change(self, game_id: str, token: str | None, action) -> dict:
        """Run ``action(room)`` as one change of the game (``apply``) and answer with the
        room as ``token`` sees it."""
        room = await self.load(game_id)
        await self.apply(room, action)
        return self.view(room, token)

    async def apply(self, room: Room, action):
        """Run ``action(room)`` (it stores what it changes) as one transaction on the game's
        row, held against every other process meanwhile: the room first made current if
        another process changed the game, then the end marked and rated once, the version
        raised (and told to the other processes at the commit). Then the watchers are
        told. Answers what ``action`` answered."""
        listed = _listed(room)
        async with self.lock(room.id):
            try:
                async with self.store.change():
                    # the round trips off the event loop; the room changed on it
                    stored = await self.store.off_loop(self.store.lock_game, room.id)
                    with self.store.saving_once(room.id):
                        result = self._change(room, action, stored)
                        saved = self.store.saved(room.id)
                    room.stored_version = await self.store.off_loop(self.store.changed,
                                                                     room.id, saved)
                    started = self._score_arena(room)
                    if room.public and _listed(room) != listed or started:
                        self.lobby_changed()  # told at the commit, with the change
            except MancalabError:
                raise  # a request refused changes nothing (each checks before it changes)
            except BaseException:
                room.stored_version = -1  # what it holds may be ahead of the store: reload
                raise
        self.after_change(room)
        for paired in started:  # the arena's next games
            self.after_change(paired)
        return result

    def _change(self, room: Room, action, stored: int | None):
        """In the change's transaction, the game's row held at version ``stored``: the room
        made current, ``action``, and what follows from it (the end marked, the ratings,
        the first move's wait)."""
        if stored is None:
            raise NotFoundError(f"no game {room.id!r}", code="no_game")
        if stored != room.stored_version:
            room.refresh(self.store.load(room.id))
        result = action(room)
        self._mark_end(room)
        self._rate(room)
        if room.await_first_move():
            room.save(self.store)
        return result

    def after_change(self, room: Room) -> None:
        """Keep the game's timer, tell the watchers, and let the computer move if it is its
        turn."""
        self._time(room)
        self._spawn(self.broadcast(room))
        self._resume(room)

    def _mark_end(self, room: Room) -> None:
        """When a game ended: its clock's moment for a flag, else now; kept once."""
        if room.ended_at is not None or room.record is None or not room.record.state.is_over:
            return
        clock = room.clock
        room.ended_at = clock.ended_at if clock is not None and clock.ended_at else time.time()
        room.first_move_by = None
        room.save(self.store)

    def _rate(self, room: Room) -> None:
        """Both accounts' ratings after a rated game's end, once (the room remembers, in the
        transaction that rates). A game that ended before both players moved (aborted, or
        resigned at once) is not rated: two accounts of one person cannot pass rating
        points by resigning at once."""
        if not room.rated or room.rated_done or room.record is None or not room.both_moved():
            return
        outcome = room.record.state.outcome
        if outcome is None:
            return
        score = 0.5 if outcome.winner is None else float(outcome.winner == 0)
        room.rating_change = self.accounts.rate(room.id, room.game, room.accounts, score)
        room.rated_done = True
        room.save(self.store)

    def _time(self, room: Room) -> None:
        """Keep one timer for a game with a deadline: it ends the game on time at the running
        side's deadline, or aborts it when a first move has not come in time
        (``Room.first_move_by``), whether or not anybody sends anything. Every process
        holding the game keeps one: the first to fire ends it, the others find it ended."""
        timer = self.timers.pop(room.id, None)
        if timer is not None and timer is not asyncio.current_task():
            timer.cancel()
        if room.deadline() is not None:
            task = asyncio.get_running_loop().create_task(self._at_deadline(room))
            self.timers[room.id] = task
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

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
            await self.apply(room, self._end_if_due)
            return

    def _end_if_due(self, room: Room) -> bool:
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

    async def resume_clocks(self, before: float | None = None) -> None:
        """Every game with a deadline before ``before`` (all, after a start) that is not
        timed here: ended now if the deadline passed (while the server was stopped, or its
        process died), else timed by this process."""
        for game_id in self.store.due_games(before):
            if game_id not in self.timers:
                await self.apply(self.room(game_id), self._end_if_due)

    def _score_arena(self, room: Room) -> list[Room]:
        """In the transaction of an arena game's end: its points (once: an entrant counts
        the game it is playing only), and its players paired again: the games started."""
        if room.arena is None or room.record is None or room.record.state.outcome is None:
            return []
        try:
            with self.arenas.changing(room.arena) as arena:
                if not any(e.playing == room.id for e in arena.entrants.values()):
                    return []
                if room.aborted:  # no result; the player who did not move is paired no more
                    arena.abandon(room.id, room.accounts, room.record.state.to_move)
                else:
                    outcome = room.record.state.outcome
                    arena.finish(room.id, room.accounts,
                                 0.5 if outcome.winner is None else float(outcome.winner == 0))
                self.arena_changed(arena.id)
                return self._pair(arena)
        except NotFoundError:  # the arena was forgotten
            return []

    def join_arena(self, arena_id: str, name: str) -> Arena:
        """``name`` joins the arena and is paired at once if another waits (a BOT only where
        the arena admits bots)."""
        with self.arenas.changing(arena_id) as arena:
            if arena.class_id is None:
                self.classes.check_public(name)
            elif (self.classes.pupil(name) or {}).get("class_id") != arena.class_id:
                raise NotAllowedError("this arena is a class's: its pupils play in it",
                                      code="class_arena")
            if not arena.bots and self.tokens.is_bot(name):
                raise NotAllowedError("this arena is for people: BOT accounts play in arenas "
                                      "that admit bots", code="arena_no_bots")
            self.arenas.join(arena, name)
            started = self._pair(arena)
        self.arena_changed(arena_id)
        for room in started:
            self.after_change(room)
        if started:
            self.lobby_changed()
        return arena

    def start_round(self, tournament: Tournament, absent: set[str],
                    names: dict[str, str]) -> list[Room]:
        """Start the tournament's next round: a game for each of its pairings (an absent
        pupil's skipped), once every game of the round before has ended."""
        if tournament.started >= tournament.total:
            raise ConflictError("every round has been played", code="tournament_over")
        results = self.store.results(list(tournament.games.values()))
        if any(result is None for result in results.values()):
            raise ConflictError("games of the round are going on: end the stuck ones first",
                                code="round_going")
        number, started = tournament.started, []
        for index, pair in enumerate(tournament.next_pairs(results, absent)):
            if None in pair or set(pair) & absent:
                continue
            room = Room.create(tournament.game, dict(tournament.options), "online",
                               names=[names[p] for p in pair], helpers=False)
            room.accounts, room.tournament = list(pair), tournament.id
            room.clock = Clock(*tournament.clock)
            self.add(room)
            tournament.games[f"{number}:{index}"] = room.id
            started.append(room)
        tournament.absent[str(number)] = sorted(absent)
        tournament.started += 1
        self.tournaments.save(tournament)
        for room in started:
            self.after_change(room)
        return started

    def _may_pair(self, name: str) -> bool:
        """Whether an arena may start a game for ``name`` now: within the games an account
        may have going on, its allowance of new games (a day's, and the create rate), and
        room on disk (one who may not is withdrawn from the arena; they may join again)."""
        return self.live_games(name) < self.limits.account_games and \
            not self.games_made.wait(f"account {name}", 1) and \
            not self.pairings.wait(name, 1) and self.store.size() <= self.limits.db_bytes

    def _pair(self, arena: Arena) -> list[Room]:
        """In the arena's transaction (``Arenas.changing``): start a game for every pair of
        its waiting players, each game charged to both players' accounts like any new game;
        the games started, to be announced once the transaction commits."""
        started = []
        for first, second in arena.pairs(self._may_pair):
            names = [first.name, second.name]
            for name in names:
                self.charge(account=name)
                self.pairings.take(name, 1)
            room = Room.create(arena.game, dict(arena.options), "online", names=names,
                               helpers=False)
            room.accounts, room.rated, room.arena = names, arena.rated, arena.id
            room.public, room.bots = True, self.tokens.bot_names(names)
            room.ratings = [self.accounts.shown_rating(name, room.game) for name in names]
            room.clock = Clock(*arena.clock)
            self.add(room)
            arena.games.append(room.id)
            for seat, entrant in enumerate((first, second)):
                entrant.playing, entrant.token = room.id, room.tokens[seat]
                entrant.last = names[1 - seat]
            first.firsts += 1
            started.append(room)
        return started

    async def forget(self, account: str) -> None:
        """Delete ``account``: first its games going on are resigned (rated as any
        resignation: a loser cannot take the winner's rating change away by leaving) and it
        leaves every arena; then its personal data go (``Accounts.delete``)."""
        for game_id in self.store.live_games_of(account):
            room = self.room(game_id)
            seats = [seat for seat, name in enumerate(room.accounts) if name == account]
            if room.record is None or room.record.state.is_over or not seats:
                continue
            await self.change(game_id, room.tokens[seats[0]],
                              lambda r, token=room.tokens[seats[0]]: r.resign(self.store, token))
        for found in self.arenas.all():
            if account in found.entrants:
                with self.arenas.changing(found.id) as arena:
                    arena.entrants[account].present = False
                self.arena_changed(found.id)
        self.accounts.delete(account)

    def live_games(self, account: str) -> int:
        """The games going on in which ``account`` holds a seat."""
        return len(self.store.live_games_of(account))

    def _spawn(self, coroutine) -> None:
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

    def computer(self, room: Room) -> Player:
        """The room's computer player, kept between its moves (alpha-beta keeps its tables
        and clock) for at most ``players_kept`` rooms, the least recently used freed first."""
        if room.player is None or room.player_spec != room.bot:
            _free(room)
            room.player, room.player_spec = self.thinker.player(room.bot, room.game), room.bot
        self.kept[room.id] = room
        self.kept.move_to_end(room.id)
        while len(self.kept) > self.limits.players_kept:
            _free(self.kept.popitem(last=False)[1])
        return room.player

    async def computer_turns(self, room: Room) -> None:
        """The computer thinks in a search thread, then plays (automove) or shows its move;
        a failure is shown to both players instead of hanging the game."""
        self.computing.add(room.id)
        try:
            await self._computer_turns(room)
        finally:
            self.computing.discard(room.id)

    async def _computer_turns(self, room: Room) -> None:
        while room.bot_to_move() and room.suggestion is None and room.error is None:
            room.thinking = True
            version = room.version
            await self.broadcast(room)
            try:
                player = self.computer(room)
                if room.clock is not None:  # within its increment and a share of its time
                    player.cap = min(self.limits.max_think,
                                     room.clock.budget(room.bot_seat))
                move = await self.thinker.choose(room.id, self._knowing(player, room.state),
                                                 room.state, wait=True)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - said to the players, not hidden
                room.error = f"the computer could not move: {error}"
                room.version += 1
                break
            finally:
                room.thinking = False
            if room.version != version:  # switched or changed meanwhile: think again if
                continue                 # it is still the computer's turn
            if not room.automove:
                room.suggestion = move
                room.version += 1
                await self.broadcast(room)
                continue
            try:
                await self.apply(room, functools.partial(self._computer_plays, version, move))
                saved = True
            except Exception as error:  # noqa: BLE001 - a full disk: said, then retried
                room.error = (f"the computer's move could not be saved ({error}); trying "
                              f"again every {self.limits.retry_seconds:g} s")
                room.version += 1
                saved = False
                await self.broadcast(room)
            if not saved:  # nothing was changed (the move is stored before it is made)
                await asyncio.sleep(self.limits.retry_seconds)
                room.error = None
        await self.broadcast(room)  # no longer thinking

    def _computer_plays(self, version: int, move: int, room: Room) -> None:
        """A change: the computer's move, unless the game changed since it began to think."""
        if room.version == version:
            room.play(self.store, None, move, by_computer=True)

    def _knowing(self, player: Player, state) -> Player:
        """``player``, told the settled analysis of ``state`` when one is kept (the perfect
        player then plays from it: exact from the first move of a prepared game)."""
        if hasattr(player, "know"):
            player.know(state, self.store.analysis(analysis_key(state)))
        return player

    async def hint(self, game_id: str, token: str | None, spec: str) -> dict:
        """What player ``spec`` would play in the game, for a player holding a seat."""
        room = self.room(game_id)
        room.check_token(token)
        room.check_helpers()
        adviser = self.thinker.player(spec, room.game)
        adviser.cap = min(self.limits.max_think, self.limits.hint_think)
        state = room.state
        try:
            move = await self.thinker.choose(room.id, self._knowing(adviser, state), state)
        finally:
            adviser.close()  # an engine's program ends with the request it was started for
        return {"move": move, "name": state.move_name(move), "player": adviser.spec,
                "value": adviser.last_info.get("value"),
                "exact": bool(adviser.last_info.get("exact"))}

    def previews(self, game_id: str, token: str | None) -> dict:
        """What each legal move would do (``Room.previews``), for a player holding a seat in
        a game with helpers on, as the hint."""
        room = self.room(game_id)
        room.check_token(token)
        room.check_helpers()
        return room.previews()

    async def analysis(self, game_id: str, token: str | None) -> dict:
        """Every legal move's exact value for the player to move (Kalah), for a player
        holding a seat: the perfect player's analysis, capped like any search."""
        room = self.room(game_id)
        room.check_token(token)
        room.check_helpers()
        state = room.state
        reason = solving.unsolvable(state.variant)
        if reason is not None:
            raise ConflictError(reason)
        position = analysis_key(state)
        kept = self.store.analysis(position)
        if kept is None:
            analyst = self.thinker.player("perfect", room.game)
            kept = await self.thinker.run(room.id, analyst, analyst.analyse, state)
            if is_settled(kept):  # proven once, answered at once from now on
                self.store.keep_analysis(position, kept, client=CLIENT.get())
        return {**kept, "ply": room.ply}

    def prepare(self, steps: list[Step]) -> None:
        """Build what exact play needs (``steps``) in a background process; the start's
        analyses it makes are kept with the others."""
        loop = asyncio.get_running_loop()

        def kept(step: Step) -> bool:
            if step.kind == "start":
                return self.store.analysis(analysis_key(step.variant.start())) is not None
            return step.is_done()

        def ready(step: Step, payload: dict | None) -> None:
            solving.renew(step.variant)
            if payload is not None and is_settled(payload):
                loop.call_soon_threadsafe(functools.partial(
                    self.store.keep_analysis, analysis_key(step.variant.start()), payload,
                    pinned=True))

        self.preparation = Preparation(steps, ready, kept, self.limits.prepare_memory)
        self.preparation.start()

    async def end(self, game_id: str, token: str | None) -> dict:
        """A player proposes to end the game by the rule for endless play; against the
        computer, the computer's own search decides whether it agrees (capped like a move)."""
        room = self.room(game_id)
        room.check_token(token)
        agrees = None
        if room.mode == "computer" and room.record is not None and not room.state.is_over:
            judge = self.thinker.player(room.bot, room.game)
            try:
                agrees = await self.thinker.run(
                    room.id, judge, lambda state: judge.accepts_end(state, room.bot_seat),
                    room.state)
            finally:
                judge.close()
        return await self.change(game_id, token, lambda r: r.end(self.store, token, agrees))

    def sweep(self) -> None:
        """Free idle games' computer players, and drop idle, unwatched games from memory
        (they load again from the store when asked for)."""
        self.lobby.sweep()
        for allowance in (self.games_made, self.moves_loaded, self.pairings):
            if isinstance(allowance, SharedAllowance):
                allowance.forget_full()
        now = time.monotonic()
        for game_id, room in list(self.rooms.items()):
            idle = now - room.touched
            if room.thinking or self.lock(game_id).locked() or game_id in self.timers:
                continue  # a clocked game's timer holds its room
            if idle > self.limits.idle_player and room.player is not None:
                _free(room)
                self.kept.pop(game_id, None)
            if idle > self.limits.idle_room and not self.watchers.get(game_id):
                del self.rooms[game_id]
                self.locks.pop(game_id, None)
                self.watchers.pop(game_id, None)
                self.kept.pop(game_id, None)
                self.seen.forget(game_id)
                self.reviews.forget(game_id)

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

    async def sweeping_deadlines(self) -> None:
        """Each second, the games whose deadline passed more than ``DUE_GRACE`` ago with
        nobody's timer ending them (their process stopped): ended here, once."""
        while True:
            await asyncio.sleep(1.0)
            try:
                if self.store.shared:
                    self.seen.heartbeat()
                await self.resume_clocks(time.time() - DUE_GRACE)
            except Exception as error:  # noqa: BLE001 - the database away: the next second
                LOG.warning("ending the games due: %s", error)


def _allowance_of(rate: str, allowance, kind: str = "pairings") -> Allowance:
    """An allowance of ``rate`` ("30/minute"), as the rate limiter reads it."""
    from limits import parse

    item = parse(rate)
    return allowance(kind, item.amount, item.get_expiry())


def _listed(room: Room) -> bool:
    """Whether the game is among those being played now (begun, not ended)."""
    return room.record is not None and room.ply > 0 and not room.record.state.is_over


def _log_failure(task: asyncio.Task) -> None:
    """Log a background task's failure (a task's error is otherwise never seen)."""
    if not task.cancelled() and task.exception() is not None:
        LOG.error("a background task failed", exc_info=task.exception())


def _free(room: Room) -> None:
    """Let the room's computer player go (an engine's program ends with it)."""
    if room.player is not None:
        room.player.close()
        room.player = None


async def _close(socket: WebSocket, code: int, reason: str) -> None:
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.close(code=code, reason=reason), timeout=1)


async def send_quietly(socket: WebSocket, text: str) -> None:
    """Send to one watcher; a closed or stuck socket is left behind, not waited for."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(socket.send_text(text), timeout=5)

