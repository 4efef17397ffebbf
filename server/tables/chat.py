"""A table's chat rules: clean text, a length limit, a rate per player."""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.players.names import clean_chat
from server.players.ratelimit import TokenBucket
from server.tables.options import RequestError

CHAT_KEPT = 50
"""Chat lines a table keeps (the last ones), for the operators to read with a ``report``."""


class ChatRules:
    """What a chat line may be at one table, and how often each player may send one."""

    def __init__(self, max_len: int = 300, per_minute: int = 20) -> None:
        self.max_len = max_len
        self.per_minute = per_minute
        self._buckets: dict[str, TokenBucket] = {}

    def line(self, player_id: str, text: str, now: float) -> str:
        """``text`` as it is shown: invisible and bidi characters removed; raises
        :class:`RequestError` for a line that is empty, too long, holds control
        characters, or comes too soon after the player's last ones."""
        try:
            line = clean_chat(text)
        except ValueError:
            raise RequestError(
                ErrorCode.BAD_MESSAGE, "chat lines may not hold control characters"
            ) from None
        if not line:
            raise RequestError(ErrorCode.BAD_MESSAGE, "the chat line is empty")
        if len(line) > self.max_len:
            raise RequestError(
                ErrorCode.BAD_MESSAGE, f"chat lines hold at most {self.max_len} characters"
            )
        bucket = self._buckets.setdefault(
            player_id,
            TokenBucket(rate=self.per_minute / 60.0, burst=min(5, self.per_minute)),
        )
        if not bucket.allow(now):
            raise RequestError(ErrorCode.RATE_LIMITED, "too many chat lines; wait a little")
        return line
