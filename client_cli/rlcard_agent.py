"""RLCard's rule-based Dou Dizhu agent as a Cardavia policy (issue 7, arena ``rlcard-rule``).

:class:`RLCardRulePolicy` wraps ``rlcard.models.doudizhu_rule_models.
DouDizhuRuleAgentV1`` (``rlcard`` is an optional dependency, imported
lazily).  It hands the agent only its own seat's information, rebuilt from
the seat's :class:`~engine.doudizhu.state.DoudizhuView` — never from a full
state:

* ``current_hand``: the own hand as an RLCard rank string (``3…2BR``);
* ``trace``: the public card play, ``(seat, "33344" | "pass")`` per turn;
* ``played_cards`` per seat, ``num_cards_left``, ``seen_cards`` (the bottom
  cards, public once the landlord took them), ``others_hand`` (the cards
  the seat cannot see, i.e. the deck minus its hand and all played cards),
  ``landlord``, ``self``;
* ``actions``: the seat's legal moves as RLCard strings.

The agent's answer (a rank string or ``"pass"``) is mapped back to the legal
action with those ranks, preferring the reading RLCard names first; if it
names no legal move (it does not in practice) the policy passes, or leads
its lowest single.  The agent's random fallback draws from numpy's global
generator, which is seeded from the ``rng`` given to :meth:`choose` (and
restored afterwards), so arena runs are reproducible.

**Bidding**: RLCard's rule agent has no auction.  This policy bids by hand
strength with a fixed rule: Cardavia's strength measure
(:func:`engine.doudizhu.ai.normal.bid_strength`: jokers, twos, aces and
bombs minus 1.2 per play the hand needs) against :data:`BID_THRESHOLDS`
(bid 1 from -3, 2 from 0, 3 from 3: a middling hand passes), the same rule
in every seat and every duplicate lineup.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine.doudizhu.ai.normal import FULL_PACKED, choose_bid
from engine.doudizhu.combos import NUM_RANKS, RANKS, Move
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Action, DoudizhuView, Pass, Play
from engine.game import Budget
from engine.policy import BasePolicy

BID_THRESHOLDS = (-3.0, 0.0, 3.0)
"""Strength the adapter needs to bid 1, 2, 3 for RLCard's agent."""
RL_CHAR = tuple(name[0] for name in RANKS)  # '3' … 'A', '2', 'B', 'R'
RL_TYPE = {
    "single": "solo",
    "pair": "pair",
    "triple": "trio",
    "triple_single": "trio_solo",
    "triple_pair": "trio_pair",
    "straight": "solo_chain_{}",
    "pair_sequence": "pair_chain_{}",
    "airplane": "trio_chain_{}",
    "airplane_single_wings": "trio_solo_chain_{}",
    "airplane_pair_wings": "trio_pair_chain_{}",
    "four_two_singles": "four_two_solo",
    "four_two_pairs": "four_two_pair",
    "bomb": "bomb",
    "rocket": "rocket",
}


def packed_text(packed: int) -> str:
    """Packed rank counts as an RLCard card string, weakest rank first."""
    return "".join(RL_CHAR[r] * ((packed >> (4 * r)) & 15) for r in range(NUM_RANKS))


def move_text(move: Move) -> str:
    """A combination as RLCard writes it, e.g. ``"33344"``, ``"BR"``."""
    return packed_text(move.packed)


def rl_type(move: Move) -> str:
    """RLCard's type name of a combination, e.g. ``"solo_chain_5"``."""
    return RL_TYPE[move.combo].format(move.length)


def raw_observation(view: DoudizhuView, legal: Sequence[Action] | None = None) -> dict[str, Any]:
    """RLCard's raw observation of the seat of ``view``, from the view alone.

    ``legal`` (default: the view's) become the observation's ``actions``.
    """
    assert view.seat is not None and view.landlord is not None
    own = packed_counts(mask_of(view.hand)) if view.hand else 0
    played = [0, 0, 0]
    trace: list[tuple[int, str]] = []
    for turn in view.history:
        if turn.play is None:
            trace.append((turn.seat, "pass"))
        else:
            move = read_play(turn.play)[0]
            played[turn.seat] += move.packed
            trace.append((turn.seat, move_text(move)))
    unseen = FULL_PACKED - own - sum(played)
    actions = [
        "pass" if isinstance(a, Pass) else move_text(read_play(a)[0])
        for a in (view.legal if legal is None else legal)
        if isinstance(a, (Pass, Play))
    ]
    return {
        "landlord": view.landlord,
        "self": view.seat,
        "current_hand": packed_text(own),
        "trace": trace,
        "played_cards": [packed_text(p) for p in played],
        "num_cards_left": list(view.hand_counts),
        "seen_cards": packed_text(packed_counts(mask_of(view.bottom))) if view.bottom else "",
        "others_hand": packed_text(unseen),
        "actions": list(dict.fromkeys(actions)),
    }


def action_for(legal: Sequence[Action], answer: str) -> Action | None:
    """The legal action RLCard's ``answer`` names (its first reading preferred), or None."""
    if answer == "pass":
        return next((a for a in legal if isinstance(a, Pass)), None)
    matches = [a for a in legal if isinstance(a, Play) and move_text(read_play(a)[0]) == answer]
    if not matches:
        return None
    try:
        from rlcard.games.doudizhu.utils import CARD_TYPE

        first = CARD_TYPE[0][answer][0][0]
    except (ImportError, KeyError, IndexError):
        return matches[0]
    for a in matches:
        if isinstance(a, Play) and rl_type(read_play(a)[0]) == first:
            return a
    return matches[0]


class RLCardRulePolicy(BasePolicy[DoudizhuView, Action]):
    """RLCard's ``DouDizhuRuleAgentV1`` behind Cardavia's policy interface
    (:class:`engine.policy.BasePolicy`: its ``choose`` checks ``legal`` first)."""

    name = "rlcard-rule"

    def __init__(self) -> None:
        from rlcard.models.doudizhu_rule_models import (
            DouDizhuRuleAgentV1,
        )

        self._agent = DouDizhuRuleAgentV1()

    def decide(
        self, view: DoudizhuView, legal: Sequence[Action], rng: random.Random, budget: Budget | None
    ) -> Action:
        """Bid by hand strength; in the play, ask RLCard's agent with the seat's view."""
        if view.phase == "bidding":
            return choose_bid(view, legal, BID_THRESHOLDS)
        import numpy as np

        obs = raw_observation(view, legal)
        saved = np.random.get_state()
        np.random.seed(rng.randrange(2**32))
        try:
            answer = str(self._agent.step({"raw_obs": obs, "raw_legal_actions": obs["actions"]}))
        finally:
            np.random.set_state(saved)
        action = action_for(legal, answer)
        if action is not None:
            return action
        passes = [a for a in legal if isinstance(a, Pass)]
        if passes:
            return passes[0]
        plays = [a for a in legal if isinstance(a, Play)]
        return min(plays, key=lambda a: (read_play(a)[0].size != 1, read_play(a)[0].main))
