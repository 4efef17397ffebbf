"""Token buckets: how many messages a connection (or chat lines a player) may send;
strikes: how many refusals a connection may collect before it is closed."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class TokenBucket:
    """``rate`` tokens per second refill up to ``burst``; each message takes one."""

    rate: float
    burst: float
    tokens: float = field(default=-1.0)
    stamp: float = 0.0

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst

    def allow(self, now: float) -> bool:
        """Take a token if there is one (refilled up to ``now``)."""
        if now > self.stamp:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


@dataclass
class Strikes:
    """Refused messages that count against a connection, forgiven at ``decay`` per second.

    Each refusal adds one strike; strikes leak away at ``decay`` per second.
    :meth:`add` says when more than ``limit`` have piled up (close the
    connection).  With ``decay`` equal to the message rate, a client whose
    average stays under the rate is never closed whatever its bursts (as long
    as one burst is refused fewer than ``limit`` times), while one sending
    more than twice the rate for long is.
    """

    limit: float
    decay: float
    level: float = 0.0
    stamp: float = 0.0

    def add(self, now: float) -> bool:
        """Count one refusal at ``now``; whether the limit is now exceeded."""
        if now > self.stamp:
            self.level = max(0.0, self.level - (now - self.stamp) * self.decay)
            self.stamp = now
        self.level += 1.0
        return self.level > self.limit
