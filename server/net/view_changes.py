"""The ``view_changes`` feature: an update's view holds only the fields that changed.

A connection that asks for it in ``hello`` gets, in each ``update``, only the
top-level fields of the view that differ from the view it was last sent for
that table in the same game (by an ``update`` or a ``snapshot``); the client
merges them into that view (``docs/protocol.md``, "Optional features").  The
first update it gets of each game, and any update for which this connection
holds no earlier view, carries the whole view.

What was sent is known only here, at the connection: a table's other
connections, a reconnect (a new connection), a snapshot in between all
change it.  So each connection keeps, per table, the whole view it was last
sent (:class:`ViewsSent`), and makes the update it sends from the table's
whole one.  The views of a table's consecutive states share the plain forms
of what did not change (:class:`engine.codec.PlainMemo`), so most fields are
told unchanged by identity.  A frame relayed from another server process is
not read here: it forgets every view, so that the next update is whole.

An update sent to many connections (the spectators') is reduced once for
each distinct view they were last sent (:meth:`protocol.codec.Frame.derived`).
Hidden information: a reduced view is part of the recipient's own view.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel

from protocol.codec import Frame
from protocol.server_messages import Left, Snapshot, TableClosed, Update
from server.net.outbox import Queued

# Final names, read on every move: see compiled.modules.HOT_PATH.
_UPDATE: Final = Update
_SNAPSHOT: Final = Snapshot
_GONE: Final = (TableClosed, Left)

FEATURE: Final = "view_changes"

MAX_TABLES: Final = 64
"""Views kept per connection at most (a connection at more tables forgets them all:
its next update of each is whole)."""


def changed_fields(view: dict[str, Any], last: dict[str, Any]) -> dict[str, Any] | None:
    """The fields of ``view`` that are not the very objects ``last`` holds (the plain
    forms of what did not change are shared: identity tells); None if the two
    have different fields (the whole view must go)."""
    if len(view) != len(last):
        return None
    try:
        return {key: value for key, value in view.items() if last[key] is not value}
    except KeyError:  # as many fields, not the same ones
        return None


class ViewsSent:
    """The whole view a connection was last sent for each table, and the game it
    belongs to; turns each outgoing update into one carrying only what changed."""

    __slots__ = ("_views",)

    def __init__(self) -> None:
        self._views: dict[str, tuple[int, dict[str, Any]]] = {}

    def outgoing(self, message: Queued, kind: type[BaseModel] | None) -> Queued:
        """``message`` (of class ``kind``: :func:`server.net.outbox.kind_of`) as this
        connection sends it (an update reduced to the fields that changed),
        remembering the view it leaves the client with."""
        if kind is None:  # relayed from another process, not read here
            self._views.clear()
            return message
        if kind is _UPDATE and isinstance(message, Frame):
            fields = message.fields
            if fields is not None:  # the hot path: an update made from its fields
                last = self._keep(fields)
                return message if last is None else message.derived(last, _REDUCE)
        inner = message.message if isinstance(message, Frame) else message
        if isinstance(inner, _UPDATE):  # made as a message (not on the hot path)
            fields = dict(inner)
            last = self._keep(fields)
            reduced = None if last is None else _reduce_fields(fields, last)
            return message if reduced is None else reduced
        if isinstance(inner, _SNAPSHOT):
            self._keep({"table": inner.table, "game_no": inner.game_no, "view": inner.view})
        elif isinstance(inner, _GONE):
            self._views.pop(inner.table, None)
        return message

    def _keep(self, fields: dict[str, Any]) -> dict[str, Any] | None:
        """Remember the view of ``fields`` (an update's or a snapshot's); the view sent
        before it in the same game, if any."""
        views = self._views
        table, game_no = fields["table"], fields["game_no"]
        last = views.get(table)
        if last is None and len(views) >= MAX_TABLES:
            views.clear()
        views[table] = (game_no, fields["view"])
        return last[1] if last is not None and last[0] == game_no else None


def _reduce(frame: Frame, last: dict[str, Any]) -> Frame | None:
    """The update ``frame`` (made from its fields) with only what changed since
    ``last`` (None: whole).

    The table notes, with each seat's update, the view that seat was given
    last and the fields that changed since (its :attr:`~protocol.codec.Frame.hint`,
    from :attr:`engine.codec.PlainMemo.changes`): when ``last`` is that very
    view, as it is for a connection that got every update, those are the
    fields to send, and nothing is compared here.
    """
    fields = frame.fields
    if fields is None:  # pragma: no cover - Frame.derived asks only frames with fields
        return None
    hint = frame.hint
    if isinstance(hint, tuple) and hint[0] is last:
        return Frame.of_fields(_UPDATE, {**fields, "view": hint[1]})
    return _reduce_fields(fields, last)


_REDUCE: Final = _reduce
"""The function passed on every update (a Final name: a C static when compiled)."""


def _reduce_fields(fields: dict[str, Any], last: dict[str, Any]) -> Frame | None:
    """The update of ``fields`` with only what changed since ``last`` (None: whole)."""
    changed = changed_fields(fields["view"], last)
    return None if changed is None else Frame.of_fields(_UPDATE, {**fields, "view": changed})
