"""What Scopa and Cicera show alike: plays that capture (or lay) one card."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from client_cli.render.base import Renderer


class CaptureRenderer(Renderer):
    """A renderer for the scopa family: ``play`` actions with a ``capture`` set."""

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        if action.get("type") != "play":
            return None
        text = f"Play {self.card(action.get('card', '?'))}"
        capture = action.get("capture") or []
        return text + (f", capture {self.cards(capture, ' + ')}" if capture else ", no capture")

    def capture_line(self, who: str, data: Mapping[str, Any]) -> str:
        """ "You play 7D and capture 3S + 4C" from a ``play`` event."""
        verb = "play" if who == "You" else "plays"
        line = f"{who} {verb} {self.card(data.get('card', '?'))}"
        if data.get("captured"):
            line += f" and capture{'' if who == 'You' else 's'} "
            line += self.cards(data["captured"], " + ")
        return line
