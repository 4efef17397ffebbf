"""``cardavia rules GAME`` and ``cardavia games``: the rules and the games, without a server.

The players' rules ship inside this package (``client_cli/rules/*.md``;
``docs/rules/`` links to them), so an installed client can print them
anywhere: here, and with ``rules`` at the ``cardavia play`` prompt.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from importlib import resources
from typing import Any

from client_cli.common import EXIT_OK, EXIT_USAGE, CliError
from client_cli.markdown import page, render
from client_cli.style import Style, colour_wanted, terminal_size

TOPICS: dict[str, str] = {
    "scopa": "scopa.md",
    "cicera": "cicera.md",
    "doudizhu": "doudizhu.md",
    "schafkopf": "schafkopf.md",
    "cards": "cards.md",
}
"""What ``cardavia rules`` knows: a game id (or ``cards``) and its file."""

OPTION_HELP: dict[str, str] = {
    "target": "points that win the match",
    "deals": "deals in the series",
}
"""What a game option means, for ``cardavia games``."""

ALIASES: dict[str, str] = {"dou-dizhu": "doudizhu", "dou_dizhu": "doudizhu", "notation": "cards"}


def add_parser(sub: Any) -> None:
    """Register ``cardavia rules`` and ``cardavia games``."""
    p = sub.add_parser(
        "rules",
        help="print the rules of a game (or 'cards': how cards are written)",
        description="Print the players' rules of a game, as the server enforces them "
        "(through $PAGER, default 'less -R', when longer than the screen).",
    )
    p.add_argument("topic", nargs="?", help=f"one of {', '.join(TOPICS)} (none: the list of games)")
    p.set_defaults(func=rules_main)
    g = sub.add_parser("games", help="list the games, their seats, AI levels and options")
    g.set_defaults(func=games_main)


def rules_text(topic: str | None) -> str:
    """The rules of ``topic`` (a game id, ``cards``; None: the index); raise CliError."""
    if topic is None or topic.lower() == "readme":
        name = "README.md"
    else:
        key = ALIASES.get(topic.lower(), topic.lower())
        if key not in TOPICS:
            raise CliError(f"no rules for {topic!r}: choose one of {', '.join(TOPICS)}", EXIT_USAGE)
        name = TOPICS[key]
    return resources.files("client_cli").joinpath("rules", name).read_text(encoding="utf-8")


def rules_lines(topic: str | None, width: int, style: Style) -> list[str]:
    """The rules of ``topic`` laid out for a terminal ``width`` columns wide (Markdown
    rendered: no ``**``, tables aligned, other rule files named by their command)."""
    return render(rules_text(topic), width, style, TOPICS)


def rules_main(args: argparse.Namespace) -> int:
    """Print the rules, through a pager when longer than the screen."""
    try:
        lines = rules_lines(args.topic, terminal_size()[0], Style(colour_wanted(sys.stdout)))
    except CliError as exc:
        print(f"cardavia: {exc}", file=sys.stderr)
        return exc.status
    page(lines)
    return EXIT_OK


def game_lines() -> list[str]:
    """Every registered game: seats, AI levels (strongest last) and options with defaults."""
    from engine.cards import patterns_for
    from engine.registry import GAMES, policy_names

    lines: list[str] = []
    for game_id, game in GAMES.items():
        opts = game.options()
        levels = policy_names(game_id)
        lines.append(f"{game_id}: {game.title}, {game.num_seats(opts)} players")
        lines.append(f"  AI levels: {', '.join(levels)} (default: {levels[-1]})")
        for field in dataclasses.fields(opts):
            value = getattr(opts, field.name)
            if field.name == "pattern":
                allowed = ", ".join(patterns_for(game.deck.family))
                lines.append(f"  -o pattern=NAME   card pattern: {allowed} (default {value})")
            else:
                what = OPTION_HELP.get(field.name, field.name.replace("_", " "))
                lines.append(f"  -o {field.name}=VALUE   {what} (default {value})")
        lines.append(f"  rules: cardavia rules {game_id}")
    return lines


def games_main(args: argparse.Namespace) -> int:
    """Print the games."""
    print("\n".join(game_lines()))
    return EXIT_OK
