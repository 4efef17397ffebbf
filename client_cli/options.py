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


def number_in(low: float, high: float, *, integer: bool = False, what: str = "a number") -> Any:
    """An argparse ``type`` accepting ``low`` ≤ value ≤ ``high``; the error says what is allowed."""

    def parse(text: str) -> float | int:
        try:
            value: float | int = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {what}: give one from {low:g} to {high:g}"
            ) from None
        if not low <= value <= high or value != value:
            raise argparse.ArgumentTypeError(
                f"{text} is out of range: give one from {low:g} to {high:g}"
            )
        return value

    parse.__name__ = what  # argparse names the type in its messages
    return parse


SECONDS = number_in(0, 3600, what="a number of seconds")
"""0 to 3600 seconds (``--ai-delay``)."""
TURN_SECONDS = number_in(1, 3600, what="a number of seconds")
"""1 to 3600 seconds (``--turn-timer``)."""
PORT = number_in(0, 65535, integer=True, what="a port number")
"""0 (any free port) to 65535."""
