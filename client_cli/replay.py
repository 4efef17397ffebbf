"""``cardavia replay --url URL TABLE [GAME_NO]``: step through a finished game, every card shown.

The server keeps the last games of each table (``--replays-kept``); once a
game is over its replay shows the opening deal of every seat and every play,
one step per Enter on a terminal (``--all``: everything at once, as when the
output is piped).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from client_cli.client import ServerError
from client_cli.common import EXIT_OK, CliError, connect, refused
from client_cli.lang import Language, add_lang, language, run_with_lang
from client_cli.render import Seats, renderer_for
from protocol.models import TableInfo
from protocol.server_messages import Replay


def add_parser(sub: Any) -> None:
    """Register ``cardavia replay``."""
    p = sub.add_parser(
        "replay",
        help="step through a finished game (every hand shown)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("table", help="the table's id")
    p.add_argument("game_no", nargs="?", type=int, help="which game (default: the last)")
    p.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    p.add_argument("--all", action="store_true", help="print every step at once")
    add_lang(p)
    p.set_defaults(func=run_with_lang(replay_main))


def replay_lines(replay: Replay, lang: Language | None = None) -> list[list[str]]:
    """The replay as steps of lines: the deal first, then one step per action, the result."""
    lang = lang or language()
    seats = Seats(me=None, lang=lang)
    seats.update(TableInfo.model_construct(seats=replay.seats))
    render = renderer_for(replay.game, seats)
    render.set_pattern(replay.options)
    head = [lang.t("replay.head", n=replay.game_no, game=replay.game, table=replay.table)]
    players = ", ".join(f"{s.seat}: {seats(s.seat)}" for s in replay.seats)
    head.append(lang.t("session.players", players=players))
    deal = [line for event in replay.start_events for line in render.event(event)]
    steps = [head + deal]
    for n, step in enumerate(replay.steps, 1):
        lines = [line for event in step.events for line in render.event(event)]
        if not lines:
            lines = [f"{seats.title(step.seat)}: {render.action(step.action)}"]
        by = "" if step.by == "human" else f" ({step.by})"
        steps.append([f"[{n}/{len(replay.steps)}]{by} " + lines[0], *lines[1:]])
    steps.append(["", *render.result_lines(replay.result)])
    return steps


async def replay_main(args: argparse.Namespace, lang: Language) -> int:
    """Fetch the replay and print it, step by step on a terminal."""
    client = await connect(args.url, "replay")
    try:
        replay = await client.replay(args.table, args.game_no)
    except ServerError as exc:
        if exc.code == "not_found":
            raise CliError(f"no replay of table {args.table!r}: {exc.message}") from None
        raise refused("cannot replay", exc) from None
    finally:
        await client.close()
    stepping = not args.all and sys.stdin.isatty() and sys.stdout.isatty()
    steps = replay_lines(replay, lang)
    for i, lines in enumerate(steps):
        print("\n".join(lines), flush=True)
        if stepping and 0 < i < len(steps) - 1:
            typed = await asyncio.to_thread(input, "  " + lang.t("replay.prompt") + " ")
            if typed.strip().lower() == "q":
                return EXIT_OK
            if typed.strip().lower() == "a":
                stepping = False
    return EXIT_OK
