"""``cardavia tournaments`` and ``cardavia join-tournament ID``: tournaments from the terminal.

``cardavia tournaments --url URL`` lists the tournaments scheduled or running
(``--finished``: the finished ones too), ``--standings ID`` prints one's standings,
and ``--create NAME --game GAME --kind swiss|arena|duplicate-swiss`` with
``--rounds N`` (a Swiss) or ``--minutes N`` (an arena), ``--start-in SECONDS`` and
``--turn-timer SECONDS`` creates one (docs/tournaments.md).

``cardavia join-tournament ID --url URL`` registers the account ``cardavia login``
kept for the server, then waits: each round the server seats the player at their
table, and the terminal's play session plays it (``--bot``: a bot plays every move
with the random policy, for tests and benchmarks).  The command ends with the
final standings; a dropped connection is resumed.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from client_cli.client import Client, ServerError, random_chooser, reconnect
from client_cli.common import EXIT_OK, add_server, refused
from client_cli.lang import Language, add_lang, run_with_lang
from client_cli.options import number_in
from client_cli.records import session, when
from client_cli.table_player import terminal_player
from client_cli.terminal import Screen
from client_cli.tournament import bot_player, play_tournament
from protocol import client_messages as cm
from protocol import server_messages as sm


def add_parser(sub: Any) -> None:
    """Register ``cardavia tournaments`` and ``cardavia join-tournament``."""
    p = sub.add_parser(
        "tournaments",
        help="list, create or show the standings of tournaments",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_server(p)
    p.add_argument("--finished", action="store_true", help="list the finished ones too")
    p.add_argument("--standings", metavar="ID", help="print this tournament's standings")
    p.add_argument("--create", metavar="NAME", help="create a tournament called NAME")
    p.add_argument("--game", default="scopa", help="its game (with --create)")
    p.add_argument(
        "--kind", default="swiss", choices=("swiss", "arena", "duplicate-swiss"), help="its kind"
    )
    p.add_argument("--rounds", type=number_in(1, 50, integer=True, what="rounds"), default=None)
    p.add_argument("--minutes", type=number_in(1, 1440, integer=True, what="minutes"))
    p.add_argument("--start-in", type=number_in(0, 86_400, what="seconds"), default=60.0)
    p.add_argument("--turn-timer", type=number_in(5, 600, what="seconds"), default=None)
    p.add_argument("--level", default="normal", help="the AI level filling seats left over")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    add_lang(p)
    p.set_defaults(func=run_with_lang(tournaments_main))

    j = sub.add_parser(
        "join-tournament",
        help="register in a tournament and play each round's table",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    j.add_argument("tournament", help="the tournament's id (cardavia tournaments lists them)")
    add_server(j)
    j.add_argument("--bot", action="store_true", help="play every move with a random bot")
    j.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    add_lang(j)
    j.set_defaults(func=run_with_lang(join_main))


def tournament_line(t: sm.TournamentInfo, lang: Language) -> str:
    """One listed tournament."""
    length = (
        lang.t("tournament.rounds", n=t.rounds)
        if t.rounds is not None
        else lang.t("tournament.minutes", n=(t.duration or 0) // 60)
    )
    return lang.t(
        "tournament.line",
        id=t.id,
        name=t.name,
        game=t.game,
        kind=t.kind,
        status=t.status,
        start=when(t.starts_at),
        length=length,
        players=t.players,
        mine=lang.t("tournament.mine") if t.registered else "",
    )


def standings_lines(standings: sm.Standings, lang: Language) -> list[str]:
    """A tournament's standings, best first."""
    return [
        lang.t(
            "tournament.standing",
            rank=s.rank,
            name=s.name,
            matchpoints=""
            if s.matchpoints is None
            else lang.t("tournament.matchpoints", n=s.matchpoints),
            points=f"{s.points:g}",
            buchholz=f"{s.buchholz:g}",
            head_to_head=f"{s.head_to_head:g}",
            game_score=s.game_score,
            games=s.games,
            withdrawn=lang.t("tournament.withdrawn") if s.withdrawn else "",
        )
        for s in standings.standings
    ]


def create_request(args: argparse.Namespace) -> cm.CreateTournament:
    """The ``create_tournament`` the arguments ask for."""
    return cm.CreateTournament(
        name=args.create,
        game=args.game,
        kind=args.kind,
        starts_at=time.time() + args.start_in,
        rounds=args.rounds if args.kind != "arena" else None,
        duration=args.minutes * 60 if args.kind == "arena" and args.minutes else None,
        turn_timer=args.turn_timer,
        level=args.level,
    )


async def tournaments_main(args: argparse.Namespace, lang: Language) -> int:
    """List, create, or show standings."""
    client = await session(args.url, args.ca_file, needed=args.create is not None)
    try:
        if args.create is not None:
            made = await client.create_tournament(create_request(args))
            out: Any = made
            lines = [lang.t("tournament.created", id=made.id, url=args.url)]
        elif args.standings is not None:
            out = await client.standings(args.standings)
            lines = [tournament_line(out.tournament, lang), *standings_lines(out, lang)]
        else:
            found = await client.tournaments(finished=args.finished)
            out = sm.Tournaments(tournaments=found)
            lines = [tournament_line(t, lang) for t in found] or [lang.t("tournament.none")]
    except ServerError as exc:
        raise refused("the tournament request was refused", exc) from None
    finally:
        await client.close()
    if args.json:
        print(json.dumps(out.model_dump(mode="json", exclude={"ref"}), separators=(",", ":")))
    else:
        print("\n".join(lines))
    return EXIT_OK


def _seated(table: str, lang: Language) -> str:
    """The line that announces a round's table (its id says the round: ``T-r2-t1``)."""
    return lang.t("tournament.seated", round=table.rsplit("-r", 1)[1].split("-")[0], table=table)


async def join_main(args: argparse.Namespace, lang: Language) -> int:
    """Register, play each round's table, print the final standings."""
    client = await session(args.url, args.ca_file, needed=True)
    screen = Screen()
    play = (
        bot_player(random_chooser(args.seed))
        if args.bot
        else terminal_player(args.url, screen, lang, lambda table: _seated(table, lang))
    )

    async def resume(old: Client) -> Client | None:
        return await reconnect(args.url, old)

    try:
        await client.register_tournament(args.tournament)
        screen.show([lang.t("tournament.registered", id=args.tournament)])
        run = await play_tournament(client, args.tournament, play, register=False, resume=resume)
    except ServerError as exc:
        raise refused("cannot play the tournament", exc) from None
    finally:
        await client.close()
    await run.client.close()
    screen.show(
        [lang.t("tournament.over", id=args.tournament), *standings_lines(run.standings, lang)]
    )
    return EXIT_OK
