"""Schafkopf's rated contests (issue 55): one a played deal, the declaring side (the
called partner included) against the rest; a deal thrown in rates nothing."""

from __future__ import annotations

import random

from engine.registry import GAMES, get_policy
from engine.schafkopf.state import Pass, SchafkopfState


def _series(seed: int, pass_first: bool) -> SchafkopfState:
    """A whole series played by the greedy AI; with ``pass_first`` everybody passes in
    the first deal's auction, which throws it in."""
    game = GAMES["schafkopf"]
    policy = get_policy("schafkopf", "greedy")
    rng = random.Random(seed)
    state: SchafkopfState = game.new_state(game.options(), seed)
    while not game.is_over(state):
        seat = game.to_act(state)[0]
        legal = game.legal_actions(state, seat)
        passes = [a for a in legal if isinstance(a, Pass)]
        if pass_first and not state.history and passes:
            action = passes[0]
        else:
            action = policy.choose(game.view(state, seat), legal, rng)
        state = game.apply(state, seat, action).state
    return state


def test_each_played_deal_is_one_contest_of_its_declaring_side() -> None:
    game = GAMES["schafkopf"]
    seen_partner = seen_thrown_in = False
    for seed in range(4):
        state = _series(seed, pass_first=seed % 2 == 1)
        played = [d for d in state.history if d.contract is not None]
        seen_thrown_in |= len(played) < len(state.history)
        contests = game.contests(state)
        assert [c.deal for c in contests] == [d.deal_no for d in played]
        for contest, deal in zip(contests, played, strict=True):
            declaring = contest.sides[contest.side_of(deal.declarer or 0)]
            assert deal.declarer in declaring
            if deal.partner is not None:
                seen_partner = True
                assert declaring == frozenset((deal.declarer, deal.partner))
            else:
                assert len(declaring) == 1
            won = contest.ranks[contest.side_of(deal.declarer or 0)] == 0
            assert won == deal.declarer_won
            assert sorted(contest.ranks) == [0, 1]
    assert seen_partner, "the seeds should include a Rufer with its called partner"
    assert seen_thrown_in, "the seeds should include a deal thrown in"
