"""Dou Dizhu in the terminal: auction, landlord, the play to beat, combinations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from client_cli.render.base import Renderer

_RANKS = "3456789TJQKA2"
_JOKERS = ("BJ", "RJ")


def _typed_cards(text: str) -> list[str] | None:
    """The distinct card codes ``text`` names (``5d, 5c``), or None if it names anything else."""
    codes = [t.upper() for t in text.replace(",", " ").replace("+", " ").split()]
    valid = all(c in _JOKERS or (len(c) == 2 and c[0] in _RANKS and c[1] in "SHDC") for c in codes)
    return codes if codes and valid and len(set(codes)) == len(codes) else None


def _ranks(codes: Sequence[str]) -> list[str]:
    return sorted(c if c in _JOKERS else c[0] for c in codes)


def _rank_order(code: str) -> tuple[int, str]:
    """Cards by Dou Dizhu rank, 3 lowest, then 2, the black and the red joker."""
    if code == "BJ":
        return (len(_RANKS), code)
    if code == "RJ":
        return (len(_RANKS) + 1, code)
    return (_RANKS.find(code[:1]), code)


class DoudizhuRenderer(Renderer):
    """Three players; cards shown as short codes (suits rarely matter), jokers named."""

    game = "doudizhu"

    def short_cards(self, codes: Sequence[str]) -> str:
        """``3S 3H 4C BJ(Black Joker)``: codes, jokers spelled out."""
        out = []
        for code in sorted(codes, key=_rank_order):
            name = self.card_name(code) if code in ("BJ", "RJ") else None
            out.append(f"{code}({name})" if name else str(code))
        return " ".join(out) if out else "none"

    def role(self, view: Mapping[str, Any], seat: int) -> str:
        landlord = view.get("landlord")
        if landlord is None:
            return ""
        return " [landlord]" if seat == landlord else " [peasant]"

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        lines: list[str] = []
        phase = view.get("phase")
        if phase == "bidding":
            auction = view.get("auction") or []
            bids = ", ".join(
                f"{self.seats(b.get('seat'))} {b.get('bid') or 'pass'}" for b in auction
            )
            lines.append(f"Bidding (highest bid {view.get('bid', 0)}): {bids or 'no bids yet'}")
        else:
            lines.append(
                f"Landlord {self.seats(view.get('landlord'))} for {view.get('bid')}; "
                f"multiplier ×{view.get('multiplier', 1)}, bombs {view.get('bombs', 0)}; "
                f"bottom {self.short_cards(view.get('bottom') or [])}"
            )
            last = view.get("last")
            if last:
                lines.append(f"To beat: {self.combo(last)} by {self.seats(view.get('last_seat'))}")
            elif phase == "play":
                lines.append("Free lead: any combination.")
        if view.get("seat") is not None:
            hand = view.get("hand") or []
            lines.append(f"Your hand ({len(hand)}): {self.short_cards(hand)}")
        counts = view.get("hand_counts") or []
        lines.append(
            "Cards in hand: "
            + ", ".join(f"{self.seats(i)}{self.role(view, i)} {n}" for i, n in enumerate(counts))
        )
        return lines

    def combo(self, play: Mapping[str, Any]) -> str:
        combo = str(play.get("combo", "")).replace("_", " ")
        return f"{combo} {self.short_cards(play.get('cards') or [])}".strip()

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        kind = action.get("type")
        if kind == "pass":
            return "Pass"
        if kind == "bid":
            return f"Bid {action.get('value')}"
        if kind == "play":
            return self.combo(action)
        return None

    def typed_moves(
        self, text: str, legal: list[dict[str, Any]], view: Mapping[str, Any] | None
    ) -> list[dict[str, Any]]:
        """``legal`` with the typed cards in each play of the same ranks.

        Suits never matter (rules: any suit choice of held cards is legal): the
        server lists each play once in one choice of suits, and a player who
        types other cards of the same ranks, all in hand, plays those cards.
        """
        typed = _typed_cards(text)
        hand = set((view or {}).get("hand") or [])
        if typed is None or not set(typed) <= hand:
            return legal
        ranks = _ranks(typed)
        return [
            {**a, "cards": typed}
            if a.get("type") == "play" and _ranks(a.get("cards") or []) == ranks
            else a
            for a in legal
        ]

    def moves_lines(self, legal: Sequence[Mapping[str, Any]]) -> list[str]:
        """Few moves: one per line; many (a free lead): grouped by combination, wrapped."""
        if len(legal) <= 16:
            return super().moves_lines(legal)
        groups: dict[str, list[str]] = {}
        for i, action in enumerate(legal, 1):
            if action.get("type") == "play":
                combo = str(action.get("combo", "")).replace("_", " ")
                item = self.short_cards(action.get("cards") or [])
            else:
                combo, item = "other", self.action(action)
            groups.setdefault(combo, []).append(f"{i}) {item}")
        lines: list[str] = []
        for combo, items in groups.items():
            line = f"  {combo}:"
            for item in items:
                if len(line) + len(item) + 3 > 100:
                    lines.append(line)
                    line = "   "
                line += "  " + item
            lines.append(line)
        return lines

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        who = self.seats.title(data.get("seat"))
        s = "" if who == "You" else "s"
        if kind in ("deal", "redeal"):
            again = "Nobody bid: redeal. " if kind == "redeal" else "— New deal. "
            return [f"{again}{self.subject(data.get('first_bidder'), 'bid')} first."]
        if kind == "hand":
            return [f"{who} get{s}: {self.short_cards(data.get('hand') or [])}"]
        if kind == "bid":
            bid = data.get("bid")
            return [f"{who} bid{s} {bid}" if bid else f"{who} pass{'' if who == 'You' else 'es'}"]
        if kind == "landlord":
            return [
                f"{who} {'are' if who == 'You' else 'is'} the landlord for {data.get('bid')}; "
                f"bottom cards: {self.short_cards(data.get('bottom') or [])}"
            ]
        if kind == "play":
            return [f"{who} play{s} {self.combo(data)}"]
        if kind == "pass":
            return [f"{who} pass{'' if who == 'You' else 'es'}"]
        if kind == "lead":
            return [f"{who} {'have' if who == 'You' else 'has'} the lead."]
        if kind == "deal_over":
            won = "won" if data.get("landlord_won") else "lost"
            extra = [k for k in ("spring", "reverse_spring") if data.get(k)]
            line = f"The landlord ({self.seats(data.get('landlord'))}) {won}; "
            line += f"bid {data.get('bid')} × {data.get('multiplier')}"
            if extra:
                line += " (" + ", ".join(e.replace("_", " ") for e in extra) + ")"
            return [line, f"  scores: {self.per_seat(data.get('scores') or [])}"]
        return None
