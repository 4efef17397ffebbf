"""``cardavia replay --url URL TABLE [GAME_NO]`` or ``cardavia replay --url URL GAME_ID``:
step through a finished game, every card shown.

``TABLE [GAME_NO]`` asks a live table for one of its last games (the server
keeps a few per table: ``--replays-kept``).  ``GAME_ID`` (``TABLE.N``, as
``cardavia history`` lists it) asks for a stored game, kept for good in the
server's database: a public table's game for anyone, a private one's for its
players (logged in with ``cardavia login``). The two are told apart by the dot:
a table id never holds one.  Either way the replay shows the opening deal of
every seat and every play, one step per Enter on a terminal (``--all``:
everything at once, as when the output is piped).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, datetime
from typing import Any

from client_cli.client import ServerError
from client_cli.common import EXIT_OK, EXIT_USAGE, CliError, add_server, refused
from client_cli.lang import Language, add_lang, language, run_with_lang
from client_cli.records import session
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
    p.add_argument("table", help="the table's id, or a stored game's id TABLE.N")
    p.add_argument("game_no", nargs="?", type=int, help="which game (default: the last)")
    add_server(p)
    p.add_argument("--all", action="store_true", help="print every step at once")
    add_lang(p)
    p.set_defaults(func=run_with_lang(replay_main))


def is_game_id(target: str) -> bool:
    """Whether ``target`` names a stored game (``TABLE.N``) rather than a live table."""
    table, dot, number = target.rpartition(".")
    return bool(dot and table and number.isdigit())


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
    stored = is_game_id(args.table)
    if stored and args.game_no is not None:
        raise CliError("give a table and a game number, or a stored game's id alone", EXIT_USAGE)
    client = await session(args.url, args.ca_file, needed=False)
    try:
        if stored:
            record = await client.game_record(args.table)
            replay = record.replay
            seed = record.seed
        else:
            replay = await client.replay(args.table, args.game_no)
            seed = None
    except ServerError as exc:
        if exc.code == "not_found":
            what = "stored game" if stored else "replay of table"
            raise CliError(f"no {what} {args.table!r}: {exc.message}") from None
        raise refused("cannot replay", exc) from None
    finally:
        await client.close()
    if seed is not None:
        print(
            f"{args.table}: {datetime.fromtimestamp(record.finished_at, UTC):%Y-%m-%d %H:%M} UTC,"
            f" seed {seed}"
        )
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
