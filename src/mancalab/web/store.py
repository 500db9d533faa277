"""The server's durable state: games and their moves, accounts, ratings, seeks and kept
analyses, in SQLite (the default: a file, one process) or PostgreSQL (any number of
processes), behind this one set of statements (``web.backends`` runs them).

A change is acknowledged only after its transaction is committed (SQLite: WAL mode with
``synchronous=FULL``), so a crash (even ``kill -9`` or a power cut) never loses a move a
player was told about. A game's start is kept as a game record without moves (variant,
options, start position), so the record format is the one description of a game, here as in
saved files. Each game row has a ``version``, raised by every change in the transaction
that makes it: several processes serialise a game's changes by locking its row and compare
versions to know whether what they hold is current.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from .backends import CHANNEL, Backend, open_backend

# The schema, step by step: a database records the steps it has had (``schema_version``)
# and an older one is brought up to date when it is opened. {REAL} and {NAME} are the
# back end's types (64-bit times; names compared without case).
BASE = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created {REAL} NOT NULL,
    start_record TEXT,          -- the start as a game record without moves (NULL during setup)
    room TEXT NOT NULL          -- mode, seats, tokens, computer player, setup: JSON
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    move INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS accounts (
    name {NAME} PRIMARY KEY,
    hash TEXT NOT NULL,         -- Argon2id (argon2-cffi)
    created {REAL} NOT NULL
);
CREATE TABLE IF NOT EXISTS account_keys (
    key TEXT PRIMARY KEY,       -- SHA-256 of the name's look-alike key (web.names.name_key)
    name {NAME} REFERENCES accounts(name) ON DELETE SET NULL,  -- NULL: deleted, held back
    since {REAL} NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,    -- SHA-256 of the session cookie: the cookie itself is not kept
    name {NAME} NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    created {REAL} NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    name {NAME} NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    game TEXT NOT NULL,
    rating {REAL} NOT NULL, deviation {REAL} NOT NULL, volatility {REAL} NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (name, game)
);
CREATE TABLE IF NOT EXISTS rated_games (
    game_id TEXT NOT NULL,
    name {NAME} NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    game TEXT NOT NULL,
    at {REAL} NOT NULL,
    score {REAL} NOT NULL,      -- 1 a win, 0.5 a draw, 0 a loss
    rating {REAL} NOT NULL,     -- after the game
    deviation {REAL} NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS analyses (
    position TEXT PRIMARY KEY,  -- the game, its options and the board (analysis_key)
    answer TEXT NOT NULL,       -- the settled analysis: JSON
    used {REAL} NOT NULL        -- when last answered: the least recently used go first
);
"""
SEEKS = """
CREATE TABLE IF NOT EXISTS seeks (
    id TEXT PRIMARY KEY,
    seek TEXT NOT NULL,         -- what was sought (web.lobby.Seek): JSON
    account {NAME},             -- the seeker's account (NULL: a guest)
    client TEXT,                -- the seeker's address
    to_name {NAME},             -- a challenge: the one account that may take it
    created {REAL} NOT NULL,
    game_id TEXT,               -- once taken: the game and the seeker's token in it
    token TEXT,
    taken_at {REAL},            -- when taken or declined
    declined TEXT,              -- a challenge declined: why
    delivered INTEGER NOT NULL DEFAULT 0  -- a page of the seeker's was told the outcome
);
CREATE INDEX IF NOT EXISTS seeks_by_account ON seeks(account);
CREATE INDEX IF NOT EXISTS seeks_by_created ON seeks(created);
"""
PRESENCE = """
CREATE {UNLOGGED} TABLE IF NOT EXISTS processes (
    id TEXT PRIMARY KEY,        -- a server process of the site (web.presence)
    seen {REAL} NOT NULL        -- its last heartbeat
);
CREATE {UNLOGGED} TABLE IF NOT EXISTS presence (
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    process TEXT NOT NULL REFERENCES processes(id) ON DELETE CASCADE,
    here INTEGER NOT NULL,      -- the seat has a page open on that process
    gone {REAL},                -- else since when
    PRIMARY KEY (game_id, seat, process)
);
"""
ARENAS = """
CREATE TABLE IF NOT EXISTS arenas (
    id TEXT PRIMARY KEY,
    arena TEXT NOT NULL,        -- web.arenas.Arena: its terms, entrants and scores (JSON)
    ends_at {REAL} NOT NULL,
    by_name {NAME} NOT NULL     -- the account that opened it
);
"""
ALLOWANCES = """
CREATE TABLE IF NOT EXISTS allowances (
    kind TEXT NOT NULL,         -- what is counted (web.clients.SharedAllowance)
    client TEXT NOT NULL,       -- whose: an address, or "account NAME"
    remaining {REAL} NOT NULL,  -- what was left at ``at``
    at {REAL} NOT NULL,
    PRIMARY KEY (kind, client)
);
"""
TOKENS = """
CREATE TABLE IF NOT EXISTS tokens (
    digest TEXT PRIMARY KEY,    -- SHA-256 of the token: the token itself is not kept
    id TEXT NOT NULL UNIQUE,    -- what the account page names it by (to revoke it)
    name {NAME} NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    label TEXT NOT NULL,
    scopes TEXT NOT NULL,       -- space-separated (web.tokens.SCOPES)
    created {REAL} NOT NULL,
    used {REAL}                 -- when last used
);
CREATE INDEX IF NOT EXISTS tokens_by_name ON tokens(name);
"""
CLASSES = """
CREATE TABLE IF NOT EXISTS classes (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    teacher {NAME} NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    games TEXT NOT NULL,        -- the class's games: JSON
    language TEXT NOT NULL,
    code TEXT NOT NULL UNIQUE,  -- the join code (web.classes.new_code)
    size INTEGER NOT NULL,      -- pupils at most
    created {REAL} NOT NULL
);
CREATE INDEX IF NOT EXISTS classes_by_teacher ON classes(teacher);
CREATE TABLE IF NOT EXISTS pupils (
    name {NAME} PRIMARY KEY REFERENCES accounts(name) ON DELETE CASCADE,
    class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    real_name TEXT NOT NULL,    -- seen by the teacher alone
    secret TEXT NOT NULL,       -- digest of the pupil's picture pair (web.classes.PICTURES)
    tries INTEGER NOT NULL DEFAULT 0,  -- wrong pictures since the last log-in
    created {REAL} NOT NULL
);
CREATE INDEX IF NOT EXISTS pupils_by_class ON pupils(class_id);
CREATE TABLE IF NOT EXISTS assignments (
    id TEXT PRIMARY KEY,
    class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    assignment TEXT NOT NULL,   -- kind, game, its terms, due: JSON
    created {REAL} NOT NULL
);
CREATE TABLE IF NOT EXISTS activity (
    name {NAME} NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    kind TEXT NOT NULL,         -- puzzle, exercise, lesson
    game TEXT NOT NULL,
    item TEXT NOT NULL,         -- the puzzle's id, the exercise's kind, the lesson's step
    correct INTEGER NOT NULL,
    at {REAL} NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_by_name ON activity(name, at);
"""
TOURNAMENTS = """
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY,
    class_id TEXT NOT NULL REFERENCES classes(id) ON DELETE CASCADE,
    tournament TEXT NOT NULL,   -- web.tournaments.Tournament: its schedule and games (JSON)
    created {REAL} NOT NULL
);
CREATE INDEX IF NOT EXISTS tournaments_by_class ON tournaments(class_id);
"""
# the facts about a game that are asked about across games, kept beside its JSON room
GAME_COLUMNS = [("version", "INTEGER NOT NULL DEFAULT 0"), ("ended", "{REAL}"),
                ("deadline", "{REAL}"), ("account0", "TEXT"), ("account1", "TEXT"),
                ("listed", "INTEGER NOT NULL DEFAULT 0")]
NAMED_LOCKS = {"schema": 7041, "lobby": 7042, "arenas": 7043,
               "classes": 7044}  # PostgreSQL's advisory locks
_ROOM_COLUMNS = ", ".join(f"{name} = ?" for name in (
    "room", "start_record", "ended", "deadline", "account0", "account1", "listed", "guest0",
    "guest1", "result"))
SIZE_SECONDS = 2.0  # the database's size is measured again after this (a game's writes are KB)
ANALYSES_KEPT = 50_000  # settled analyses kept (about 25 MB): proven once, answered at once
CLIENT_ANALYSES = 1_000  # of them, the most kept for one client (its least recent go first)


@dataclass
class StoredGame:
    id: str
    created: float
    start_record: str | None
    room: dict
    moves: list[int] = field(default_factory=list)
    version: int = 0
    first_ply: int = 0  # the number of the first of ``moves`` (0: all of them)


def game_columns(room: dict, deadline: float | None) -> dict:
    """The columns kept beside a game's JSON room: when it ended, its next deadline, its
    accounts, and whether it is listed to watch."""
    accounts = room.get("accounts") or [None, None]
    guests = room.get("guests") or [None, None]
    return {"ended": room.get("ended_at"), "deadline": deadline, "account0": accounts[0],
            "account1": accounts[1],
            "listed": int(bool(room.get("public")) and room.get("mode") == "online"),
            "guest0": guests[0], "guest1": guests[1], "result": room.get("result")}


class Store:
    """The server's database by its path (a SQLite file) or address (``postgresql://``);
    used from the server's event loop. A statement outside ``transaction()`` is its own
    durable transaction."""

    def __init__(self, db: str | Path) -> None:
        self.where = db
        self.backend: Backend | None = None
        self.deferred: list | None = None  # [game id, its room's values to write] (saving_once)
        self.measured: tuple[float, int] | None = None  # (when, size()): asked for each game
        self.open()

    @property
    def kind(self) -> str:
        return self.backend.kind

    @property
    def shared(self) -> bool:
        """Whether other processes may use the database at once (PostgreSQL)."""
        return self.backend.kind == "postgresql"

    def describe(self) -> str:
        return self.backend.describe()

    def open(self) -> None:
        """Connect and bring the schema up to date (again, after ``close``: a server's
        application can be started twice)."""
        if self.backend is not None:
            return
        self.backend = open_backend(self.where)
        try:
            migrate(self.backend)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self.backend is not None:
            self.backend.close()
            self.backend = None

    def execute(self, sql: str, params: tuple | list = ()):
        return self.backend.execute(sql, params)

    def transaction(self):
        return self.backend.transaction()

    @contextlib.contextmanager
    def of_the_moment(self):
        """A transaction of what matters only while the processes run (who has a page
        open, heartbeats): committed without waiting for the disk."""
        with self.transaction():
            if self.shared:
                self.execute("SET LOCAL synchronous_commit TO OFF")
            yield

    def change(self):
        """The transaction of one change, its commit awaited (``Backend.change``)."""
        return self.backend.change()

    async def off_loop(self, function, *args):
        """``function(*args)`` with its statements off the event loop (``Backend.off_loop``)."""
        return await self.backend.off_loop(function, *args)

    @property
    def IntegrityError(self) -> type[Exception]:
        return self.backend.IntegrityError

    def size(self) -> int:
        """Bytes the database takes on disk, as measured within the last ``SIZE_SECONDS``
        (every new game asks; PostgreSQL measures it from its files)."""
        now = time.monotonic()
        if self.measured is None or now - self.measured[0] >= SIZE_SECONDS:
            self.measured = (now, self.backend.size())
        return self.measured[1]

    # ----- games ---------------------------------------------------------------------
    def create(self, game: StoredGame, moves: list[int] = (), deadline: float | None = None
               ) -> None:
        """A new game, with the moves it already has (a loaded record), in one transaction."""
        columns = game_columns(game.room, deadline)
        with self.transaction():
            self.execute(f"INSERT INTO games (id, created, start_record, room, "
                         f"{', '.join(columns)}) VALUES (?, ?, ?, ?{', ?' * len(columns)})",
                         (game.id, game.created, game.start_record, json.dumps(game.room),
                          *columns.values()))
            self.backend.executemany("INSERT INTO moves VALUES (?, ?, ?)",
                                     [(game.id, ply, int(move))
                                      for ply, move in enumerate(moves)])

    def save_room(self, game_id: str, room: dict, start_record: str | None,
                  deadline: float | None = None) -> None:
        columns = game_columns(room, deadline)
        values = (json.dumps(room), start_record, *columns.values())
        if self.deferred is not None and self.deferred[0] == game_id:
            self.deferred[1] = values  # written with the version by ``changed``
            return
        self.execute(f"UPDATE games SET {_ROOM_COLUMNS} WHERE id = ?", (*values, game_id))

    @contextlib.contextmanager
    def saving_once(self, game_id: str):
        """Within a change of ``game_id``: its room, however often saved, is written once,
        with its version (``saved``, then ``changed``: one statement rather than one a
        save)."""
        self.deferred = [game_id, None]
        try:
            yield
        finally:
            self.deferred = None

    def add_move(self, game_id: str, ply: int, move: int) -> None:
        """Commit move number ``ply`` (0-based); a second move for the same ply fails."""
        self.execute("INSERT INTO moves VALUES (?, ?, ?)", (game_id, ply, move))

    def remove_moves_from(self, game_id: str, ply: int) -> None:
        """Undo: forget the moves from number ``ply`` on."""
        self.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, ply))

    def lock_game(self, game_id: str) -> int | None:
        """In a transaction: hold the game's row until it ends (another process's change
        waits) and answer its version (None: no such game)."""
        row = self.execute(f"SELECT version FROM games WHERE id = ?{self.for_update}",
                           (game_id,)).fetchone()
        return None if row is None else row[0]

    def versions(self, game_ids: list[str]) -> dict[str, int]:
        """The stored version of each of ``game_ids``."""
        found = {}
        for start in range(0, len(game_ids), 500):
            part = game_ids[start:start + 500]
            found.update(self.execute(f"SELECT id, version FROM games WHERE id IN "
                                      f"({', '.join('?' * len(part))})", part).fetchall())
        return found

    def saved(self, game_id: str) -> tuple | None:
        """Within ``saving_once``: the room's values last saved, to write with ``changed``."""
        return self.deferred[1] if self.deferred and self.deferred[0] == game_id else None

    def changed(self, game_id: str, saved: tuple | None = None,
                expected: int | None = None) -> int | None:
        """In the transaction of a change: the game's next version (with its room's
        ``saved`` values), told to the other processes when the transaction commits; None,
        and nothing changed, when the game's version is not ``expected`` (given: another
        process changed it since). Where processes share the store, a version ``expected``
        is checked without waiting for an answer: the change's commit (or its next read)
        raises Stale instead, so that a move is one round trip."""
        sets, values = (f"{_ROOM_COLUMNS}, ", saved) if saved else ("", ())
        check, checked = ("", ()) if expected is None else (" AND version = ?", (expected,))
        raise_version = f"UPDATE games SET {sets}version = version + 1 WHERE id = ?{check} " \
                        f"RETURNING version"
        if self.shared and expected is not None:
            self.backend.queue(
                f"WITH raised AS ({raise_version}) SELECT mancalab_raised(count(*)), "
                f"pg_notify(?, ?) FROM raised",
                (*values, game_id, *checked, CHANNEL, f"game {game_id} {expected + 1}"))
            return expected + 1
        if self.shared:  # one round trip: saved, raised and told
            row = self.execute(
                f"WITH raised AS ({raise_version}) SELECT version, pg_notify(?, 'game ' || "
                f"? || ' ' || version) FROM raised",
                (*values, game_id, *checked, CHANNEL, game_id)).fetchone()
        else:
            row = self.execute(raise_version, (*values, game_id, *checked)).fetchone()
        return None if row is None else row[0]

    @property
    def for_update(self) -> str:
        """What makes a SELECT hold its rows until the transaction ends (SQLite's
        transaction holds the whole file already)."""
        return " FOR UPDATE" if self.shared else ""

    def lock_named(self, what: str) -> None:
        """In a transaction: ``what`` (the lobby's or the arenas' bounds) counted by one
        process at a time."""
        if self.shared:
            self.execute("SELECT pg_advisory_xact_lock(?)", (NAMED_LOCKS[what],))

    def games_of(self, account: str | None, count: int = 50, guest: str | None = None
                 ) -> list[tuple[str, int, str]]:
        """The newest ``count`` games in which ``account`` (or the ``guest`` cookie's
        digest) holds a seat: (id, seat, token)."""
        column, owner = ("account", account) if account is not None else ("guest", guest)
        found = []
        for seat in (0, 1):
            found += [(created, game_id, seat, json.loads(room)["tokens"][seat])
                      for game_id, created, room in self.execute(
                          f"SELECT id, created, room FROM games WHERE {column}{seat} = ? "
                          f"ORDER BY created DESC LIMIT ?", (owner, count))]
        found.sort(reverse=True)
        return [(game_id, seat, token) for _, game_id, seat, token in found[:count]]

    def results(self, game_ids: list[str]) -> dict[str, str | None]:
        """Each game's result: A, B, D, X (ended with none: aborted), None while going on."""
        found: dict[str, str | None] = {}
        for start in range(0, len(game_ids), 500):
            part = game_ids[start:start + 500]
            for game_id, result, ended in self.execute(
                    f"SELECT id, result, ended FROM games WHERE id IN "
                    f"({', '.join('?' * len(part))})", tuple(part)):
                found[game_id] = result or ("X" if ended is not None else None)
        return found

    def results_of(self, account: str) -> tuple[int, int, int]:
        """The wins, draws and losses of ``account``'s ended games (a game aborted or
        timed out counts as none)."""
        counts = [0, 0, 0]
        for seat in (0, 1):
            for result, count in self.execute(
                    f"SELECT result, COUNT(*) FROM games WHERE account{seat} = ? AND result "
                    f"IS NOT NULL GROUP BY result", (account,)):
                if result == "D":
                    counts[1] += count
                elif result in ("A", "B"):
                    counts[0 if "AB".index(result) == seat else 2] += count
        return counts[0], counts[1], counts[2]

    def live_games_of(self, account: str) -> list[str]:
        """The games not ended in which ``account`` holds a seat."""
        return [game_id for (game_id,) in self.execute(
            "SELECT id FROM games WHERE ended IS NULL AND (account0 = ? OR account1 = ?)",
            (account, account))]

    def listed_games(self, count: int) -> list[str]:
        """The newest ``count`` games listed to watch that have not ended."""
        return [game_id for (game_id,) in self.execute(
            "SELECT id FROM games WHERE listed = 1 AND ended IS NULL ORDER BY created DESC "
            "LIMIT ?", (count,))]

    def due_games(self, before: float | None = None) -> list[str]:
        """The games not ended whose deadline (a flag, or a first move's) comes before
        ``before`` (every game with one, by default)."""
        if before is None:
            return [game_id for (game_id,) in self.execute(
                "SELECT id FROM games WHERE deadline IS NOT NULL AND ended IS NULL")]
        return [game_id for (game_id,) in self.execute(
            "SELECT id FROM games WHERE deadline < ? AND ended IS NULL", (before,))]

    def load(self, game_id: str, after: int = 0) -> StoredGame | None:
        """The game ``game_id``, its moves from number ``after`` on (``first_ply``): a
        room that holds the first moves reads only those it lacks (``Room.refresh``)."""
        row = self.execute("SELECT id, created, start_record, room, version FROM games "
                           "WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        moves = [m for (m,) in self.execute(
            "SELECT move FROM moves WHERE game_id = ? AND ply >= ? ORDER BY ply",
            (game_id, after))]
        return StoredGame(row[0], row[1], row[2], json.loads(row[3]), moves, row[4], after)

    # ----- kept analyses -------------------------------------------------------------
    def analysis(self, position: str) -> dict | None:
        """The settled analysis kept for ``position`` (``analysis_key``), or None."""
        row = self.execute("SELECT answer FROM analyses WHERE position = ?",
                           (position,)).fetchone()
        if row is None:
            return None
        self.execute("UPDATE analyses SET used = ? WHERE position = ?", (time.time(), position))
        return json.loads(row[0])

    def keep_analysis(self, position: str, answer: dict, client: str | None = None,
                      pinned: bool = False) -> None:
        """Keep a settled analysis. ``pinned`` ones (what the server prepared) stay; of the
        others, beyond ``ANALYSES_KEPT`` in all or ``CLIENT_ANALYSES`` asked for by one
        ``client``, the least recently used go."""
        self.execute("INSERT INTO analyses (position, answer, used, pinned, client) "
                     "VALUES (?, ?, ?, ?, ?) ON CONFLICT (position) DO UPDATE SET "
                     "answer = excluded.answer, used = excluded.used, pinned = CASE WHEN "
                     "analyses.pinned > excluded.pinned THEN analyses.pinned ELSE "
                     "excluded.pinned END",
                     (position, json.dumps(answer), time.time(), int(pinned), client))
        if pinned:
            return
        if client is not None:
            (mine,) = self.execute("SELECT COUNT(*) FROM analyses WHERE client = ? AND "
                                   "pinned = 0", (client,)).fetchone()
            if mine > CLIENT_ANALYSES:
                self.execute("DELETE FROM analyses WHERE position IN (SELECT position FROM "
                             "analyses WHERE client = ? AND pinned = 0 ORDER BY used "
                             "LIMIT ?)", (client, mine - CLIENT_ANALYSES))
        (count,) = self.execute("SELECT COUNT(*) FROM analyses WHERE pinned = 0").fetchone()
        if count > ANALYSES_KEPT:
            self.execute("DELETE FROM analyses WHERE position IN (SELECT position FROM "
                         "analyses WHERE pinned = 0 ORDER BY used LIMIT ?)",
                         (count - ANALYSES_KEPT,))


# ----- moving a site ----------------------------------------------------------------
# the tables a site keeps, parents first (what presence and processes hold is of the moment)
COPIED = ("accounts", "account_keys", "sessions", "tokens", "ratings", "rated_games", "games",
          "moves", "analyses", "seeks", "arenas", "classes", "pupils", "assignments", "activity",
          "tournaments")
COPY_BATCH = 1000


def copy_store(source: Store, target: Store) -> list[tuple[str, int, str, str]]:
    """Copy every table of ``source`` into the empty ``target`` in one transaction:
    (table, rows, digest in the source, digest in the target) each, the digests of the
    rows as read back. MancalabError, and nothing copied, if the target holds anything."""
    from ..core import MancalabError

    for table in COPIED:
        if target.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
            raise MancalabError(f"the target {target.describe()} is not empty (its table "
                                f"{table} has rows): copy into a new database")
    with target.transaction():
        for table in COPIED:
            columns = _shared_columns(source, target, table)
            listed = ", ".join(columns)
            rows = source.execute(f"SELECT {listed} FROM {table}").fetchall()
            for start in range(0, len(rows), COPY_BATCH):
                target.backend.executemany(
                    f"INSERT INTO {table} ({listed}) VALUES ({', '.join('?' * len(columns))})",
                    rows[start:start + COPY_BATCH])
    return [(table, *_count_and_digest(source, table, _shared_columns(source, target, table)),
             _count_and_digest(target, table, _shared_columns(source, target, table))[1])
            for table in COPIED]


def _shared_columns(source: Store, target: Store, table: str) -> list[str]:
    have = source.backend.columns(table)
    return sorted(name for name in target.backend.columns(table) if name in have)


def _count_and_digest(store: Store, table: str, columns: list[str]) -> tuple[int, str]:
    """The rows of ``table`` and the SHA-256 of their values, in an order both databases
    agree on (sorted here, not by either's collation)."""
    import hashlib

    rows = sorted(json.dumps(list(row)) for row in store.execute(
        f"SELECT {', '.join(columns)} FROM {table}"))
    digest = hashlib.sha256("\n".join(rows).encode()).hexdigest()
    return len(rows), digest


# ----- the schema's steps --------------------------------------------------------------
def _base(backend: Backend) -> None:
    if backend.kind == "postgresql":
        backend.execute("CREATE EXTENSION IF NOT EXISTS citext")
    _script(backend, BASE)


def _analyses_by_client(backend: Backend) -> None:
    _add_columns(backend, "analyses", [("pinned", "INTEGER NOT NULL DEFAULT 0"),
                                       ("client", "TEXT")])
    backend.execute("CREATE INDEX IF NOT EXISTS analyses_by_client ON analyses(client, used)")


def _game_columns(backend: Backend) -> None:
    """The facts asked about across games as columns (they were read from the JSON room)."""
    _add_columns(backend, "games", GAME_COLUMNS)
    for seat in (0, 1):  # the indexes of the JSON room's accounts, now columns
        backend.execute(f"DROP INDEX IF EXISTS games_by_seat{seat}")
    for name in ("account0", "account1", "deadline"):
        backend.execute(f"CREATE INDEX IF NOT EXISTS games_by_{name} ON games({name})")
    backend.execute("CREATE INDEX IF NOT EXISTS games_listed ON games(listed, created)")
    for game_id, text in backend.execute("SELECT id, room FROM games").fetchall():
        room = json.loads(text)
        running = (room.get("clock") or {}).get("running") is not None
        # a game that may have a deadline is due at once: the server finds the real one
        due = 0.0 if room.get("ended_at") is None and (
            running or room.get("first_move_by") is not None) else None
        columns = {name: value for name, value in game_columns(room, due).items()
                   if name in dict(GAME_COLUMNS)}  # this step's (later steps add others)
        backend.execute(f"UPDATE games SET {', '.join(f'{n} = ?' for n in columns)} "
                        f"WHERE id = ?", (*columns.values(), game_id))


# each step a function, or a script of CREATE ... IF NOT EXISTS statements
def _guests_seeks(backend: Backend) -> None:
    _add_columns(backend, "seeks", [("guest", "TEXT")])  # a guest cookie's digest
    backend.execute("CREATE INDEX IF NOT EXISTS seeks_by_guest ON seeks(guest)")


def _guests_seats(backend: Backend) -> None:
    _add_columns(backend, "games", [("guest0", "TEXT"), ("guest1", "TEXT")])  # NULL: older
    # games' seats were taken by accounts or kept in the browser
    for seat in (0, 1):
        backend.execute(f"CREATE INDEX IF NOT EXISTS games_by_guest{seat} ON games(guest{seat})")


def _results(backend: Backend) -> None:
    """A game's result as a column (A, B or D once ended; older games' NULL), for the
    results of a player's games (a class's progress)."""
    _add_columns(backend, "games", [("result", "TEXT")])


def _bots(backend: Backend) -> None:
    """BOT accounts (web.tokens) and the API tokens they act by."""
    _add_columns(backend, "accounts", [("bot", "INTEGER NOT NULL DEFAULT 0")])
    _script(backend, TOKENS)


def _raised_check(backend: Backend) -> None:
    """PostgreSQL's ``mancalab_raised(rows)``: aborts the transaction (SQLSTATE 40001)
    when a version check raised no row (``Store.changed``), so that the check's answer
    need not be awaited before the commit."""
    if backend.kind == "postgresql":
        backend.execute(
            "CREATE OR REPLACE FUNCTION mancalab_raised(raised_rows BIGINT) RETURNS VOID "
            "LANGUAGE plpgsql AS $$ BEGIN IF raised_rows = 0 THEN RAISE EXCEPTION "
            "'the game was changed by another process' USING ERRCODE = '40001'; "
            "END IF; END $$")


STEPS = [_base, _analyses_by_client, _game_columns, SEEKS, PRESENCE, ARENAS, ALLOWANCES,
         _guests_seeks, _guests_seats, _bots, _results, CLASSES, TOURNAMENTS,
         _raised_check]


def migrate(backend: Backend) -> None:
    """Bring the database's schema up to ``len(STEPS)``, each step in a transaction of its
    own (several processes starting at once take turns)."""
    with backend.transaction():  # PostgreSQL's CREATE ... IF NOT EXISTS races another's
        _one_migrator(backend)
        backend.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    for number, step in enumerate(STEPS, 1):
        with backend.transaction():
            _one_migrator(backend)
            row = backend.execute("SELECT version FROM schema_version").fetchone()
            done = 0 if row is None else row[0]
            if done >= number:
                continue
            if isinstance(step, str):
                _script(backend, step)
            else:
                step(backend)
            if row is None:
                backend.execute("INSERT INTO schema_version VALUES (?)", (number,))
            else:
                backend.execute("UPDATE schema_version SET version = ?", (number,))


def _one_migrator(backend: Backend) -> None:
    """In a transaction: wait for any other process changing the schema (PostgreSQL)."""
    if backend.kind == "postgresql":
        backend.execute("SELECT pg_advisory_xact_lock(?)", (NAMED_LOCKS["schema"],))


def _script(backend: Backend, script: str) -> None:
    for statement in script.format(**backend.types).split(";"):
        lines = [line.split("--")[0] for line in statement.splitlines()]
        if "".join(lines).strip():
            backend.execute("\n".join(lines))


def _add_columns(backend: Backend, table: str, columns: list[tuple[str, str]]) -> None:
    """Add the columns a table lacks (a file made before they were)."""
    have = backend.columns(table)
    for name, kind in columns:
        if name not in have:
            backend.execute(f"ALTER TABLE {table} ADD COLUMN {name} "
                            f"{kind.format(**backend.types)}")


def analysis_key(state) -> str:
    """The key of ``state``'s analysis: its game, options and whole board."""
    name, options = state.variant.key
    return json.dumps([name, options, [int(v) for v in state.board]], separators=(",", ":"))
