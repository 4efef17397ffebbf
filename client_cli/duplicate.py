"""``cardavia duplicate``: duplicate sets against the AI (docs/duplicate.md).

    cardavia duplicate list --url URL [--game GAME]       today's daily and the open sets
    cardavia duplicate create GAME --url URL [--level L] [--boards N] [--minutes M] [--seat S]
    cardavia duplicate play SET --url URL                 play your next board of SET
    cardavia duplicate standings SET --url URL            the set's live standings
    cardavia duplicate board SET N --url URL              board N's results (once played)

Playing, making a set and a board's results need the account ``cardavia login`` kept
for the server (results are kept per account); the list and standings do not.  A
board's results are shown only once you have finished that board; ``--json`` prints
the server's answer as one JSON object.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel

from client_cli.client import ServerError
from client_cli.common import EXIT_OK, refused
from client_cli.lang import Language, server_actions
from client_cli.options import number_in
from client_cli.play_session import PlaySession
from client_cli.records import session
from client_cli.terminal import Screen
from protocol import server_messages as sm

BOARDS = number_in(1, 32, integer=True, what="a number of boards")
BOARD = number_in(1, 64, integer=True, what="a board number")
MINUTES = number_in(10, 10_080, integer=True, what="minutes (10 to 10,080)")
SEAT = number_in(0, 3, integer=True, what="a seat")


def add_parser(sub: Any) -> None:
    """Register ``cardavia duplicate`` and its actions."""
    action = server_actions(
        sub,
        "duplicate",
        "duplicate sets against the AI: list, create, play, standings, board",
        __doc__,
        duplicate_main,
    )
    q = action("list", "the open sets, today's daily ones among them")
    q.add_argument("--game", help="of this game only")
    q = action("create", "make an on-demand set others can join")
    q.add_argument("game")
    q.add_argument("--level", default="normal", help="the AI level: easy, normal, hard")
    q.add_argument("--boards", type=BOARDS, default=8)
    q.add_argument("--minutes", type=MINUTES, default=60, help="how long the set stays open")
    q.add_argument("--seat", type=SEAT, default=0, help="the seat every board is played from")
    q = action("play", "play your next board of a set")
    q.add_argument("set_id")
    q.add_argument("--plain", action="store_true", help="plain input lines")
    q = action("standings", "a set's live standings")
    q.add_argument("set_id")
    q = action("board", "a board's results, once you played it")
    q.add_argument("set_id")
    q.add_argument("board", type=BOARD)


def _when(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")


def set_lines(sets: sm.DuplicateSets) -> list[str]:
    """One line per set: id, game, level, boards, close time, players, your next board."""
    if not sets.sets:
        return ["no open duplicate sets"]
    lines = []
    for s in sets.sets:
        if s.next_board is None:
            mine = "all played" if s.players else "-"
        else:
            mine = f"next board {s.next_board}"
        lines.append(
            f"{s.set_id}  {s.game} vs {s.level} from seat {s.seat}, {s.boards} boards, "
            f"closes {_when(s.closes_at)}, {s.players} players, {mine}"
        )
    return lines


def standing_lines(table: sm.DuplicateStandings) -> list[str]:
    """The standings, one line per player."""
    if not table.standings:
        return [f"{table.set_id}: nobody has finished a board yet"]
    lines = [f"{table.set_id}:  rank  name  boards  matchpoints  %  IMPs"]
    for s in table.standings:
        lines.append(
            f"{s.rank:>4}. {s.name}  {s.boards}  {s.matchpoints}/{s.top}  "
            f"{s.percent:.1f}%  {s.imps:+.2f}"
        )
    return lines


def board_lines(board: sm.DuplicateBoard) -> list[str]:
    """A board's table of results and how many replays came with it."""
    lines = [f"{board.set_id} board {board.board}:  name  score  matchpoints  IMPs"]
    for r in board.results:
        lines.append(f"  {r.name}  {r.score:+d}  {r.matchpoints}/{r.top}  {r.imps:+.2f}")
    lines.append(f"{len(board.replays)} replays of the others' play (--json for them)")
    return lines


def _dump(msg: BaseModel) -> None:
    print(json.dumps(msg.model_dump(mode="json", exclude={"ref"}), separators=(",", ":")))


async def duplicate_main(args: argparse.Namespace, lang: Language) -> int:
    """Run one ``cardavia duplicate`` action."""
    needed = args.action in ("create", "play", "board")
    client = await session(args.url, args.ca_file, needed=needed)
    try:
        if args.action == "play":
            try:
                joined = await client.play_duplicate(args.set_id)
            except ServerError as exc:
                raise refused("cannot play the set", exc) from None
            play = PlaySession(client, joined, Screen(), url=args.url, lang=lang)
            play.fancy_input = not args.plain
            return await play.run([])
        try:
            answer: BaseModel
            if args.action == "list":
                answer = await client.duplicate_sets(args.game)
                lines = set_lines(answer)
            elif args.action == "create":
                made = await client.create_duplicate_set(
                    args.game, args.level, args.boards, args.minutes, args.seat
                )
                answer = sm.DuplicateSets(sets=(made,))
                lines = [
                    *set_lines(answer),
                    f"others join with: cardavia duplicate play {made.set_id} --url {args.url}",
                ]
            elif args.action == "standings":
                answer = await client.duplicate_standings(args.set_id)
                lines = standing_lines(answer)
            else:
                answer = await client.duplicate_board(args.set_id, args.board)
                lines = board_lines(answer)
        except ServerError as exc:
            raise refused(f"cannot {args.action}", exc) from None
    finally:
        await client.close()
    if args.json:
        _dump(answer)
    else:
        print("\n".join(lines))
    return EXIT_OK
