"""Schafkopf in the terminal: bidding, the contract, the trick on the table, the series."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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


SUIT_WORDS: dict[str, str] = {
    "e": "E", "eichel": "E", "acorns": "E", "acorn": "E",
    "g": "G", "gras": "G", "grün": "G", "laub": "G", "leaves": "G", "blatt": "G",
    "h": "H", "herz": "H", "hearts": "H", "rot": "H",
    "s": "S", "schellen": "S", "schelle": "S", "bells": "S",
}  # fmt: skip
"""Words for the suits, as a Schafkopf player types them (the codes too)."""

CONTRACT_WORDS: dict[str, str] = {
    "rufer": "rufer", "ruf": "rufer", "rufspiel": "rufer", "sau": "rufer",
    "sauspiel": "rufer", "call": "rufer",
    "wenz": "wenz", "solo": "solo", "sie": "sie", "tout": "tout",
}  # fmt: skip
"""Words for the contracts; ``tout`` turns Wenz or Solo into its Tout."""

PASS_WORDS = frozenset({"pass", "passe", "weiter", "weg"})
TRUMPS = "T"
"""The group of a hand that holds the trumps, once the contract is known."""


def parse_announcement(words: Sequence[str]) -> dict[str, Any] | None:
    """``herz solo``, ``solo H``, ``rufer E``, ``sau gras``, ``wenz tout`` as an action."""
    kind: str | None = None
    suit: str | None = None
    tout = False
    for word in words:
        if word in CONTRACT_WORDS:
            found = CONTRACT_WORDS[word]
            if found == "tout":
                tout = True
            elif kind is None or kind == found:
                kind = found
            else:
                return None
        elif word in SUIT_WORDS and suit is None:
            suit = SUIT_WORDS[word]
        else:
            return None
    if kind is None:
        return None
    if tout:
        if kind not in ("solo", "wenz"):
            return None
        kind += "_tout"
    if kind in ("wenz", "wenz_tout", "sie"):
        if suit is not None:
            return None
    elif suit is None:
        return {"type": "announce", "contract": kind, "suit": None}
    return {"type": "announce", "contract": kind, "suit": suit}


def trump_suit(contract: Mapping[str, Any] | None) -> tuple[str, str] | None:
    """``(court ranks that are trumps, the trump suit)`` of a contract; None before one."""
    if not contract:
        return None
    kind = contract.get("kind")
    if kind in ("wenz", "wenz_tout"):
        return ("U", "")
    if kind in ("solo", "solo_tout"):
        return ("OU", str(contract.get("suit") or "H"))
    return ("OU", "H")


class SchafkopfRenderer(Renderer):
    """Four players; a series of deals with running totals."""

    game = "schafkopf"
    exact_names_move = True

    # -- hands: trumps first once the contract is known -------------------------------
    def suit_of(self, code: str, view: Mapping[str, Any] | None = None) -> str:
        trumps = trump_suit((view or {}).get("contract"))
        if trumps is not None and (code[:1] in trumps[0] or code[1:] == trumps[1]):
            return TRUMPS
        return code[1:]

    def rank_key(self, code: str, view: Mapping[str, Any] | None = None) -> int:
        suits, ranks = "EGHS", "ATKOU987"
        if self.suit_of(code, view) == TRUMPS:
            courts = "OU" if code[:1] in "OU" else ""
            if code[:1] in courts:
                return courts.index(code[:1]) * 4 + suits.index(code[1:])
            return 8 + ranks.index(code[:1])
        return ranks.index(code[:1]) if code[:1] in ranks else len(ranks)

    def suit_order(self, view: Mapping[str, Any] | None = None) -> list[str]:
        return [TRUMPS, "E", "G", "H", "S"]

    def group_name(self, group: str, view: Mapping[str, Any] | None = None) -> str:
        if group == TRUMPS:
            return self.style.bold(self.t("schafkopf.trumps"))
        return super().group_name(group, view)

    # -- what a player types -----------------------------------------------------------
    def word_move(
        self, words: Sequence[str], legal: Sequence[Mapping[str, Any]]
    ) -> list[int] | dict[str, Any] | None:
        if len(words) == 1 and words[0] in PASS_WORDS:
            return [i for i, a in enumerate(legal) if a.get("type") == "pass"]
        wanted = parse_announcement(words)
        if wanted is None:
            return super().word_move(words, legal)
        found = [
            i
            for i, a in enumerate(legal)
            if a.get("type") == "announce"
            and a.get("contract") == wanted["contract"]
            and (wanted["suit"] is None or a.get("suit") == wanted["suit"])
        ]
        return found or wanted

    def typed_action(self, cards: Sequence[str], view: Mapping[str, Any]) -> dict[str, Any] | None:
        if len(cards) == 1 and view.get("phase") == "play":
            return {"type": "play", "card": cards[0]}
        return None

    # -- what a player must know ------------------------------------------------------------
    def notices(self, view: Mapping[str, Any]) -> list[str]:
        contract = view.get("contract") or {}
        me = self.seats.me
        if contract.get("kind") != "rufer" or me is None or contract.get("declarer") == me:
            return []
        ace = f"A{contract.get('suit')}"
        if ace in (view.get("hand") or []):
            partner = self.seats(contract.get("declarer"))
            return [self.t("schafkopf.called_ace", card=self.card(ace), declarer=partner)]
        return []

    def last_lines(self, view: Mapping[str, Any]) -> list[str] | None:
        tricks = view.get("tricks") or []
        if not tricks:
            return [self.t("schafkopf.no_trick_yet")]
        last = tricks[-1]
        leader = int(last.get("leader", 0))
        plays = ", ".join(
            f"{self.seats((leader + i) % 4)} {self.card(c)}"
            for i, c in enumerate(last.get("cards") or [])
        )
        return [
            self.t(
                "schafkopf.last_trick",
                plays=plays,
                winner=self.seats(last.get("winner")),
                points=last.get("points", 0),
            )
        ]

    def reason_arg(self, name: str, value: Any) -> str:
        """Contracts by their names in the player's language."""
        if name in ("contract", "above"):
            return self.contract(value, None)
        return super().reason_arg(name, value)

    def contract(self, kind: Any, suit: Any) -> str:
        """``Rufspiel on the Gras ace``, ``Herz Solo``, ``Wenz`` in the player's language."""
        name = self.term(str(kind), _CONTRACTS.get(str(kind), str(kind).replace("_", " ")))
        if not suit:
            return name
        key = "schafkopf.rufer_on" if kind == "rufer" else "schafkopf.suit_contract"
        return self.t(key, contract=name, suit=self.suit_name(suit))

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        deals = (view.get("options") or {}).get("deals")
        deal, dealer = int(view.get("deal_no", 0)) + 1, self.seats(view.get("dealer"))
        if deals:
            lines = [self.t("schafkopf.head_of", deal=deal, deals=deals, dealer=dealer)]
        else:
            lines = [self.t("schafkopf.head", deal=deal, dealer=dealer)]
        contract = view.get("contract")
        if view.get("phase") == "bidding" or not contract:
            bids = view.get("bids") or []
            said = ", ".join(
                f"{self.seats(b.get('seat'))} "
                + (
                    self.contract(b.get("contract"), b.get("suit"))
                    if b.get("contract")
                    else self.term("pass", "pass").lower()
                )
                for b in bids
            )
            lines.append(self.t("schafkopf.bidding", bids=said or self.t("schafkopf.no_bids")))
        else:
            text = self.t(
                "schafkopf.contract",
                contract=self.contract(contract.get("kind"), contract.get("suit")),
                declarer=self.seats(contract.get("declarer")),
            )
            if view.get("partner") is not None:
                text += self.t("schafkopf.with_partner", partner=self.seats(view["partner"]))
            lines.append(text)
            trick = view.get("trick") or []
            leader = int(view.get("leader", 0))
            plays = ", ".join(
                f"{self.seats((leader + i) % 4)} {self.card(c)}" for i, c in enumerate(trick)
            )
            lines.append(
                self.t(
                    "schafkopf.trick",
                    n=len(view.get("tricks") or []) + 1,
                    plays=plays or self.t("schafkopf.nothing_yet"),
                    leader=self.seats(leader),
                )
            )
            lines.append(
                self.t("schafkopf.card_points", points=self.per_seat(view.get("points") or []))
            )
        if view.get("seat") is not None:
            lines.extend(self.hand_lines(view.get("hand") or [], view))
            lines.extend(self.notices(view))
        lines.append(self.t("view.totals", scores=self.per_seat(view.get("totals") or [])))
        return lines

    def game_action(self, action: Mapping[str, Any]) -> str | None:
        kind = action.get("type")
        if kind == "pass":
            return self.t("action.pass")
        if kind == "announce":
            contract = self.contract(action.get("contract"), action.get("suit"))
            return self.t("action.announce", contract=contract)
        if kind == "play":
            return self.t("action.play", card=self.card(action.get("card", "?")))
        return None

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        seat = data.get("seat")
        if kind == "deal":
            return [
                self.t(
                    "schafkopf.deal",
                    deal=int(data.get("deal_no", 0)) + 1,
                    dealer=self.seats(data.get("dealer")),
                )
            ]
        if kind == "hand":
            return self.dealt_lines(seat, data.get("hand") or [])
        if kind == "bid":
            if not data.get("contract"):
                return [self.said("event.pass", seat)]
            contract = self.contract(data.get("contract"), data.get("suit"))
            return [self.said("event.announce", seat, contract=contract)]
        if kind == "contract":
            contract = self.contract(data.get("contract"), data.get("suit"))
            return [self.said("event.plays_contract", data.get("declarer"), contract=contract)]
        if kind == "play":
            return [self.said("event.play", seat, card=self.card(data.get("card", "?")))]
        if kind == "trick":
            cards = self.codes(data.get("cards") or [])
            points = data.get("points", 0)
            return [self.said("event.trick", data.get("winner"), cards=cards, points=points)]
        if kind == "deal_scored":
            rec = data.get("record") or {}
            lines = []
            if rec.get("contract"):
                line = self.t(
                    "schafkopf.won" if rec.get("declarer_won") else "schafkopf.lost",
                    contract=self.contract(rec.get("contract"), rec.get("suit")),
                    declarer=self.seats(rec.get("declarer")),
                    points=rec.get("declarer_points"),
                    against=rec.get("defender_points"),
                )
                for extra in ("schneider", "schwarz"):
                    if rec.get(extra):
                        line += ", " + self.term(extra, extra).lower()
                lines.append(line)
            else:
                lines.append(self.t("schafkopf.all_passed"))
            if "settlement" in rec:
                lines.append(
                    "  " + self.t("schafkopf.settlement", scores=self.per_seat(rec["settlement"]))
                )
            lines.append(
                "  " + self.t("view.totals", scores=self.per_seat(data.get("totals") or []))
            )
            return lines
        if kind == "game_over":
            return [self.t("schafkopf.over", scores=self.per_seat(data.get("totals") or []))]
        return None
