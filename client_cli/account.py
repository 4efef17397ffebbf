"""``cardavia login`` and ``cardavia logout``: an account on a server, kept for later.

``cardavia login --url URL --name NAME`` asks for the password (without echo;
``--password-stdin`` reads it from standard input, for scripts), logs in once to
check it (``--register`` creates the account first) and keeps the credentials
(:mod:`client_cli.credentials`, mode 0600).  From then on ``cardavia play --url
URL`` plays as that account.  ``cardavia logout --url URL`` forgets them.
"""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys
from typing import Any

from client_cli.client import Client, ServerError
from client_cli.common import EXIT_OK, EXIT_USAGE, CliError, add_server, connect, refused, run
from client_cli.credentials import CredentialFile, Credentials


def add_parser(sub: Any) -> None:
    """Register ``cardavia login`` and ``cardavia logout``."""
    p = sub.add_parser("login", help="log in to an account on a server (kept for later)")
    add_server(p)
    p.add_argument("--name", required=True, help="the account's name")
    p.add_argument("--register", action="store_true", help="create the account first")
    p.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input"
    )
    p.set_defaults(func=lambda args: run(login_main(args)))
    q = sub.add_parser("logout", help="forget the account kept for a server")
    q.add_argument("--url", required=True, help="the server, e.g. ws://127.0.0.1:8765")
    q.set_defaults(func=logout_main)


def read_password(from_stdin: bool, *, confirm: bool) -> str:
    """The password: a line of standard input, or asked twice (new) or once without echo."""
    if from_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass("password: ")
        if confirm and getpass.getpass("again: ") != password:
            raise CliError("the two passwords differ", EXIT_USAGE)
    if not password:
        raise CliError("no password given", EXIT_USAGE)
    return password


async def login_main(args: argparse.Namespace) -> int:
    """Log in (registering first with ``--register``), then keep the credentials."""
    password = read_password(args.password_stdin, confirm=args.register)
    guest = f"guest {secrets.randbelow(10**6)}"  # a registered name is not for a hello
    client: Client = await connect(args.url, guest, ca_file=args.ca_file)
    try:
        if args.register:
            account = await client.register(args.name, password)
        else:
            account = await client.login(args.name, password)
    except ServerError as exc:
        raise refused("cannot log in" if not args.register else "cannot register", exc) from None
    finally:
        await client.close()
    CredentialFile().put(Credentials(args.url, account.name, password))
    print(f"logged in to {args.url} as {account.name}")
    return EXIT_OK


def logout_main(args: argparse.Namespace) -> int:
    """Forget the credentials kept for ``--url``."""
    if CredentialFile().forget(args.url):
        print(f"logged out of {args.url}")
    else:
        print(f"no account kept for {args.url}")
    return EXIT_OK
