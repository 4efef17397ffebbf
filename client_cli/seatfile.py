"""The seats a player holds, kept in a per-user state file so a new ``cardavia play`` resumes them.

The file is ``$XDG_STATE_HOME/cardavia/seats.json`` (``~/.local/state/cardavia/``
when the variable is unset), readable by its owner only (mode 0600): it holds
the session tokens, which are secrets.  One entry per server URL and player name: the token,
the table, the seat and the game.  Only an explicit ``quit`` (or the table
closing) forgets an entry; a client that dies keeps it, so the next
``cardavia play`` on that server takes the same seat again.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class HeldSeat:
    """A seat held at ``url``: the session ``token`` resumes it."""

    url: str
    token: str
    table: str
    seat: int | None
    game: str
    name: str


def state_dir() -> Path:
    """``$XDG_STATE_HOME/cardavia``, else ``~/.local/state/cardavia``."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "cardavia"


def read_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` (empty when the file is missing or holds anything else)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_private(path: Path, data: dict[str, Any]) -> None:
    """Replace ``path`` with ``data`` as JSON, readable by its owner only (mode 0600, its
    folder 0700): these files hold secrets (session tokens, passwords)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=1, sort_keys=True)
    os.chmod(tmp, 0o600)  # an older file of wider mode is replaced, not kept
    os.replace(tmp, path)


class SeatFile:
    """Read and write the held seats (a JSON object keyed by server URL)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else state_dir() / "seats.json"

    def _read(self) -> dict[str, Any]:
        return read_object(self.path)

    def _write(self, data: dict[str, Any]) -> None:
        write_private(self.path, data)

    @staticmethod
    def key(url: str, name: str) -> str:
        """Entries are per server and player name: ``name@url``."""
        return f"{name}@{url}"

    def get(self, url: str, name: str) -> HeldSeat | None:
        """The seat ``name`` holds at ``url``, if any."""
        entry = self._read().get(self.key(url, name))
        if not isinstance(entry, dict):
            return None
        try:
            return HeldSeat(
                url=url,
                token=str(entry["token"]),
                table=str(entry["table"]),
                seat=entry.get("seat") if isinstance(entry.get("seat"), int) else None,
                game=str(entry.get("game", "")),
                name=name,
            )
        except KeyError:
            return None

    def put(self, held: HeldSeat) -> None:
        """Remember ``held`` (replacing what was held at its URL)."""
        data = self._read()
        entry = asdict(held)
        del entry["url"], entry["name"]
        data[self.key(held.url, held.name)] = entry
        with contextlib.suppress(OSError):
            self._write(data)

    def forget(self, url: str, name: str) -> None:
        """Forget the seat ``name`` held at ``url``."""
        data = self._read()
        if data.pop(self.key(url, name), None) is not None:
            with contextlib.suppress(OSError):
                self._write(data)
