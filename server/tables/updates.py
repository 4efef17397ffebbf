"""A table's ``update`` messages: what each seat and the spectators see after a change.

Information rules: each seat receives only ``game.view(state, seat)`` and the
events whose audience includes it; spectators receive the spectator view and
the public events, as one message shared by all of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Any, Final

from engine.codec import PlainMemo, to_plain
from engine.game import Event, Game
from protocol.codec import Frame
from protocol.server_messages import Update
from server.tables.values import ActedBy, Out

# Final names, read on every move: see compiled.modules.HOT_PATH.
_UPDATE: Final = Update


def plain_event(event: Event) -> dict[str, Any]:
    """The wire form of an event: ``{"kind": ..., "data": {...}}`` (no audience)."""
    return {"kind": event.kind, "data": to_plain(event.data)}


class UpdateBuilder:
    """Builds one table's updates; keeps the views' plain forms between changes.

    Each event is converted once, each view once per seat, and what the views
    share (the table, tricks, scores) once for all; what the last change left
    alone is not converted again (:class:`~engine.codec.PlainMemo`: each field
    compared by identity with the same seat's last view and the view before it).
    """

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self._views = PlainMemo()

    def updates(
        self,
        game: Game[Any, Any, Any, Any],
        state: Any,
        events: Iterable[Event],
        *,
        humans: Sequence[tuple[int, str]],
        spectators: Collection[str],
        game_no: int,
        version: int,
        actor: int | None,
        by: ActedBy | None,
        timer: float | None,
        answer: tuple[str, int | None] | None = None,
    ) -> list[Out]:
        """An ``update`` for each seated human ``(seat, player id)`` and one shared by
        every spectator; ``answer`` ``(player id, ref)``: that player's update carries
        ``ref``, answering its request (the ``update_ref`` feature)."""
        converted = [(e, plain_event(e)) for e in events]
        # most changes have only public events: one tuple of them for every update
        shared = (
            tuple(plain for _, plain in converted)
            if all(e.audience is None for e, _ in converted)
            else None
        )
        seats: list[int | None] = [seat for seat, _ in humans]
        if spectators:
            seats.append(None)
        memo = self._views
        views = memo.convert([game.view(state, seat) for seat in seats])
        changes = memo.changes  # what changed since each position's last view
        asker, ref = answer if answer is not None else (None, None)
        table = self.table_id
        outs: list[Out] = [
            (
                pid,
                _update(
                    table, game_no, version, actor, by, timer, seat,
                    shared if shared is not None else _visible(converted, seat),
                    view, ref if pid == asker else None, change,
                ),
            )
            for (seat, pid), view, change in zip(humans, views, changes, strict=False)
        ]  # fmt: skip
        if spectators:
            public = shared if shared is not None else _visible(converted, None)
            watched = _update(
                table, game_no, version, actor, by, timer, None, public, views[-1], None,
                changes[-1],
            )  # fmt: skip
            outs.extend((pid, watched) for pid in spectators)
        return outs


def _visible(
    converted: list[tuple[Event, dict[str, Any]]], seat: int | None
) -> tuple[dict[str, Any], ...]:
    """The plain events ``seat`` may see (``None``: a spectator)."""
    return tuple(plain for e, plain in converted if e.visible_to(seat))


def _update(
    table: str,
    game_no: int,
    version: int,
    actor: int | None,
    by: ActedBy | None,
    timer: float | None,
    seat: int | None,
    events: tuple[dict[str, Any], ...],
    view: dict[str, Any],
    ref: int | None,
    change: tuple[dict[str, Any], dict[str, Any]] | None,
) -> Frame:
    """The update of ``seat``: its view, the events it may see and the ``ref`` it answers.

    Built from values the table made itself, so not validated again (tests
    check that it encodes as a validated one does), and encoded at once: the
    frame goes out as it is, the message is made only if asked for (:class:`Frame`).
    ``change``: the view this position was given last and what changed since
    (:attr:`engine.codec.PlainMemo.changes`), noted on the frame for
    :mod:`server.net.view_changes`.
    """
    # every field of Update in declaration order (see protocol.codec.unchecked)
    fields = {
        "type": "update",
        "table": table,
        "game_no": game_no,
        "version": version,
        "seat": seat,
        "actor": actor,
        "by": by,
        "events": events,
        "view": view,
        "timer_s": timer,
        "ref": ref,
    }
    return Frame.of_fields(_UPDATE, fields, change)
