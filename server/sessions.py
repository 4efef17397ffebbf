"""Sessions: who a connection is, across reconnects.

``hello`` opens a session: a public player id, a display name and a secret
token (192 random bits from :mod:`secrets`).  ``hello`` with that token later
re-attaches the player, on a new connection, to every table they were at.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel

from protocol.codec import Frame

NAME_MAX = 24
"""Longest display name, in characters."""


class Link(Protocol):
    """A connection as the rest of the server sees it: fire-and-forget sends."""

    def send(self, message: BaseModel | Frame) -> None:
        """Queue ``message`` (or an already encoded one) for the client (never blocks)."""

    def close(self, code: int, reason: str) -> None:
        """Close the connection soon."""


class NameError_(ValueError):
    """A display name that is refused; the message says why."""


def validate_name(raw: str) -> str:
    """The display name ``raw`` with outer spaces stripped; raise :class:`NameError_`.

    1 to :data:`NAME_MAX` characters, no control or format characters
    (Unicode categories C*), no line or paragraph separators.
    """
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise NameError_("the name is empty")
    if len(name) > NAME_MAX:
        raise NameError_(f"the name is longer than {NAME_MAX} characters")
    for ch in name:
        if unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp"):
            raise NameError_(f"the name holds a control character (U+{ord(ch):04X})")
    return name


@dataclass(eq=False)
class Player:
    """One session: public id, name, secret token, the live link (if any), its tables.

    ``tables`` maps table id to the seat held there (``None``: watching).
    """

    player_id: str
    name: str
    token: str
    link: Link | None = None
    tables: dict[str, int | None] = field(default_factory=dict)
    away_since: float | None = None

    @property
    def connected(self) -> bool:
        """Whether a connection is attached."""
        return self.link is not None

    def send(self, message: BaseModel | Frame) -> None:
        """Send if connected; messages to an absent player are dropped (a reconnect resyncs)."""
        if self.link is not None:
            self.link.send(message)


class Sessions:
    """Every known session, by token and by player id."""

    def __init__(self) -> None:
        self._by_token: dict[str, Player] = {}
        self._by_id: dict[str, Player] = {}

    def open(self, name: str, link: Link) -> Player:
        """A new session for ``name`` (already validated) attached to ``link``."""
        player = Player(
            player_id="p_" + secrets.token_hex(8),
            name=name,
            token=secrets.token_urlsafe(24),
            link=link,
        )
        self._by_token[player.token] = player
        self._by_id[player.player_id] = player
        return player

    def resume(self, token: str) -> Player | None:
        """The session holding ``token``, or ``None``."""
        return self._by_token.get(token)

    def get(self, player_id: str) -> Player | None:
        """The session of ``player_id``."""
        return self._by_id.get(player_id)

    def attach(self, player: Player, link: Link) -> Link | None:
        """Attach ``link``; return the link it replaces (to be closed), if any."""
        old = player.link
        player.link = link
        player.away_since = None
        return old

    def detach(self, player: Player, link: Link, now: float) -> bool:
        """Detach ``link`` if it is still the player's; return whether it was."""
        if player.link is not link:
            return False
        player.link = None
        player.away_since = now
        return True

    def expired(self, now: float, ttl: float) -> list[Player]:
        """Sessions away for longer than ``ttl`` seconds."""
        return [
            p for p in self._by_id.values() if p.away_since is not None and now - p.away_since > ttl
        ]

    def forget(self, player: Player) -> None:
        """Drop a session for good."""
        self._by_token.pop(player.token, None)
        self._by_id.pop(player.player_id, None)

    def __iter__(self) -> Iterator[Player]:
        return iter(list(self._by_id.values()))

    def __len__(self) -> int:
        return len(self._by_id)
