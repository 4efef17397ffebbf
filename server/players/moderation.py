"""Moderation (issue 54): mutes and blocks, reports, bans.

What needs no I/O is plain values here: :class:`Relations` (whom a session
mutes and blocks), :class:`BanList` (the bans in force, matched against an
account or a client address) and :func:`blocks_between`.  :class:`Moderation`
keeps them in the SQL database (:mod:`server.persist.db`): a logged-in
player's mutes and blocks are kept with the account, reports wait there for
an operator, and bans are made and lifted by ``cardavia-admin``
(:mod:`server.admin`), never through the WebSocket protocol.

A mute or block names a *player key*: the account id of a logged-in player
(``a_…``: it holds on every device, for good) or, for an anonymous one, the
session's player id (``p_…``: it lasts as long as that session).
"""

from __future__ import annotations

import ipaddress
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import delete, select

from server.persist.db.engine import Database
from server.persist.db.models import AccountRow, BanRow, RelationRow, ReportRow
from server.players.names import skeleton
from server.players.relations import RelationKind, Relations

REASON_MAX = 500
"""Longest report or ban reason, in characters (what an operator reads at once)."""


# -- bans ---------------------------------------------------------------------------


def parse_network(address: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
    """An address or a CIDR network as a network (``ValueError`` for anything else)."""
    return ipaddress.ip_network(address.strip(), strict=False)


@dataclass(frozen=True)
class Ban:
    """A ban of an account (``account_id``) or of an address network (``address``)."""

    ban_id: str
    account_id: str | None
    account_name: str | None
    address: str | None
    until: datetime
    reason: str
    banned_by: str
    created_at: datetime
    lifted_at: datetime | None = None
    lifted_by: str | None = None

    def describe(self) -> str:
        """What a banned player is told: until when, and why."""
        return f"banned until {self.until:%Y-%m-%d %H:%M} UTC: {self.reason}"

    def in_force(self, now: datetime) -> bool:
        """Not lifted, and not over yet."""
        return self.lifted_at is None and now < self.until

    def covers_address(self, address: str) -> bool:
        """Whether this address ban covers ``address`` (a client address as quotas group
        it: an IPv6 one as its /64, which a ban of any address in it covers)."""
        if self.address is None:
            return False
        try:
            return parse_network(self.address).overlaps(parse_network(address))
        except (ValueError, TypeError):  # another family, or not an IP address (a test pipe)
            return False


@dataclass(frozen=True)
class BanList:
    """The bans in force when last read (the server's copy, read every ``ban_poll`` seconds)."""

    bans: tuple[Ban, ...] = ()
    read_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    def of_account(self, account_id: str, now: datetime) -> Ban | None:
        """The ban in force on ``account_id``, if any (the longest, when several)."""
        found = [b for b in self.bans if b.account_id == account_id and b.in_force(now)]
        return max(found, key=lambda b: b.until, default=None)

    def of_address(self, address: str, now: datetime) -> Ban | None:
        """The ban in force on ``address``'s network, if any."""
        found = [b for b in self.bans if b.in_force(now) and b.covers_address(address)]
        return max(found, key=lambda b: b.until, default=None)


# -- reports -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportedChat:
    """One chat line kept with a report."""

    name: str
    player_id: str
    text: str


@dataclass(frozen=True)
class NewReport:
    """What a ``report`` request stores (the server fills in the names and the chat)."""

    reporter_player: str
    reporter_account: str | None
    reporter_name: str
    target_player: str
    target_account: str | None
    target_name: str
    table_id: str | None
    game_no: int | None
    reason: str
    chat: tuple[ReportedChat, ...] = ()


@dataclass(frozen=True)
class Report:
    """A stored report, as an operator reads it."""

    report_id: str
    created_at: datetime
    report: NewReport


def _aware(moment: datetime) -> datetime:
    """SQLite gives naive datetimes back; every one stored here is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _ban(row: BanRow) -> Ban:
    return Ban(
        ban_id=row.ban_id,
        account_id=row.account_id,
        account_name=row.account_name,
        address=row.address,
        until=_aware(row.until),
        reason=row.reason,
        banned_by=row.banned_by,
        created_at=_aware(row.created_at),
        lifted_at=None if row.lifted_at is None else _aware(row.lifted_at),
        lifted_by=row.lifted_by,
    )


def _report(row: ReportRow) -> Report:
    chat = tuple(
        ReportedChat(name=str(c["name"]), player_id=str(c["player_id"]), text=str(c["text"]))
        for c in json.loads(row.chat)
    )
    return Report(
        report_id=row.report_id,
        created_at=_aware(row.created_at),
        report=NewReport(
            reporter_player=row.reporter_player,
            reporter_account=row.reporter_account,
            reporter_name=row.reporter_name,
            target_player=row.target_player,
            target_account=row.target_account,
            target_name=row.target_name,
            table_id=row.table_id,
            game_no=row.game_no,
            reason=row.reason,
            chat=chat,
        ),
    )


class UnknownAccount(LookupError):
    """No account has this name (``cardavia-admin ban --account``)."""


class UnknownBan(LookupError):
    """No ban has this id, or it was lifted already (``cardavia-admin unban``)."""


class Moderation:
    """Mutes, blocks, reports and bans in one :class:`Database` (opened by its owner)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- mutes and blocks (logged-in players) ----------------------------------------

    async def relations(self, account_id: str) -> Relations:
        """The account keys ``account_id`` mutes and blocks."""
        async with self.db.session() as session:
            rows = await session.execute(
                select(RelationRow.kind, RelationRow.other_id).where(
                    RelationRow.account_id == account_id
                )
            )
            pairs = list(rows)
        muted = frozenset(o for k, o in pairs if k == RelationKind.MUTE)
        blocked = frozenset(o for k, o in pairs if k == RelationKind.BLOCK)
        return Relations(muted=muted, blocked=blocked)

    async def relate(self, account_id: str, other_id: str, kind: RelationKind, on: bool) -> None:
        """Record (``on``) or forget that ``account_id`` mutes or blocks ``other_id``;
        doing it twice is the same as once."""
        async with self.db.session() as session:
            if not on:
                await session.execute(
                    delete(RelationRow).where(
                        RelationRow.account_id == account_id,
                        RelationRow.other_id == other_id,
                        RelationRow.kind == str(kind),
                    )
                )
                return
            held = await session.get(RelationRow, (account_id, other_id, str(kind)))
            if held is None:
                session.add(
                    RelationRow(
                        account_id=account_id,
                        other_id=other_id,
                        kind=str(kind),
                        created_at=datetime.now(UTC),
                    )
                )

    async def account_names(self, account_ids: list[str]) -> dict[str, str]:
        """The names of the accounts ``account_ids`` that still exist."""
        if not account_ids:
            return {}
        async with self.db.session() as session:
            rows = await session.execute(
                select(AccountRow.account_id, AccountRow.name).where(
                    AccountRow.account_id.in_(account_ids)
                )
            )
            return {account_id: name for account_id, name in rows}

    # -- reports ------------------------------------------------------------------------

    async def add_report(self, new: NewReport) -> str:
        """Store a report for the operators; its id."""
        report_id = "r_" + secrets.token_hex(8)
        chat = json.dumps(
            [{"name": c.name, "player_id": c.player_id, "text": c.text} for c in new.chat],
            ensure_ascii=False,
        )
        async with self.db.session() as session:
            session.add(
                ReportRow(
                    report_id=report_id,
                    created_at=datetime.now(UTC),
                    reporter_player=new.reporter_player,
                    reporter_account=new.reporter_account,
                    reporter_name=new.reporter_name,
                    target_player=new.target_player,
                    target_account=new.target_account,
                    target_name=new.target_name,
                    table_id=new.table_id,
                    game_no=new.game_no,
                    reason=new.reason,
                    chat=chat,
                )
            )
        return report_id

    async def reports(self, limit: int = 50) -> tuple[Report, ...]:
        """The newest ``limit`` reports, newest first."""
        async with self.db.session() as session:
            rows = await session.scalars(
                select(ReportRow)
                .order_by(ReportRow.created_at.desc(), ReportRow.report_id)
                .limit(limit)
            )
            return tuple(_report(row) for row in rows)

    # -- bans (operators: cardavia-admin) --------------------------------------------

    async def account_id(self, name: str) -> tuple[str, str]:
        """The id and name of the account called ``name`` (or a look-alike of it)."""
        async with self.db.session() as session:
            row = await session.scalar(
                select(AccountRow).where(AccountRow.skeleton == skeleton(name))
            )
        if row is None:
            raise UnknownAccount(f"no account is named {name!r}")
        return row.account_id, row.name

    async def ban(
        self,
        *,
        until: datetime,
        reason: str,
        banned_by: str,
        account_name: str | None = None,
        address: str | None = None,
    ) -> Ban:
        """Ban the account ``account_name`` or the network ``address`` until ``until``."""
        if (account_name is None) == (address is None):
            raise ValueError("ban an account or an address, one of them")
        if len(reason) > REASON_MAX:
            raise ValueError(f"a reason has at most {REASON_MAX} characters")
        account: tuple[str, str] | None = None
        network: str | None = None
        if account_name is not None:
            account = await self.account_id(account_name)
        if address is not None:
            network = str(parse_network(address))
        row = BanRow(
            ban_id="b_" + secrets.token_hex(8),
            account_id=None if account is None else account[0],
            account_name=None if account is None else account[1],
            address=network,
            until=until,
            reason=reason,
            banned_by=banned_by,
            created_at=datetime.now(UTC),
        )
        async with self.db.session() as session:
            session.add(row)
        return _ban(row)

    async def lift(self, ban_id: str, lifted_by: str) -> Ban:
        """Lift the ban ``ban_id`` now (it stays listed, marked lifted)."""
        async with self.db.session() as session:
            row = await session.get(BanRow, ban_id)
            if row is None or row.lifted_at is not None:
                raise UnknownBan(f"no ban {ban_id!r} is in force")
            row.lifted_at = datetime.now(UTC)
            row.lifted_by = lifted_by
            return _ban(row)

    async def bans(self, *, in_force_only: bool = True) -> tuple[Ban, ...]:
        """The bans (in force only, unless told), newest first."""
        now = datetime.now(UTC)
        async with self.db.session() as session:
            query = select(BanRow).order_by(BanRow.created_at.desc(), BanRow.ban_id)
            if in_force_only:
                query = query.where(BanRow.lifted_at.is_(None), BanRow.until > now)
            rows = await session.scalars(query)
            return tuple(_ban(row) for row in rows)

    async def ban_of_account(self, account_id: str) -> Ban | None:
        """The ban in force on ``account_id`` now, read from the database (a login is
        refused at once, not at the server's next read of the bans)."""
        now = datetime.now(UTC)
        async with self.db.session() as session:
            rows = await session.scalars(
                select(BanRow).where(
                    BanRow.account_id == account_id, BanRow.lifted_at.is_(None), BanRow.until > now
                )
            )
            return BanList(tuple(_ban(row) for row in rows)).of_account(account_id, now)

    async def ban_list(self) -> BanList:
        """The bans in force now, as the server keeps them."""
        return BanList(await self.bans(in_force_only=True))
