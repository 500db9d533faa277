"""Running the server on uvicorn with bounds on connections, so that no visitor can take the
server's open files, its memory or its time: a cap on connections in all and from one client
(an address, an IPv6 /64), a quarter of them kept for clients holding few, a deadline for a
request's head and one for its body with a floor on the body's rate (a connection that sends
half a request, or a body a byte at a time, is cut), the same for what the server writes (a
client that does not read its answers is cut, and no longer counted), a short keep-alive, a
small websocket frame refused by the protocol before it is read whole, websockets pinged and
dropped when they do not answer, and forwarded addresses believed only from the proxies the
operator names."""

from __future__ import annotations

import contextlib
import resource
import time
from collections import Counter

import uvicorn
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.h11_impl import H11Protocol

from .clients import CLASS_ADDRESSES, admits, client_key
from .thinking import Limits

BODY_GRACE = 1.0  # seconds of a body before its rate is checked
BODY_TICK = 1.0  # seconds between two checks of a body's progress
WRITE_TICK = 1.0  # seconds between two checks that the client takes what is written to it
WRITE_GRACE = 1.0  # seconds the writes may stand still before their rate is checked
PING_SECONDS = 20.0  # a websocket is pinged this often, and dropped when its pong is this late
CUT = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\ncontent-length: 47\r\n"
       b"connection: close\r\n\r\nthe request did not arrive in time; send again\n")
FULL = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\nretry-after: 5\r\n"
        b"content-length: 42\r\nconnection: close\r\n\r\nthe server is full; try again in a moment\n")


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the caps on connections (``admits``), a deadline for
    each request's head, a deadline and a floor rate for its body, and the same for the
    client's reading of what is written to it. A websocket, once upgraded, is counted by the
    app (``Limits.client_sockets``, ``Limits.sockets``)."""

    limits = Limits()
    trusted = _TrustedHosts([])  # proxies whose connections carry many clients
    open_by_client: Counter = Counter()
    open_total = 0

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        peer = self.client[0] if self.client else None
        self._key = client_key(peer)
        self._counted = False
        self._timer = None
        self._phase = "head"
        self._bytes_in = 0
        limits = self.limits
        proxy = peer is not None and peer in GuardedProtocol.trusted
        held = 0 if proxy else GuardedProtocol.open_by_client[self._key]
        pupils = CLASS_ADDRESSES.count(self._key)  # a class behind one address: its pupils
        if not admits(held, GuardedProtocol.open_total, limits.connections,
                      limits.client_connections + pupils * CLASS_ADDRESSES.connections,
                      limits.share_connections + pupils * CLASS_ADDRESSES.connections):
            transport.write(FULL)
            transport.close()
            return
        self._counted = True
        GuardedProtocol.open_by_client[self._key] += 1
        GuardedProtocol.open_total += 1
        self._owed_since = self._owed_bytes = None
        self._write_timer = self.loop.call_later(WRITE_TICK, self._write_tick)
        self._await_head(self.scope)

    # ----- the head: it must arrive within head_seconds ---------------------------------
    def _await_head(self, last_scope) -> None:
        self._phase, self._waiting = "head", last_scope
        self._arm(self.limits.head_seconds, self._head_late)

    def _head_late(self) -> None:
        self._timer = None
        if self._phase == "head" and self.scope is self._waiting:
            self._cut()

    # ----- the body: within body_seconds, never slower than body_rate ---------------------
    def data_received(self, data: bytes) -> None:
        self._bytes_in += len(data)
        super().data_received(data)
        self._follow()

    def _follow(self) -> None:
        """Move on from the head to the body, and from the body to the app's answer, as the
        request arrives (several pipelined requests may be handled at once)."""
        if self.transport.is_closing():
            return
        if self._phase == "head" and self.scope is not self._waiting:
            self._phase = "app"
            self._cancel_timer()
            if self._body_coming():
                self._phase = "body"
                self._body_since, self._body_bytes = time.monotonic(), self._bytes_in
                self._arm(BODY_TICK, self._body_tick)
        elif self._phase == "body" and not self._body_coming():
            self._phase = "app"
            self._cancel_timer()

    def _body_coming(self) -> bool:
        cycle = self.cycle
        return (cycle is not None and cycle.scope is self.scope and cycle.more_body
                and not cycle.response_complete)

    def _body_tick(self) -> None:
        self._timer = None
        if self._phase != "body" or self.transport.is_closing():
            return
        if not self._body_coming():
            self._phase = "app"
            return
        elapsed = time.monotonic() - self._body_since
        arrived = self._bytes_in - self._body_bytes
        if elapsed > self.limits.body_seconds or \
                arrived < self.limits.body_rate * (elapsed - BODY_GRACE):
            self._cut()
        else:
            self._arm(BODY_TICK, self._body_tick)

    # ----- the writes: taken within write_seconds, never slower than write_rate -----------
    def _write_tick(self) -> None:
        """Cut a client that leaves what is written to it unread: the bytes waiting to be
        sent must all go within ``write_seconds``, at ``write_rate`` or faster after the
        first ``WRITE_GRACE`` seconds. The cut drops the bytes (``abort``): a plain close
        would wait for them for ever, and the connection would stay counted."""
        self._write_timer = None
        waiting = self.transport.get_write_buffer_size()
        now = time.monotonic()
        if waiting == 0:
            self._owed_since = None
        elif self._owed_since is None:
            self._owed_since, self._owed_bytes = now, waiting
        else:
            self._owed_bytes = max(self._owed_bytes, waiting)  # the most owed: a new answer
            elapsed = now - self._owed_since
            taken = self._owed_bytes - waiting
            if elapsed > self.limits.write_seconds or (
                    elapsed > WRITE_GRACE and
                    taken < self.limits.write_rate * (elapsed - WRITE_GRACE)):
                self.transport.abort()
                return
        self._write_timer = self.loop.call_later(WRITE_TICK, self._write_tick)

    def on_response_complete(self) -> None:
        answered = self.scope
        super().on_response_complete()  # may start a pipelined request
        if not self.transport.is_closing():
            self._await_head(answered)
            self._follow()

    # ----- the rest ------------------------------------------------------------------------
    def _arm(self, seconds: float, then) -> None:
        self._cancel_timer()
        self._timer = self.loop.call_later(seconds, then)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _cut(self) -> None:
        """Close a connection whose request is late, with a 408 when nothing was answered."""
        if self.transport.is_closing():
            return
        if self.cycle is None or self.cycle.scope is not self.scope or \
                not self.cycle.response_started:
            self.transport.write(CUT)
        self.transport.close()

    def handle_websocket_upgrade(self, event) -> None:
        self._cancel_timer()
        self._cancel_write_timer()
        self._phase = "socket"
        self._uncount()
        super().handle_websocket_upgrade(event)

    def _cancel_write_timer(self) -> None:
        if getattr(self, "_write_timer", None) is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def connection_lost(self, exc) -> None:
        self._cancel_timer()
        self._cancel_write_timer()
        self._uncount()
        super().connection_lost(exc)

    def _uncount(self) -> None:
        if self._counted:
            self._counted = False
            GuardedProtocol.open_total -= 1
            GuardedProtocol.open_by_client[self._key] -= 1
            if GuardedProtocol.open_by_client[self._key] <= 0:
                del GuardedProtocol.open_by_client[self._key]


def raise_open_files(wanted: int) -> int:
    """Raise the soft limit on open files towards ``wanted`` (at most the hard limit): a
    server holds a file for each connection. The limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def config(application, host: str, port: int, limits: Limits) -> uvicorn.Config:
    """uvicorn's settings for ``application`` under ``limits``: forwarded addresses are
    believed only from ``limits.forwarded_allow_ips`` (none unless the operator names them)."""
    GuardedProtocol.limits = limits
    proxies = [p.strip() for p in limits.forwarded_allow_ips.split(",") if p.strip()]
    GuardedProtocol.trusted = _TrustedHosts(proxies)
    return uvicorn.Config(application, host=host, port=port, log_level="warning",
                          http=GuardedProtocol, ws="websockets-sansio",
                          ws_max_size=limits.ws_frame_bytes,
                          # a websocket that does not answer a ping (it does not read) goes
                          ws_ping_interval=PING_SECONDS, ws_ping_timeout=PING_SECONDS,
                          # the HTTP connections are capped above, the websockets by the app:
                          # uvicorn's own 503 is the last guard over both
                          limit_concurrency=limits.connections + limits.sockets,
                          timeout_keep_alive=limits.keep_alive,
                          timeout_graceful_shutdown=limits.stop_seconds,
                          h11_max_incomplete_event_size=limits.head_bytes,
                          proxy_headers=bool(proxies), forwarded_allow_ips=proxies or None)


def run(application, host: str, port: int, limits: Limits) -> None:
    """Serve ``application`` until Ctrl-C, with room for every connection's open file."""
    raise_open_files(limits.connections + limits.sockets + 256)  # the database, the engines
    uvicorn.Server(config(application, host, port, limits)).run()
