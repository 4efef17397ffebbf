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


class Change:
    """One change of a table's game, as each of its updates tells it: the table, the
    game and the version it brought the table to, who acted (seat, and ``by``, or
    None: the game's start), the turn timer, and the requester its update answers.

    ``asker``: the player whose request made the change and who asked for the
    answer in its update (the ``update_ref`` feature): that player's update
    carries ``ref``.  Not a dataclass (see :class:`server.tables.values.Effects`).
    """

    __slots__ = ("actor", "asker", "by", "game_no", "ref", "table", "timer", "version")

    def __init__(
        self,
        table: str,
        game_no: int,
        version: int,
        actor: int | None,
        by: ActedBy | None,
        timer: float | None,
        asker: str | None = None,
        ref: int | None = None,
    ) -> None:
        self.table: Final = table
        self.game_no: Final = game_no
        self.version: Final = version
        self.actor: Final = actor
        self.by: Final = by
        self.timer: Final = timer
        self.asker: Final = asker
        self.ref: Final = ref


class UpdateBuilder:
    """Builds one table's updates; keeps the views' plain forms between changes.

    Each event is converted once, each view once per seat, and what the views
    share (the table, tricks, scores) once for all; what the last change left
    alone is not converted again (:class:`~engine.codec.PlainMemo`: each field
    compared by identity with the same seat's last view and the view before it).
    """

    def __init__(self) -> None:
        self._views = PlainMemo()

    def updates(
        self,
        game: Game[Any, Any, Any, Any],
        state: Any,
        events: Iterable[Event],
        change: Change,
        humans: Sequence[tuple[int, str]],
        spectators: Collection[str],
    ) -> list[Out]:
        """An ``update`` of ``change`` for each seated human ``(seat, player id)`` and
        one shared by every spectator, each with the view of ``state`` and the
        ``events`` its position may see."""
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
        asker = change.asker
        outs: list[Out] = [
            (
                pid,
                _update(
                    change,
                    seat,
                    shared if shared is not None else _visible(converted, seat),
                    view,
                    pid == asker,
                    since,
                ),
            )
            for (seat, pid), view, since in zip(humans, views, changes, strict=False)
        ]
        if spectators:
            public = shared if shared is not None else _visible(converted, None)
            watched = _update(change, None, public, views[-1], False, changes[-1])
            outs.extend((pid, watched) for pid in spectators)
        return outs


def _visible(
    converted: list[tuple[Event, dict[str, Any]]], seat: int | None
) -> tuple[dict[str, Any], ...]:
    """The plain events ``seat`` may see (``None``: a spectator)."""
    return tuple(plain for e, plain in converted if e.visible_to(seat))


def _update(
    change: Change,
    seat: int | None,
    events: tuple[dict[str, Any], ...],
    view: dict[str, Any],
    answers: bool,
    since: tuple[dict[str, Any], dict[str, Any]] | None,
) -> Frame:
    """The update of ``change`` for ``seat``: its view, the events it may see and,
    if it ``answers`` the request that made the change, that request's ``ref``.

    Built from values the table made itself, so not validated again (tests
    check that it encodes as a validated one does), and encoded at once: the
    frame goes out as it is, the message is made only if asked for (:class:`Frame`).
    ``since``: the view this position was given last and what changed since
    (:attr:`engine.codec.PlainMemo.changes`), noted on the frame for
    :mod:`server.net.view_changes`.
    """
    # every field of Update in declaration order (see protocol.codec.unchecked)
    fields = {
        "type": "update",
        "table": change.table,
        "game_no": change.game_no,
        "version": change.version,
        "seat": seat,
        "actor": change.actor,
        "by": change.by,
        "events": events,
        "view": view,
        "timer_s": change.timer,
        "ref": change.ref if answers else None,
    }
    return Frame.of_fields(_UPDATE, fields, since)
