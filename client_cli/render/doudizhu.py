"""Dou Dizhu in the terminal: auction, landlord, the play to beat, combinations."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from client_cli.render.base import Renderer
from client_cli.style import wrap
from engine.doudizhu.combos import COMBOS

_RANKS = "3456789TJQKA2"
_JOKERS = ("BJ", "RJ")


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
    exact_names_move = True

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
        return f" [{self.term('landlord' if seat == landlord else 'farmer')}]"

    def combo_name(self, combo: Any) -> str:
        """A combination's name (``pair sequence``) in the player's language."""
        return self.term(str(combo), str(combo).replace("_", " "))

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        lines: list[str] = []
        phase = view.get("phase")
        if phase == "bidding":
            auction = view.get("auction") or []
            passed = self.term("pass").lower()
            bids = ", ".join(
                f"{self.seats(b.get('seat'))} {b.get('bid') or passed}" for b in auction
            )
            lines.append(
                self.t(
                    "doudizhu.bidding",
                    bid=view.get("bid", 0),
                    bids=bids or self.t("doudizhu.no_bids"),
                )
            )
        else:
            lines.append(
                self.t(
                    "doudizhu.landlord_line",
                    landlord=self.seats(view.get("landlord")),
                    bid=view.get("bid"),
                    multiplier=view.get("multiplier", 1),
                    bombs=view.get("bombs", 0),
                    bottom=self.short_cards(view.get("bottom") or []),
                )
            )
            last = view.get("last")
            if last:
                who = self.seats(view.get("last_seat"))
                lines.append(self.t("doudizhu.to_beat", combo=self.combo(last), who=who))
            elif phase == "play":
                lines.append(self.t("doudizhu.free_lead"))
        if view.get("seat") is not None:
            lines.extend(self.hand_lines(view.get("hand") or [], view))
        counts = view.get("hand_counts") or []
        each = ", ".join(f"{self.seats(i)}{self.role(view, i)} {n}" for i, n in enumerate(counts))
        lines.append(self.t("view.hand_counts", counts=each))
        return lines

    def reason_arg(self, name: str, value: Any) -> str:
        """Combinations by their names; cards as short codes, as the screen shows them."""
        if name in ("combo", "last_combo"):
            return self.combo_name(value)
        if name in ("cards", "last_cards") and isinstance(value, list):
            return self.short_cards([str(v) for v in value])
        return super().reason_arg(name, value)

    def combo(self, play: Mapping[str, Any]) -> str:
        combo = self.combo_name(play.get("combo", "")) if play.get("combo") else ""
        return f"{combo} {self.short_cards(play.get('cards') or [])}".strip()

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        kind = action.get("type")
        if kind == "pass":
            return self.t("action.pass")
        if kind == "bid":
            return self.t("action.bid", value=action.get("value"))
        if kind == "play":
            return self.combo(action)
        return None

    def move_keys(self, legal: Sequence[Mapping[str, Any]]) -> list[str]:
        """A pass is always 0 (alone or beside plays, in the auction and in the play), a
        bid its value, the plays numbered from 1: one key per move, whatever else is on."""
        keys: list[str] = []
        plays = 0
        for action in legal:
            kind = action.get("type")
            if kind == "pass":
                keys.append("0")
            elif kind == "bid":
                keys.append(str(action.get("value", 0)))
            else:
                plays += 1
                keys.append(str(plays))
        return keys

    def mentions(self, action: Mapping[str, Any], label: str, word: str) -> bool:
        """``moves pair`` lists the pairs only: a combination's name (``pair``,
        ``pair sequence``, ``pair_sequence``, or its name in the player's language)
        matches that combination exactly, not those whose names hold it."""
        wanted = word.strip().lower()
        for combo in COMBOS:
            names = {combo, combo.replace("_", " "), self.combo_name(combo).lower()}
            if wanted in names:
                return action.get("combo") == combo
        return super().mentions(action, label, word)

    def moves_lines(self, legal: Sequence[Mapping[str, Any]]) -> list[str]:
        """Few moves: in columns; many (a free lead): grouped by combination, wrapped."""
        if len(legal) <= 16:
            return super().moves_lines(legal)
        groups: dict[str, list[str]] = {}
        for key, action in zip(self.move_keys(legal), legal, strict=True):
            if action.get("type") == "play":
                combo = self.combo_name(action.get("combo", ""))
                item = " ".join(
                    self.code(c) for c in sorted(action.get("cards") or [], key=_rank_order)
                )
            else:
                combo, item = self.t("doudizhu.other_moves"), self.action(action)
            groups.setdefault(combo, []).append(f"{key}) {item}")
        lines: list[str] = []
        for combo, items in groups.items():
            lines.extend(wrap(f"  {combo}:", items, self.width, indent=4, sep="  "))
        return lines

    # -- hands: by rank, as players hold them ---------------------------------------------
    def suit_of(self, code: str, view: Mapping[str, Any] | None = None) -> str:
        return ""

    def rank_key(self, code: str, view: Mapping[str, Any] | None = None) -> int:
        return _rank_order(code)[0] * 4 + "SHDCJ".find(code[1:2])

    def group_name(self, group: str, view: Mapping[str, Any] | None = None) -> str:
        return ""

    def typed_action(self, cards: Sequence[str], view: Mapping[str, Any]) -> dict[str, Any] | None:
        """The typed cards as the combination they make (the one to beat when they make
        several), so the server plays them or says why not."""
        if view.get("phase") != "play" or not set(cards) <= set(view.get("hand") or ()):
            return None  # cards not held: not_a_move says which
        from engine.cards import FRENCH, CardError
        from engine.doudizhu.combos import readings, unpack
        from engine.doudizhu.hands import mask_of, packed_counts

        try:
            mask = mask_of([FRENCH.parse(c) for c in cards])
        except CardError:
            return None
        moves = readings(unpack(packed_counts(mask))) if mask > 0 else ()
        if not moves:
            return None
        last = view.get("last") or {}
        combo = next((m.combo for m in moves if m.combo == last.get("combo")), moves[0].combo)
        return {"type": "play", "cards": list(cards), "combo": combo}

    def not_a_move(self, cards: Sequence[str], view: Mapping[str, Any]) -> str | None:
        return super().not_a_move(cards, view) or self.t(
            "doudizhu.not_a_combination", cards=" ".join(cards)
        )

    def last_lines(self, view: Mapping[str, Any]) -> list[str] | None:
        last = view.get("last")
        if not last:
            return [self.t("doudizhu.nothing_to_beat")]
        who = self.seats(view.get("last_seat"))
        return [self.t("doudizhu.last_play", combo=self.combo(last), who=who)]

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        seat = data.get("seat")
        if kind in ("deal", "redeal"):
            again = self.t("doudizhu.redeal" if kind == "redeal" else "doudizhu.new_deal")
            return [f"{again} {self.said('event.bids_first', data.get('first_bidder'))}"]
        if kind == "hand":
            return self.dealt_lines(seat, data.get("hand") or [])
        if kind == "bid":
            bid = data.get("bid")
            return [
                self.said("event.bid", seat, value=bid) if bid else self.said("event.pass", seat)
            ]
        if kind == "landlord":
            bottom = self.short_cards(data.get("bottom") or [])
            return [self.said("event.landlord", seat, bid=data.get("bid"), bottom=bottom)]
        if kind == "play":
            return [self.said("event.play", seat, card=self.combo(data))]
        if kind == "pass":
            return [self.said("event.pass", seat)]
        if kind == "lead":
            return [self.said("event.lead", seat)]
        if kind == "deal_over":
            line = self.t(
                "doudizhu.landlord_won" if data.get("landlord_won") else "doudizhu.landlord_lost",
                landlord=self.seats(data.get("landlord")),
                bid=data.get("bid"),
                multiplier=data.get("multiplier"),
            )
            extra = [self.term(k) for k in ("spring", "reverse_spring") if data.get(k)]
            if extra:
                line += " (" + ", ".join(extra) + ")"
            scores = self.per_seat(data.get("scores") or [])
            return [line, "  " + self.t("doudizhu.scores", scores=scores)]
        return None
