"""A session's moderation requests: mute, unmute, block, unblock, list_relations,
report (docs/protocol.md, "Moderation").  ``kick`` is the table's (TableCore.kick).

Each either succeeds whole or raises :class:`~server.tables.options.RequestError`
having changed nothing.  A logged-in session's mutes and blocks of other
accounts are kept with its account (every device of it, for good); those of an
anonymous session, or of an anonymous player, last as long as the session.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Protocol

from sqlalchemy.exc import DBAPIError

from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.server_messages import Ok, RelatedPlayer, Relations, Reported
from server.ops.logs import get_logger
from server.players.moderation import Moderation, NewReport, ReportedChat
from server.players.ratelimit import TokenBucket
from server.players.relations import RELATIONS_MAX, RelationKind
from server.players.sessions import Player
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.cluster.bus import Bus
    from server.lobby import Lobby
    from server.players.accounts import Accounts
    from server.players.sessions import Sessions


class ModerationHost(Protocol):
    """What the moderation requests need of the server (:class:`server.app.ModerationHost`):
    the sessions, the accounts and the moderation records, the lobby (a report takes its
    table's recent chat), and whether other processes share the players (``bus``)."""

    @property
    def sessions(self) -> Sessions:
        """This process's sessions."""

    @property
    def accounts(self) -> Accounts:
        """The accounts."""

    @property
    def moderation(self) -> Moderation:
        """Bans, mutes, blocks and reports."""

    @property
    def lobby(self) -> Lobby:
        """This process's tables."""

    @property
    def bus(self) -> Bus | None:
        """The routing between processes (None: this process alone)."""

    def clock(self) -> float:
        """The server's monotonic clock."""


MODERATION_REQUESTS = (
    cm.Mute,
    cm.Unmute,
    cm.Block,
    cm.Unblock,
    cm.ListRelations,
    cm.Report,
)
"""The messages :func:`handle` answers."""

REPORTS_PER_HOUR = 10
"""Reports one session may make per hour (a burst of 3): enough for real trouble,
too few to flood the operators."""

PLAYER_ID = re.compile(r"p_[0-9a-f]{16}")
"""What a session's player id looks like (server.players.sessions)."""

_SETS = {
    cm.Mute: (RelationKind.MUTE, True),
    cm.Unmute: (RelationKind.MUTE, False),
    cm.Block: (RelationKind.BLOCK, True),
    cm.Unblock: (RelationKind.BLOCK, False),
}

_log = get_logger(component="moderation")


async def handle(app: ModerationHost, player: Player, msg: object) -> None:
    """Answer one moderation request of ``player``; ``store_unavailable`` when the
    database cannot be reached (its transaction rolled back: nothing changed)."""
    try:
        await _handle(app, app.moderation, player, msg)
    except (DBAPIError, OSError) as exc:
        _log.warning("database_unavailable", type=type(msg).__name__, error=type(exc).__name__)
        raise RequestError(
            ErrorCode.STORE_UNAVAILABLE, "moderation cannot be reached now; retry soon"
        ) from None


async def _handle(app: ModerationHost, moderation: Moderation, player: Player, msg: object) -> None:
    if isinstance(msg, cm.Mute | cm.Unmute | cm.Block | cm.Unblock):
        kind, on = _SETS[type(msg)]
        await _relate(app, moderation, player, msg.player, kind, on)
        player.send(Ok(ref=msg.id))
    elif isinstance(msg, cm.ListRelations):
        player.send(await _listed(app, moderation, player, msg.id))
    elif isinstance(msg, cm.Report):
        report_id = await _report(app, moderation, player, msg)
        player.send(Reported(ref=msg.id, report_id=report_id))
    else:  # pragma: no cover - dispatch passes only MODERATION_REQUESTS here
        raise RequestError(ErrorCode.BAD_MESSAGE, "not a moderation request")


async def _target(app: ModerationHost, ref: str) -> tuple[str, str]:
    """The key and name of the player ``ref`` names: a session here (by player id) or
    an account (by id); ``not_found`` for anybody else."""
    other = app.sessions.get(ref)
    if other is not None:
        return other.key, other.name
    if ref.startswith("a_"):
        account = await app.accounts.get(ref)
        if account is not None:
            return account.account_id, account.name
    if app.bus is not None and PLAYER_ID.fullmatch(ref):
        # with several processes the player may be connected to another one, whose
        # sessions this one cannot see: the mute or block holds for that session
        return ref, ""
    raise RequestError(ErrorCode.NOT_FOUND, "no such player")


async def _relate(
    app: ModerationHost,
    moderation: Moderation,
    player: Player,
    ref: str,
    kind: RelationKind,
    on: bool,
) -> None:
    """Mute or block (``on``), or lift it; kept with the account when both are accounts."""
    held = player.relations.muted if kind is RelationKind.MUTE else player.relations.blocked
    if not on and ref in held:  # lifting needs no lookup: the player may be long gone
        key = ref
    else:
        key, _ = await _target(app, ref)
    if key == player.key:
        raise RequestError(ErrorCode.FORBIDDEN, "you cannot mute or block yourself")
    if on and key not in held and len(held) >= RELATIONS_MAX:
        raise RequestError(
            ErrorCode.QUOTA_EXCEEDED, f"at most {RELATIONS_MAX} players per list", "relations"
        )
    account = player.account
    if account is not None and key.startswith("a_"):
        await moderation.relate(account.account_id, key, kind, on)
    sharing = [player] if account is None else app.sessions.of_account(account.account_id)
    for session in sharing:  # the account's other devices here follow at once
        session.relations = session.relations.with_(kind, key, on)
    _log.info("relation_changed", player=player.player_id, kind=str(kind), on=on, target=key)


async def _listed(
    app: ModerationHost, moderation: Moderation, player: Player, ref: int | None
) -> Relations:
    relations = player.relations
    keys = relations.muted | relations.blocked
    names = await moderation.account_names([k for k in keys if k.startswith("a_")])
    for key in keys:
        other = app.sessions.get(key)
        if key not in names and other is not None:
            names[key] = other.name

    def entries(held: frozenset[str]) -> tuple[RelatedPlayer, ...]:
        return tuple(RelatedPlayer(player=k, name=names.get(k, "")) for k in sorted(held))

    return Relations(
        ref=ref,
        muted=entries(relations.muted),
        blocked=entries(relations.blocked),
        kept=player.account is not None,
    )


async def _report(
    app: ModerationHost, moderation: Moderation, player: Player, msg: cm.Report
) -> str:
    """Store ``msg`` with the table's recent chat and the game it names."""
    reason = msg.reason.strip()
    if not reason or not reason.isprintable():
        raise RequestError(ErrorCode.BAD_MESSAGE, "a reason is printable text, not only spaces")
    other = app.sessions.get(msg.player)
    if other is None and app.bus is not None and PLAYER_ID.fullmatch(msg.player):
        other = Player(player_id=msg.player, name="", token="")  # connected to another process
    if other is None:
        raise RequestError(ErrorCode.NOT_FOUND, "no such player")
    if other is player:
        raise RequestError(ErrorCode.FORBIDDEN, "you cannot report yourself")
    chat: tuple[ReportedChat, ...] = ()
    game_no = msg.game_no
    if msg.table is not None:
        if msg.table not in player.tables:
            raise RequestError(ErrorCode.NOT_AT_TABLE, "report from a table you are at")
        actor = app.lobby.tables.get(msg.table)
        if actor is not None:  # with several processes, only the owner holds the chat
            core = actor.core
            chat = tuple(
                ReportedChat(name=line.name, player_id=line.player_id, text=line.text)
                for line in core.recent_chat
            )
            if game_no is None and core.status != "waiting":
                game_no = core.game_no
    if player.reports is None:
        player.reports = TokenBucket(rate=REPORTS_PER_HOUR / 3600.0, burst=3)
    if not player.reports.allow(app.clock()):
        raise RequestError(ErrorCode.RATE_LIMITED, "too many reports; wait a while")
    report_id = await moderation.add_report(
        NewReport(
            reporter_player=player.player_id,
            reporter_account=None if player.account is None else player.account.account_id,
            reporter_name=player.name,
            target_player=other.player_id,
            target_account=None if other.account is None else other.account.account_id,
            target_name=other.name,
            table_id=msg.table,
            game_no=game_no,
            reason=reason,
            chat=chat,
        )
    )
    _log.info("reported", report=report_id, player=player.player_id, target=other.player_id)
    return report_id
