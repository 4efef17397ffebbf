"""What Scopa and Cicera show alike: plays that capture (or lay) one card."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from client_cli.render.base import Renderer
from client_cli.style import wrap


class CaptureRenderer(Renderer):
    """A renderer for the scopa family: ``play`` actions with a ``capture`` set."""

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        if action.get("type") != "play":
            return None
        text = f"Play {self.card(action.get('card', '?'))}"
        capture = action.get("capture") or []
        return text + (f", capture {self.cards(capture, ' + ')}" if capture else ", no capture")

    def short_action(self, action: Mapping[str, Any]) -> str:
        if action.get("type") != "play":
            return self.action(action)
        text = f"Play {self.code(action.get('card', '?'))}"
        capture = action.get("capture") or []
        if not capture:
            return text + ", no capture"
        return text + ", capture " + " + ".join(self.code(c) for c in capture)

    def typed_action(self, cards: Sequence[str], view: Mapping[str, Any]) -> dict[str, Any] | None:
        """The card from the hand, capturing the others typed (the server says why not)."""
        hand = set(view.get("hand") or [])
        played = [c for c in cards if c in hand]
        card = played[0] if len(played) == 1 else cards[0]
        return {"type": "play", "card": card, "capture": [c for c in cards if c != card]}

    def table_lines(self, codes: Sequence[str]) -> list[str]:
        """``Table: Seven of Denari (7D), …`` wrapped between cards."""
        if not codes:
            return ["Table: empty"]
        return wrap("Table:", [self.card(c) for c in codes], self.width, sep=", ")

    def last_lines(self, view: Mapping[str, Any]) -> list[str] | None:
        last = view.get("last_play")
        if not isinstance(last, Mapping):
            return None
        who = self.seats.title(last.get("seat"))
        return [self.capture_line(who, last)]

    def capture_line(self, who: str, data: Mapping[str, Any]) -> str:
        """ "You play 7D and capture 3S + 4C" from a ``play`` event."""
        verb = "play" if who == "You" else "plays"
        line = f"{who} {verb} {self.card(data.get('card', '?'))}"
        if data.get("captured"):
            line += f" and capture{'' if who == 'You' else 's'} "
            line += self.cards(data["captured"], " + ")
        return line
