"""The ``cardavia`` command: one sub-command per module of this package.

Each module listed in ``COMMANDS`` exposes ``add_parser(subparsers)``, which
registers its sub-command and sets ``func(args) -> int`` as the handler.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Sequence
from typing import NoReturn

COMMANDS: tuple[str, ...] = (
    "play",
    "rulebook",
    "bot",
    "lobby",
    "watch",
    "replay",
    "selfplay",
    "arena",
    "arena_compare",
    "schema",
    "account",
    "records",
    "leaderboard",
    "duplicate",
    "tournaments",
    "team_match",
)


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: what is wrong and what is allowed."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command registered."""
    parser = Parser(prog="cardavia", description="Cardavia card games: play, run bots, self-play.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(f"client_cli.{name}").add_parser(sub)
    for command in sub.choices.values():  # descriptions are module docstrings: reST
        command.description = help_text(command.description)
        for action in command._actions:
            action.help = help_text(action.help)
    return parser


_ROLE = re.compile(r":[a-z]+:`~?(?:[\w.]*\.)?([^`.]+)`")
_LITERAL = re.compile(r"``([^`]+)``")


def help_text(text: str | None) -> str | None:
    """A docstring as ``--help`` prints it: Sphinx roles give the bare name (the
    reader of --help does not read Python), ``literals`` their text in quotes."""
    if text is None:
        return None
    return _LITERAL.sub(r"'\1'", _ROLE.sub(r"\1", text))


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cardavia`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (``cardavia arena-compare ... | head``): stop quietly,
        # as Unix tools do; stdout goes to /dev/null so the exit flush cannot fail too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
