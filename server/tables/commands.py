"""The commands a table's actor handles, one class each (:class:`TableCommand`).

Every change to a table reaches its actor (:mod:`server.tables.actor`) as one
of these values; the actor dispatches on the class, and the type checker
holds it to handling each (a class added to :data:`TableCommand` and not
handled is an error in ``mypy``, at the dispatch, before anything runs).
:func:`command_of` is the one place a client's request for a table becomes
its command, whichever way it arrived (a connection here, the bus from
another process).

Not dataclasses: compiled (:data:`compiled.modules.HOT_PATH`), a dataclass's
``__init__`` is the interpreted one :mod:`dataclasses` writes, where a
hand-written one is native; a move makes one per request.  Their fields are
``Final`` (never reassigned); ``kind`` names the command in the logs.
"""

from __future__ import annotations

import time
from typing import Any, Final, Never, NoReturn, TypeAlias

from protocol import client_messages as cm
from server.players.sessions import Player
from server.tables.values import AiTurn

_perf_counter: Final = time.perf_counter
"""Read on every move (a Final name: compiled, a C static, not two lookups)."""
_ACT: Final = cm.Act
_REMATCH: Final = cm.Rematch


# -- a player's requests: answered to the player, ``ref`` echoed ------------------
class _Asked:
    """What every request but a move holds: who asks, and the ``ref`` of the answer."""

    __slots__ = ("player", "ref")

    def __init__(self, player: Player, ref: int | None) -> None:
        self.player: Final = player
        self.ref: Final = ref


class Join(_Asked):
    """Sit down at ``seat`` (None: the first free one)."""

    __slots__ = ("seat",)
    kind: Final = "join"

    def __init__(self, player: Player, ref: int | None, seat: int | None) -> None:
        super().__init__(player, ref)
        self.seat: Final = seat


class Spectate(_Asked):
    """Watch the table."""

    __slots__ = ()
    kind: Final = "spectate"


class Leave(_Asked):
    """Leave the table (a seat in play goes to the AI)."""

    __slots__ = ()
    kind: Final = "leave"


class Start(_Asked):
    """The owner starts a waiting table now."""

    __slots__ = ()
    kind: Final = "start"


class Move:
    """A seated human's move: ``action`` (plain data, decoded by the core) at ``seat``,
    the table at ``version``; ``received`` (``time.perf_counter``) is when it was
    made, for the latency metrics.  Not an :class:`_Asked`: made for every move, it
    sets its fields itself, without a call to a base class's ``__init__``."""

    __slots__ = ("action", "player", "received", "ref", "seat", "version")
    kind: Final = "act"

    def __init__(
        self, player: Player, ref: int | None, seat: int, version: int, action: Any
    ) -> None:
        self.player: Final = player
        self.ref: Final = ref
        self.seat: Final = seat
        self.version: Final = version
        self.action: Final = action
        self.received: Final = _perf_counter()

    def __repr__(self) -> str:
        return (
            f"Move(player={self.player.player_id!r}, ref={self.ref!r}, seat={self.seat!r}, "
            f"version={self.version!r}, action={self.action!r})"
        )


class Chat(_Asked):
    """A chat line to everybody at the table."""

    __slots__ = ("text",)
    kind: Final = "chat"

    def __init__(self, player: Player, ref: int | None, text: str) -> None:
        super().__init__(player, ref)
        self.text: Final = text


class Rematch(_Asked):
    """A vote for another game."""

    __slots__ = ()
    kind: Final = "rematch"


class Kick(_Asked):
    """The owner removes ``target`` (a player id) from a table that has not started."""

    __slots__ = ("target",)
    kind: Final = "kick"

    def __init__(self, player: Player, ref: int | None, target: str) -> None:
        super().__init__(player, ref)
        self.target: Final = target


class GetReplay(_Asked):
    """The replay of finished game ``game_no`` (None: the last one)."""

    __slots__ = ("game_no",)
    kind: Final = "replay"

    def __init__(self, player: Player, ref: int | None, game_no: int | None) -> None:
        super().__init__(player, ref)
        self.game_no: Final = game_no


# -- a session's comings and goings: nobody waits for an answer ------------------------
class _Told:
    """What a session's event holds: whose it is."""

    __slots__ = ("player",)

    def __init__(self, player: Player) -> None:
        self.player: Final = player


class Disconnect(_Told):
    """The player's connection dropped: their seat waits, then the AI covers."""

    __slots__ = ()
    kind: Final = "disconnect"


class Reconnect(_Told):
    """The player is back: their seat is theirs again, a snapshot follows."""

    __slots__ = ()
    kind: Final = "reconnect"


class Forget(_Told):
    """The player's session expired: like a leave, without a reply."""

    __slots__ = ()
    kind: Final = "forget"


# -- the table's own: time, the AI, the server -----------------------------------------
class Tick:
    """Time passed: what is due now (a fill, a timer, a close) happens."""

    __slots__ = ()
    kind: Final = "tick"


class AiMove:
    """The AI's ``action`` (plain data) for ``turn``: validated as a human's move is."""

    __slots__ = ("action", "turn")
    kind: Final = "ai_move"

    def __init__(self, turn: AiTurn, action: Any) -> None:
        self.turn: Final = turn
        self.action: Final = action


class Close:
    """Close the table, telling everybody at it ``reason`` (None: the usual one)."""

    __slots__ = ("reason",)
    kind: Final = "close"

    def __init__(self, reason: str | None = None) -> None:
        self.reason: Final = reason


class Lost:
    """Another process took the table over (its lease's fence moved): stop driving it."""

    __slots__ = ()
    kind: Final = "lost"


class Stop:
    """Stop the actor; the record stays in the store (server shutdown)."""

    __slots__ = ()
    kind: Final = "stop"


Request: TypeAlias = Join | Spectate | Leave | Start | Move | Chat | Rematch | Kick | GetReplay
"""A player's request: answered (an error or its reply) to ``player``, with ``ref``."""
Presence: TypeAlias = Disconnect | Reconnect | Forget
"""A session's coming or going: for ``player``, answered to nobody."""
TableCommand: TypeAlias = Request | Presence | Tick | AiMove | Close | Lost | Stop
"""Every command a table's actor handles."""

REQUESTS: Final = (Join, Spectate, Leave, Start, Move, Chat, Rematch, Kick, GetReplay)
"""The classes of :data:`Request`, for ``isinstance``."""
PRESENCE: Final = (Disconnect, Reconnect, Forget)
"""The classes of :data:`Presence`, for ``isinstance``."""
PRESENCE_BY_KIND: Final[dict[str, type[Presence]]] = {c.kind: c for c in PRESENCE}
"""The presence commands by ``kind``, as the bus carries them between processes."""

TableRequest: TypeAlias = (
    cm.Act | cm.Rematch | cm.Leave | cm.Start | cm.Chat | cm.Kick | cm.GetReplay
)
"""A client's request that goes to its table's actor as it is (no lobby check first)."""
TABLE_REQUESTS: Final = (cm.Act, cm.Rematch, cm.Leave, cm.Start, cm.Chat, cm.Kick, cm.GetReplay)
"""The classes of :data:`TableRequest`, for ``isinstance``."""


def command_of(player: Player, msg: TableRequest) -> Request:
    """The command that carries ``msg`` of ``player`` to its table (a move first: most
    requests are)."""
    if isinstance(msg, _ACT):
        return Move(player, msg.id, msg.seat, msg.version, msg.action)
    if isinstance(msg, _REMATCH):
        return Rematch(player, msg.id)
    if isinstance(msg, cm.Leave):
        return Leave(player, msg.id)
    if isinstance(msg, cm.Start):
        return Start(player, msg.id)
    if isinstance(msg, cm.Chat):
        return Chat(player, msg.id, msg.text)
    if isinstance(msg, cm.Kick):
        return Kick(player, msg.id, msg.player)
    if isinstance(msg, cm.GetReplay):
        return GetReplay(player, msg.id, msg.game_no)
    unhandled(msg)


def unhandled(value: Never) -> NoReturn:
    """Where an exhaustive dispatch ends: ``value`` is of no class it handles.

    Typed ``Never``: ``mypy`` reports a class the dispatch before it left out
    (the value's type is then that class, not ``Never``); at run time, only a
    value that bypassed the type checker gets here.
    """
    raise TypeError(f"no handler for {value!r}")
