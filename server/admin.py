"""``cardavia-admin``: the operators' console (issue 54, moderation).

Bans of an account or an address (a network, in CIDR notation) for a time,
lifting them, and listing bans and players' reports.  It works on the server's
own database (the same ``CARDAVIA_DATABASE_URL`` / ``CARDAVIA_DATA_DIR``
settings, or ``--database``): whoever can open that database is an operator,
and nobody can do any of this through the WebSocket protocol.  A running
server reads the bans every few seconds (its ``ban_poll`` setting) and closes the banned
account's sessions and the banned addresses' connections.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import re
import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from server.config import ConfigError, load_config
from server.persist.db.engine import Database, DatabaseError
from server.players.moderation import (
    REASON_MAX,
    Ban,
    Moderation,
    Report,
    UnknownAccount,
    UnknownBan,
)

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
LONGEST = timedelta(days=100 * 365)
"""The longest ban (a century: "for good", while still a date every database keeps)."""


class AdminError(Exception):
    """A request the console refuses; the message says why (exit status 1)."""


def parse_duration(text: str) -> timedelta:
    """``90``, ``30m``, ``12h``, ``7d`` or ``2w`` as a positive time, at most :data:`LONGEST`."""
    found = re.fullmatch(r"\s*(\d{1,9})\s*([smhdw]?)\s*", text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 90, 30m, 12h, 7d, 2w")
    length = timedelta(seconds=int(found[1]) * _UNITS[found[2] or "s"])
    if not timedelta(0) < length <= LONGEST:
        raise argparse.ArgumentTypeError("a duration is more than 0 and at most 100 years")
    return length


def parse_until(text: str) -> datetime:
    """An ISO 8601 date or time; without a zone, UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 date or time") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def build_parser() -> argparse.ArgumentParser:
    """The command line: global ``--database``, then a subcommand."""
    parser = argparse.ArgumentParser(
        prog="cardavia-admin",
        description="Ban accounts and addresses, lift bans, read reports, on the server's"
        " database (the operators' console).",
    )
    parser.add_argument(
        "--database",
        help="the database's URL (default: the server's, from CARDAVIA_DATABASE_URL or"
        " the SQLite file in CARDAVIA_DATA_DIR)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON, one object per line")
    sub = parser.add_subparsers(dest="command", required=True)
    ban = sub.add_parser("ban", help="ban an account or an address for a time")
    target = ban.add_mutually_exclusive_group(required=True)
    target.add_argument("--account", help="the account's name")
    target.add_argument("--address", help="an IP address or a network (CIDR: 203.0.113.0/24)")
    span = ban.add_mutually_exclusive_group(required=True)
    span.add_argument("--for", dest="length", type=parse_duration, help="90, 30m, 12h, 7d, 2w")
    span.add_argument("--until", type=parse_until, help="ISO 8601 (UTC without a zone)")
    ban.add_argument("--reason", required=True, help=f"why (at most {REASON_MAX} characters)")
    ban.add_argument("--by", default=None, help="the operator's name (default: your login)")
    unban = sub.add_parser("unban", help="lift a ban now")
    unban.add_argument("ban_id")
    unban.add_argument("--by", default=None, help="the operator's name (default: your login)")
    bans = sub.add_parser("bans", help="the bans in force (newest first)")
    bans.add_argument("--all", action="store_true", help="also the lifted and the past ones")
    reports = sub.add_parser("reports", help="players' reports (newest first)")
    reports.add_argument("--limit", type=int, default=50, help="how many (default 50)")
    return parser


def _operator(given: str | None) -> str:
    name = given or getpass.getuser()
    return name[:64]


def _ban_fields(ban: Ban) -> dict[str, Any]:
    return {
        "ban_id": ban.ban_id,
        "account_id": ban.account_id,
        "account": ban.account_name,
        "address": ban.address,
        "until": ban.until.isoformat(),
        "reason": ban.reason,
        "by": ban.banned_by,
        "created_at": ban.created_at.isoformat(),
        "lifted_at": None if ban.lifted_at is None else ban.lifted_at.isoformat(),
        "lifted_by": ban.lifted_by,
    }


def _report_fields(found: Report) -> dict[str, Any]:
    r = found.report
    return {
        "report_id": found.report_id,
        "created_at": found.created_at.isoformat(),
        "reporter": {
            "name": r.reporter_name,
            "player": r.reporter_player,
            "account": r.reporter_account,
        },
        "target": {"name": r.target_name, "player": r.target_player, "account": r.target_account},
        "table": r.table_id,
        "game_no": r.game_no,
        "reason": r.reason,
        "chat": [{"name": c.name, "player": c.player_id, "text": c.text} for c in r.chat],
    }


def _ban_line(ban: Ban) -> str:
    who = (
        f"account {ban.account_name} ({ban.account_id})"
        if ban.account_id
        else f"address {ban.address}"
    )
    state = (
        ""
        if ban.lifted_at is None
        else f", lifted {ban.lifted_at:%Y-%m-%d %H:%M} by {ban.lifted_by}"
    )
    return (
        f"{ban.ban_id}  {who}  until {ban.until:%Y-%m-%d %H:%M} UTC  by {ban.banned_by}"
        f"{state}: {ban.reason}"
    )


def _report_lines(found: Report) -> list[str]:
    r = found.report
    where = "" if r.table_id is None else f" at table {r.table_id}"
    game = "" if r.game_no is None else f" (game {r.game_no})"
    lines = [
        f"{found.report_id}  {found.created_at:%Y-%m-%d %H:%M} UTC  {r.reporter_name} reports"
        f" {r.target_name} ({r.target_account or r.target_player}){where}{game}: {r.reason}"
    ]
    lines += [f"    {c.name}: {c.text}" for c in r.chat]
    return lines


async def run(args: argparse.Namespace, url: str) -> list[str]:
    """Carry out the parsed command on the database at ``url``; the lines to print."""
    db = Database(url)
    try:
        await db.open()
        moderation = Moderation(db)
        return await _command(args, moderation)
    finally:
        await db.close()


async def _command(args: argparse.Namespace, moderation: Moderation) -> list[str]:
    as_json: bool = args.json
    if args.command == "ban":
        reason = args.reason.strip()
        if not reason or len(reason) > REASON_MAX:
            raise AdminError(f"a reason is 1 to {REASON_MAX} characters")
        until = args.until if args.length is None else datetime.now(UTC) + args.length
        if until <= datetime.now(UTC):
            raise AdminError("--until is in the past")
        try:
            ban = await moderation.ban(
                until=until,
                reason=reason,
                banned_by=_operator(args.by),
                account_name=args.account,
                address=args.address,
            )
        except (UnknownAccount, ValueError) as exc:
            raise AdminError(str(exc)) from None
        return [json.dumps(_ban_fields(ban))] if as_json else [f"banned: {_ban_line(ban)}"]
    if args.command == "unban":
        try:
            ban = await moderation.lift(args.ban_id, _operator(args.by))
        except UnknownBan as exc:
            raise AdminError(str(exc)) from None
        return [json.dumps(_ban_fields(ban))] if as_json else [f"lifted: {_ban_line(ban)}"]
    if args.command == "bans":
        bans = await moderation.bans(in_force_only=not args.all)
        if as_json:
            return [json.dumps(_ban_fields(b)) for b in bans]
        return [_ban_line(b) for b in bans] or ["no bans"]
    if not 1 <= args.limit <= 10_000:
        raise AdminError("--limit is 1 to 10000")
    reports = await moderation.reports(args.limit)
    if as_json:
        return [json.dumps(_report_fields(r), ensure_ascii=False) for r in reports]
    return [line for r in reports for line in _report_lines(r)] or ["no reports"]


def main(argv: Sequence[str] | None = None) -> int:
    """The ``cardavia-admin`` command: 0 done, 1 refused (the reason on stderr), 2 usage."""
    args = build_parser().parse_args(argv)
    try:
        url = args.database or load_config([]).database
    except ConfigError as exc:
        print(f"cardavia-admin: {exc}", file=sys.stderr)
        return 1
    try:
        lines = asyncio.run(run(args, url))
    except (AdminError, DatabaseError) as exc:
        print(f"cardavia-admin: {exc}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":  # pragma: no cover - the console script calls main()
    sys.exit(main())
