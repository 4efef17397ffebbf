"""Text rendering of game views, moves, events and results for the terminal.

:func:`renderer_for` picks the game's own renderer, or the generic one for a
game this client has no renderer for (it still plays: every view carries
``to_act``, ``legal`` and the game's fields).
"""

from __future__ import annotations

from client_cli.render.base import Renderer, Seats, chat_name, seat_name
from client_cli.render.cicera import CiceraRenderer
from client_cli.render.doudizhu import DoudizhuRenderer
from client_cli.render.schafkopf import SchafkopfRenderer
from client_cli.render.scopa import ScopaRenderer

RENDERERS: dict[str, type[Renderer]] = {
    "scopa": ScopaRenderer,
    "cicera": CiceraRenderer,
    "doudizhu": DoudizhuRenderer,
    "schafkopf": SchafkopfRenderer,
}

__all__ = ["RENDERERS", "Renderer", "Seats", "chat_name", "renderer_for", "seat_name"]


def renderer_for(game: str, seats: Seats | None = None, pattern: str | None = None) -> Renderer:
    """The renderer of ``game`` (the generic one when the game has none)."""
    return RENDERERS.get(game, Renderer)(seats, pattern)
