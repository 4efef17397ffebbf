"""``cardavia leaderboard GAME``: a game's rated players, best first.

``cardavia leaderboard GAME --url URL [--bots] [--page N]`` prints one page of the
server's leaderboard for GAME: rank, name, rating ± deviation, rated games and the
day of the last one.  People and bots are listed apart (``--bots``: the bot
accounts and the server's AI levels, each marked as a bot); only ratings that are
no longer provisional, of players who played a rated game in the last 90 days,
are listed.  The account ``cardavia login`` kept for the server is marked where
it is listed.  ``cardavia profile`` shows an account's own ratings.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from client_cli.client import ServerError
from client_cli.common import EXIT_OK, EXIT_USAGE, CliError, add_server, refused
from client_cli.lang import Language, add_lang, run_with_lang
from client_cli.options import number_in
from client_cli.rating_view import leaderboard_lines
from client_cli.records import session
from protocol import server_messages as sm

PAGE = number_in(1, 10_000, integer=True, what="a page number")
"""1 to 10,000, as the protocol's ``leaderboard`` accepts."""


def add_parser(sub: Any) -> None:
    """Register ``cardavia leaderboard``."""
    p = sub.add_parser(
        "leaderboard",
        help="a game's rated players, best first (people, or --bots)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", help="scopa, cicera, doudizhu, schafkopf …")
    add_server(p)
    p.add_argument("--bots", action="store_true", help="the bot accounts and AI levels instead")
    p.add_argument("--page", type=PAGE, default=1, help="the page to show (from 1)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_lang(p)
    p.set_defaults(func=run_with_lang(leaderboard_main))


def next_page_hint(board: sm.Leaderboard, args: argparse.Namespace, lang: Language) -> str | None:
    """The command that shows the next page, when there is one."""
    if board.page >= board.pages or not board.entries:
        return None
    command = f"cardavia leaderboard {board.game} --url {args.url}"
    if board.bots:
        command += " --bots"
    return lang.t("leaderboard.next", command=f"{command} --page {board.page + 1}")


async def leaderboard_main(args: argparse.Namespace, lang: Language) -> int:
    """Print one page of a game's leaderboard."""
    client = await session(args.url, args.ca_file, needed=False)
    me = client.account.name if client.account is not None else None
    try:
        games = {g.id: g for g in await client.list_games()}
        if args.game not in games:
            known = ", ".join(games) or "none"
            raise CliError(f"unknown game {args.game!r}; this server has: {known}", EXIT_USAGE)
        board = await client.leaderboard(args.game, args.page, bots=args.bots)
    except ServerError as exc:
        raise refused("cannot show the leaderboard", exc) from None
    finally:
        await client.close()
    if args.json:
        print(json.dumps(board.model_dump(mode="json", exclude={"ref"}), separators=(",", ":")))
        return EXIT_OK
    print("\n".join(leaderboard_lines(board, games[args.game].title, lang, me=me)))
    more = next_page_hint(board, args, lang)
    if more is not None:
        print(more)
    return EXIT_OK
