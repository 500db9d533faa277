"""The guard in front of the app: every request body read first, whole and bounded, and
JSON that would pass the models' types but fail later refused with a reason."""

from __future__ import annotations

import json
import math


from .assets import cache_control
from .clients import scope_client
from .thinking import CLIENT


class RequestGuard:
    """Reads every HTTP request body first, whole and bounded, before the app sees it: one
    larger than ``limit`` bytes gets 413 (a declared length or a counted one: chunked bodies
    too), and a JSON body that holds a non-finite number (NaN, Infinity, 1e400), a whole
    number of more than ``DIGITS`` digits or a lone surrogate gets 400 naming it (they would
    pass the models' types and fail later, in a response or in SQLite). The app then reads
    the body from memory. Every answer carries the security headers."""

    def __init__(self, app, limit: int, identify=None) -> None:
        self.app, self.limit = app, limit
        # who a request is for the per-client limits, when not its address (a class's pupil)
        self.identify = identify or (lambda scope, address: address)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            CLIENT.set(self.identify(scope, scope_client(scope)))
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        send = _with_headers(send, scope)
        if scope["method"] == "HEAD":  # answered as GET, without the body
            scope, send = {**scope, "method": "GET"}, _headers_only(send)
        declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > self.limit:
            await _refuse(send, 413, self._too_large())
            return
        chunks, size, more = [], 0, True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.limit:
                await _refuse(send, 413, self._too_large())
                return
            more = message.get("more_body", False)
        body = b"".join(chunks)
        problem = json_problem(body) if body and _json_type(scope) else None
        if problem:
            await _refuse(send, 400, problem)
            return
        delivered = False

        async def replay():
            nonlocal delivered
            if delivered:
                return await receive()  # the disconnect, when it comes
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    def _too_large(self) -> str:
        return (f"the request body is larger than {self.limit:,} bytes (or its length is not a "
                "number)")


DIGITS = 30  # the longest whole number a request may hold (LARGEST has 10)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"), (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),  # the links carry the seats' tokens
]
# the page loads only its own files; the API's page (/docs) runs an inline script
PAGE_POLICY = (b"default-src 'self'; img-src 'self' data:; connect-src 'self' ws: wss:; "
               b"object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
DOCS_POLICY = (b"default-src 'self'; img-src 'self' data:; script-src 'self' 'unsafe-inline'; "
               b"style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")


def _with_headers(send, scope):
    policy = DOCS_POLICY if scope.get("path", "").startswith(("/docs", "/redoc")) \
        else PAGE_POLICY

    # the page's files: kept a year when named by the current version, else asked again
    # (a 304 when unchanged): a school's link downloads a new version, never a stale one
    control = cache_control(scope.get("path", ""), scope.get("query_string", b""))
    extra = [] if control is None else [(b"cache-control", control)]

    async def sending(message):
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *SECURITY_HEADERS,
                                              (b"content-security-policy", policy), *extra]}
        await send(message)

    return sending


def _headers_only(send):
    async def sending(message):
        if message["type"] == "http.response.body":
            message = {**message, "body": b""}
        await send(message)

    return sending


def _json_type(scope) -> bool:
    """Whether the body is read as JSON (FastAPI reads one without a content type so)."""
    kind = dict(scope.get("headers", ())).get(b"content-type", b"")
    return not kind or b"json" in kind


class _Refused(ValueError):
    pass


def _refuse_constant(name: str):
    raise _Refused(f"{name} is not a number here: numbers must be finite")


def _finite(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise _Refused(f"{text} is too large: numbers must be finite")
    return number


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > DIGITS:
        raise _Refused(f"a whole number of {len(text)} digits: at most {DIGITS}")
    return int(text)


def parse_json(text: str):
    """JSON as a request may hold it: finite numbers, whole numbers of at most ``DIGITS``
    digits and valid Unicode only; ValueError (its message for the client) otherwise."""
    value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite,
                       parse_int=_bounded_int)
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as error:
        raise _Refused("the text holds a lone surrogate (\\ud800-\\udfff alone is not a "
                       "character)") from error
    return value


def json_problem(body: bytes) -> str | None:
    """What makes a request's JSON body unacceptable, or None (malformed JSON is left to the
    app, which says where it breaks)."""
    try:
        parse_json(body.decode("utf-8"))
    except UnicodeDecodeError:
        return "the body is not UTF-8 text"
    except _Refused as error:
        return str(error)
    except (ValueError, RecursionError):
        return None
    return None


async def _refuse(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
