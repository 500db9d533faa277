"""Running the server on uvicorn with bounds on connections, so that no visitor can take the
server's open files or its memory: a cap on connections in all and from one address, a
deadline for a request's head (a connection that sends half a request and stalls is closed),
a short keep-alive, and a small websocket frame, refused by the protocol before it is read
whole."""

from __future__ import annotations

import contextlib
import resource
from collections import Counter

import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from .thinking import Limits


class GuardedProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with a cap on connections per client address and a
    deadline for each request's head. A websocket, once upgraded, is counted by the app
    (``Limits.client_sockets``)."""

    per_client = Limits.client_connections
    head_seconds = Limits.head_seconds
    open_by_client: Counter = Counter()

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._host = self.client[0] if self.client else None
        self._counted = True
        self._head_timer = None
        GuardedProtocol.open_by_client[self._host] += 1
        if GuardedProtocol.open_by_client[self._host] > self.per_client:
            transport.close()
            return
        self._await_head()

    def _await_head(self) -> None:
        """Close the connection unless a new request's head arrives in ``head_seconds``."""
        self._cancel_head_timer()
        waiting_since = self.scope
        self._head_timer = self.loop.call_later(self.head_seconds, self._head_late,
                                                waiting_since)

    def _head_late(self, waiting_since) -> None:
        if self.scope is waiting_since and not self.transport.is_closing():
            self.transport.close()

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

    def handle_websocket_upgrade(self, event) -> None:
        self._cancel_head_timer()
        self._uncount()
        super().handle_websocket_upgrade(event)

    def connection_lost(self, exc) -> None:
        self._cancel_head_timer()
        self._uncount()
        super().connection_lost(exc)

    def _uncount(self) -> None:
        if self._counted:
            self._counted = False
            GuardedProtocol.open_by_client[self._host] -= 1
            if GuardedProtocol.open_by_client[self._host] <= 0:
                del GuardedProtocol.open_by_client[self._host]


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
    """uvicorn's settings for ``application`` under ``limits``."""
    GuardedProtocol.per_client = limits.client_connections
    GuardedProtocol.head_seconds = limits.head_seconds
    return uvicorn.Config(application, host=host, port=port, log_level="warning",
                          http=GuardedProtocol, ws="websockets-sansio",
                          ws_max_size=limits.ws_frame_bytes,
                          limit_concurrency=limits.connections,
                          timeout_keep_alive=limits.keep_alive,
                          h11_max_incomplete_event_size=limits.head_bytes)


def run(application, host: str, port: int, limits: Limits) -> None:
    """Serve ``application`` until Ctrl-C, with room for ``limits.connections`` open files."""
    raise_open_files(limits.connections + 256)  # the database, the cache and the engines too
    uvicorn.Server(config(application, host, port, limits)).run()
