"""The server's errors, each with its HTTP status, and what the page says of them.

An error the page meets in play carries a ``code``: the page says it in the reader's
language (``error_<code>`` in the language files, ``values`` in its slots) and falls back on
the English ``detail`` for the others. Errors of the rules (``IllegalMoveError``) have their
code by class (``CODES``).
"""

from __future__ import annotations

from ..core import IllegalMoveError, MancalabError, MancalabFailure

CODES = {IllegalMoveError: "illegal_move"}  # mancalab's own errors the page says by class


class Said:
    """An error with a ``code`` for the page (and ``values`` for its slots)."""

    def __init__(self, message: str = "", *, code: str | None = None, **values) -> None:
        super().__init__(message)
        self.code = code
        self.values = values


class InvalidError(Said, MancalabError):
    """Bad input the page says in its own words (a name, a password)."""

    status = 400


class NotAllowedError(Said, MancalabError):
    """A token that does not hold the seat."""

    status = 403


class NotFoundError(Said, MancalabError):
    """No such game, ply, puzzle or lesson step."""

    status = 404


class ConflictError(Said, MancalabError):
    """A request out of turn or for a stale position."""

    status = 409


class UnauthorizedError(Said, MancalabError):
    """No session, or a wrong name or password."""

    status = 401


class BusyError(Said, MancalabFailure):
    """The game's computer is already thinking, or the server's queue is full."""

    status = 429


class FullError(Said, MancalabFailure):
    """The server's storage for games is full."""

    status = 507


def said(error: Exception) -> dict:
    """The JSON answer of ``error``: its English ``detail``, and its ``code`` and ``values``
    where the page has words of its own for it."""
    answer = {"detail": str(error)}
    code = getattr(error, "code", None) or next(
        (code for kind, code in CODES.items() if isinstance(error, kind)), None)
    if code:
        answer.update(code=code, values=getattr(error, "values", {}))
    return answer
