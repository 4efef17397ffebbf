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
        card = self.card(action.get("card", "?"))
        capture = action.get("capture") or []
        if not capture:
            return self.t("action.play_lay", card=card)
        return self.t("action.play_capture", card=card, captured=self.cards(capture, " + "))

    def short_action(self, action: Mapping[str, Any]) -> str:
        if action.get("type") != "play":
            return self.action(action)
        card = self.code(action.get("card", "?"))
        capture = action.get("capture") or []
        if not capture:
            return self.t("action.play_lay", card=card)
        captured = " + ".join(self.code(c) for c in capture)
        return self.t("action.play_capture", card=card, captured=captured)

    def typed_action(self, cards: Sequence[str], view: Mapping[str, Any]) -> dict[str, Any] | None:
        """The card from the hand, capturing the others typed (the server says why not)."""
        hand = set(view.get("hand") or [])
        played = [c for c in cards if c in hand]
        card = played[0] if len(played) == 1 else cards[0]
        return {"type": "play", "card": card, "capture": [c for c in cards if c != card]}

    def table_lines(self, codes: Sequence[str]) -> list[str]:
        """``Table: Seven of Denari (7D), …`` wrapped between cards."""
        if not codes:
            return [self.t("view.table_empty")]
        head = self.t("view.table", cards="").rstrip()
        return wrap(head, [self.card(c) for c in codes], self.width, sep=", ")

    def last_lines(self, view: Mapping[str, Any]) -> list[str] | None:
        last = view.get("last_play")
        if not isinstance(last, Mapping):
            return None
        return [self.capture_line(last.get("seat"), last)]

    def capture_line(self, seat: int | None, data: Mapping[str, Any]) -> str:
        """ "You play 7D and capture 3S + 4C" from a ``play`` event."""
        card = self.card(data.get("card", "?"))
        if data.get("captured"):
            captured = self.cards(data["captured"], " + ")
            return self.said("event.play_capture", seat, card=card, captured=captured)
        return self.said("event.play", seat, card=card)
