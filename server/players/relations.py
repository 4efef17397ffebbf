"""Whom a session mutes and blocks (issue 54, moderation): plain values.

A mute or block names a *player key*: the account id of a logged-in player
(``a_…``: it holds on every device, kept in the database) or, for an anonymous
one, the session's player id (``p_…``: it lasts as long as that session).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

RELATIONS_MAX = 1000
"""Mutes and blocks one session or account may hold (bounds what a client can store)."""


class RelationKind(StrEnum):
    """What one player does about another."""

    MUTE = "mute"
    """Their chat lines are not delivered to the muter."""
    BLOCK = "block"
    """Quick play never seats the two together (either way round)."""


@dataclass(frozen=True)
class Relations:
    """The player keys a session mutes and blocks."""

    muted: frozenset[str] = frozenset()
    blocked: frozenset[str] = frozenset()

    def with_(self, kind: RelationKind, key: str, on: bool) -> Relations:
        """These relations with ``key`` added to (``on``) or removed from ``kind``'s set."""
        current = self.muted if kind is RelationKind.MUTE else self.blocked
        changed = current | {key} if on else current - {key}
        if kind is RelationKind.MUTE:
            return Relations(muted=changed, blocked=self.blocked)
        return Relations(muted=self.muted, blocked=changed)

    def merged(self, other: Relations) -> Relations:
        """Both sets of mutes and of blocks together."""
        return Relations(muted=self.muted | other.muted, blocked=self.blocked | other.blocked)


def blocks_between(a_key: str, a: Relations, b_key: str, b: Relations) -> bool:
    """Whether either of two players blocks the other (quick play keeps them apart)."""
    return b_key in a.blocked or a_key in b.blocked
