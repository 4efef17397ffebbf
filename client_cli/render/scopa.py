"""Scopa in the terminal: table, hand, captures, scope and the running score."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from client_cli.render.capture import CaptureRenderer


class ScopaRenderer(CaptureRenderer):
    """Two players; captures and scope per seat; a match to ``target`` points."""

    game = "scopa"

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        target = (view.get("options") or {}).get("target")
        head = f"Deal {int(view.get('deal_no', 0)) + 1}, dealer {self.seats(view.get('dealer'))}"
        head += f", {view.get('stock_count', 0)} cards in the stock"
        if target is not None:
            head += f"; first to {target} point{'' if target == 1 else 's'} wins"
        lines = [head, *self.table_lines(view.get("table") or [])]
        if view.get("seat") is not None:
            lines.extend(self.hand_lines(view.get("hand") or [], view))
        counts = view.get("hand_counts") or []
        piles = view.get("piles") or []
        scope = view.get("scope") or []
        for seat in range(len(counts)):
            taken = len(piles[seat]) if seat < len(piles) else 0
            sc = scope[seat] if seat < len(scope) else 0
            lines.append(
                f"  {self.seats.title(seat)}: {counts[seat]} in hand, {taken} captured, "
                f"{sc} scop{'a' if sc == 1 else 'e'}"
            )
        lines.append(f"Score: {self.per_seat(view.get('totals') or [])}")
        return lines

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        who = self.seats.title(data.get("seat"))
        if kind == "deal":
            return [
                f"— Deal {int(data.get('deal_no', 0)) + 1}: "
                f"dealer {self.seats(data.get('dealer'))}; "
                f"table {self.cards(data.get('table', []))}"
            ]
        if kind == "hand":
            return self.dealt_lines(data.get("seat"), data.get("hand") or [])
        if kind == "play":
            line = self.capture_line(who, data)
            if data.get("scopa"):
                line += " — SCOPA!"
            return [line]
        if kind == "refill":
            return [f"New hands dealt; {data.get('stock_count', 0)} cards left in the stock."]
        if kind == "leftover":
            cards = data.get("cards") or []
            if not cards:
                return []
            return [
                f"The cards left on the table go to {self.seats(data.get('seat'))}: "
                f"{self.cards(cards)}"
            ]
        if kind == "deal_scored":
            return self._deal_score(data)
        if kind == "match_over":
            return [f"Match over: {self.per_seat(data.get('totals') or [])}."]
        return None

    def _deal_score(self, data: Mapping[str, Any]) -> list[str]:
        score = data.get("score") or {}
        lines = [f"Deal {int(data.get('deal_no', 0)) + 1} scored:"]
        for label, key, award in (
            ("cards", "cards", "cards_award"),
            ("denari", "diamonds", "diamonds_award"),
            ("primiera", "primiera", "primiera_award"),
        ):
            if key in score:
                who = score.get(award)
                point = f" → 1 point to {self.seats(who)}" if who is not None else " → no point"
                lines.append(f"  {label}: {self.per_seat(score[key])}{point}")
        if score.get("settebello_award") is not None:
            lines.append(f"  settebello → 1 point to {self.seats(score['settebello_award'])}")
        if "scope" in score:
            lines.append(f"  scope: {self.per_seat(score['scope'])}")
        if "points" in score:
            lines.append(f"  points this deal: {self.per_seat(score['points'])}")
        if "totals" in data:
            lines.append(f"  total: {self.per_seat(data['totals'])}")
        return lines

    def game_summary(self, summary: Mapping[str, Any]) -> list[str]:
        deals = summary.get("deals")
        return [f"Deals played: {deals}"] if deals is not None else []
