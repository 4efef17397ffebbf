"""Command-line parsing shared by the sub-commands."""

from __future__ import annotations

import argparse
import json
from typing import Any


def parse_option(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` as a game option; VALUE is read as JSON when it parses (``target=21``)."""
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"option {text!r} must look like KEY=VALUE")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def add_option_argument(parser: argparse.ArgumentParser, example: str) -> None:
    """The repeatable ``-o KEY=VALUE`` game-option flag."""
    parser.add_argument(
        "--option",
        "-o",
        action="append",
        type=parse_option,
        default=[],
        metavar="KEY=VALUE",
        help=f"a game option, e.g. -o {example}",
    )
