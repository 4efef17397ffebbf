"""Fixed-role lineups for the arena: the roles are set, not bid for.

In Dou Dizhu the auction decides who is the landlord, so a strong bidder can
end up in one role almost always and its play in the other role goes
unmeasured.  The field's standard evaluation (DouZero's) fixes the roles
instead: for every deal, side a plays the landlord against two b farmers and
then the two farmers against a b landlord, in each seat.  Here the auction is
scripted (the chosen seat bids 3, everybody else passes) and the rest of the
deal is played by the policies; the bidding decisions are not timed, and the
policies see the card play without the scripted calls (:func:`without_auction`):
calls made by rule say nothing of the hands, and a player that reads the
auction (Dou Dizhu ``hard``) would be misled by them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.doudizhu.state import Bid, DoudizhuView, Pass

Script = Callable[[Any], Any | None]
"""Returns the scripted action for a view, or ``None`` to let the policy decide."""
Shown = Callable[[Any], Any]
"""What the policies are shown of a view where a script sets part of the deal."""


@dataclass(frozen=True)
class Lineup:
    """A seating (``"a"``/``"b"`` per seat), its scripted actions if any, side a's
    role if the lineup sets it (else the game's :meth:`~engine.game.Game.seat_role`),
    and what the policies are shown of each view (``None``: the view itself)."""

    seats: tuple[str, ...]
    script: Script | None = None
    role: str | None = None
    shown: Shown | None = None


def without_auction(view: DoudizhuView) -> DoudizhuView:
    """The card play's view without the scripted auction (the roles were set, not bid)."""
    if view.phase == "bidding" or not view.auction:
        return view
    return dataclasses.replace(view, auction=())


def _landlord_script(landlord: int) -> Script:
    def script(view: DoudizhuView) -> Bid | Pass | None:
        if view.phase != "bidding":
            return None
        return Bid(3) if view.seat == landlord else Pass()

    return script


def doudizhu_lineups(options: Any) -> list[Lineup]:
    """Side a as the landlord in each seat, then as both farmers against each b landlord."""
    out = []
    for landlord in range(3):
        script = _landlord_script(landlord)
        alone = tuple("a" if s == landlord else "b" for s in range(3))
        out.append(Lineup(alone, script, "landlord", without_auction))
        farmers = tuple("b" if s == landlord else "a" for s in range(3))
        out.append(Lineup(farmers, script, "farmers", without_auction))
    return out


FIXED_ROLES: dict[str, Callable[[Any], list[Lineup]]] = {"doudizhu": doudizhu_lineups}
"""Games whose roles the arena can fix (``cardavia arena --fixed-roles``)."""
