"""The two databases a server keeps its state in, behind one small interface: SQLite (a file,
one process, nothing to install) and PostgreSQL (psycopg 3; any number of processes).

The store (``web.store``) writes one set of statements with ``?`` placeholders; a back end
runs them, opens and closes transactions, and carries notifications between processes.
psycopg 3 with this thin layer rather than SQLAlchemy: the statements are few and plain,
both databases take them as they are, and the server needs what SQLAlchemy would hide
(PostgreSQL's LISTEN/NOTIFY on a connection of its own, SQLite's pragmas).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import sqlite3
import threading
from pathlib import Path
from typing import Callable, Iterator

from ..core import MancalabFailure

LOG = logging.getLogger("mancalab.web")
CHANNEL = "mancalab"  # the notification channel: "game ID VERSION", "lobby", "arena ID"
LOCK_SECONDS = 2.0  # a statement waiting this long for a row another process holds fails
CHANGE_CONNECTIONS = 4  # connections a process's changes commit on at once (PostgreSQL)
CONNECT_SECONDS = 5.0


class StoreUnavailable(MancalabFailure):
    """The database cannot be reached: answered 503, and nothing is changed."""

    status = 503


def is_url(db: str | Path) -> bool:
    return str(db).startswith(("postgresql://", "postgres://"))


def shown_address(db: str | Path) -> str:
    """The database as said to an operator: a file's path, or PostgreSQL's address without
    its password."""
    if not is_url(db):
        return str(db)
    from psycopg.conninfo import conninfo_to_dict

    try:
        info = conninfo_to_dict(str(db))
    except Exception:  # noqa: BLE001 - a malformed address: its end, as given
        return str(db).split("@")[-1][:80]
    return f"postgresql://{info.get('host', '')}:{info.get('port', '5432')}/" \
           f"{info.get('dbname', '')}"


def open_backend(db: str | Path) -> Backend:
    return PostgresBackend(str(db)) if is_url(db) else SQLiteBackend(db)


class Backend:
    """One connection used from the server's event loop (statements are short and never
    wait on a client), transactions that nest (the outermost commits)."""

    kind = ""
    # the schema's words where the two differ: times as 64-bit floats, names without case,
    # tables of the moment
    types: dict[str, str] = {}
    IntegrityError: type[Exception] = Exception

    def __init__(self) -> None:
        self.depth = 0  # transactions open, the outermost first

    def execute(self, sql: str, params: tuple | list = ()):
        raise NotImplementedError

    def executemany(self, sql: str, rows: list) -> None:
        for row in rows:
            self.execute(sql, row)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything inside commits together or not at all; an inner one joins the outer."""
        if self.depth:
            self.depth += 1
            try:
                yield
            finally:
                self.depth -= 1
            return
        self._begin()
        self.depth = 1
        try:
            yield
        except BaseException:
            self.depth = 0
            with contextlib.suppress(Exception):
                self._end("ROLLBACK")
            raise
        self.depth = 0
        self._end("COMMIT")

    @contextlib.asynccontextmanager
    async def change(self):
        """The transaction of one change of the server's state: here the transaction; on
        PostgreSQL one with a connection of its own whose commit is awaited, so that other
        requests go on meanwhile and commits made at once are flushed together."""
        with self.transaction():
            yield

    def context(self) -> contextvars.Context:
        """The context for a background task: none of the change that started it."""
        return contextvars.copy_context()

    async def off_loop(self, function, *args):
        """``function(*args)`` where its statements do not hold up the event loop: in a
        worker thread on PostgreSQL (the change's connection with it); here, at once."""
        return function(*args)

    def _begin(self) -> None:
        self.execute("BEGIN")

    def _end(self, how: str) -> None:
        self.execute(how)

    def columns(self, table: str) -> set[str]:
        raise NotImplementedError

    def size(self) -> int:
        raise NotImplementedError

    def notify(self, message: str) -> None:
        """Tell every other process ``message`` (at the commit of the transaction open)."""

    def listen(self, told: Callable[[str | None], None]) -> Callable[[], None] | None:
        """Call ``told(message)`` in a thread of its own for each notification, and
        ``told(None)`` after a reconnection (messages may have been missed meanwhile);
        returns the function that stops listening, or None where one process is all."""
        return None

    def close(self) -> None:
        raise NotImplementedError


class SQLiteBackend(Backend):
    """A file in WAL mode with ``synchronous=FULL``: a commit is on disk before it is
    answered. One process at a time (``serve`` refuses a second on the same file)."""

    kind = "sqlite"
    types = {"REAL": "REAL", "NAME": "TEXT COLLATE NOCASE", "UNLOGGED": ""}
    IntegrityError = sqlite3.IntegrityError

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), check_same_thread=False,
                                  isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")

    def describe(self) -> str:
        return str(self.path)

    def execute(self, sql: str, params: tuple | list = ()):
        return self.db.execute(sql, params)

    def executemany(self, sql: str, rows: list) -> None:
        self.db.executemany(sql, rows)

    def _begin(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")  # the write lock at once: no upgrade to fail

    def columns(self, table: str) -> set[str]:
        return {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}

    def size(self) -> int:
        pages, page = (self.db.execute(f"PRAGMA {name}").fetchone()[0]
                       for name in ("page_count", "page_size"))
        wal = Path(f"{self.path}-wal")
        return pages * page + (wal.stat().st_size if wal.exists() else 0)

    def close(self) -> None:
        self.db.close()


class PostgresBackend(Backend):
    """A PostgreSQL database by its address (``postgresql://user@host/name``). A lost
    connection fails the request with StoreUnavailable (503) and is opened again by the
    next; a row another process holds is waited for at most ``LOCK_SECONDS``."""

    kind = "postgresql"
    # what only matters while the processes run is not written to the log (nor kept after
    # a crash of the database: the processes then start their presence afresh)
    types = {"REAL": "DOUBLE PRECISION", "NAME": "CITEXT", "UNLOGGED": "UNLOGGED"}

    def __init__(self, url: str) -> None:
        super().__init__()
        import psycopg

        self.psycopg = psycopg
        self.IntegrityError = psycopg.IntegrityError
        self.url = url
        self.db = None
        self.statements: dict[str, str] = {}  # "?" placeholders made "%s"
        self.bound: contextvars.ContextVar = contextvars.ContextVar("connection", default=None)
        # a change's writes, sent with its next read (or its commit) in one round trip
        self.queued: contextvars.ContextVar = contextvars.ContextVar("queued", default=None)
        self.spare: list = []  # connections for changes, idle
        self.slots: asyncio.Semaphore | None = None  # CHANGE_CONNECTIONS, made on the loop
        self.db = self._open()

    def describe(self) -> str:
        return shown_address(self.url)

    def _open(self):
        """A new connection (autocommit: a statement outside a transaction is its own)."""
        try:
            connection = self.psycopg.connect(
                self.url, autocommit=True, connect_timeout=CONNECT_SECONDS,
                keepalives=1, keepalives_idle=10, keepalives_interval=5, keepalives_count=3)
            connection.execute(f"SET lock_timeout = {int(LOCK_SECONDS * 1000)}")
        except self.psycopg.Error as error:
            raise StoreUnavailable(f"the database at {self.describe()} cannot be reached: "
                                   f"{_first_line(error)}") from None
        return connection

    def _connect(self):
        self.db = self._open()
        return self.db

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self.bound.get() is not None:  # within a change: its transaction holds it all
            yield
            return
        with super().transaction():
            yield

    @contextlib.asynccontextmanager
    async def _borrowed(self):
        """One of the process's ``CHANGE_CONNECTIONS`` connections, bound to this task
        until the block ends (then kept for the next if it is sound and idle)."""
        if self.slots is None:
            self.slots = asyncio.Semaphore(CHANGE_CONNECTIONS)
        async with self.slots:
            connection = self.spare.pop() if self.spare else self._open()
            token = self.bound.set(connection)
            try:
                yield connection
            finally:
                self.bound.reset(token)
                if connection.closed and not connection.broken:
                    pass  # closed on purpose (``_send``): the next change opens another
                elif not connection.closed and not connection.broken and \
                        connection.info.transaction_status == \
                        self.psycopg.pq.TransactionStatus.IDLE:
                    self.spare.append(connection)
                else:
                    self._lost(connection)

    @contextlib.asynccontextmanager
    async def change(self):
        if self.bound.get() is not None:
            yield
            return
        async with self._borrowed() as connection:
            queue = self.queued.set([("BEGIN", ())])
            try:
                yield
                await self.off_loop(self._commit, connection)
            except BaseException:  # in the change, or its commit (a version check failed)
                if self.queued.get() != [("BEGIN", ())]:  # else nothing was sent
                    with contextlib.suppress(Exception):
                        connection.execute("ROLLBACK")
                raise
            finally:
                self.queued.reset(queue)

    def _lost(self, connection) -> None:
        """``connection`` is lost, and the others most likely with it (the database
        restarted): every one is closed, to be opened again by the next statement."""
        for lost in {id(c): c for c in (connection, self.db, *self.spare) if c}.values():
            with contextlib.suppress(Exception):
                lost.close()
        if self.db is not None and self.db.closed:
            self.db, self.depth = None, 0
        self.spare = []

    def _commit(self, connection) -> None:
        """The change's writes not sent yet, and its commit, in one round trip."""
        self._send(connection, [*self.queued.get(), ("COMMIT", ())])

    def _send(self, connection, statements: list, then: tuple | None = None):
        """``statements`` (and ``then``, whose cursor is answered) in one round trip.

        When a statement fails, those after it are skipped, and psycopg (3.3) still counts
        as prepared one of them it meant to prepare: the statements after a check
        (``queue``), which may fail, are not prepared, and a connection on which any other
        statement failed is closed rather than used again."""
        statements[:], sent = [], list(statements)
        try:
            with connection.pipeline():
                prepare = None
                for sql, params, *checked in sent:
                    connection.execute(self._sql(sql), params or None, prepare=prepare)
                    prepare = False if checked else prepare
                cursor = connection.execute(self._sql(then[0]), then[1] or None,
                                            prepare=prepare) if then else None
            return cursor
        except self.psycopg.errors.SerializationFailure:
            raise Stale() from None  # a version checked (``queue``) had been raised
        except self.psycopg.OperationalError as error:
            raise StoreUnavailable(f"the database at {self.describe()} failed: "
                                   f"{_first_line(error)}") from None
        except self.psycopg.Error:
            connection.close()  # its prepared statements in doubt (``_borrowed`` drops it)
            raise

    def queue(self, sql: str, params: tuple | list = ()) -> None:
        """Within a change: ``sql`` sent with the change's next read or its commit, its
        answer not read; a version check in it that fails (SQLSTATE 40001) aborts the
        change, and the read or the commit raises Stale."""
        self.queued.get().append((sql, params, "checked"))

    async def off_loop(self, function, *args):
        if self.bound.get() is not None:  # within a change: on its connection
            return await asyncio.to_thread(function, *args)
        async with self._borrowed():  # a read of its own, not on the loop's connection
            return await asyncio.to_thread(function, *args)

    def context(self) -> contextvars.Context:
        context = contextvars.copy_context()
        context.run(self.bound.set, None)
        context.run(self.queued.set, None)
        return context

    def _sql(self, sql: str) -> str:
        converted = self.statements.get(sql)
        if converted is None:
            converted = self.statements[sql] = sql.replace("%", "%%").replace("?", "%s")
        return converted

    def execute(self, sql: str, params: tuple | list = ()):
        queued = self.queued.get()
        if queued is not None:  # within a change: its writes wait for its next read
            if _is_write(sql):
                queued.append((sql, params))
                return None
            if queued:
                return self._send(self.bound.get(), queued, (sql, params))
        db = self.bound.get() or self.db or self._connect()
        try:
            return db.execute(self._sql(sql), params or None)
        except self.psycopg.OperationalError as error:
            if db.closed or db.broken:
                self._lost(db)
            raise StoreUnavailable(f"the database at {self.describe()} failed: "
                                   f"{_first_line(error)}") from None

    def executemany(self, sql: str, rows: list) -> None:
        queued = self.queued.get()
        if queued is not None:
            queued.extend((sql, row) for row in rows)
            return
        if rows:
            with (self.bound.get() or self.db or self._connect()).cursor() as cursor:
                cursor.executemany(self._sql(sql), rows)

    def columns(self, table: str) -> set[str]:
        return {name for (name,) in self.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND "
            "table_schema = current_schema()", (table,))}

    def size(self) -> int:
        return self.execute("SELECT pg_database_size(current_database())").fetchone()[0]

    def notify(self, message: str) -> None:
        queued = self.queued.get()
        if queued is not None:  # within a change: sent with it (told at its commit)
            queued.append(("SELECT pg_notify(?, ?)", (CHANNEL, message)))
            return
        self.execute("SELECT pg_notify(?, ?)", (CHANNEL, message))

    def listen(self, told: Callable[[str | None], None]) -> Callable[[], None]:
        stop = threading.Event()
        thread = threading.Thread(target=self._listening, args=(told, stop),
                                  name="mancalab-listen", daemon=True)
        thread.start()
        return stop.set

    def _listening(self, told: Callable[[str | None], None], stop: threading.Event) -> None:
        """A connection of its own (LISTEN cannot share one): each notification told; after
        a lost connection, a new one and ``told(None)`` (what was missed is fetched again)."""
        pause, first = 0.2, True
        while not stop.is_set():
            try:
                with self.psycopg.connect(self.url, autocommit=True,
                                          connect_timeout=CONNECT_SECONDS, keepalives=1,
                                          keepalives_idle=10, keepalives_interval=5,
                                          keepalives_count=3) as connection:
                    connection.execute(f"LISTEN {CHANNEL}")
                    if not first:
                        told(None)
                    first, pause = False, 0.2
                    while not stop.is_set():
                        for note in connection.notifies(timeout=1.0):
                            if stop.is_set():
                                return
                            told(note.payload)
                        connection.execute("SELECT 1")  # a dead connection found within 1 s
            except RuntimeError:  # the server's event loop has closed
                return
            except self.psycopg.Error as error:
                if stop.is_set():
                    return
                LOG.warning("listening to the database: %s; again in %.1f s",
                            _first_line(error), pause)
                stop.wait(pause)
                pause = min(5.0, pause * 2)

    def close(self) -> None:
        for connection in [self.db, *self.spare]:
            if connection is not None:
                with contextlib.suppress(Exception):
                    connection.close()
        self.db, self.spare, self.slots = None, [], None


class Stale(Exception):
    """A change whose version check found the row changed by another process: rolled
    back."""


def _is_write(sql: str) -> bool:
    """A statement that answers nothing: it may wait for the next one that does."""
    return sql.lstrip()[:6].upper() in ("INSERT", "UPDATE", "DELETE") and \
        "RETURNING" not in sql.upper() and "pg_notify" not in sql


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
