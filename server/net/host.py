"""What a connection needs of the server that accepted it: :class:`Host`.

:class:`server.net.connection.Connection` depends on this protocol, not on
the server (:class:`server.app.CardaviaServer`, which implements it), so the
server may import the connection and nothing imports the server back (no
import circle in ``server/``: ``tests/server/test_imports.py``).
"""

from __future__ import annotations

from typing import Protocol

from protocol.client_messages import ClientMessage
from server.config import ServerConfig
from server.net.flusher import Flusher
from server.ops.metrics import Metrics
from server.players.quotas import Quotas
from server.players.sessions import Link, Player, Sessions
from server.tables.reach import TableReach


class Host(Protocol):
    """The server as one of its connections sees it (see the module docstring)."""

    @property
    def config(self) -> ServerConfig:
        """The server's settings (the rate limit's, the hello's timeout)."""

    @property
    def metrics(self) -> Metrics:
        """Where the connection's series are recorded."""

    @property
    def sessions(self) -> Sessions:
        """The sessions a hello opens or resumes."""

    @property
    def quotas(self) -> Quotas:
        """The caps a new session is held to."""

    @property
    def flusher(self) -> Flusher:
        """Writes what the connections have queued (:mod:`server.net.flusher`)."""

    @property
    def reach(self) -> TableReach:
        """How a move reaches its table, when its table is here."""

    async def before_hello(self, token: str | None) -> None:
        """Find a session to resume elsewhere (another process's), before the hello."""

    async def after_hello(self, player: Player | None) -> None:
        """Record the session the hello opened or resumed."""

    def resumed(self, player: Player) -> None:
        """A session is back on a new connection: its tables see the player again."""

    async def dispatch(self, player: Player, msg: ClientMessage) -> None:
        """Handle a request that may wait (the lobby's, another process's table's)."""

    def detach(self, player: Player, link: Link) -> None:
        """The connection ended: if it was the player's, their tables start the grace."""
