"""``cardavia lobby``: the tables (and games) a server has."""

from __future__ import annotations

import argparse
import json
from typing import Any

from client_cli.client import ServerError
from client_cli.common import EXIT_OK, add_server, connect, refused, run
from client_cli.render import seat_name
from protocol.models import TableInfo
from protocol.server_messages import GameInfo


def add_parser(sub: Any) -> None:
    """Register ``cardavia lobby``."""
    p = sub.add_parser("lobby", help="list a server's tables and games")
    add_server(p)
    p.add_argument("--game", help="only tables of this game")
    p.add_argument("--games", action="store_true", help="list the games the server serves")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=lambda args: run(lobby_main(args)))


async def lobby_main(args: argparse.Namespace) -> int:
    """Print the lobby."""
    client = await connect(args.url, "lobby", ca_file=args.ca_file)
    try:
        games = await client.list_games()
        tables = await client.list_tables(args.game)
    except ServerError as exc:
        raise refused("cannot list the lobby", exc) from None
    finally:
        await client.close()
    if args.json:
        out: dict[str, Any] = {"tables": [t.model_dump(mode="json") for t in tables]}
        if args.games:
            out["games"] = [g.model_dump(mode="json") for g in games]
        print(json.dumps(out, separators=(",", ":")))
        return EXIT_OK
    if args.games:
        print("\n".join(game_lines(games)))
        print()
    print("\n".join(table_lines(tables, args.game)))
    return EXIT_OK


def game_lines(games: tuple[GameInfo, ...]) -> list[str]:
    """One line per game: id, title, seats, AI levels, default options."""
    lines = ["Games:"]
    for g in games:
        opts = ", ".join(f"{k}={v}" for k, v in g.options.items())
        levels = ", ".join(g.levels)
        lines.append(f"  {g.id:<10} {g.title:<12} {g.seats} seats; AI levels {levels}; {opts}")
    return lines


def table_lines(tables: tuple[TableInfo, ...], game: str | None = None) -> list[str]:
    """A table of the lobby's tables: id, game, status, seats, spectators."""
    if not tables:
        return [f"No {game + ' ' if game else ''}tables."]
    rows = [("TABLE", "GAME", "STATUS", "GAME#", "WATCHING", "SEATS")]
    for t in tables:
        seats = "; ".join(f"{s.seat}: {seat_name(s)}" for s in t.seats)
        flags = "".join(
            f" {flag}"
            for flag, on in (("private", t.private), ("quick", t.quick), ("rated", t.rated))
            if on
        )
        rows.append((t.id, t.game, t.status + flags, str(t.game_no), str(t.spectators), seats))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return ["  ".join(r[i].ljust(widths[i]) for i in range(5)) + "  " + r[5] for r in rows]
