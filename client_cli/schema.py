"""``cardavia schema``: print the JSON Schema of every protocol message."""

from __future__ import annotations

import argparse
import json
from typing import Any


def add_parser(subparsers: Any) -> None:
    """Register the ``schema`` sub-command."""
    parser = subparsers.add_parser(
        "schema",
        help="print the JSON Schema of the protocol's messages",
        description=(
            "Print the JSON Schema of every message of the Cardavia protocol, generated "
            "from the models: 'client' (what clients send) and 'server' (what they receive)."
        ),
    )
    parser.add_argument(
        "--direction",
        choices=("both", "client", "server"),
        default="both",
        help="only the messages of one direction",
    )
    parser.add_argument("--indent", type=int, default=2, help="JSON indentation (0: compact)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the schema."""
    from protocol.schema import json_schema

    schema = json_schema()
    if args.direction != "both":
        schema = schema[args.direction]
    try:
        print(json.dumps(schema, indent=args.indent or None, sort_keys=False))
    except BrokenPipeError:  # e.g. piped into head
        return 0
    return 0
