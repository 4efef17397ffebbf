"""The accounts a terminal user logged in to, kept so ``cardavia play`` (and ``bot``,
``lobby`` …) on that server logs in by itself.

The file is ``$XDG_STATE_HOME/cardavia/accounts.json`` beside the seat file
(:mod:`client_cli.seatfile`), readable by its owner only (mode 0600), one
entry per server URL: the account name and its password (as ``~/.pgpass``
and ``~/.netrc`` keep theirs; a session token would not do: a session ends
minutes after its connection).  ``cardavia logout`` removes the entry.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from client_cli.seatfile import read_object, state_dir, write_private


@dataclass(frozen=True)
class Credentials:
    """An account at a server."""

    url: str
    name: str
    password: str

    def __repr__(self) -> str:  # never the password, in a traceback or a log
        return f"Credentials(url={self.url!r}, name={self.name!r})"

    @property
    def login(self) -> tuple[str, str]:
        """``Client.connect``'s ``login=``."""
        return (self.name, self.password)


class CredentialFile:
    """Read and write the kept credentials (a JSON object keyed by server URL)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_dir() / "accounts.json"

    def _read(self) -> dict[str, Any]:
        return read_object(self.path)

    def get(self, url: str) -> Credentials | None:
        """The account kept for ``url``, if any."""
        entry = self._read().get(url)
        if not isinstance(entry, dict):
            return None
        name, password = entry.get("name"), entry.get("password")
        if not isinstance(name, str) or not isinstance(password, str):
            return None
        return Credentials(url, name, password)

    def put(self, credentials: Credentials) -> None:
        """Keep ``credentials`` (replacing what was kept for its URL)."""
        data = self._read()
        data[credentials.url] = {"name": credentials.name, "password": credentials.password}
        write_private(self.path, data)

    def forget(self, url: str) -> bool:
        """Forget the account kept for ``url``; whether there was one."""
        data = self._read()
        if data.pop(url, None) is None:
            return False
        with contextlib.suppress(OSError):
            write_private(self.path, data)
        return True
