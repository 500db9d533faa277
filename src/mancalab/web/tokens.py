"""API tokens and BOT accounts: programs act for an account by a token, never by a cookie.

A token is made on the account page (a logged-in session), shown once, and only its digest is
kept; it carries scopes (``SCOPES``) and is revoked there. An account becomes a BOT by a token
with ``bot:play``, before its first game and for ever (as lichess's upgrade): a BOT plays
through the Bot API (``routes.bots``) and is shown as BOT everywhere.
"""

from __future__ import annotations

import secrets
import time

from .accounts import digest
from .errors import ConflictError, NotAllowedError, NotFoundError, UnauthorizedError

SCOPES = {
    "bot:play": "play as a BOT: its games, moves, seeks; upgrade the account",
    "challenge:read": "read the challenges to the account and its games starting",
    "challenge:write": "challenge players, accept and decline challenges",
}
TOKENS_KEPT = 20  # tokens an account may hold at once
LABEL_LENGTH = 60
USE_PRECISION = 60.0  # seconds: a token's "last used" is written at most this often


class Tokens:
    """The tokens and BOT flags of one site's accounts (in its ``Store``)."""

    def __init__(self, store) -> None:
        self.store = store

    def create(self, name: str, label: str, scopes: list[str]) -> dict:
        """A new token of ``name`` with ``scopes``: its id and the token (shown once)."""
        unknown = sorted(set(scopes) - set(SCOPES))
        if unknown or not scopes:
            raise NotAllowedError(f"scopes are {', '.join(SCOPES)}; not {unknown or 'none'}",
                                  code="bad_scope")
        label = " ".join(str(label).split())[:LABEL_LENGTH] or "token"
        (held,) = self.store.execute("SELECT COUNT(*) FROM tokens WHERE name = ?",
                                     (name,)).fetchone()
        if held >= TOKENS_KEPT:
            raise ConflictError(f"an account holds at most {TOKENS_KEPT} tokens: revoke one",
                                code="too_many_tokens", count=TOKENS_KEPT)
        token, token_id = "mcl_" + secrets.token_urlsafe(32), secrets.token_urlsafe(8)
        scopes = sorted(set(scopes))
        self.store.execute("INSERT INTO tokens VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (digest(token), token_id, name, label, " ".join(scopes),
                            time.time(), None))
        return {"id": token_id, "token": token, "label": label, "scopes": scopes}

    def of(self, name: str) -> list[dict]:
        """The tokens of ``name`` (never the tokens themselves)."""
        return [{"id": token_id, "label": label, "scopes": scopes.split(), "created": created,
                 "used": used}
                for token_id, label, scopes, created, used in self.store.execute(
                    "SELECT id, label, scopes, created, used FROM tokens WHERE name = ? "
                    "ORDER BY created", (name,))]

    def revoke(self, name: str, token_id: str) -> None:
        if not self.store.execute("DELETE FROM tokens WHERE name = ? AND id = ?",
                                  (name, token_id[:40])).rowcount:
            raise NotFoundError(f"no token {token_id[:40]!r} of yours", code="unknown_token")

    def owner(self, authorization: str | None, scopes: tuple[str, ...]) -> str:
        """The account of the ``Authorization: Bearer TOKEN`` header when the token holds
        one of ``scopes``; UnauthorizedError (a 401) for none, an unknown or revoked token,
        or a token without any of them."""
        word, _, token = (authorization or "").partition(" ")
        if word.lower() != "bearer" or not token or len(token) > 100:
            raise UnauthorizedError("send a token: Authorization: Bearer TOKEN (made on your "
                                    "account page)", code="no_token")
        row = self.store.execute("SELECT name, scopes, used FROM tokens WHERE digest = ?",
                                 (digest(token.strip()),)).fetchone()
        if row is None:
            raise UnauthorizedError("this token is not known (revoked, or never made)",
                                    code="bad_token")
        name, held, used = row
        if not set(scopes) & set(held.split()):
            raise UnauthorizedError(f"this token lacks the scope {' or '.join(scopes)}",
                                    code="token_scope", scope=" or ".join(scopes))
        now = time.time()
        if used is None or now - used > USE_PRECISION:
            self.store.execute("UPDATE tokens SET used = ? WHERE digest = ?",
                               (now, digest(token.strip())))
        return name

    # ----- BOT accounts ---------------------------------------------------------------
    def is_bot(self, name: str | None) -> bool:
        if name is None:
            return False
        row = self.store.execute("SELECT bot FROM accounts WHERE name = ?", (name,)).fetchone()
        return bool(row and row[0])

    def upgrade(self, name: str) -> None:
        """Make ``name`` a BOT: only before its first game (ConflictError), for ever."""
        if self.is_bot(name):
            return
        played = self.store.execute(
            "SELECT 1 FROM games WHERE account0 = ? OR account1 = ? LIMIT 1",
            (name, name)).fetchone() or self.store.execute(
            "SELECT 1 FROM rated_games WHERE name = ? LIMIT 1", (name,)).fetchone()
        if played:
            raise ConflictError("an account that has played a game cannot become a BOT: "
                                "make a new account for the bot", code="bot_after_games")
        self.store.execute("UPDATE accounts SET bot = 1 WHERE name = ?", (name,))

    def bot_names(self, names: list[str | None]) -> list[bool]:
        """Which of ``names`` (accounts, None for guests) are BOTs (one query)."""
        bots = self.bots_among(names)
        return [name in bots for name in names]

    def bots_among(self, names) -> set[str]:
        """The BOT accounts among ``names``, asked at once (the lobby's seeks)."""
        wanted = sorted({name for name in names if name is not None})
        if not wanted:
            return set()
        return {name for (name,) in self.store.execute(
            f"SELECT name FROM accounts WHERE bot = 1 AND name IN "
            f"({', '.join('?' * len(wanted))})", tuple(wanted))}
