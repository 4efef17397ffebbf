"""Schafkopf policies: every level legal, deterministic, blind to hidden cards; behaviour."""

from __future__ import annotations

import random

import pytest

from engine.game import Budget
from engine.policy import RandomPolicy
from engine.registry import get_policy, policy_names
from engine.schafkopf import Announce, Pass, PlayCard, SchafkopfState
from engine.schafkopf.ai.bidding import best_bid, call_choice, sure_winners
from engine.schafkopf.ai.greedy import EasyPolicy, GreedyPolicy, choose_bid
from engine.schafkopf.ai.normal import NormalPolicy, knowledge
from engine.schafkopf.ai.search import (
    HardPolicy,
    _deal_of,
    bid_likelihood,
    distinct_cards,
    laufende_units,
    rollout_card,
    settlement,
)
from engine.schafkopf.rules import mode_of
from engine.schafkopf.state import Action, Bid
from tests.engine.schafkopf.helpers import GAME, bid, cards, columns, deal, play, plays
from tests.engine.schafkopf.test_scoring_examples import RUFER_SCHNEIDER, SOLO_LEAVES

LEVELS = list(policy_names("schafkopf"))
SMALL = Budget(iterations=24)


def make(name: str):  # type: ignore[no-untyped-def]
    return get_policy("schafkopf", name)


def series(seed: int, names: list[str]) -> tuple[int, ...]:
    policies = [make(n) for n in names]
    rng = random.Random(seed)
    state = GAME.new_state(GAME.options({"deals": 1}), seed)
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        action = policies[seat].choose(view, view.legal, rng, SMALL)
        assert action in view.legal
        state = GAME.apply(state, seat, action).state
    result = GAME.result(state)
    assert result is not None
    return result.scores


def positions(n: int = 14, seed: int = 3) -> list[SchafkopfState]:
    """Bidding and play positions of a few deals played by the normal level."""
    normal = NormalPolicy()
    out: list[SchafkopfState] = []
    rng = random.Random(seed)
    k = 0
    while len(out) < n:
        state = GAME.new_state(GAME.options({"deals": 1}), seed + k)
        k += 1
        while not GAME.is_over(state) and len(out) < n:
            (seat,) = GAME.to_act(state)
            view = GAME.view(state, seat)
            if len(view.legal) > 1 and rng.random() < 0.4:
                out.append(state)
            state = GAME.apply(state, seat, normal.choose(view, view.legal, rng)).state
    return out


def test_levels_are_registered_weakest_first() -> None:
    assert policy_names("schafkopf") == ("random", "easy", "greedy", "normal", "hard")


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_returns_a_legal_action(level: str) -> None:
    policy = make(level)
    for state in positions():
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        assert policy.choose(view, view.legal, random.Random(1), SMALL) in view.legal


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_deals_legally(level: str) -> None:
    for seed in range(2):
        series(seed, [level, "normal", level, "random"])


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_and_budget_same_choice(level: str) -> None:
    for state in positions(8, seed=5):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        a = make(level).choose(view, view.legal, random.Random(5), SMALL)
        b = make(level).choose(view, view.legal, random.Random(5), SMALL)
        assert a == b


@pytest.mark.parametrize("level", LEVELS)
def test_choice_is_unchanged_when_hidden_cards_are_permuted(level: str) -> None:
    rng = random.Random(9)
    changed = 0
    for state in positions(10, seed=7):
        (seat,) = GAME.to_act(state)
        other = GAME.redeal_hidden(state, seat, rng)
        changed += other.hands != state.hands
        v1, v2 = GAME.view(state, seat), GAME.view(other, seat)
        a = make(level).choose(v1, v1.legal, random.Random(2), SMALL)
        b = make(level).choose(v2, v2.legal, random.Random(2), SMALL)
        assert a == b
    assert changed > 0


def side_totals(strong: str, weak: str, seeds: range) -> tuple[int, int]:
    """Units won by each level over single deals, seats alternating."""
    totals = {strong: 0, weak: 0}
    for seed in seeds:
        names = [strong, weak] * 2 if seed % 2 else [weak, strong] * 2
        for seat, score in enumerate(series(seed, names)):
            totals[names[seat]] += score
    return totals[strong], totals[weak]


def test_easy_beats_random_and_normal_beats_easy() -> None:
    easy, random_ = side_totals("easy", "random", range(24))
    assert easy > 0 > random_
    normal, easy = side_totals("normal", "easy", range(60))
    assert normal > 0 > easy


# -- easy and greedy ---------------------------------------------------------------
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
    state = bid(deal(*columns(RUFER_SCHNEIDER)), "rufer G", "pass", "pass", "pass")
    state = play(state, "OE 9H")
    view = GAME.view(state, 2)
    assert GreedyPolicy().choose(view, view.legal, random.Random(0)) == PlayCard(cards("KH")[0])


def test_easy_is_greedy_with_some_noise() -> None:
    easy, greedy = EasyPolicy(), GreedyPolicy()
    same = differ = 0
    rng = random.Random(3)
    for state in positions(40, seed=13):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        if view.phase == "bidding":  # easy bids exactly like greedy
            assert easy.choose(view, view.legal, rng) == greedy.choose(view, view.legal, rng)
            continue
        if easy.choose(view, view.legal, rng) == greedy.choose(view, view.legal, rng):
            same += 1
        else:
            differ += 1
    assert same > differ > 0


# -- bidding ---------------------------------------------------------------------
ALL_BIDS: tuple[Action, ...] = (
    Pass(),
    *[Announce("rufer", s) for s in "EGS"],
    Announce("wenz"),
    *[Announce("solo", s) for s in "EGHS"],
    Announce("wenz_tout"),
    *[Announce("solo_tout", s) for s in "EGHS"],
)


def legal_for(hand: str) -> tuple[Action, ...]:
    return tuple(a for a in ALL_BIDS if a in GAME_LEGAL(hand))


def GAME_LEGAL(hand: str) -> tuple[Action, ...]:
    from engine.schafkopf.rules import announcements

    return (Pass(), *announcements(cards(hand), -1))


def test_normal_passes_a_weak_hand() -> None:
    hand = "7E 8E 9E 7G 8G 9G 7S 8S"
    assert best_bid(cards(hand), GAME_LEGAL(hand)) == Pass()
    four_low = "UH US 8H 7H 9E 8E 9G 8S"  # four trumps, no Ober, no ace: too weak
    assert best_bid(cards(four_low), GAME_LEGAL(four_low)) == Pass()


def test_normal_plays_a_rufer_with_good_trumps_and_calls_the_short_suit() -> None:
    hand = "OE OG UH AH 9H 7G 9S 8S"
    choice = best_bid(cards(hand), GAME_LEGAL(hand))
    assert choice == Announce("rufer", "G")  # one blank leaves card: call AG
    assert call_choice(cards("7G 8G 9S TE"), "GS") == "S"


def test_normal_prefers_a_solo_with_seven_trumps() -> None:
    hand = "OE OG OH UE UG AG TG 9G"
    assert best_bid(cards(hand), GAME_LEGAL(hand)) in (
        Announce("solo", "G"),
        Announce("solo_tout", "G"),
    )
    solo = "OE OG UE UG AG TG 9G AE"
    assert best_bid(cards(solo), GAME_LEGAL(solo)) == Announce("solo", "G")


def test_normal_bids_a_wenz_with_unters_and_aces() -> None:
    hand = "UE UG AE TE KE AG TG 7S"
    assert best_bid(cards(hand), GAME_LEGAL(hand)) == Announce("wenz")


def test_normal_bids_a_tout_only_when_every_trick_is_sure() -> None:
    sure = cards("OE OG OH OS UE UG AG TG")
    assert sure_winners(sure, mode_of("solo_tout", "G"))
    assert best_bid(sure, (Pass(), *[a for a in ALL_BIDS if a != Pass()])) == Announce(
        "solo_tout", "G"
    )
    # without OS, an opponent's OS could beat the fourth trump lead
    unsure = cards("OE OG OH UH UE UG AG TG")
    assert not sure_winners(unsure, mode_of("solo_tout", "G"))


def test_normal_announces_sie() -> None:
    sie = cards("OE OG OH OS UE UG UH US")
    assert best_bid(sie, (Pass(), Announce("sie"))) == Announce("sie")


def test_normal_respects_a_higher_announcement() -> None:
    # a Rufer hand after someone announced a Wenz can only pass
    hand = "OE OG UH AH 9H AE 7G 9S"
    assert best_bid(cards(hand), (Pass(), Announce("solo", "H"))) == Pass()


# -- play ------------------------------------------------------------------------
def choose_normal(state: SchafkopfState) -> PlayCard:
    (seat,) = GAME.to_act(state)
    view = GAME.view(state, seat)
    choice = NormalPolicy().choose(view, view.legal, random.Random(0))
    assert isinstance(choice, PlayCard)
    return choice


def test_normal_partner_schmiert_to_the_declarers_safe_trick() -> None:
    state = bid(deal(*columns(RUFER_SCHNEIDER)), "rufer G", "pass", "pass", "pass")
    state = play(state, "OE 9H")  # OE cannot be beaten: the partner (seat 2) adds points
    assert choose_normal(state) == PlayCard(cards("KH")[0])


def test_normal_knows_the_partner_and_the_defenders_side() -> None:
    state = bid(deal(*columns(RUFER_SCHNEIDER)), "rufer G", "pass", "pass", "pass")
    k2 = knowledge(GAME.view(state, 2))  # seat 2 holds AG: it knows its side
    assert k2.declaring and k2.friend == (1.0, 0.0, 1.0, 0.0)
    k1 = knowledge(GAME.view(state, 1))  # a defender: seats 2 and 3 may be the partner
    assert not k1.declaring and k1.friend == (0.0, 1.0, 0.5, 0.5)
    k0 = knowledge(GAME.view(state, 0))
    assert k0.friend == (1.0, 1 / 3, 1 / 3, 1 / 3)


def test_normal_defender_looks_for_the_called_ace() -> None:
    hands = (
        "OG UH AH 9H AE 7G 9S 8S",  # declarer: calls the leaves ace
        "OE UE 8G KG TE 9E 7S KS",  # a defender with two leaves
        "AG OH TH KH 7H 8E AS TS",  # the partner
        "KE 7E TG UG 9G 8H OS US",
    )
    state = bid(deal(*hands), "rufer G", "pass", "pass", "pass")
    state = play(state, "UH OE 7H 8H")  # seat 1 wins and leads
    assert choose_normal(state) == PlayCard(cards("8G")[0])


# A heart Solo of seat 3, void in acorns; seat 0 leads.
SOLO_HEARTS = (
    "AE TE 9E KS 9S 8S 7G 8G",
    "KE 8E 7E OS US 9G TG KG",
    "AG AH TH KH UH 9H TS 7S",
    "OE OG OH UE UG 7H 8H AS",
)


def test_normal_defender_does_not_schmier_when_the_declarer_may_trump() -> None:
    state = bid(deal(*SOLO_HEARTS), "pass", "pass", "pass", "solo H")
    state = play(state, "AE")
    assert choose_normal(state) == PlayCard(cards("7E")[0])


def test_normal_last_player_trumps_a_fat_trick_with_the_cheapest_trump() -> None:
    state = bid(deal(*SOLO_HEARTS), "pass", "pass", "pass", "solo H")
    state = play(state, "AE 7E 7S")
    assert choose_normal(state) == PlayCard(cards("7H")[0])


def test_normal_tout_defender_beats_the_declarer() -> None:
    state = bid(deal(*SOLO_HEARTS), "pass", "pass", "pass", "solo_tout H")
    state = play(state, "AE 7E 7S 7H UG 9S")
    assert choose_normal(state) == PlayCard(cards("OS")[0])


# -- hard --------------------------------------------------------------------------
def test_hard_leads_a_top_trump_in_a_solo_tout() -> None:
    # leading anything but OE, OG or OH lets an opponent's OS (or a trump on
    # the bells) take a trick, which loses the Tout at once
    hands = columns(SOLO_LEAVES)
    backwards = " ".join(reversed(hands[0].split()))
    state = bid(deal(backwards, *hands[1:]), "solo_tout G", "pass", "pass", "pass")
    view = GAME.view(state, 0)
    for seed in range(3):
        choice = HardPolicy().choose(view, view.legal, random.Random(seed), Budget(iterations=80))
        assert choice in plays("OE OG OH")


def test_hard_settlement_agrees_with_the_rules_scoring() -> None:
    """The search's own scoring equals score_deal on many random finished deals."""
    rng = random.Random(4)
    checked = 0
    for seed in range(120):
        state = GAME.new_state(GAME.options({"deals": 1}), seed)
        first_play = None
        while not GAME.is_over(state):
            (seat,) = GAME.to_act(state)
            if state.phase == "play" and first_play is None:
                first_play = state
            legal = GAME.legal_actions(state, seat)
            state = GAME.apply(state, seat, RandomPolicy().choose(None, legal, rng)).state
        record = state.history[-1]
        if first_play is None or record.contract in (None, "sie"):
            continue
        view = GAME.view(first_play, 0)
        d = _deal_of(view)
        side = frozenset(s for s in (record.declarer, record.partner) if s is not None)
        side_points = record.declarer_points
        lauf = laufende_units(d, first_play.dealt, side)
        got = settlement(d, side, side_points, record.declarer_tricks, record.tricks_played, lauf)
        assert got == record.settlement[0]
        checked += 1
    assert checked > 60


def test_bid_likelihood_reads_passes_and_announcements() -> None:
    strong = cards("OE OG OH UE UG AG TG 9G")
    weak = cards("7E 8E 9E 7G 8G 9G 7S 8S")
    dealt = (weak, strong, weak, weak)
    assert not bid_likelihood((Bid(0, None), Bid(1, None)), dealt, 0)  # a solo hand passed
    said = best_bid(strong, (Pass(), *(a for a in ALL_BIDS if a != Pass())))
    assert isinstance(said, Announce)
    assert bid_likelihood((Bid(0, None), Bid(1, said.contract, said.suit)), dealt, 0)
    # the viewer's own word is never questioned
    assert bid_likelihood((Bid(1, None),), dealt, 1)


def test_hard_keeps_one_card_of_each_equivalent_group() -> None:
    state = bid(deal(*SOLO_HEARTS), "pass", "pass", "pass", "solo H")
    state = play(state, "AE 7E 7S")
    view = GAME.view(state, 3)
    legal = [a.card for a in view.legal if isinstance(a, PlayCard)]
    kept = distinct_cards(view, legal)
    # 7H ~ 8H and UE ~ UG (nothing between them is out), OE ~ OG ~ OH (the
    # viewer holds them all); OS is out, so OH and UE differ; AS stands alone
    assert set(kept) == set(cards("7H UG OH AS"))


def test_hard_rollout_schmiert_and_takes_fat_tricks_cheaply() -> None:
    state = bid(deal(*SOLO_HEARTS), "pass", "pass", "pass", "solo H")
    view = GAME.view(state, 0)
    d = _deal_of(view)
    hands = [list(h) for h in state.hands]
    in_side = [False, False, False, True]
    # seat 3 (declarer) is last on AE 7E 7S: it trumps with its cheapest trump
    trick = cards("AE 7E 7S")
    for c in trick:
        for h in hands:
            if c in h:
                h.remove(c)
    legal = tuple(hands[3])
    d3 = replace_me(d, 3)
    assert rollout_card(d3, hands, legal, trick, 0, 3, in_side, False) == cards("7H")[0]
    # seat 1 follows seat 0's AE: the declarer behind is void and trumps, so no schmieren
    hands = [list(h) for h in state.hands]
    hands[0].remove(cards("AE")[0])
    d1 = replace_me(d, 1)
    got = rollout_card(d1, hands, tuple(cards("KE 8E 7E")), cards("AE"), 0, 1, in_side, False)
    assert got == cards("7E")[0]


def replace_me(d, seat):  # type: ignore[no-untyped-def]
    from dataclasses import replace

    return replace(d, me=seat)


def test_hard_takes_the_callers_budget_as_a_cap() -> None:
    state = bid(deal(*SOLO_HEARTS), "pass", "pass", "pass", "solo H")
    view = GAME.view(state, 0)
    hard = HardPolicy()
    hard.choose(view, view.legal, random.Random(0), Budget(iterations=30))
    n = len(distinct_cards(view, [a.card for a in view.legal if isinstance(a, PlayCard)]))
    assert hard.search.last_worlds == max(1, 30 // n)
    hard.choose(view, view.legal, random.Random(0), Budget(seconds=0.01))  # default iterations
    assert 1 <= hard.search.last_worlds <= 4000 // n


PARTNER_WEAK = (
    "OE UH AH 9H 7G AE 9S 8S",  # declarer: calls the leaves ace
    "OS US UE 8G 9G 7S 8E 9E",
    "AG TG OG 7H KS TE KE 7E",  # the partner: OG and one small trump
    "KG UG TH KH OH 8H AS TS",
)
PARTNER_STRONG = (
    "OE UH AH 9H 7G AE 9S 8S",
    "OS US UE 8G 9G 7S 8E 9E",
    "AG TG OG KH TH 7H TE 7E",  # the partner: OG and three more trumps
    "KG UG KS KE OH 8H AS TS",
)


def test_normal_weak_partner_stays_hidden() -> None:
    state = bid(deal(*PARTNER_WEAK), "rufer G", "pass", "pass", "pass")
    state = play(state, "UH US OG 8H")  # the partner wins and leads
    assert GAME.to_act(state) == (2,)
    assert knowledge(GAME.view(state, 2)).hidden_partner
    choice = choose_normal(state)
    assert choice not in plays("7H AG")  # neither a trump nor the called ace


def test_normal_strong_partner_shows_itself_with_a_trump_lead() -> None:
    state = bid(deal(*PARTNER_STRONG), "rufer G", "pass", "pass", "pass")
    state = play(state, "UH US OG 8H")
    choice = choose_normal(state)
    assert choice in plays("KH TH 7H")
