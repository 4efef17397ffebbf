"""Reaching one of this process's tables by its id: the lobby's part of the hot path.

Every move names its table; the connection that read it hands it here
(:meth:`TableReach.request`), which finds the table the player may reach
(:meth:`TableReach.find`: ``not_found`` otherwise, a private table's invite
checked) and queues the move on its actor as its command
(:func:`server.tables.commands.command_of`).  A request that came from
another process (:mod:`server.cluster.bus`) takes the same way.  Compiled with the hot path
(:data:`compiled.modules.HOT_PATH`), a move reaches its table without a call
into interpreted code; the lobby (:mod:`server.lobby`) keeps the tables and
finds them through the same :class:`TableReach`.
"""

from __future__ import annotations

import secrets

from protocol.errors import ErrorCode
from server.players.sessions import Player
from server.tables.actor import TableActor
from server.tables.commands import TableRequest, command_of
from server.tables.options import RequestError


class TableReach:
    """This process's tables by id (the lobby's own dict), and how a request reaches one."""

    def __init__(self, tables: dict[str, TableActor]) -> None:
        self.tables = tables
        self.clustered = False
        """Whether other processes hold tables too (then a move for a table that is
        not here goes over the bus: :mod:`server.cluster.bus`)."""

    def here(self, table_id: str) -> bool:
        """Whether a move for ``table_id`` is this process's to handle at once: its
        table is here, or no other process holds tables (then ``not_found``)."""
        return not self.clustered or table_id in self.tables

    def find(self, player: Player, table_id: str, invite: str | None = None) -> TableActor:
        """The table ``table_id`` if the player may reach it; else ``not_found``.

        A private table needs its invite code unless the player is already at it.
        """
        actor = self.tables.get(table_id)
        if actor is None or actor.closed:
            raise RequestError(ErrorCode.NOT_FOUND, f"no table {table_id!r}")
        core = actor.core
        if (
            core.setup.options.private
            and not core.is_member(player.player_id)
            and (
                invite is None
                or core.invite is None
                or not secrets.compare_digest(invite.encode(), core.invite.encode())
            )
        ):
            raise RequestError(ErrorCode.NOT_FOUND, f"no table {table_id!r}")
        return actor

    def request(self, player: Player, msg: TableRequest) -> None:
        """Queue ``msg`` on its table's actor as its command (``not_found`` if the table
        is unreachable).  A move, or the rematch vote every seated human sends after
        each game, is handled at once by a table that is idle
        (:meth:`~server.tables.actor.TableActor.submit`)."""
        self.find(player, msg.table).submit(command_of(player, msg))
