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
        head = self.t(
            "scopa.head",
            deal=int(view.get("deal_no", 0)) + 1,
            dealer=self.seats(view.get("dealer")),
            stock=view.get("stock_count", 0),
        )
        if target is not None:
            head += self.t("scopa.target_one" if target == 1 else "scopa.target", n=target)
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
                "  "
                + self.t(
                    "scopa.seat_line",
                    who=self.seats.title(seat),
                    hand=counts[seat],
                    taken=taken,
                    scope=sc,
                    word=self.t("scopa.scopa_one" if sc == 1 else "scopa.scopa_many"),
                )
            )
        lines.append(self.t("view.score", scores=self.per_seat(view.get("totals") or [])))
        return lines

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        if kind == "deal":
            return [
                self.t(
                    "scopa.deal",
                    deal=int(data.get("deal_no", 0)) + 1,
                    dealer=self.seats(data.get("dealer")),
                    cards=self.cards(data.get("table", [])),
                )
            ]
        if kind == "hand":
            return self.dealt_lines(data.get("seat"), data.get("hand") or [])
        if kind == "play":
            line = self.capture_line(data.get("seat"), data)
            if data.get("scopa"):
                line += self.t("scopa.shout")
            return [line]
        if kind == "refill":
            return [self.t("scopa.refill", n=data.get("stock_count", 0))]
        if kind == "leftover":
            cards = data.get("cards") or []
            if not cards:
                return []
            return [
                self.t("scopa.leftover", who=self.seats(data.get("seat")), cards=self.cards(cards))
            ]
        if kind == "deal_scored":
            return self._deal_score(data)
        if kind == "match_over":
            return [self.t("scopa.match_over", scores=self.per_seat(data.get("totals") or []))]
        return None

    def _deal_score(self, data: Mapping[str, Any]) -> list[str]:
        score = data.get("score") or {}
        lines = [self.t("scopa.scored", deal=int(data.get("deal_no", 0)) + 1)]
        for label, key, award in (
            ("cards", "cards", "cards_award"),
            ("diamonds", "diamonds", "diamonds_award"),
            ("primiera", "primiera", "primiera_award"),
        ):
            if key in score:
                who = score.get(award)
                point = (
                    self.t("scopa.point_to", who=self.seats(who))
                    if who is not None
                    else self.t("scopa.no_point")
                )
                lines.append(f"  {self.term(label)}: {self.per_seat(score[key])}{point}")
        if score.get("settebello_award") is not None:
            who = self.seats(score["settebello_award"])
            lines.append(f"  {self.term('settebello')}{self.t('scopa.point_to', who=who)}")
        if "scope" in score:
            lines.append(f"  {self.term('scope')}: {self.per_seat(score['scope'])}")
        if "points" in score:
            lines.append("  " + self.t("scopa.points", scores=self.per_seat(score["points"])))
        if "totals" in data:
            lines.append("  " + self.t("scopa.total", scores=self.per_seat(data["totals"])))
        return lines

    def game_summary(self, summary: Mapping[str, Any]) -> list[str]:
        deals = summary.get("deals")
        return [self.t("scopa.deals_played", n=deals)] if deals is not None else []
