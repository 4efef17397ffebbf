"""``cardavia watch``: spectate a table and print what happens until its game ends."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from client_cli.client import ClientClosed, ServerError
from client_cli.common import EXIT_FAILED, EXIT_OK, CliError, add_server, connect, refused
from client_cli.lang import Language, add_lang, run_with_lang
from client_cli.render import Seats, chat_name, renderer_for, seat_name
from protocol import server_messages as sm


def add_parser(sub: Any) -> None:
    """Register ``cardavia watch``."""
    p = sub.add_parser("watch", help="spectate a table until its game ends")
    add_server(p)
    p.add_argument("--table", required=True, metavar="ID", help="the table to watch")
    p.add_argument("--invite", help="invite code of a private table")
    p.add_argument("--name", default="spectator", help="display name")
    add_lang(p)
    p.add_argument("--follow", action="store_true", help="keep watching the next games (rematches)")
    p.set_defaults(func=run_with_lang(watch_main))


async def watch_main(args: argparse.Namespace, lang: Language) -> int:
    """Spectate ``--table``: the spectator view and the public events only."""
    client = await connect(args.url, args.name, ca_file=args.ca_file)
    try:
        try:
            joined = await client.spectate(args.table, args.invite)
        except ServerError as exc:
            if exc.code == "not_found":
                raise CliError(f"table {args.table!r} not found ({exc.message})") from None
            raise refused(f"cannot watch table {args.table}", exc) from None
        seats = Seats(me=None, lang=lang)
        seats.update(joined.table)
        render = renderer_for(joined.table.game, seats)
        render.set_pattern(joined.table.options)
        out = sys.stdout
        info = joined.table
        names = ", ".join(f"{s.seat}: {seat_name(s, lang=lang)}" for s in info.seats)
        status_text = lang.t(f"watch.status.{info.status}")
        print(lang.t("watch.head", title=info.title, table=info.id, status=status_text))
        print(lang.t("session.players", players=names), flush=True)
        game_no = 0
        status = joined.table.status
        while True:
            try:
                msg = await client.receive()
            except ClientClosed as exc:
                print(lang.t("watch.closed", reason=exc.reason).rstrip(), flush=True)
                return EXIT_FAILED
            lines: list[str] = []
            if isinstance(msg, sm.Update | sm.Snapshot) and msg.table == joined.table.id:
                if msg.game_no != game_no:
                    game_no = msg.game_no
                    lines.append(lang.t("session.game_no", n=game_no))
                if isinstance(msg, sm.Snapshot):
                    lines.extend(render.view_lines(msg.view))
                    if status == "finished" and not args.follow:
                        lines.append(lang.t("watch.over"))
                        print("\n".join(lines), file=out, flush=True)
                        return EXIT_OK
                else:
                    render.set_pattern(msg.view.get("options"))
                    for event in msg.events:
                        lines.extend(render.event(event))
            elif isinstance(msg, sm.TableChanged) and msg.table.id == joined.table.id:
                lines.extend(seats.update(msg.table))
                status = msg.table.status
            elif isinstance(msg, sm.GameOver) and msg.table == joined.table.id:
                lines.extend(render.result_lines(msg.result))
                if not args.follow:
                    print("\n".join(lines), file=out, flush=True)
                    return EXIT_OK
            elif isinstance(msg, sm.ChatLine) and msg.table == joined.table.id:
                lines.append(f"[{chat_name(msg)}] {msg.text}")
            elif isinstance(msg, sm.TableClosed) and msg.table == joined.table.id:
                print(lang.t("session.table_closed", reason=msg.reason), flush=True)
                return EXIT_OK
            elif isinstance(msg, sm.Shutdown):
                print(lang.t("session.shutdown_why", reason=msg.reason), flush=True)
                return EXIT_OK
            if lines:
                print("\n".join(lines), file=out, flush=True)
    finally:
        await client.close()
