"""What the network sub-commands share: connecting with clear errors, options, exit codes.

:func:`run` executes a sub-command's coroutine and turns the usual failures
(server unreachable, a refused request, the connection dropping, Ctrl-C)
into one line on stderr and an exit status instead of a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
import sys
from collections.abc import Coroutine, Sequence
from typing import Any

from pydantic import ValidationError
from websockets.exceptions import InvalidHandshake, InvalidURI

from client_cli.client import Client, ClientClosed, RequestTimeout, ServerError

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNREACHABLE = 3
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """A failure to report as one line on stderr, with an exit status."""

    def __init__(self, message: str, status: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.status = status


def add_server(parser: argparse.ArgumentParser) -> None:
    """The ``--url`` of a sub-command that talks to a server, with its ``--ca-file``."""
    parser.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    add_ca_file(parser)


def add_ca_file(parser: argparse.ArgumentParser) -> None:
    """The ``--ca-file`` option of the sub-commands that take ``--url``."""
    parser.add_argument(
        "--ca-file",
        metavar="PEM",
        help="trust this CA (or self-signed certificate) for a wss:// URL",
    )


async def connect(
    url: str,
    name: str,
    *,
    timeout: float = 10.0,
    token: str | None = None,
    ca_file: str | None = None,
    login: tuple[str, str] | None = None,
    api_token: str | None = None,
) -> Client:
    """Open a session at ``url`` (resume it with ``token``; log it in with ``login``,
    name and password, or to a bot account with ``api_token``); raise :class:`CliError`
    saying why not."""
    try:
        return await Client.connect(
            url,
            name,
            token=token,
            open_timeout=timeout,
            ca_file=ca_file,
            login=login,
            api_token=api_token,
        )
    except InvalidURI:
        raise CliError(
            f"bad server URL {url!r}: expected ws://HOST:PORT or wss://HOST:PORT", EXIT_USAGE
        ) from None
    except InvalidHandshake as exc:
        raise CliError(
            f"{url} did not accept a WebSocket connection ({exc}); is it a Cardavia server?",
            EXIT_UNREACHABLE,
        ) from None
    except ssl.SSLError as exc:
        hint = "" if ca_file else "; for a self-signed certificate give --ca-file"
        raise CliError(
            f"TLS with {url} failed: {exc.reason or exc}{hint}", EXIT_UNREACHABLE
        ) from None
    except (OSError, TimeoutError) as exc:
        if isinstance(exc, ConnectionRefusedError):
            reason = "connection refused (is the server running?)"
        elif isinstance(exc, TimeoutError):
            reason = "timed out"
        else:
            reason = exc.strerror if exc.strerror else str(exc)
        raise CliError(
            f"cannot reach the server at {url}: {reason or type(exc).__name__}", EXIT_UNREACHABLE
        ) from None
    except ServerError as exc:
        raise CliError(f"the server refused the session: {exc.message} ({exc.code})") from None


def refused(what: str, exc: ServerError) -> CliError:
    """A :class:`CliError` for a request the server refused."""
    return CliError(f"{what}: {exc.message} ({exc.code})")


def parse_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``KEY=VALUE`` game options; values are JSON when they parse (``target=3``), else text."""
    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise CliError(f"bad option {item!r}: expected KEY=VALUE, e.g. target=3", EXIT_USAGE)
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw
        out[key.strip()] = value
    return out


def run(main: Coroutine[Any, Any, int]) -> int:
    """Run a sub-command; map its failures to a message on stderr and an exit status."""
    try:
        return asyncio.run(main)
    except CliError as exc:
        print(f"cardavia: {exc}", file=sys.stderr)
        return exc.status
    except ServerError as exc:
        print(f"cardavia: the server refused: {exc.message} ({exc.code})", file=sys.stderr)
        return EXIT_FAILED
    except ClientClosed as exc:
        print(f"cardavia: the server closed the connection {exc.reason}".rstrip(), file=sys.stderr)
        return EXIT_FAILED
    except RequestTimeout as exc:  # one line, never a traceback
        print(f"cardavia: {exc}; try again", file=sys.stderr)
        return EXIT_FAILED
    except ValidationError as exc:
        errors = exc.errors()
        where, what = "a value", str(exc)
        if errors:
            where = ".".join(str(p) for p in errors[0]["loc"]) or where
            what = errors[0]["msg"]
        print(f"cardavia: {where}: {what}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ncardavia: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
