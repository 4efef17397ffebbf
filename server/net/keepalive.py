"""Keepalive for all of a server's connections at once: ping the silent, drop the dead.

RFC 6455 5.5.2–5.5.3: a ping asks the peer for a pong.  websockets' own
keepalive runs a task per connection that pings every ``ping_interval``
seconds whatever the peer sends, and waits for each pong with a timer of
its own.  Here anything the peer sends proves it alive (its reads stamp
:attr:`Peer.heard_at`), so a client that plays or pings is never pinged,
and one task (:func:`run`) passes over every connection each :func:`tick`
(at most a second), a slice at a time:

* silent for ``interval`` seconds, no ping out: ping it;
* pinged and still silent ``timeout`` seconds later: drop it (close code
  1011, "keepalive ping timeout", as websockets does).

So a frozen peer (SIGSTOP, a dead network) is dropped within
:func:`detection_bound` seconds of its last word (17 s by default).
One task for all connections, instead of websockets' task per connection,
costs less CPU a move and less memory a connection (``python -m bench.load``;
docs/performance.md, A move through the server).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Literal, Protocol

CLOSE_CODE = 1011
CLOSE_REASON = "keepalive ping timeout"
TICKS_PER_PERIOD = 4
"""Looks per ``min(interval, timeout)``: each adds at most that period / 4 to a detection."""
MAX_TICK = 1.0
"""Seconds between looks at most (each look walks every connection, cheaply)."""
SLICES = 20
"""A look is spread over this many slices of the connections (see :func:`run`)."""


class Peer(Protocol):
    """What the keepalive reads and does of a connection."""

    heard_at: float
    """When the peer last sent anything (``time.monotonic``)."""
    pinged_at: float | None
    """When the outstanding ping went out (None: none is)."""

    def keepalive_ping(self) -> None:
        """Send the peer a ping."""

    def keepalive_drop(self) -> None:
        """Close the connection at once (code :data:`CLOSE_CODE`, :data:`CLOSE_REASON`)."""


Verdict = Literal["ping", "drop"] | None


def tick(interval: float, timeout: float) -> float:
    """Seconds between two looks at the connections."""
    return min(MAX_TICK, min(interval, timeout) / TICKS_PER_PERIOD)


def detection_bound(interval: float, timeout: float) -> float:
    """Seconds at most from a peer's last word to its drop: silent ``interval``, then
    pinged at the next look, then ``timeout`` without an answer, noticed at the next."""
    return interval + timeout + 2 * tick(interval, timeout)


def verdict(peer: Peer, now: float, interval: float, timeout: float) -> Verdict:
    """What ``peer`` needs now; a ping it has answered (by anything) is forgotten here."""
    pinged = peer.pinged_at
    heard = peer.heard_at
    if pinged is not None:
        if heard < pinged:
            return "drop" if now - pinged >= timeout else None
        peer.pinged_at = None  # answered: it spoke after the ping
    return "ping" if now - heard >= interval else None


async def run(
    peers: Callable[[], Iterable[Peer]], interval: float, timeout: float, clock: Callable[[], float]
) -> None:
    """Forever: pass over ``peers()`` every :func:`tick` seconds, ping the silent, drop
    the dead.

    A pass looks at one :data:`SLICES`-th of the connections at a time, a
    slice every ``tick / SLICES`` seconds, so that pings and their pongs come
    spread out (a pass at once pinged hundreds of connections in one callback
    and stalled the loop for milliseconds, since clients that connected
    together fall silent together).
    """
    step = tick(interval, timeout) / SLICES
    while True:
        batch = list(peers())
        size = -(-len(batch) // SLICES)  # ceil: every peer in one of the slices
        for n in range(SLICES):
            await asyncio.sleep(step)
            now = clock()
            for peer in batch[n * size : (n + 1) * size]:
                action = verdict(peer, now, interval, timeout)
                if action == "ping":
                    peer.pinged_at = now
                    peer.keepalive_ping()
                elif action == "drop":
                    peer.keepalive_drop()
