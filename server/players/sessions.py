"""Sessions: who a connection is, across reconnects.

``hello`` opens a session: a public player id, a display name and a secret
token (192 random bits from :mod:`secrets`).  ``hello`` with that token later
re-attaches the player, on a new connection, to every table they were at,
and hands out a fresh token (the old one stops working).

A session without a connection expires after ``session_ttl``, except while
it holds a seat in a game in progress: then it is kept until that game ends
(the AI covers its turns after the grace), up to ``playing_session_ttl``.

A session may be bound to an account (``login``, ``register``:
:mod:`server.players.accounts`); each device logged in has its own session.
A new session may not take a registered name (:attr:`Sessions.name_taken`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

from protocol.codec import Frame
from protocol.errors import ErrorCode
from server.players.names import NAME_MAX, NameError_, validate_name
from server.players.ratelimit import TokenBucket
from server.players.relations import Relations
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.players.accounts import Account

__all__ = ["NAME_MAX", "Link", "NameError_", "Player", "Sessions", "validate_name"]


class Link(Protocol):
    """A connection as the rest of the server sees it: fire-and-forget sends."""

    @property
    def features(self) -> tuple[str, ...]:
        """The optional protocol features its ``hello`` asked for and the server knows."""

    def send(self, message: BaseModel | Frame) -> None:
        """Queue ``message`` (or an already encoded one) for the client (never blocks)."""

    def close(self, code: int, reason: str) -> None:
        """Close the connection soon."""


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
    address: str = ""
    """The client address that opened the session (an IPv6 one as its /64), for quotas."""
    spare_token: str | None = None
    """The token the last resume used: still valid until the new connection sends a
    message after ``welcome`` (so a ``welcome`` lost on the way costs no session)."""
    account: Account | None = None
    """The account this session is logged in to (``None``: anonymous)."""
    relations: Relations = field(default_factory=Relations)
    """Whom this session mutes and blocks (a logged-in one: its account's lists)."""
    reports: TokenBucket | None = None
    """How many more ``report`` requests the session may make now (made at its first)."""
    relayed_at: float | None = None
    """A stand-in's (a player connected to another process, :meth:`server.cluster.bus.Bus.
    stand_in`): when a request or event of theirs last came through (lobby clock)."""

    @property
    def is_stand_in(self) -> bool:
        """A session standing in at this process for a player connected to another
        one (:meth:`server.cluster.bus.Bus.stand_in`): it has no token of its own."""
        return not self.token

    @property
    def key(self) -> str:
        """What mutes and blocks name this player by: the account id when logged in
        (it holds on every device), else the session's player id."""
        return self.account.account_id if self.account is not None else self.player_id

    def ignores(self, sender: str) -> bool:
        """Whether chat from the player with key ``sender`` is kept from this session
        (muted, or blocked: a block mutes too)."""
        relations = self.relations
        return sender in relations.muted or sender in relations.blocked

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
        self.name_taken: Callable[[str], bool] = lambda _: False
        """Whether a name (or a look-alike) belongs to an account: an anonymous
        session may not take it (the app sets it: ``Accounts.taken``)."""

    def open(self, name: str, link: Link, address: str = "") -> Player:
        """A new session for ``name`` (already validated) attached to ``link``;
        ``name_taken`` if an account has that name (nothing changes)."""
        if self.name_taken(name):
            raise RequestError(
                ErrorCode.NAME_TAKEN, "an account has this name: log in to use it, or pick another"
            )
        player = Player(
            player_id="p_" + secrets.token_hex(8),
            name=name,
            token=secrets.token_urlsafe(24),
            link=link,
            address=address,
        )
        self._by_token[player.token] = player
        self._by_id[player.player_id] = player
        return player

    def resume(self, token: str) -> Player | None:
        """The session holding ``token``, or ``None``."""
        return self._by_token.get(token)

    def rotate(self, player: Player, used: str) -> str:
        """Give ``player`` a new token after a resume with ``used``; return the new one.

        Every other old token stops working now; ``used`` stays valid as the
        spare until :meth:`confirm` (the client has shown it got the new one).
        """
        for old in (player.token, player.spare_token):
            if old is not None and old != used:
                self._by_token.pop(old, None)
        player.token = secrets.token_urlsafe(24)
        player.spare_token = used
        self._by_token[player.token] = player
        self._by_token[used] = player
        return player.token

    def confirm(self, player: Player) -> None:
        """The client uses its new connection: the spare token stops working."""
        if player.spare_token is not None:
            self._by_token.pop(player.spare_token, None)
            player.spare_token = None

    def adopt(self, player: Player, *, by_token: bool = True) -> None:
        """Know a session restored from elsewhere (the redis session store), detached;
        ``by_token=False``: a player connected to another process (not resumable here)."""
        if by_token:
            self._by_token[player.token] = player
        self._by_id[player.player_id] = player

    def of_account(self, account_id: str) -> list[Player]:
        """The sessions logged in to ``account_id`` (one per device)."""
        return [p for p in self._by_id.values() if p.account and p.account.account_id == account_id]

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

    def expired(
        self,
        now: float,
        ttl: float,
        playing_ttl: float | None = None,
        in_game: Callable[[Player], bool] = lambda _: False,
    ) -> list[Player]:
        """Sessions to forget: away for longer than ``ttl`` seconds and not seated
        in a running game (``in_game``), or away for longer than ``playing_ttl``."""
        longest = ttl if playing_ttl is None else max(ttl, playing_ttl)
        out = []
        for p in self._by_id.values():
            if p.away_since is None:
                continue
            away = now - p.away_since
            if away > longest or (away > ttl and not in_game(p)):
                out.append(p)
        return out

    def forget(self, player: Player) -> None:
        """Drop a session for good."""
        self._by_token.pop(player.token, None)
        if player.spare_token is not None:
            self._by_token.pop(player.spare_token, None)
        self._by_id.pop(player.player_id, None)

    def __iter__(self) -> Iterator[Player]:
        return iter(list(self._by_id.values()))

    def __len__(self) -> int:
        return len(self._by_id)
