"""``cardavia schema``: print the JSON Schema of the protocol's messages and of each game."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register the ``schema`` sub-command."""
    from engine.registry import GAMES

    parser = subparsers.add_parser(
        "schema",
        help="print the JSON Schema of the protocol's messages and of each game",
        description=(
            "Print the JSON Schema of every message of the Cardavia protocol, generated "
            "from the models: 'client' (what clients send), 'server' (what they receive) "
            "and 'games' (each game's options, view, action and event, generated from the "
            "engine's types). --game prints one game's schema on its own, --games all games'."
        ),
    )
    parser.add_argument(
        "--direction",
        choices=("both", "client", "server"),
        default="both",
        help="only the messages of one direction",
    )
    parser.add_argument(
        "--game", choices=tuple(GAMES), help="only this game's options, view, action and event"
    )
    parser.add_argument(
        "--games", action="store_true", help="only the games' schemas (keyed by game id)"
    )
    parser.add_argument(
        "--markdown",
        action="store_true",
        help="with --game: the game's documentation page (docs/games/GAME.md) instead",
    )
    parser.add_argument("--indent", type=int, default=2, help="JSON indentation (0: compact)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    from protocol.game_schema import all_game_schemas, game_schema
    from protocol.schema import json_schema

    schema: dict[str, Any]
    if getattr(args, "markdown", False):
        if not getattr(args, "game", None):
            print("cardavia schema: --markdown needs --game", file=sys.stderr)
            return 2
        from client_cli.game_docs import markdown

        return _print(markdown(args.game))
    if getattr(args, "game", None):
        schema = game_schema(args.game)
    elif getattr(args, "games", False):
        schema = all_game_schemas("#")
    else:
        schema = json_schema()
        if args.direction != "both":
            schema = schema[args.direction]
    return _print(json.dumps(schema, indent=args.indent or None, sort_keys=False) + "\n")


def _print(text: str) -> int:
    try:
        sys.stdout.write(text)
    except BrokenPipeError:  # e.g. piped into head
        return 0
    return 0
