"""Who a client is, for every per-client limit: an IPv4 address, or an IPv6 address's /64
network (one household or one cloud machine is given a whole /64, so counting its addresses
one by one would give it billions of shares)."""

from __future__ import annotations

import functools
import ipaddress
import time

IPV6_PREFIX = 64


@functools.lru_cache(maxsize=65536)
def client_key(host: str | None) -> str | None:
    """The key a client's limits are counted under: ``host`` for IPv4 (an IPv4 address mapped
    into IPv6 too), its /64 network for IPv6, the text itself for anything else."""
    if host is None:
        return None
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    if address.version == 6:
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.ip_network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


class ClassAddresses:
    """The addresses a school's pupils come from: each pupil seen from an address in the last
    ``seconds`` adds ``connections`` and ``sockets`` to what that address may hold open, so
    that a class behind one address is counted as its pupils, not as one stranger. Bounded by
    the classes' sizes (a pupil needs a class's code and a place in it)."""

    connections = 3  # HTTP connections a pupil's page holds at most (and a websocket each)
    sockets = 2
    seconds = 4 * 3600.0

    def __init__(self, keep: int = 10_000) -> None:
        self.keep = keep
        self.pupils: dict[str, dict[str, float]] = {}  # address: pupil: last seen

    def seen(self, address: str | None, pupil: str) -> None:
        if address is None:
            return
        here = self.pupils.setdefault(address, {})
        here[pupil] = time.monotonic()
        if len(self.pupils) > self.keep:  # the longest unseen address goes
            oldest = min(self.pupils, key=lambda a: max(self.pupils[a].values()))
            del self.pupils[oldest]

    def count(self, address: str | None) -> int:
        here = self.pupils.get(address)
        if not here:
            return 0
        now = time.monotonic()
        for pupil in [p for p, at in here.items() if now - at > self.seconds]:
            del here[pupil]
        return len(here)


CLASS_ADDRESSES = ClassAddresses()  # this process's (its connections are its own)


def scope_client(scope) -> str | None:
    """The client key of an ASGI ``scope`` (HTTP or websocket)."""
    client = scope.get("client")
    return client_key(client[0]) if client else None


def admits(held: int, total: int, cap: int, per_client: int, share: int) -> bool:
    """Whether a client holding ``held`` of the ``total`` open (of at most ``cap``) may open
    one more: never beyond ``per_client``, and once three quarters of ``cap`` are open only
    while it holds fewer than ``share`` (so that a few clients cannot take the rest, and a
    newcomer always finds room)."""
    if held >= per_client or total >= cap:
        return False
    return total < cap - cap // 4 or held < share


class Allowance:
    """What each client may spend in a period (a token bucket: ``amount`` at most, refilled
    evenly over ``seconds``), e.g. the moves of the records it loads; at most ``clients``
    clients are tracked (the fullest forgotten first, as they would be refilled anyway)."""

    def __init__(self, amount: int, seconds: float, clients: int = 100_000) -> None:
        self.amount, self.seconds, self.clients = amount, seconds, clients
        self._left: dict[str | None, tuple[float, float]] = {}

    def take(self, client: str | None, amount: int, now: float | None = None) -> float:
        """Spend ``amount`` for ``client``: 0 when it may, else the seconds until it may
        (and nothing is spent)."""
        now = time.monotonic() if now is None else now
        wait, left = self._wait(client, amount, now)
        if wait:
            return wait
        self._left[client] = (left - amount, now)
        if len(self._left) > self.clients:
            del self._left[max(self._left, key=lambda c: self._left[c][0])]
        return 0.0

    def wait(self, client: str | None, amount: int, now: float | None = None) -> float:
        """The seconds until ``client`` may spend ``amount`` (0: now), spending nothing."""
        return self._wait(client, amount, time.monotonic() if now is None else now)[0]

    def _wait(self, client, amount: int, now: float) -> tuple[float, float]:
        return self.refilled(*self._left.get(client, (self.amount, now)), amount, now)

    def refilled(self, left: float, when: float, amount: int, now: float
                 ) -> tuple[float, float]:
        """What was ``left`` at ``when``, refilled until ``now``: (the seconds until
        ``amount`` may be spent, 0 if now; what is left now)."""
        left = min(self.amount, left + (now - when) * self.amount / self.seconds)
        if amount <= left:
            return 0.0, left
        if amount > self.amount:
            return float("inf"), left
        return (amount - left) * self.seconds / self.amount, left


class SharedAllowance(Allowance):
    """An Allowance kept in the store (``kind`` its name), so that every process of a site
    spends from one: a client's allowance is the site's, not multiplied by its processes.
    Times are seconds since the epoch (the processes share no monotonic clock)."""

    def __init__(self, store, kind: str, amount: int, seconds: float) -> None:
        super().__init__(amount, seconds)
        self.store, self.kind = store, kind

    def take(self, client: str | None, amount: int, now: float | None = None) -> float:
        now = time.time() if now is None else now
        with self.store.transaction():
            wait, left = self.refilled(*self._stored(client, now, lock=True), amount, now)
            if wait:
                return wait
            self.store.execute(
                "INSERT INTO allowances VALUES (?, ?, ?, ?) ON CONFLICT (kind, client) DO "
                "UPDATE SET remaining = excluded.remaining, at = excluded.at",
                (self.kind, client or "", left - amount, now))
        return 0.0

    def wait(self, client: str | None, amount: int, now: float | None = None) -> float:
        now = time.time() if now is None else now
        return self.refilled(*self._stored(client, now), amount, now)[0]

    def _stored(self, client: str | None, now: float, lock: bool = False
                ) -> tuple[float, float]:
        row = self.store.execute(
            "SELECT remaining, at FROM allowances WHERE kind = ? AND client = ?"
            + (self.store.for_update if lock else ""), (self.kind, client or "")).fetchone()
        return (self.amount, now) if row is None else row

    def forget_full(self) -> None:
        """Forget the clients whose allowance has refilled (as if never seen)."""
        self.store.execute("DELETE FROM allowances WHERE kind = ? AND at < ?",
                           (self.kind, time.time() - self.seconds))
