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
        return f"team {team} ({names})" + (" [your team]" if mine else "")

    def team_short(self, team: int) -> str:
        """``your team`` / ``their team`` for a player, ``team N`` for a spectator."""
        if self.seats.me is None:
            return f"team {team}"
        return "your team" if self.seats.me % 2 == team else "their team"

    def per_team(self, values: Any) -> str:
        if not isinstance(values, list):
            return str(values)
        return ", ".join(f"{self.team_short(i)} {v}" for i, v in enumerate(values))

    def game_view(self, view: Mapping[str, Any]) -> list[str]:
        lines = [
            f"Dealer {self.seats(view.get('dealer'))}",
            *self.table_lines(view.get("table") or []),
        ]
        if view.get("seat") is not None:
            lines.extend(self.hand_lines(view.get("hand") or [], view))
        lines.append(f"Cards in hand: {self.per_seat(view.get('hand_counts') or [])}")
        piles = view.get("piles") or []
        bonuses = view.get("bonuses") or []
        for team in range(len(piles)):
            bonus = bonuses[team] if team < len(bonuses) else {}
            won = ", ".join(f"{k} {v}" for k, v in bonus.items() if v) or "no bonuses"
            lines.append(f"  {self.team(team)}: {len(piles[team])} cards captured; {won}")
        if view.get("score"):
            lines.append(f"Score: {self.value('score', view['score'])}")
        return lines

    def game_event(self, kind: str, data: Mapping[str, Any]) -> list[str] | None:
        who = self.seats.title(data.get("seat"))
        if kind == "deal":
            return [
                f"— New deal: dealer {self.seats(data.get('dealer'))}, "
                f"{self.seats(data.get('first'))} leads; table {self.cards(data.get('table', []))}"
            ]
        if kind == "hand":
            return self.dealt_lines(data.get("seat"), data.get("hand") or [])
        if kind == "play":
            line = self.capture_line(who, data)
            bonuses = data.get("bonuses") or []
            if bonuses:
                line += " — " + ", ".join(str(b).upper() for b in bonuses) + "!"
            return [line]
        if kind == "leftover":
            cards = data.get("cards") or []
            if not cards:
                return []
            return [
                f"The cards left on the table go to {self.team_short(data.get('team', 0))}: "
                f"{len(cards)} cards"
            ]
        if kind == "deal_scored":
            score = data.get("score") or {}
            lines = ["Deal scored:"]
            for key in ("cards", "swords", "napula", "bonuses", "awards", "points"):
                if key in score:
                    lines.append(f"  {key}: {self.per_team(score[key])}")
            for key, value in score.items():
                if key.endswith("_award") and value is not None:
                    lines.append(f"  {key[:-6].replace('_', ' ')} → {self.team_short(int(value))}")
            if score.get("winner") is not None:
                lines.append(f"  winner: {self.team(int(score['winner']))}")
            return lines
        return None
