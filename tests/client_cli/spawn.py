"""The ``cardavia`` client in a pseudo-terminal (pexpect), as a player's terminal runs it."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
"""The repository root: the client runs from here (``python -m client_cli.main``)."""

LIVE = r"(?: ?\x1b| $)"
"""Ends a prompt pattern: a prompt still waiting (not one answered above, ``…]: 1``)."""


def spawn_cli(
    *args: str,
    rows: int = 50,
    cols: int = 160,
    timeout: float = 20,
    env: Mapping[str, str] | None = None,
) -> pexpect.spawn:
    """``python -m client_cli.main ARGS`` in a ``rows`` × ``cols`` pseudo-terminal.

    ``env`` is the client's whole environment (``None``: this process's), with
    ``COLUMNS`` and ``LINES`` set to the terminal's size: pytest-xdist's workers set
    them to 80 × 24, and the client measures the terminal by them first.
    """
    environment = {**(os.environ if env is None else env), "COLUMNS": str(cols), "LINES": str(rows)}
    return pexpect.spawn(
        sys.executable,
        ["-m", "client_cli.main", *args],
        cwd=str(ROOT),
        encoding="utf-8",
        timeout=timeout,
        dimensions=(rows, cols),
        env=environment,
    )


def settle(child: pexpect.spawn, prompt: str) -> str:
    """The screen up to ``prompt`` once output stops (the prompt is redrawn below every
    line printed while it waits); ``child.match`` stays the last prompt's match."""
    text = str(child.before)
    match = child.match
    while child.expect([prompt, pexpect.TIMEOUT], timeout=0.5) == 0:
        text += str(child.before)
        match = child.match
    child.match = match
    return text
