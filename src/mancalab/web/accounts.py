"""Accounts, sessions and ratings: optional (anyone plays without one), kept in the server's
SQLite file.

An account is a name and a password hashed with Argon2id (``argon2-cffi``); a session is a
random cookie of which only a digest is kept. Ratings are Glicko-2
(``analysis.compete.glicko``), one per game, each rated game its own rating period, updated
once when the game ends.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from ..analysis.compete.glicko import PROVISIONAL, Rating, after_game
from ..core import MancalabError
from .names import PASSWORD_LENGTHS, check_account_name, key_digest
from .errors import BusyError, ConflictError, NotAllowedError, NotFoundError, \
    UnauthorizedError

SESSIONS_KEPT = 10  # sessions an account keeps (devices); the oldest go
HASHER = PasswordHasher()  # Argon2id, RFC 9106's low-memory choice: 64 MiB and ~50 ms a hash
HASHING_THREADS = 2  # hashes at once: at most 128 MiB however many log in
HASHING = threading.BoundedSemaphore(HASHING_THREADS)


class ClientGone(Exception):
    """The client left before its password was hashed: nothing is answered."""


class Hashing:
    """Password hashing off the event loop, in threads of its own (so a flood of log-ins
    never delays the work of asyncio's shared pool, such as loading records), with a
    bounded queue: at most ``queue`` hashes waiting or running (BusyError, a 429, beyond)
    and at most ``per_client`` from one client, so that many addresses each at their
    per-minute rate wait behind a real log-in for a few hashes at most. A hash whose client
    has gone by its turn is not computed (``ClientGone``)."""

    def __init__(self, queue: int = 32, per_client: int = 1) -> None:
        self.queue, self.per_client = queue, per_client
        self.pool = ThreadPoolExecutor(HASHING_THREADS, thread_name_prefix="mancalab-hash")
        self._lock = threading.Lock()
        self._waiting = 0
        self._by_client: Counter = Counter()

    async def run(self, client: str | None, receive, work, *args):
        """``work(*args)`` in a hashing thread for ``client``; ``receive`` is the request's
        (its disconnect message says the client has gone)."""
        with self._lock:
            if self._by_client[client] >= self.per_client:
                raise BusyError("a password from your address is being checked already: wait "
                                "for its answer", code="password_busy")
            if self._waiting >= self.queue:
                raise BusyError("the server is checking many passwords; try again in a few "
                                "seconds", code="password_busy")
            self._waiting += 1
            self._by_client[client] += 1
        gone = threading.Event()
        watcher = asyncio.ensure_future(_until_gone(receive, gone))
        try:
            return await asyncio.wrap_future(self.pool.submit(_unless_gone, gone, work, *args))
        finally:
            watcher.cancel()
            with self._lock:
                self._waiting -= 1
                self._by_client[client] -= 1
                if self._by_client[client] <= 0:
                    del self._by_client[client]


async def _until_gone(receive, gone: threading.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


def _unless_gone(gone: threading.Event, work, *args):
    if gone.is_set():
        raise ClientGone
    return work(*args)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Accounts:
    """The accounts of one server (in its ``Store``); hashing is slow on purpose:
    call ``hash``/``verify`` in a worker thread."""

    def __init__(self, store) -> None:
        self.store = store
        self._keys_for_older_accounts()

    def _keys_for_older_accounts(self) -> None:
        """Accounts made before names had keys get theirs (the first of two look-alikes
        keeps the key; the other still logs in by its exact name)."""
        for (name,) in self.db.execute("SELECT name FROM accounts WHERE name NOT IN (SELECT "
                                       "name FROM account_keys WHERE name IS NOT NULL)"
                                       ).fetchall():
            self.db.execute("INSERT INTO account_keys VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                            (key_digest(name), name, time.time()))

    @property
    def db(self):
        return self.store  # its statements run on the store's current connection

    # ----- accounts and sessions (the hashing in a thread, the rest on the event loop) --
    @staticmethod
    def hash(password: str) -> str:
        low, high = PASSWORD_LENGTHS
        if not isinstance(password, str) or not low <= len(password) <= high:
            raise MancalabError(f"a password has {low} to {high} characters")
        with HASHING:
            return HASHER.hash(password)

    def stored_hash(self, name: str) -> str | None:
        row = self.db.execute("SELECT hash FROM accounts WHERE name = ?", (name,)).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def verify(stored: str | None, password: object) -> bool:
        with HASHING:
            if stored is None or not isinstance(password, str):
                HASHER.hash("not a password")  # the same time whether the name exists or not
                return False
            try:
                return HASHER.verify(stored, password)
            except (VerificationError, InvalidHashError):
                return False

    def create(self, name: str, hashed: str) -> str:
        """A new account (``name`` checked, ``hashed`` from ``hash``) and its first session."""
        name = check_account_name(name)
        try:
            with self.store.transaction():
                self.db.execute("INSERT INTO accounts (name, hash, created) VALUES (?, ?, ?)",
                                (name, hashed, time.time()))
                self.db.execute("INSERT INTO account_keys VALUES (?, ?, ?)",
                                (key_digest(name), name, time.time()))
        except self.store.IntegrityError:
            raise ConflictError(f"the name {name!r} is taken (or one that looks the same)",
                                code="name_taken", name=name) from None
        return self.new_session(name)

    def new_session(self, name: str) -> str:
        token = secrets.token_urlsafe(32)
        self.db.execute("INSERT INTO sessions VALUES (?, ?, ?)", (digest(token), name,
                                                                   time.time()))
        self.db.execute("DELETE FROM sessions WHERE name = ? AND digest NOT IN (SELECT digest "
                        "FROM sessions WHERE name = ? ORDER BY created DESC LIMIT ?)",
                        (name, name, SESSIONS_KEPT))
        return token

    def name_of(self, token: str | None) -> str | None:
        """The account a session cookie logs in, or None."""
        if not token or len(token) > 100:
            return None
        row = self.db.execute("SELECT name FROM sessions WHERE digest = ?",
                              (digest(token),)).fetchone()
        return None if row is None else row[0]

    def canonical(self, name: str) -> str | None:
        """The account's name as it was registered (names are compared by their keys: case
        and look-alikes aside), or None."""
        row = self.db.execute("SELECT name FROM account_keys WHERE key = ?",
                              (key_digest(name),)).fetchone()
        if row is None:  # an older account whose look-alike had the key first
            row = self.db.execute("SELECT name FROM accounts WHERE name = ?",
                                  (name,)).fetchone()
        return None if row is None else row[0]

    def held(self, name: str) -> bool:
        """Whether ``name`` (or a look-alike) is taken, or was a deleted account's: a
        deleted account's name is not given to anybody else."""
        return self.db.execute("SELECT 1 FROM account_keys WHERE key = ?",
                               (key_digest(name),)).fetchone() is not None or \
            self.canonical(name) is not None

    def end_session(self, token: str | None) -> None:
        if token:
            self.db.execute("DELETE FROM sessions WHERE digest = ?", (digest(token),))

    def set_hash(self, name: str, hashed: str, keep: str) -> None:
        """A new password: every other session of the account ends."""
        self.db.execute("UPDATE accounts SET hash = ? WHERE name = ?", (hashed, name))
        self.db.execute("DELETE FROM sessions WHERE name = ? AND digest != ?",
                        (name, digest(keep)))

    def delete(self, name: str) -> None:
        """The account and its personal data (sessions, ratings, rating history) go; the games
        played stay, as records do, and so does the digest of the name's key, so that the
        name is never another's."""
        self.db.execute("DELETE FROM accounts WHERE name = ?", (name,))

    # ----- ratings ------------------------------------------------------------------
    def rating(self, name: str, game: str) -> tuple[Rating, int]:
        row = self.db.execute("SELECT rating, deviation, volatility, games FROM ratings "
                              "WHERE name = ? AND game = ?", (name, game)).fetchone()
        return (Rating(), 0) if row is None else (Rating(*row[:3]), row[3])

    def rate(self, game_id: str, game: str, names: list[str],
             score_first: float) -> list[list[float]] | None:
        """Both players' ratings after the game ``game_id`` (``score_first``: the first
        seat's score), in one transaction: [before, after] for each seat (None when an
        account is gone)."""
        if any(self.canonical(name) is None for name in names):
            return None  # an account deleted meanwhile: its personal data are gone
        (first, played_first), (second, played_second) = (self.rating(n, game) for n in names)
        new = after_game(first, second, score_first)
        now = time.time()
        with self.store.transaction():
            for name, rating, played, score in ((names[0], new[0], played_first, score_first),
                                                (names[1], new[1], played_second,
                                                 1 - score_first)):
                self.db.execute("INSERT INTO rated_games VALUES (?, ?, ?, ?, ?, ?, ?)",
                                (game_id, name, game, now, score, rating.rating,
                                 rating.deviation))
                self.db.execute("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                                "(name, game) DO UPDATE SET rating = excluded.rating, "
                                "deviation = excluded.deviation, volatility = "
                                "excluded.volatility, games = excluded.games",
                                (name, game, *rating, played + 1))
        return [[round(first.rating, 1), round(new[0].rating, 1)],
                [round(second.rating, 1), round(new[1].rating, 1)]]

    def shown_rating(self, name: str | None, game: str) -> str | None:
        """``name``'s rating of ``game`` as shown beside the name ("1662", "1500?" while
        provisional), or None for a guest."""
        if name is None:
            return None
        rating, _ = self.rating(name, game)
        return f"{round(rating.rating)}{'?' if rating.provisional else ''}"

    def profile(self, name: str, recent: int = 20) -> dict:
        """A player's ratings by game, each game's rating history, and recent rated games."""
        found = self.canonical(name)
        if found is None:
            raise NotFoundError(f"no player {name[:40]!r}")
        ratings = {game: _shown(Rating(r, d, v), games) for game, r, d, v, games in
                   self.db.execute("SELECT game, rating, deviation, volatility, games FROM "
                                   "ratings WHERE name = ? ORDER BY game", (found,))}
        history: dict[str, list] = {}
        for game, at, rating in self.db.execute(
                "SELECT game, at, rating FROM rated_games WHERE name = ? ORDER BY at",
                (found,)):
            history.setdefault(game, []).append([at, round(rating, 1)])
        games = [{"id": game_id, "game": game, "score": score, "at": at, "opponent": opponent}
                 for game_id, game, score, at, opponent in self.db.execute(
                     "SELECT mine.game_id, mine.game, mine.score, mine.at, other.name FROM "
                     "rated_games AS mine LEFT JOIN rated_games AS other ON other.game_id = "
                     "mine.game_id AND other.name != mine.name WHERE mine.name = ? "
                     "ORDER BY mine.at DESC LIMIT ?", (found, recent))]
        (bot,) = self.db.execute("SELECT bot FROM accounts WHERE name = ?",
                                 (found,)).fetchone() or (0,)
        return {"name": found, "bot": bool(bot), "ratings": ratings, "history": history,
                "recent": games}

    def leaderboard(self, game: str, count: int = 50, bots: bool = False) -> list[dict]:
        """The best ratings of ``game``: established ones first, then the provisional (shown
        with their mark, not hidden: a new site has nothing else). People's and BOTs'
        (``bots``) are separate boards."""
        return [{"name": name, **_shown(Rating(r, d, v), games)} for name, r, d, v, games in
                self.db.execute("SELECT ratings.name, rating, deviation, volatility, games "
                                "FROM ratings JOIN accounts ON accounts.name = ratings.name "
                                "WHERE game = ? AND accounts.bot = ? AND ratings.name NOT IN "
                                "(SELECT name FROM pupils) ORDER BY deviation > ?, "
                                "rating DESC LIMIT ?", (game, int(bots), PROVISIONAL, count))]


def _shown(rating: Rating, games: int) -> dict:
    return {"rating": round(rating.rating, 1), "rd": round(rating.deviation, 1),
            "volatility": round(rating.volatility, 6), "games": games,
            "provisional": rating.provisional}


def require(name: str | None) -> str:
    if name is None:
        raise UnauthorizedError("log in first (an account is needed for this)",
                                code="log_in_first")
    return name


__all__ = ["Accounts", "NotAllowedError", "UnauthorizedError", "require"]
