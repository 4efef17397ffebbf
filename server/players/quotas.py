"""Per-address and per-session caps, sans I/O: the ledger and the checks.

What is capped (each by the :class:`~server.config.ServerConfig` setting
named in the refusal's ``detail``; per-address caps of 0 mean no cap):

- open connections per client address (``max_connections_per_address``),
  and how fast an address opens new ones (``connect_rate_per_address`` per
  second, in bursts up to the connection cap): a client cut off cannot
  reconnect in a tight loop; a session has at most one connection anyway (a
  resume closes the old one);
- live sessions per address (``max_sessions_per_address``): opened from it
  and not yet expired;
- open tables a session, or an address, has created
  (``max_created_tables_per_session``, ``max_created_tables_per_address``),
  and of those the ones still waiting for players
  (``max_waiting_tables_per_session``, ``max_waiting_tables_per_address``);
- tables a session, or an address, watches as a spectator
  (``max_watched_tables_per_session``, ``max_watched_tables_per_address``).

Spectators per table (``max_spectators_per_table``) are counted by the
table itself (:mod:`server.tables.core`).  Every refusal is a
:class:`~server.tables.options.RequestError` with code ``quota_exceeded``.

The client address is the TCP peer's, or, when the peer is one of the
``trusted_proxies``, the one its ``X-Forwarded-For`` header names
(:func:`client_address`).  IPv6 clients are counted by their /64 network
(:func:`address_group`): one subscriber line usually holds a whole /64, so
counting single addresses would let one client take billions of them.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from protocol.errors import ErrorCode
from server.config import Network, ServerConfig
from server.players.ratelimit import TokenBucket
from server.players.sessions import Player
from server.tables.options import RequestError

_BUCKETS_PRUNE_AT = 4096
"""Connect-rate buckets kept before the refilled ones are dropped."""


def _trusted(address: str, networks: Iterable[Network]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in networks)


def address_group(address: str) -> str:
    """What quotas count ``address`` as: an IPv4 address itself, an IPv6 one by its
    /64 network (an IPv4-mapped one as the IPv4 address); anything else as is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def client_address(peer: str, forwarded_for: str | None, trusted: tuple[Network, ...]) -> str:
    """Who the client is: ``peer``, unless ``peer`` is a trusted proxy.

    Behind trusted proxies the ``X-Forwarded-For`` list is read from the
    right (each proxy appends the address it saw) and the first address that
    is not itself a trusted proxy is the client's.  A header from an
    untrusted peer is ignored (anyone can send one).
    """
    if not trusted or not forwarded_for or not _trusted(peer, trusted):
        return peer
    hops = [h.strip() for h in forwarded_for.split(",") if h.strip()]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return peer  # a malformed hop: fall back to what we know
        if not _trusted(hop, trusted):
            return hop
    return hops[0] if hops else peer


def _refuse(setting: str, what: str) -> RequestError:
    return RequestError(ErrorCode.QUOTA_EXCEEDED, what, detail=setting)


@dataclass(frozen=True)
class _Created:
    player_id: str
    address: str


class Quotas:
    """The ledger of connections, sessions and created tables, and the caps on them.

    ``is_waiting(table_id)`` says whether a created table still waits for
    players (a table that is being created counts as waiting).
    """

    def __init__(
        self, config: ServerConfig, is_waiting: Callable[[str], bool] = lambda _: True
    ) -> None:
        self.config = config
        self.is_waiting = is_waiting
        self._connections: dict[str, int] = {}
        self._connects: dict[str, TokenBucket] = {}
        self._pruned_at = float("-inf")
        self._sessions: dict[str, set[Player]] = {}
        self._created: dict[str, _Created] = {}

    # -- connections -----------------------------------------------------------
    def connect(self, address: str, now: float = 0.0) -> None:
        """Count a new connection from ``address`` at ``now``; raise if that is one too
        many, or if the address opens connections faster than ``connect_rate_per_address``
        (in bursts up to ``max_connections_per_address``)."""
        cap = self.config.max_connections_per_address
        if cap and self._connections.get(address, 0) >= cap:
            raise _refuse(
                "max_connections_per_address", f"{cap} connections from your address already"
            )
        rate = self.config.connect_rate_per_address
        if rate:
            bucket = self._connects.get(address)
            if bucket is None:
                if len(self._connects) >= _BUCKETS_PRUNE_AT and now - self._pruned_at >= 1.0:
                    self._prune(now)
                burst = max(1, cap or 50)
                bucket = self._connects[address] = TokenBucket(rate, burst, stamp=now)
            if not bucket.allow(now):  # refused attempts take no token: a loop waits it out
                raise _refuse(
                    "connect_rate_per_address",
                    f"your address opens connections too fast ({rate:g}/s); wait a little",
                )
        self._connections[address] = self._connections.get(address, 0) + 1

    def _prune(self, now: float) -> None:
        """Forget the connect buckets that have refilled (they hold no information)."""
        self._pruned_at = now
        for address, bucket in list(self._connects.items()):
            if bucket.tokens + (now - bucket.stamp) * bucket.rate >= bucket.burst:
                del self._connects[address]

    def disconnect(self, address: str) -> None:
        """A connection counted by :meth:`connect` ended."""
        left = self._connections.get(address, 0) - 1
        if left > 0:
            self._connections[address] = left
        else:
            self._connections.pop(address, None)

    def connections(self, address: str) -> int:
        """Open connections from ``address``."""
        return self._connections.get(address, 0)

    # -- sessions --------------------------------------------------------------
    def check_session(self, address: str) -> None:
        """Raise if ``address`` may not open another session."""
        cap = self.config.max_sessions_per_address
        if cap and len(self._sessions.get(address, ())) >= cap:
            raise _refuse(
                "max_sessions_per_address",
                f"{cap} sessions from your address already; resume one with its token",
            )

    def add_session(self, player: Player) -> None:
        """Count ``player``'s session against its address."""
        self._sessions.setdefault(player.address, set()).add(player)

    def drop_session(self, player: Player) -> None:
        """The session expired."""
        held = self._sessions.get(player.address)
        if held is not None:
            held.discard(player)
            if not held:
                del self._sessions[player.address]

    def sessions(self, address: str) -> int:
        """Live sessions opened from ``address``."""
        return len(self._sessions.get(address, ()))

    # -- tables created --------------------------------------------------------
    def reserve_table(self, table_id: str, player: Player) -> None:
        """Count a table ``player`` is creating; raise if it is one too many."""
        config = self.config
        mine = [t for t, c in self._created.items() if c.player_id == player.player_id]
        ours = [t for t, c in self._created.items() if c.address == player.address]
        checks = (
            (mine, config.max_created_tables_per_session, "max_created_tables_per_session", "you"),
            (
                ours,
                config.max_created_tables_per_address,
                "max_created_tables_per_address",
                "your address",
            ),
        )
        for tables, cap, setting, who in checks:
            if cap and len(tables) >= cap:
                raise _refuse(setting, f"{who} created {cap} open tables already")
        waits = (
            (mine, config.max_waiting_tables_per_session, "max_waiting_tables_per_session", "you"),
            (
                ours,
                config.max_waiting_tables_per_address,
                "max_waiting_tables_per_address",
                "your address",
            ),
        )
        for tables, cap, setting, who in waits:
            if cap and sum(1 for t in tables if self.is_waiting(t)) >= cap:
                raise _refuse(setting, f"{who} created {cap} tables that wait for players already")
        self._created[table_id] = _Created(player.player_id, player.address)

    def drop_table(self, table_id: str) -> None:
        """The table closed (or was never made)."""
        self._created.pop(table_id, None)

    def created(self, player: Player) -> list[str]:
        """Open tables ``player`` created."""
        return [t for t, c in self._created.items() if c.player_id == player.player_id]

    # -- watching --------------------------------------------------------------
    def check_watch(self, player: Player) -> None:
        """Raise if ``player`` may not watch one more table."""
        mine = _watched(player)
        cap = self.config.max_watched_tables_per_session
        if mine >= cap:
            raise _refuse("max_watched_tables_per_session", f"you watch {cap} tables already")
        cap = self.config.max_watched_tables_per_address
        if cap and sum(_watched(p) for p in self._sessions.get(player.address, ())) >= cap:
            raise _refuse(
                "max_watched_tables_per_address", f"your address watches {cap} tables already"
            )


def _watched(player: Player) -> int:
    return sum(1 for seat in player.tables.values() if seat is None)
