"""``cardavia history`` and ``cardavia profile``: an account's stored games on a server.

``cardavia history --url URL [--game G] [--limit N] [--all]`` lists the games of
the account kept by ``cardavia login`` for that server, newest first (``--all``:
every page, following the server's cursor); each line shows the game id that
``cardavia replay GAME_ID --url URL`` replays.  ``cardavia profile --url URL
[NAME]`` shows an account's games played and won per game and its ratings (per
game ``1612 ± 94``, or ``1500?`` while provisional; its rated games, the change
of the last one and a sparkline of its history); without NAME the kept
account's own, which needs ``cardavia login``.
"""

from __future__ import annotations

import argparse
import secrets
from datetime import UTC, datetime
from typing import Any

from client_cli.client import Client, ServerError
from client_cli.common import EXIT_OK, CliError, add_server, connect, refused, run
from client_cli.credentials import CredentialFile
from client_cli.lang import Language, add_lang, run_with_lang
from client_cli.rating_view import day, profile_rating_lines
from protocol import server_messages as sm


def add_parser(sub: Any) -> None:
    """Register ``cardavia history`` and ``cardavia profile``."""
    h = sub.add_parser(
        "history",
        help="your stored games on a server, newest first (after cardavia login)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_server(h)
    h.add_argument("--game", help="only this game's (e.g. scopa)")
    h.add_argument("--limit", type=int, default=20, help="games per page (1 to 50)")
    h.add_argument("--all", action="store_true", help="every page, not just the newest")
    h.set_defaults(func=lambda args: run(history_main(args)))
    p = sub.add_parser("profile", help="an account's games played and won, and its ratings")
    p.add_argument("name", nargs="?", help="the account (default: your own)")
    add_server(p)
    add_lang(p)
    p.set_defaults(func=run_with_lang(profile_main))


async def session(url: str, ca_file: str | None, *, needed: bool) -> Client:
    """A session at ``url``, logged in to the account ``cardavia login`` kept for it
    (``needed``: refuse without one)."""
    kept = CredentialFile().get(url)
    if kept is None and needed:
        raise CliError(f"no account kept for {url}: run cardavia login --url {url} first")
    login = None if kept is None else (kept.name, kept.password)
    return await connect(url, f"guest {secrets.randbelow(10**6)}", ca_file=ca_file, login=login)


def when(seconds: float) -> str:
    """A stored time as UTC, to the minute."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def seat_label(seat: sm.StoredSeat) -> str:
    """A stored seat as one word or two: its name, or the AI and its level."""
    if seat.kind == "ai" and not seat.left:
        return f"AI ({seat.level})" if seat.level else "AI"
    name = seat.name or "?"
    return f"{name} (bot)" if seat.kind == "bot" else name


def history_line(game: sm.HistoryGame) -> str:
    """One stored game: id, when, game, outcome for the account, every seat's score."""
    mine = next((s for s in game.seats if s.seat == game.seat), None)
    outcome = "won" if mine is not None and mine.won else "lost"
    if not any(s.won for s in game.seats):
        outcome = "draw"
    seats = ", ".join(f"{seat_label(s)} {s.score}" for s in game.seats)
    private = " (private)" if game.private else ""
    return f"{game.game_id}  {when(game.finished_at)}  {game.game}  {outcome}  {seats}{private}"


async def history_main(args: argparse.Namespace) -> int:
    """Print the kept account's stored games, newest first."""
    client = await session(args.url, args.ca_file, needed=True)
    cursor: str | None = None
    shown = 0
    try:
        while True:
            page = await client.history(game=args.game, cursor=cursor, limit=args.limit)
            for game in page.games:
                print(history_line(game))
            shown += len(page.games)
            cursor = page.cursor
            if cursor is None or not args.all:
                break
    except ServerError as exc:
        raise refused("cannot list your games", exc) from None
    finally:
        await client.close()
    if not shown:
        print("no stored games yet")
    elif cursor is not None:
        print("(older games: --all)")
    return EXIT_OK


async def profile_main(args: argparse.Namespace, lang: Language) -> int:
    """Print an account's profile."""
    client = await session(args.url, args.ca_file, needed=args.name is None)
    try:
        profile = await client.profile(args.name)
    except ServerError as exc:
        if exc.code == "not_found":
            raise CliError(f"no account named {args.name!r}") from None
        raise refused("cannot show the profile", exc) from None
    finally:
        await client.close()
    print("\n".join(profile_lines(profile, lang)))
    return EXIT_OK


def profile_lines(profile: sm.Profile, lang: Language) -> list[str]:
    """A profile as ``cardavia profile`` prints it: who, since when, games played and
    won per game, then the ratings."""
    t = lang.t
    name = t("seat.bot", name=profile.name) if profile.bot else profile.name
    lines = [t("profile.member_since", name=name, date=day(profile.member_since))]
    for game in profile.games:
        lines.append("  " + t("profile.game", game=game.game, played=game.played, won=game.won))
    if not profile.games:
        lines.append("  " + t("profile.no_games"))
    return lines + profile_rating_lines(profile.ratings, lang)
