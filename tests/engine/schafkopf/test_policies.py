"""Schafkopf policies: legal choices from the view only, greedy beats random."""

from __future__ import annotations

import random

from engine.game import Budget
from engine.registry import get_policy, policy_names
from engine.schafkopf import Announce, Pass, PlayCard
from engine.schafkopf.policies import EXTRA_POLICIES, choose_bid
from engine.schafkopf.state import Action
from tests.engine.schafkopf.helpers import GAME, bid, cards, columns, deal, play, plays
from tests.engine.schafkopf.test_scoring_examples import RUFER_SCHNEIDER, SOLO_LEAVES


def series(seed: int, names: list[str]) -> tuple[int, ...]:
    policies = [get_policy("schafkopf", n) for n in names]
    rng = random.Random(seed)
    state = GAME.new_state(GAME.options(), seed)
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = policies[seat].choose(view, view.legal, rng)
        assert action in view.legal
        state = GAME.apply(state, seat, action).state
    result = GAME.result(state)
    assert result is not None
    return result.scores


def test_policies_are_registered_weakest_first() -> None:
    assert policy_names("schafkopf") == ("random", "greedy")


def test_greedy_beats_random_over_many_series() -> None:
    greedy = random_ = 0
    for seed in range(40):
        names = ["greedy", "random"] * 2 if seed % 2 else ["random", "greedy"] * 2
        scores = series(seed, names)
        for seat, name in enumerate(names):
            if name == "greedy":
                greedy += scores[seat]
            else:
                random_ += scores[seat]
    assert greedy > 0 > random_


def test_greedy_bids_by_strength() -> None:
    weak = cards("7E 8E 9E 7G 8G 9G 7S 8S")
    legal: tuple[Action, ...] = (Pass(), *[Announce("rufer", s) for s in "EGS"], Announce("wenz"))
    assert choose_bid(weak, legal) == Pass()
    sie = cards("OE OG OH OS UE UG UH US")
    assert choose_bid(sie, (Pass(), Announce("sie"))) == Announce("sie")
    solo = cards("OE OG OH UE UG AG TG 9G")
    assert choose_bid(solo, (Pass(), Announce("solo", "G"), Announce("rufer", "E"))) == Announce(
        "solo", "G"
    )


def test_greedy_partner_feeds_points_to_the_declarers_trick() -> None:
    policy = get_policy("schafkopf", "greedy")
    state = bid(deal(*columns(RUFER_SCHNEIDER)), "rufer G", "pass", "pass", "pass")
    # seat 0 leads the top trump: seat 2 (the partner, who knows it) feeds KH
    state = play(state, "OE 9H")
    view = GAME.view(state, 2)
    choice = policy.choose(view, view.legal, random.Random(0))
    assert choice == PlayCard(cards("KH")[0])


def test_hard_search_plays_legal_cards_and_bids_like_greedy() -> None:
    hard = EXTRA_POLICIES["hard"]()
    greedy = get_policy("schafkopf", "greedy")
    budget = Budget(iterations=12, seconds=None)
    state = GAME.new_state(GAME.options({"deals": 1}), 21)
    rng = random.Random(0)
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = hard.choose(view, view.legal, rng, budget)
        assert action in view.legal
        if view.phase == "bidding":
            assert action == greedy.choose(view, view.legal, rng)
        state = GAME.apply(state, seat, action).state


def test_hard_search_leads_a_top_trump_in_a_solo_tout() -> None:
    # Solo Tout in leaves: leading anything but OE, OG or OH lets an opponent's
    # OS (or a trump on the bells) take a trick, which loses the Tout at once
    hard = EXTRA_POLICIES["hard"]()
    hands = columns(SOLO_LEAVES)
    backwards = " ".join(reversed(hands[0].split()))  # the safe leads listed last
    state = bid(deal(backwards, *hands[1:]), "solo_tout G", "pass", "pass", "pass")
    assert GAME.legal_actions(state, 0)[0] == PlayCard(cards("TG")[0])
    view = GAME.view(state, 0)
    for seed in range(3):
        choice = hard.choose(view, view.legal, random.Random(seed), Budget(iterations=150))
        assert choice in plays("OE OG OH")
