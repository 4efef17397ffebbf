"""``cardavia bot``: headless AI clients that take seats on a server and play.

Each bot opens its own session, quick-plays (or joins ``--table``), and plays
its seat with an engine policy deciding from the view the server sent it —
nothing more, so a bot cannot peek.  When every bot's game is over the
command prints one line per bot and, last, a JSON line with every result::

    cardavia bot --url ws://127.0.0.1:8765 --game scopa --count 2 --policy greedy

With ``--api-token`` (or ``CARDAVIA_BOT_TOKEN`` in the environment, as
examples/bot.py reads it) every bot logs in to that bot account: its seats are
labelled as a bot's and its games go to the account's history (docs/bots.md).
With ``--rated`` as well, the bot waits in the game's rated queue instead of
quick-playing (issue 55): the queue seats it with players of close rating who
accept bot accounts (and other bots with ``--with-bots``), or after its wait
with the AI level of the closest rating, and the game changes its rating.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import Any

from client_cli.client import (
    Client,
    ClientClosed,
    ServerError,
    play_table,
    policy_chooser,
    reconnect,
    table_peers,
)
from client_cli.common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    add_server,
    connect,
    refused,
    run,
)
from protocol import server_messages as sm


def add_parser(sub: Any) -> None:
    """Register ``cardavia bot``."""
    p = sub.add_parser(
        "bot",
        help="run headless AI clients against a server",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_server(p)
    p.add_argument("--game", required=True, help="scopa, cicera, doudizhu, schafkopf …")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--quick", action="store_true", help="quick-play (the default)")
    how.add_argument("--table", metavar="ID", help="join this table (first free seats)")
    how.add_argument(
        "--rated",
        action="store_true",
        help="wait in the rated queue (a bot account: --api-token; one bot)",
    )
    p.add_argument(
        "--with-bots",
        action="store_true",
        help="with --rated: other bot accounts may be seated with it",
    )
    p.add_argument("--invite", help="invite code of a private table")
    p.add_argument("--policy", help="engine policy (default: the game's strongest)")
    p.add_argument("--count", type=int, default=1, help="how many bots (default 1)")
    p.add_argument("--name", default="bot", help="display name prefix (bot-1, bot-2 …)")
    p.add_argument(
        "--api-token",
        metavar="TOKEN",
        help=f"play as the bot account of this API token (default: ${TOKEN_VARIABLE})",
    )
    p.add_argument("--seed", type=int, help="seed of the bots' random choices")
    p.add_argument("--verbose", action="store_true", help="print each bot's moves")
    p.set_defaults(func=lambda args: run(bot_main(args)))


TOKEN_VARIABLE = "CARDAVIA_BOT_TOKEN"
"""The environment variable holding a bot account's API token (as examples/bot.py reads
it): a token kept out of the command line is kept out of the process list."""


def api_token(args: argparse.Namespace) -> str | None:
    """The bot account's API token: ``--api-token``, else :data:`TOKEN_VARIABLE`
    (empty: none, an anonymous session per bot)."""
    token: str | None = args.api_token
    if token is None:
        token = os.environ.get(TOKEN_VARIABLE)
    return token or None


@dataclass(frozen=True)
class BotResult:
    """How one bot's game went (one element of the final JSON line)."""

    name: str
    table: str
    seat: int | None
    scores: list[Any] | None
    winners: list[int] | None
    won: bool | None
    moves: int
    seconds: float
    error: str | None = None


def check_policy(game: str, policy: str | None) -> str:
    """The policy name to use; raise :class:`CliError` for an unknown game or policy."""
    from engine.registry import GAMES, policy_names

    if game not in GAMES:
        raise CliError(f"unknown game {game!r}; known: {', '.join(GAMES)}", EXIT_USAGE)
    names = policy_names(game)
    if policy is None:
        return names[-1]
    if policy not in names:
        raise CliError(
            f"unknown policy {policy!r} for {game}; known: {', '.join(names)}", EXIT_USAGE
        )
    return policy


async def bot_main(args: argparse.Namespace) -> int:
    """Start ``--count`` bots, wait for all of their games, print the results."""
    policy = check_policy(args.game, args.policy)
    if args.count < 1:
        raise CliError("--count must be at least 1", EXIT_USAGE)
    token = api_token(args)
    check_rated(args, token)
    # connect every bot first, so a bad URL or a missing table fails fast and clearly
    clients: list[Client] = []
    try:
        for i in range(args.count):
            name = f"{args.name}-{i + 1}"  # with a token, the account's name replaces it
            clients.append(await connect(args.url, name, ca_file=args.ca_file, api_token=token))
        results = await asyncio.gather(
            *(run_bot(c, args, policy, i) for i, c in enumerate(clients))
        )
    finally:
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
    for r in results:
        if r.error:
            print(f"{r.name}: {r.error}")
        else:
            outcome = "won" if r.won else "lost"
            print(
                f"{r.name}: table {r.table} seat {r.seat}: {outcome}, scores {r.scores}, "
                f"{r.moves} moves in {r.seconds:.1f} s"
            )
    summary = {
        "game": args.game,
        "policy": policy,
        "bots": [asdict(r) for r in results],
    }
    print(json.dumps(summary, separators=(",", ":")))
    sys.stdout.flush()
    return EXIT_FAILED if any(r.error for r in results) else EXIT_OK


def check_rated(args: argparse.Namespace, token: str | None) -> None:
    """``--rated`` queues a bot account, once: refuse what cannot queue before connecting."""
    if args.with_bots and not args.rated:
        raise CliError("--with-bots is for the rated queue: give --rated", EXIT_USAGE)
    if not args.rated:
        return
    if token is None:
        raise CliError(
            f"--rated plays as a bot account: give --api-token (or ${TOKEN_VARIABLE})", EXIT_USAGE
        )
    if args.count != 1:
        raise CliError("--rated queues one bot account once: give --count 1", EXIT_USAGE)


async def take_seat(client: Client, args: argparse.Namespace) -> sm.Joined:
    """``--table``'s seat, the rated queue's (``--rated``: wait until it seats the bot),
    or quick play's."""
    if args.table:
        return await client.join(args.table, None, args.invite)
    if args.rated:
        await client.queue_rated(args.game, with_bots=args.with_bots)
        joined: sm.Joined = await client.wait_for(lambda m: isinstance(m, sm.Joined), None)
        return joined
    return await client.quick_play(args.game)


async def run_bot(client: Client, args: argparse.Namespace, policy: str, index: int) -> BotResult:
    """One bot: take a seat, play it with ``policy`` until the game ends."""
    name = client.name
    started = time.monotonic()
    try:
        joined = await take_seat(client, args)
    except ServerError as exc:
        if exc.code == "not_found" and args.table:
            raise CliError(f"table {args.table!r} not found ({exc.message})") from None
        raise refused(f"{name} cannot take a seat", exc) from None
    if joined.table.game != args.game:
        raise CliError(f"table {joined.table.id} plays {joined.table.game}, not {args.game}")
    seat = joined.seat
    seed = None if args.seed is None else args.seed + index
    table = joined.table.id
    # told who sits where, as the server tells its own AI (after a reconnect too)
    choose_sync = policy_chooser(
        args.game, policy, seed, peers=lambda: table_peers(client.tables.get(table))
    )
    moves = 0

    async def choose(view: dict[str, Any]) -> Any:
        nonlocal moves
        moves += 1
        # the policy may think for a while: keep the other bots and the socket alive
        action = await asyncio.to_thread(choose_sync, view)
        if args.verbose:
            print(f"{name} (seat {seat}): {json.dumps(action, separators=(',', ':'))}")
        return action

    try:
        while True:
            try:
                result = await play_table(client, joined.table.id, choose)
                break
            except ClientClosed:
                # the server went away: resume through whichever process answers
                back = await reconnect(args.url, client, joined.table.id)
                if back is None:
                    raise
                client = back
    except (ClientClosed, ServerError) as exc:
        return BotResult(
            name,
            joined.table.id,
            seat,
            None,
            None,
            None,
            moves,
            time.monotonic() - started,
            str(exc),
        )
    winners = list(result.get("winners") or [])
    return BotResult(
        name=name,
        table=joined.table.id,
        seat=seat,
        scores=list(result.get("scores") or []),
        winners=winners,
        won=seat in winners,
        moves=moves,
        seconds=round(time.monotonic() - started, 3),
    )
