"""The server's durable state: games and their moves, accounts and ratings in SQLite.

A move is acknowledged only after its row is committed with ``synchronous=FULL`` in WAL mode,
so a crash (even ``kill -9`` or a power cut) never loses a move a player was told about.
A game's start is kept as a game record without moves (variant, options, start position), so
the record format is the one description of a game, here as in saved files.
"""

from __future__ import annotations

import json
import time
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    start_record TEXT,          -- the start as a game record without moves; NULL during setup
    room TEXT NOT NULL          -- mode, seats, tokens, computer player, setup: JSON
);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    move INTEGER NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS accounts (
    name TEXT PRIMARY KEY COLLATE NOCASE,
    hash TEXT NOT NULL,         -- Argon2id (argon2-cffi)
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS account_keys (
    key TEXT PRIMARY KEY,       -- SHA-256 of the name's look-alike key (web.names.name_key)
    name TEXT REFERENCES accounts(name) ON DELETE SET NULL,  -- NULL: deleted, held back
    since REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,    -- SHA-256 of the session cookie: the cookie itself is not kept
    name TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS ratings (
    name TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    game TEXT NOT NULL,
    rating REAL NOT NULL, deviation REAL NOT NULL, volatility REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (name, game)
);
CREATE TABLE IF NOT EXISTS rated_games (
    game_id TEXT NOT NULL,
    name TEXT NOT NULL REFERENCES accounts(name) ON DELETE CASCADE,
    game TEXT NOT NULL,
    at REAL NOT NULL,
    score REAL NOT NULL,        -- 1 a win, 0.5 a draw, 0 a loss
    rating REAL NOT NULL,       -- after the game
    deviation REAL NOT NULL,
    PRIMARY KEY (game_id, name)
);
CREATE TABLE IF NOT EXISTS analyses (
    position TEXT PRIMARY KEY,  -- the game, its options and the board (analysis_key)
    answer TEXT NOT NULL,       -- the settled analysis: JSON
    used REAL NOT NULL          -- when last answered: the least recently used go first
);
"""
ANALYSES_KEPT = 50_000  # settled analyses kept (about 25 MB): proven once, answered at once
CLIENT_ANALYSES = 1_000  # of them, the most kept for one client (its least recent go first)
# the columns added since the first schema: added to an older file when it is opened
ADDED_COLUMNS = {"analyses": [("pinned", "INTEGER NOT NULL DEFAULT 0"), ("client", "TEXT")]}


@dataclass
class StoredGame:
    id: str
    created: float
    start_record: str | None
    room: dict
    moves: list[int] = field(default_factory=list)


class Store:
    """SQLite file of every game; one connection, used from the server's event loop. Each
    change is one statement in autocommit mode, so it is its own durable transaction."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db: sqlite3.Connection | None = None
        self.open()

    def open(self) -> None:
        """Connect (again, after ``close``: a server's application can be started twice)."""
        if self.db is not None:
            return
        self.db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.executescript(SCHEMA)
        for table, columns in ADDED_COLUMNS.items():
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for name, kind in columns:
                if name not in have:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
        self.db.execute("CREATE INDEX IF NOT EXISTS analyses_by_client ON analyses(client, used)")
        for seat in (0, 1):  # an account's games, found by its seats
            self.db.execute(f"CREATE INDEX IF NOT EXISTS games_by_seat{seat} ON games("
                            f"json_extract(room, '$.accounts[{seat}]'), created)")

    def size(self) -> int:
        """Bytes the games take on disk (the file and its write-ahead log)."""
        pages, page = (self.db.execute(f"PRAGMA {name}").fetchone()[0]
                       for name in ("page_count", "page_size"))
        wal = Path(f"{self.path}-wal")
        return pages * page + (wal.stat().st_size if wal.exists() else 0)

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None

    def create(self, game: StoredGame, moves: list[int] = ()) -> None:
        """A new game, with the moves it already has (a loaded record), in one transaction."""
        with self.db:  # BEGIN ... COMMIT (or ROLLBACK): the game whole or not at all
            self.db.execute("BEGIN")
            self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?)",
                            (game.id, game.created, game.start_record, json.dumps(game.room)))
            self.db.executemany("INSERT INTO moves VALUES (?, ?, ?)",
                                [(game.id, ply, int(move)) for ply, move in enumerate(moves)])

    def save_room(self, game_id: str, room: dict, start_record: str | None) -> None:
        self.db.execute("UPDATE games SET room = ?, start_record = ? WHERE id = ?",
                        (json.dumps(room), start_record, game_id))

    def add_move(self, game_id: str, ply: int, move: int) -> None:
        """Commit move number ``ply`` (0-based); a second move for the same ply fails."""
        self.db.execute("INSERT INTO moves VALUES (?, ?, ?)", (game_id, ply, move))

    def remove_moves_from(self, game_id: str, ply: int) -> None:
        """Undo: forget the moves from number ``ply`` on."""
        self.db.execute("DELETE FROM moves WHERE game_id = ? AND ply >= ?", (game_id, ply))

    def games_of(self, account: str, count: int = 50) -> list[tuple[str, int, str]]:
        """The newest ``count`` games in which ``account`` holds a seat: (id, seat, token)."""
        found = []
        for seat in (0, 1):
            found += [(created, game_id, seat, json.loads(room)["tokens"][seat])
                      for game_id, created, room in self.db.execute(
                          f"SELECT id, created, room FROM games WHERE json_extract(room, "
                          f"'$.accounts[{seat}]') = ? ORDER BY created DESC LIMIT ?",
                          (account, count))]
        found.sort(reverse=True)
        return [(game_id, seat, token) for _, game_id, seat, token in found[:count]]

    def live_games_of(self, account: str) -> list[str]:
        """The games not ended in which ``account`` holds a seat."""
        return [game_id for (game_id,) in self.db.execute(
            "SELECT id FROM games WHERE json_extract(room, '$.ended_at') IS NULL AND "
            "(json_extract(room, '$.accounts[0]') = ? OR json_extract(room, '$.accounts[1]') "
            "= ?)", (account, account))]

    def running_clocks(self) -> list[str]:
        """The games whose clock is running or whose first move is awaited (to be resumed
        after a start)."""
        return [game_id for (game_id,) in self.db.execute(
            "SELECT id FROM games WHERE json_extract(room, '$.clock.running') IS NOT NULL "
            "OR json_extract(room, '$.first_move_by') IS NOT NULL")]

    def load(self, game_id: str) -> StoredGame | None:
        row = self.db.execute("SELECT id, created, start_record, room FROM games WHERE id = ?",
                              (game_id,)).fetchone()
        if row is None:
            return None
        moves = [m for (m,) in self.db.execute(
            "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))]
        return StoredGame(row[0], row[1], row[2], json.loads(row[3]), moves)

    def analysis(self, position: str) -> dict | None:
        """The settled analysis kept for ``position`` (``analysis_key``), or None."""
        row = self.db.execute("SELECT answer FROM analyses WHERE position = ?",
                              (position,)).fetchone()
        if row is None:
            return None
        self.db.execute("UPDATE analyses SET used = ? WHERE position = ?",
                        (time.time(), position))
        return json.loads(row[0])

    def keep_analysis(self, position: str, answer: dict, client: str | None = None,
                      pinned: bool = False) -> None:
        """Keep a settled analysis. ``pinned`` ones (what the server prepared) stay; of the
        others, beyond ``ANALYSES_KEPT`` in all or ``CLIENT_ANALYSES`` asked for by one
        ``client``, the least recently used go."""
        self.db.execute("INSERT INTO analyses (position, answer, used, pinned, client) "
                        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (position) DO UPDATE SET "
                        "answer = excluded.answer, used = excluded.used, "
                        "pinned = MAX(pinned, excluded.pinned)",
                        (position, json.dumps(answer), time.time(), int(pinned), client))
        if pinned:
            return
        if client is not None:
            (mine,) = self.db.execute("SELECT COUNT(*) FROM analyses WHERE client = ? AND "
                                      "pinned = 0", (client,)).fetchone()
            if mine > CLIENT_ANALYSES:
                self.db.execute("DELETE FROM analyses WHERE position IN (SELECT position FROM "
                                "analyses WHERE client = ? AND pinned = 0 ORDER BY used "
                                "LIMIT ?)", (client, mine - CLIENT_ANALYSES))
        (count,) = self.db.execute("SELECT COUNT(*) FROM analyses WHERE pinned = 0").fetchone()
        if count > ANALYSES_KEPT:
            self.db.execute("DELETE FROM analyses WHERE position IN (SELECT position FROM "
                            "analyses WHERE pinned = 0 ORDER BY used LIMIT ?)",
                            (count - ANALYSES_KEPT,))


def analysis_key(state) -> str:
    """The key of ``state``'s analysis: its game, options and whole board."""
    name, options = state.variant.key
    return json.dumps([name, options, [int(v) for v in state.board]], separators=(",", ":"))
