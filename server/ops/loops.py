"""The event loop the server runs on: uvloop when installed (``--loop auto``), or asyncio's."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_with_loop(main: Coroutine[Any, Any, T], loop: str = "auto") -> T:
    """Run ``main`` on the event loop ``loop`` names: ``asyncio``, ``uvloop``, or
    ``auto`` (uvloop when it is installed, else asyncio's own)."""
    if loop != "asyncio":
        try:
            import uvloop
        except ImportError:
            if loop == "uvloop":
                main.close()
                raise
        else:
            return uvloop.run(main)
    return asyncio.run(main)
