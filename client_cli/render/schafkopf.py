"""Schafkopf in the terminal: bidding, the contract, the trick on the table, the series."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from client_cli.render.base import Renderer

_CONTRACTS = {
    "rufer": "Rufspiel",
    "wenz": "Wenz",
    "solo": "Solo",
    "wenz_tout": "Wenz Tout",
    "solo_tout": "Solo Tout",
    "sie": "Sie",
}


class SchafkopfRenderer(Renderer):
    """Four players; a series of deals with running totals."""

    game = "schafkopf"

    def suit_name(self, suit: Any) -> str:
        if not suit:
            return ""
        if self.pattern is not None:
            return str(self.pattern.suit_names.get(str(suit), suit))
        return str(suit)

    def contract(self, kind: Any, suit: Any) -> str:
        name = _CONTRACTS.get(str(kind), str(kind).replace("_", " "))
        if not suit:
            return name
        if kind == "rufer":
            return f"{name} on the {self.suit_name(suit)} ace"
        return f"{self.suit_name(suit)} {name}"

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        deals = (view.get("options") or {}).get("deals")
        head = f"Deal {int(view.get('deal_no', 0)) + 1}" + (f" of {deals}" if deals else "")
        lines = [head + f", dealer {self.seats(view.get('dealer'))}"]
        contract = view.get("contract")
        if view.get("phase") == "bidding" or not contract:
            bids = view.get("bids") or []
            said = ", ".join(
                f"{self.seats(b.get('seat'))} "
                + (self.contract(b.get("contract"), b.get("suit")) if b.get("contract") else "pass")
                for b in bids
            )
            lines.append(f"Bidding: {said or 'nobody has spoken yet'}")
        else:
            text = f"Contract: {self.contract(contract.get('kind'), contract.get('suit'))}"
            text += f" by {self.seats(contract.get('declarer'))}"
            if view.get("partner") is not None:
                text += f" with {self.seats(view['partner'])}"
            lines.append(text)
            trick = view.get("trick") or []
            leader = int(view.get("leader", 0))
            plays = ", ".join(
                f"{self.seats((leader + i) % 4)} {self.card(c)}" for i, c in enumerate(trick)
            )
            lines.append(
                f"Trick {len(view.get('tricks') or []) + 1}: {plays or 'nothing yet'}"
                f" (led by {self.seats(leader)})"
            )
            lines.append(f"Card points taken: {self.per_seat(view.get('points') or [])}")
        if view.get("seat") is not None:
            lines.append(f"Your hand: {self.cards(view.get('hand') or [])}")
        lines.append(f"Totals: {self.per_seat(view.get('totals') or [])}")
        return lines

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        kind = action.get("type")
        if kind == "pass":
            return "Pass"
        if kind == "announce":
            return f"Announce {self.contract(action.get('contract'), action.get('suit'))}"
        if kind == "play":
            return f"Play {self.card(action.get('card', '?'))}"
        return None

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        who = self.seats.title(data.get("seat"))
        s = "" if who == "You" else "s"
        if kind == "deal":
            return [
                f"— Deal {int(data.get('deal_no', 0)) + 1}: dealer {self.seats(data.get('dealer'))}"
            ]
        if kind == "hand":
            return [f"{who} get{s}: {self.cards(data.get('hand') or [])}"]
        if kind == "bid":
            if not data.get("contract"):
                return [f"{who} pass{'' if who == 'You' else 'es'}"]
            return [f"{who} would play: {self.contract(data.get('contract'), data.get('suit'))}"]
        if kind == "contract":
            return [
                f"{self.subject(data.get('declarer'), 'play')} "
                f"{self.contract(data.get('contract'), data.get('suit'))}"
            ]
        if kind == "play":
            return [f"{who} play{s} {self.card(data.get('card', '?'))}"]
        if kind == "trick":
            winner = self.seats.title(data.get("winner"))
            return [
                f"{winner} take{'' if winner == 'You' else 's'} the trick "
                f"({self.codes(data.get('cards') or [])}, {data.get('points', 0)} points)"
            ]
        if kind == "deal_scored":
            rec = data.get("record") or {}
            lines = []
            if rec.get("contract"):
                result = "won" if rec.get("declarer_won") else "lost"
                lines.append(
                    f"{self.contract(rec.get('contract'), rec.get('suit'))} by "
                    f"{self.seats(rec.get('declarer'))} {result}: "
                    f"{rec.get('declarer_points')} to {rec.get('defender_points')} card points"
                    + (", schneider" if rec.get("schneider") else "")
                    + (", schwarz" if rec.get("schwarz") else "")
                )
            else:
                lines.append("Everybody passed.")
            if "settlement" in rec:
                lines.append(f"  settlement: {self.per_seat(rec['settlement'])}")
            lines.append(f"  totals: {self.per_seat(data.get('totals') or [])}")
            return lines
        if kind == "game_over":
            return [f"Series over: {self.per_seat(data.get('totals') or [])}"]
        return None
