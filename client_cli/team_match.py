"""``cardavia team-match``: team duplicate matches (docs/duplicate.md, Team matches).

    cardavia team-match list --url URL [--game GAME]           the public matches
    cardavia team-match create GAME --url URL [--boards N] [--level L] [--private]
                                              [--no-auto-start]
    cardavia team-match join MATCH --url URL [--team a|b] [--slot N]
    cardavia team-match leave MATCH --url URL                  before it starts
    cardavia team-match start MATCH --url URL                  its creator, rosters full
    cardavia team-match show MATCH --url URL                   rosters, boards, IMPs
    cardavia team-match board MATCH N --url URL                board N (once you played it)
    cardavia team-match play MATCH --url URL [--bot [--seed S]]

Every action but ``list`` and ``show`` needs the account ``cardavia login`` kept for
the server.  ``play`` sits you at your table of each board in turn and plays it with
the terminal's play session (``--bot``: a bot plays every move with the random
policy, for tests and headless clients), then waits for the other tables and prints
the match.  A private match is joined by its id, which its creator passes on.
``--json`` prints the server's answer as one JSON object.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from pydantic import BaseModel

from client_cli.client import Client, ServerError, random_chooser
from client_cli.common import EXIT_OK, refused
from client_cli.lang import Language, server_actions
from client_cli.options import number_in
from client_cli.records import session
from client_cli.table_player import terminal_player
from client_cli.team_play import play_match
from client_cli.terminal import Screen
from client_cli.tournament import bot_player
from protocol import server_messages as sm

BOARDS = number_in(1, 32, integer=True, what="a number of boards")
BOARD = number_in(1, 64, integer=True, what="a board number")
SLOT = number_in(0, 7, integer=True, what="a member slot")
NEEDS_ACCOUNT = ("create", "join", "leave", "start", "board", "play")


def add_parser(sub: Any) -> None:
    """Register ``cardavia team-match`` and its actions."""
    action = server_actions(
        sub,
        "team-match",
        "team duplicate matches: list, create, join, leave, start, show, board, play",
        __doc__,
        team_main,
    )
    q = action("list", "the public matches forming or playing")
    q.add_argument("--game", help="of this game only")
    q = action("create", "make a match (you join team A)")
    q.add_argument("game")
    q.add_argument("--boards", type=BOARDS, default=4)
    q.add_argument("--level", default="normal", help="the AI level: easy, normal, hard")
    q.add_argument("--private", action="store_true", help="not listed: joined by its id")
    q.add_argument(
        "--no-auto-start", action="store_true", help="start it yourself once both teams are full"
    )
    q = action("join", "join a team of a match not started")
    q.add_argument("match_id")
    q.add_argument("--team", choices=("a", "b"), help="the team (default: the emptier one)")
    q.add_argument("--slot", type=SLOT, help="the member slot (default: the first free one)")
    for name, text in (
        ("leave", "leave a match before it starts"),
        ("start", "start your match once both teams are full"),
        ("show", "a match's rosters, boards and IMPs"),
    ):
        q = action(name, text)
        q.add_argument("match_id")
    q = action("board", "a board's results and the others' replays")
    q.add_argument("match_id")
    q.add_argument("board", type=BOARD)
    q = action("play", "play your table of every board")
    q.add_argument("match_id")
    q.add_argument("--bot", action="store_true", help="play every move with a random bot")
    q.add_argument("--seed", type=int, default=None, help="the bot's random seed")
    q.add_argument("--plain", action="store_true", help="plain input lines")


def _signed(value: int | None) -> str:
    return "?" if value is None else f"{value:+d}"


def match_lines(m: sm.TeamMatchInfo, lang: Language) -> list[str]:
    """A match: its heading, each team's roster, each board's tables, net and IMPs."""
    lines = [
        lang.t(
            "team.heading",
            id=m.match_id,
            game=m.game,
            boards=m.boards,
            level=m.level,
            status=lang.t(f"team.status.{m.status}"),
            a=m.imps_a,
            b=m.imps_b,
        )
    ]
    for team in ("a", "b"):
        names = ", ".join(f"{p.slot}: {p.name}" for p in m.roster if p.team == team)
        lines.append(lang.t("team.roster", team=team.upper(), names=names or "-"))
    if m.my_team is not None:
        nxt = "-" if m.next_board is None else str(m.next_board)
        lines.append(
            lang.t("team.you", team=m.my_team.upper(), table=(m.my_table or 0) + 1, next=nxt)
        )
    lines.extend(board_line(line, lang) for line in m.results)
    return lines


def board_line(line: sm.TeamBoardLine, lang: Language) -> str:
    """A board: each table's totals (as the asker may see them), the net and IMPs."""
    cells = "  ".join(
        f"{t.table + 1}: A {_signed(t.a_total)} B {_signed(t.b_total)}"
        if t.a_total is not None
        else f"{t.table + 1}: " + lang.t("team.done" if t.done else "team.playing")
        for t in line.tables
    )
    net = "" if line.imps is None else lang.t("team.net", net=line.net, imps=line.imps)
    return lang.t("team.board", board=line.board, tables=cells, net=net)


def list_lines(found: sm.TeamMatches, lang: Language) -> list[str]:
    """One line per public match."""
    if not found.matches:
        return [lang.t("team.none")]
    return [
        lang.t(
            "team.line",
            id=m.match_id,
            game=m.game,
            boards=m.boards,
            level=m.level,
            status=lang.t(f"team.status.{m.status}"),
            players=len(m.roster),
            places=2 * m.team_size,
        )
        for m in found.matches
    ]


def _dump(msg: BaseModel) -> None:
    print(json.dumps(msg.model_dump(mode="json", exclude={"ref"}), separators=(",", ":")))


async def _answer(client: Client, args: argparse.Namespace) -> sm.TeamMatchInfo:
    mid = getattr(args, "match_id", "")
    if args.action == "create":
        return await client.create_team_match(
            args.game,
            args.boards,
            args.level,
            private=args.private,
            auto_start=not args.no_auto_start,
        )
    if args.action == "join":
        return await client.join_team_match(mid, args.team, args.slot)
    if args.action == "leave":
        return await client.leave_team_match(mid)
    if args.action == "start":
        return await client.start_team_match(mid)
    return await client.team_match(mid)


async def team_main(args: argparse.Namespace, lang: Language) -> int:
    """Run one ``cardavia team-match`` action."""
    client = await session(args.url, args.ca_file, needed=args.action in NEEDS_ACCOUNT)
    answer: BaseModel
    try:
        if args.action == "list":
            answer = await client.team_matches(args.game)
            lines = list_lines(answer, lang)
        elif args.action == "board":
            answer = await client.team_match_board(args.match_id, args.board)
            lines = [
                *match_lines(await client.team_match(args.match_id), lang)[:1],
                board_line(answer.line, lang),
                lang.t("team.replays", board=args.board, n=len(answer.replays)),
            ]
        elif args.action == "play":
            screen = Screen()
            play = (
                bot_player(random_chooser(args.seed))
                if args.bot
                else terminal_player(
                    args.url,
                    screen,
                    lang,
                    lambda table: lang.t("team.seated", table=table),
                    plain=args.plain,
                )
            )
            answer = await play_match(client, args.match_id, play)
            lines = [lang.t("team.over"), *match_lines(answer, lang)]
        else:
            answer = await _answer(client, args)
            lines = match_lines(answer, lang)
            if args.action == "create":
                lines.append(lang.t("team.created", id=answer.match_id, url=args.url))
    except ServerError as exc:
        raise refused(f"cannot {args.action} the team match", exc) from None
    finally:
        await client.close()
    if args.json:
        _dump(answer)
    else:
        print("\n".join(lines))
    return EXIT_OK
