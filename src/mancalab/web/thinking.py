"""The computer's thinking on a server: bounded, in threads, queued fairly, never on the loop.

Searches run in a thread pool the size of ``Limits.searches``; the compiled searches
(alpha-beta, MCTS, the classic look-ahead) release Python's interpreter lock, so the event
loop answers other games while they run. Every player is capped at ``Limits.max_think``
seconds a move, whatever its options say (a fixed number of playouts, a depth or a clock
included), and a game has at most one search queued or running at a time, so one game
cannot take the pool. Closing the server asks every running search to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import gc
import ipaddress
import os
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future
from dataclasses import dataclass, field

from .. import _cache
from ..core import MancalabError, State
from ..players import Player, parse_spec
from ..players import player as make_player
from .errors import BusyError


READY = threading.Event()  # set once the rules and searches are compiled (warm_up)
# the address of the client whose request is being answered (set for each request; a
# computer's turn started by a request keeps it): the searches queue fairly by it
CLIENT: contextvars.ContextVar[str | None] = contextvars.ContextVar("client", default=None)


_WARMING = threading.Lock()


def warm_up(on_step=None) -> None:
    """Compile (or load from the cache) every game's rules and the searches: run in the
    background when a server starts, so the first computer move does not wait for them
    (``on_step(done, total, what)`` as ``mancalab._cache.warm_up`` says). Once a process."""
    from .._cache import warm_up as compile_all
    from ..analysis import solving
    from ..variants import variant, variants

    with _WARMING:
        if READY.is_set():
            return
        compile_all(on_step=on_step, jobs=os.cpu_count() or 1)
        READY.set()
    # Kalah's expert is the perfect player: its small endgame database is built once per
    # machine (about 6 s), here rather than inside a capped move; so are Gebeta's and
    # Gabata's for the analysis switch (under a second each)
    for name in variants():
        solving.ready(variant(name))
    freeze_heap()


def freeze_heap() -> None:
    """Leave what the server holds for good (modules, compiled kernels and their numba and
    LLVM objects) out of the garbage collector's full passes: each of them walked that whole
    heap with every thread stopped, 80-100 ms of a server whose moves take milliseconds
    (acknowledgements of 100 ms at p99 with two processes on PostgreSQL). What becomes garbage
    later is still freed by its count of references (``gc.freeze``)."""
    gc.collect()
    gc.freeze()


async def rules_compiled(game: str) -> None:
    """On a first start, wait (off the event loop) until the warm-up has compiled ``game``'s
    rules, asked for next with its traced play: a new game then loads them rather than
    compiling them a second time, on the event loop, while the other requests wait."""
    if not READY.is_set():
        _cache.prefer([game, f"{_cache.SOWING}:{game}"])
        await asyncio.to_thread(_cache.wait_compiled, [game], COMPILE_WAIT)


@dataclass
class Limits:
    """What one server allows; ``mancalab serve`` sets the ones it names."""

    max_think: float = 5.0  # seconds a computer move or a hint may take at most
    hint_think: float = 0.8  # seconds a hint's player thinks at most (its own time if less):
    # a person waits for a hint, and a level's second a move plus the answer's way is over one
    searches: int = os.cpu_count() or 1  # searches running at once
    queue: int = 64  # searches queued or running beyond which a hint gets 429 (the
    # computer's own moves, one a game at most, always queue)
    body_bytes: int = 128 * 1024  # the largest request body (a long game's record fits)
    watchers: int = 64  # websockets per game
    create_rate: str = "30/minute"  # new games per client address
    hint_rate: str = "60/minute"  # hints per client address
    account_rate: str = "5/hour"  # accounts made per client address
    login_rate: str = "20/minute"  # log-ins (and password changes) per client address
    hash_queue: int = 32  # passwords waiting to be hashed (one a client); beyond, a 429
    move_rate: str = "100/second"  # moves sent over HTTP per client address
    game_updates: int = 200  # updates a second the moves of one game may send: a move sends
    # one to each watcher (at least one), so a game watched by 64 takes 3 moves a second
    seeks: int = 500  # open seeks in the lobby
    client_seeks: int = 3  # open seeks of one client address or account
    account_games: int = 20  # games going on in which one account holds a seat
    load_moves: int = 20_000  # moves of loaded records per client an hour
    client_games: int = 500  # games (new, loaded, rematches) per client a day
    db_bytes: int = 4 << 30  # disk the games may take; beyond it no new game is made
    idle_player: float = 120.0  # seconds before an idle game's computer player is freed
    idle_room: float = 900.0  # seconds before an idle, unwatched game leaves memory
    players_kept: int = 8  # computer players (with their search tables) kept at most
    reviews: int = 8  # games reviewed at once (each holds a player and its tables)
    client_reviews: int = 2  # games one client may have reviewed at once
    review_positions: int = 400  # positions a review appraises at most (2 s each at most)
    solver_memory: int = 512 << 20  # bytes of exact solvers' tables and databases kept at
    # most (the least recently used rule sets are dropped first)
    connections: int = 1000  # open connections in all; beyond them a 503
    client_connections: int = 32  # open HTTP connections from one address; more are closed
    client_sockets: int = 16  # websockets open from one address
    share_connections: int = 4  # connections (and websockets) one address may open once
    # three quarters of ``connections`` (``sockets``) are open: the last quarter is kept for
    # clients holding few, so a few addresses cannot fill the server
    sockets: int = 500  # websockets open in all
    head_seconds: float = 10.0  # a request's head must arrive within this, or it is closed
    body_seconds: float = 20.0  # a request's body must arrive within this after its head
    body_rate: int = 1024  # bytes a second a body must keep up after its first second
    write_seconds: float = 20.0  # what the server writes must be taken within this
    write_rate: int = 1024  # bytes a second a client must take what it is sent, once behind
    keep_alive: int = 5  # seconds an idle connection is kept open
    head_bytes: int = 16 * 1024  # the largest request head
    ws_frame_bytes: int = 4096  # the largest websocket message (a move is a few dozen)
    prepare_memory: int = 8 << 30  # bytes the background preparation of exact play may
    # take (Gebeta's start book takes 6.6 GB while it builds; a step over it is skipped)
    retry_seconds: float = 5.0  # a computer's move that could not be saved is tried again
    stop_seconds: float = 5.0  # at a stop, what the requests still running may take: a
    # bot's stream never ends by itself, and without this a stop waited for it for ever
    # Players the operator named (mancalab serve --player NAME=SPEC): only these may be
    # engines (a program run on this machine) or players from Python files.
    players: dict[str, str] = field(default_factory=dict)
    # the reverse proxies (addresses or networks, comma-separated) whose X-Forwarded-For is
    # believed: none unless the operator names them (mancalab serve --forwarded-allow-ips)
    forwarded_allow_ips: str = ""
    # where the request rates (create_rate, hint_rate, ...) are counted: this process's
    # memory, or a Redis server that the processes of one site share (redis://HOST:PORT)
    rate_storage: str = "memory://"

    def check(self) -> None:
        """MancalabError naming the first limit out of range."""
        if not 0 < self.max_think <= 3600:
            raise MancalabError(f"--max-think must be above 0 and at most 3600 seconds, "
                                f"got {self.max_think}")
        if not 0 < self.hint_think <= 3600:
            raise MancalabError(f"hint_think must be above 0 and at most 3600 seconds, "
                                f"got {self.hint_think}")
        for name in ("searches", "queue", "watchers", "players_kept", "reviews", "connections",
                     "client_connections", "client_sockets", "share_connections", "sockets", "hash_queue",
                     "game_updates",
                     "client_reviews", "review_positions"):
            value = getattr(self, name)
            if not 1 <= value <= 100_000:
                raise MancalabError(f"{name} must be 1..100000, got {value}")
        for name in ("load_moves", "client_games", "db_bytes", "body_rate", "write_rate"):
            value = getattr(self, name)
            if not 1 <= value <= 1 << 50:
                raise MancalabError(f"{name} must be 1..{1 << 50}, got {value}")
        for name in ("body_seconds", "head_seconds", "write_seconds", "stop_seconds"):
            if not 0 < getattr(self, name) <= 3600:
                raise MancalabError(f"{name} must be above 0 and at most 3600 seconds, got "
                                    f"{getattr(self, name)}")
        if not self.rate_storage.startswith(("memory://", "redis://", "rediss://")):
            raise MancalabError(f"--rate-storage must be memory:// or redis://HOST:PORT, got "
                                f"{self.rate_storage[:80]!r}")
        for proxy in self.forwarded_allow_ips.split(","):
            proxy = proxy.strip()
            if proxy and proxy != "*":
                try:
                    ipaddress.ip_network(proxy, strict=False)
                except ValueError:
                    raise MancalabError(f"--forwarded-allow-ips: {proxy!r} is not an address "
                                        "or a network (e.g. 127.0.0.1 or 10.0.0.0/8)") from None


SEARCH_NICENESS = 10
COMPILE_WAIT = 600.0  # seconds a first search waits for its kernels from the warm-up
OVERRUN = 1.0  # seconds past its cap a hint or an analysis may run before it is answered
OPERATOR_ONLY = ("this server runs programs and player files only when its operator names "
                 "them (mancalab serve --player NAME=SPEC)")


def names_a_program(spec: str) -> bool:
    """Whether a player ``spec`` asks for a program (an engine) or a Python file: only the
    operator may name those. Read from the spec's head alone, so that the answer does not
    depend on the spec's length or on options that do not parse."""
    head = spec.strip().partition(":")[0].strip().lower()
    return head == "engine" or ".py:" in spec


def _background() -> None:
    """Run this search thread at a lower priority than the event loop (Linux sets the nice
    value per thread), so that on a machine with few cores the players' moves are answered
    first and the searches take the time left."""
    with contextlib.suppress(AttributeError, OSError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), SEARCH_NICENESS)


class FairPool:
    """Search threads that take the queued searches client by client in turn: a client
    with twenty searches queued waits behind its own, while another client's one search
    goes next (a plain thread pool serves them in the order they came)."""

    def __init__(self, threads: int) -> None:
        self._queues: OrderedDict[object, deque] = OrderedDict()
        self._ready = threading.Condition()
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"mancalab-search-{i}",
                                          daemon=True) for i in range(threads)]
        for thread in self._threads:
            thread.start()

    def submit(self, client, work, *args) -> Future:
        future: Future = Future()
        with self._ready:
            if self._closed:
                raise RuntimeError("the search threads are stopped")
            self._queues.setdefault(client, deque()).append((future, work, args))
            self._ready.notify()
        return future

    def _next(self):
        """The next search: the first client's oldest; that client goes to the back."""
        with self._ready:
            while not self._queues and not self._closed:
                self._ready.wait()
            if self._closed:
                return None
            client, queue = self._queues.popitem(last=False)
            job = queue.popleft()
            if queue:
                self._queues[client] = queue
            return job

    def _work(self) -> None:
        _background()
        while (job := self._next()) is not None:
            future, work, args = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(work(*args))
            except BaseException as error:  # noqa: BLE001 - handed to the waiting request
                future.set_exception(error)

    def shutdown(self) -> None:
        """Cancel what is queued; running searches end when their players are stopped."""
        with self._ready:
            self._closed = True
            for queue in self._queues.values():
                for future, _, _ in queue:
                    future.cancel()
            self._queues.clear()
            self._ready.notify_all()


class Thinker:
    """Runs players' ``choose`` in the search threads, each capped at ``max_think``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.pool: FairPool | None = None
        self.games: set[str] = set()  # games with a search queued or running
        self.running: set[Player] = set()

    def open(self) -> None:
        """Start the search threads (again, after ``close``)."""
        if self.pool is None:
            self.pool = FairPool(self.limits.searches)

    def player(self, spec: str, game: str) -> Player:
        """A player built from ``spec`` (so a bad spec fails now, not when it moves) and capped;
        MancalabError for one that asks more time than the server gives."""
        name = parse_spec(spec)[0]
        if name in self.limits.players:
            spec = self.limits.players[name]  # as the operator wrote it, options and all
        elif names_a_program(spec):
            raise MancalabError(OPERATOR_ONLY)
        made = make_player(spec, game)
        # a time written in the spec beyond the cap is refused (the person asked for it);
        # a level's own time is capped like everything else
        asked = made.options.get("time") if "time" in parse_spec(spec)[1] else 0
        if asked and asked > self.limits.max_think:
            raise MancalabError(
                f"{spec!r} asks {asked:g} s a move; this server allows at most "
                f"{self.limits.max_think:g} s (mancalab serve --max-think)")
        return made.limit(self.limits.max_think, threads=1)

    async def choose(self, game_id: str, player: Player, state: State,
                     wait: bool = False, client=None) -> int:
        """``player``'s move in ``state``, worked out in a search thread. A game has one
        search at a time: with ``wait`` (the computer's own move) it waits for the one
        running; without (a hint) BusyError, also when the queue is full. Searches queue
        fairly between ``client``s (an address)."""
        return await self.run(game_id, player, player.choose, state, wait, client)

    async def run(self, game_id: str, player: Player, work, state: State,
                  wait: bool = False, client=None):
        """``work(state)`` (a method of ``player``, stopped by ``player.stop``) in a search
        thread, one search a game at a time, as ``choose`` says."""
        if wait:
            while game_id in self.games:
                await asyncio.sleep(0.02)
        elif game_id in self.games:
            raise BusyError("the computer is already thinking in this game; try again after "
                            "its move", code="computer_thinking")
        elif len(self.games) >= self.limits.queue:
            raise BusyError("the server is busy; try again in a moment", code="server_busy")
        self.games.add(game_id)
        self.open()
        needs = []  # on a first start: its game's kernels and searches, compiled first
        if not READY.is_set():
            _cache.prefer(_cache.tasks_for(player, state.variant))
            needs = _cache.tasks_for(player, state.variant, essential=True)
        began: list[float] = []  # when a search thread took it up
        try:
            future = asyncio.wrap_future(self.pool.submit(
                CLIENT.get() if client is None else client, self._run, player, work, state,
                began, needs))
            try:
                if wait:
                    return await asyncio.shield(future)
                return await self._within_cap(future, player, began)
            except asyncio.CancelledError:  # the game closed or the server stops
                player.stop()
                raise
        finally:
            self.games.discard(game_id)

    async def _within_cap(self, future, player: Player, began: list[float]):
        """``future``'s answer, or BusyError once it has run ``max_think`` + ``OVERRUN``
        seconds (a database it waits for, a build): a person asking for a hint or an analysis
        is answered in time whatever the server is doing. Before the rules and searches are
        compiled (``READY``) a search waits for its compiling, which cannot be stopped."""
        while True:
            done, _ = await asyncio.wait({future}, timeout=0.1)
            if done:
                return future.result()
            if began and READY.is_set() and \
                    time.monotonic() - began[0] > self.limits.max_think + OVERRUN:
                player.stop()
                raise BusyError(f"the computer could not answer within "
                                f"{self.limits.max_think + OVERRUN:g} s (the server is still "
                                "preparing); try again in a moment")

    def _run(self, player: Player, work, state: State, began: list[float] | None = None,
             needs: list[str] = ()):
        # loaded once the warm-up's processes have compiled them, not compiled here again
        _cache.wait_compiled(list(needs), timeout=COMPILE_WAIT)
        if began is not None:
            began.append(time.monotonic())
        self.running.add(player)
        try:
            return work(state)
        finally:
            self.running.discard(player)

    def close(self) -> None:
        """Stop every running search and the threads."""
        for player in list(self.running):
            player.stop()
        if self.pool is not None:
            self.pool.shutdown()
            self.pool = None
