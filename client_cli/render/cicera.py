"""Cicera in the terminal: two teams of two (seats 0+2 and 1+3), bonuses, awards."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from client_cli.render.capture import CaptureRenderer


class CiceraRenderer(CaptureRenderer):
    """Four players in two partnerships; one deal, scored by team."""

    game = "cicera"

    def team(self, team: int) -> str:
        """``you + AI 2`` for the team holding seats ``team`` and ``team + 2``."""
        mine = self.seats.me is not None and self.seats.me % 2 == team
        names = f"{self.seats(team)} + {self.seats(team + 2)}"
        return self.t("cicera.team_mine" if mine else "cicera.team", n=team, names=names)

    def team_short(self, team: int) -> str:
        """``your team`` / ``their team`` for a player, ``team N`` for a spectator."""
        if self.seats.me is None:
            return self.t("cicera.team_n", n=team)
        return self.t("cicera.our_team" if self.seats.me % 2 == team else "cicera.their_team")

    def per_team(self, values: Any) -> str:
        if not isinstance(values, list):
            return str(values)
        return ", ".join(f"{self.team_short(i)} {v}" for i, v in enumerate(values))

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        lines = [
            self.t("cicera.dealer", dealer=self.seats(view.get("dealer"))),
            *self.table_lines(view.get("table") or []),
        ]
        if view.get("seat") is not None:
            lines.extend(self.hand_lines(view.get("hand") or [], view))
        lines.append(
            self.t("view.hand_counts", counts=self.per_seat(view.get("hand_counts") or []))
        )
        piles = view.get("piles") or []
        bonuses = view.get("bonuses") or []
        for team in range(len(piles)):
            bonus = bonuses[team] if team < len(bonuses) else {}
            won = ", ".join(f"{self.term(k)} {v}" for k, v in bonus.items() if v)
            lines.append(
                "  "
                + self.t(
                    "cicera.team_line",
                    team=self.team(team),
                    n=len(piles[team]),
                    bonuses=won or self.t("cicera.no_bonuses"),
                )
            )
        if view.get("score"):
            lines.append(self.t("view.score", scores=self.value("score", view["score"])))
        return lines

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        if kind == "deal":
            return [
                self.t(
                    "cicera.deal",
                    dealer=self.seats(data.get("dealer")),
                    first=self.seats(data.get("first")),
                    cards=self.cards(data.get("table", [])),
                )
            ]
        if kind == "hand":
            return self.dealt_lines(data.get("seat"), data.get("hand") or [])
        if kind == "play":
            line = self.capture_line(data.get("seat"), data)
            bonuses = data.get("bonuses") or []
            if bonuses:
                line += " — " + ", ".join(self.term(str(b)).upper() for b in bonuses) + "!"
            return [line]
        if kind == "leftover":
            cards = data.get("cards") or []
            if not cards:
                return []
            team = self.team_short(data.get("team", 0))
            return [self.t("cicera.leftover", team=team, n=len(cards))]
        if kind == "deal_scored":
            score = data.get("score") or {}
            lines = [self.t("cicera.scored")]
            for key in ("cards", "swords", "napula", "bonuses", "awards", "points"):
                if key in score:
                    lines.append(f"  {self.term(key)}: {self.per_team(score[key])}")
            for key, value in score.items():
                if key.endswith("_award") and value is not None:
                    name = self.term(key[:-6])
                    lines.append(f"  {name} → {self.team_short(int(value))}")
            if score.get("winner") is not None:
                lines.append("  " + self.t("cicera.winner", team=self.team(int(score["winner"]))))
            return lines
        return None
