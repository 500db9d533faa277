"""The server's durable state: games and their moves in SQLite.

A move is acknowledged only after its row is committed with ``synchronous=FULL`` in WAL mode,
so a crash (even ``kill -9`` or a power cut) never loses a move a player was told about.
A game's start is kept as a game record without moves (variant, options, start position), so
the record format is the one description of a game, here as in saved files.
"""

from __future__ import annotations

import json
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
"""


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
        self.db.executescript(SCHEMA)

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

    def load(self, game_id: str) -> StoredGame | None:
        row = self.db.execute("SELECT id, created, start_record, room FROM games WHERE id = ?",
                              (game_id,)).fetchone()
        if row is None:
            return None
        moves = [m for (m,) in self.db.execute(
            "SELECT move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,))]
        return StoredGame(row[0], row[1], row[2], json.loads(row[3]), moves)
