"""Who a request comes from: the session cookie of an account, or the guest cookie of a
visitor without one (whose seeks and seats are the cookie's).

The session cookie is HttpOnly and SameSite=Lax (Secure behind HTTPS); a request that the
cookie logs in and that changes something must come from this server's own page (its Origin,
when a browser sends one, is this host), so a page of another site cannot act for a player.
"""

from __future__ import annotations

import secrets
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from .accounts import Accounts, digest
from .errors import NotAllowedError

COOKIE = "mancalab_session"
COOKIE_SECONDS = 365 * 24 * 3600
GUEST_COOKIE = "mancalab_guest"  # a visitor without an account: their seeks are the cookie's


def session_token(request: Request) -> str | None:
    return request.cookies.get(COOKIE)


def logged_in(accounts: Accounts, request: Request) -> str | None:
    """The account the request's session cookie logs in, or None; for a request that changes
    something, refused when it comes from another site's page."""
    token = session_token(request)
    if token is None:
        return None
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc != request.headers.get("host"):
            raise NotAllowedError("a page of another site may not act for a logged-in player")
    return accounts.name_of(token)


def set_cookie(request: Request, response: Response, token: str, name: str = COOKIE) -> None:
    response.set_cookie(name, token, max_age=COOKIE_SECONDS, httponly=True, samesite="lax",
                        secure=request.url.scheme == "https", path="/")


def guest_of(request: Request, response: Response | None = None) -> str | None:
    """The digest of the guest cookie that makes a visitor without an account the owner of
    their seeks on every page of the browser: set on ``response`` when there is none yet
    (None without a ``response`` to set it on)."""
    token = request.cookies.get(GUEST_COOKIE)
    if not token or len(token) > 100:
        if response is None:
            return None
        token = secrets.token_urlsafe(32)
        set_cookie(request, response, token, GUEST_COOKIE)
    return digest(token)
