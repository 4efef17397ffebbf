"""Schafkopf ``hard`` bidding: candidates, the rest of the bidding, play-outs, evidence."""

from __future__ import annotations

import random

from engine.cards import GERMAN_32
from engine.game import Budget
from engine.schafkopf import Announce, Pass, SchafkopfState
from engine.schafkopf.ai.bid_search import (
    SIE_UNITS,
    BidSearch,
    Memo,
    bid_candidates,
    contract_value,
    deal_unseen,
    finish_bidding,
    sure_bid,
)
from engine.schafkopf.ai.bidding import normal_word
from engine.schafkopf.ai.search import HardPolicy, bid_likelihood
from engine.schafkopf.rules import CONTRACT_RANK, announcements
from engine.schafkopf.state import Action, Bid
from tests.engine.schafkopf.helpers import GAME, bid, cards, deal

BUDGET = Budget(iterations=240)

WEAK = "7E 8E 9E 7G 8G 7S 8S 9S"
SOLO_G = "OE OG UE UG AG TG 9G AE"  # the normal level's Solo in leaves
RUFER = "TE KE KG AH TH KH OH UH"  # the normal level's Rufer on the leaves ace
LAST = "9H 8H 7H AS TS KS OS US"  # passes
HANDS = (cards(WEAK), cards(SOLO_G), cards(RUFER), cards(LAST))
"""Dealer 3: seat 0 speaks first and leads."""


def fresh() -> SchafkopfState:
    """The deal of :data:`HANDS` before anyone spoke."""
    return deal(WEAK, SOLO_G, RUFER, LAST, dealer=3)


def legal(hand: str, above: int = -1) -> tuple[Action, ...]:
    return (Pass(), *announcements(cards(hand), above))


def test_candidates_are_passing_and_the_sound_announcements() -> None:
    assert bid_candidates(cards(WEAK), legal(WEAK)) == [Pass()]
    got = bid_candidates(cards(SOLO_G), legal(SOLO_G))
    assert got[0] == Pass()
    assert Announce("solo", "G") in got
    assert Announce("solo", "S") not in got  # no plain bell: not even eligible
    assert all(a in legal(SOLO_G) for a in got)


def test_sie_and_a_sure_tout_are_announced_at_once() -> None:
    sie = "OE OG OH OS UE UG UH US"
    assert sure_bid(cards(sie), legal(sie)) == Announce("sie")
    tout = "OE OG OH OS UE UG AG TG"
    assert sure_bid(cards(tout), legal(tout)) == Announce("solo_tout", "G")
    assert sure_bid(cards(SOLO_G), legal(SOLO_G)) is None
    state = deal(
        tout, "AE TE KE 9E 8E 7E 9G 8G", "AH TH KH 9H 8H 7H 7G UH", "AS TS KS 9S 8S 7S US KG"
    )
    view = GAME.view(state, 0)
    search = BidSearch()
    assert search.choose(view, view.legal, random.Random(0), BUDGET) == Announce("solo_tout", "G")
    assert search.last_worlds == 0


def test_the_seats_still_to_speak_bid_by_the_normal_evaluation() -> None:
    assert finish_bidding(HANDS, (Bid(0, None),), 3) == Bid(1, "solo", "G")
    assert finish_bidding(HANDS, (Bid(0, None), Bid(1, None)), 3) == Bid(2, "rufer", "G")
    # the Rufer cannot overtake a Solo; a Wenz before the Solo hand is overtaken
    assert finish_bidding(HANDS, (Bid(0, "wenz"),), 3) == Bid(1, "solo", "G")
    done = (Bid(0, None), Bid(1, "rufer", "S"), Bid(2, None), Bid(3, None))
    assert finish_bidding(HANDS, done, 3) == Bid(1, "rufer", "S")
    assert (
        finish_bidding(HANDS, (Bid(0, None), Bid(1, None), Bid(2, None), Bid(3, None)), 3) is None
    )
    memo: Memo = {}
    finish_bidding(HANDS, (Bid(0, None), Bid(1, None)), 3, memo)
    assert memo == {(2, -1): Announce("rufer", "G"), (3, 0): Pass()}


def test_contract_value_scores_the_played_out_deal_for_each_seat() -> None:
    assert contract_value(HANDS, None, 0, 3) == 0.0
    assert contract_value(HANDS, Bid(2, "sie"), 2, 3) == 3 * SIE_UNITS
    assert contract_value(HANDS, Bid(2, "sie"), 0, 3) == -SIE_UNITS
    solo = Bid(1, "solo", "G")
    declarer = contract_value(HANDS, solo, 1, 3)
    defender = contract_value(HANDS, solo, 0, 3)
    assert declarer >= 3 * 5 > 0 > defender  # won: three times the value and more
    assert round(declarer) == -3 * round(defender)
    # seat 2's Rufer on the leaves ace, which seat 1 holds: partners win or lose alike
    rufer = Bid(2, "rufer", "G")
    assert round(contract_value(HANDS, rufer, 2, 3)) == round(contract_value(HANDS, rufer, 1, 3))
    assert round(contract_value(HANDS, rufer, 0, 3)) == -round(contract_value(HANDS, rufer, 2, 3))


def test_hard_declares_the_solo_and_passes_the_weak_hand() -> None:
    state = fresh()
    hard = HardPolicy()
    view = GAME.view(state, 0)
    assert hard.choose(view, view.legal, random.Random(1), BUDGET) == Pass()
    assert hard.bidder.last_worlds == 0  # nothing worth a play-out: no search
    state = bid(state, "pass")
    view = GAME.view(state, 1)
    choice = hard.choose(view, view.legal, random.Random(1), BUDGET)
    assert isinstance(choice, Announce) and choice.contract in ("solo", "solo_tout")
    assert choice.suit == "G"
    assert 1 <= hard.bidder.last_worlds <= BUDGET.iterations  # type: ignore[operator]
    assert hard.bidder.last_values[choice] > 0


def test_the_bid_search_keeps_to_its_budget_and_is_deterministic() -> None:
    state = bid(fresh(), "pass")
    view = GAME.view(state, 1)
    a, b = BidSearch(), BidSearch()
    small = Budget(iterations=30)
    assert a.choose(view, view.legal, random.Random(4), small) == b.choose(
        view, view.legal, random.Random(4), small
    )
    assert a.last_values == b.last_values
    n = len(bid_candidates(view.hand, view.legal))
    assert a.last_worlds <= 30 // n + 1
    a.choose(view, view.legal, random.Random(4), Budget(seconds=0.02))  # default iterations
    assert a.last_worlds >= 1


def test_worlds_for_a_bid_read_the_earlier_words() -> None:
    state = bid(fresh(), "rufer S")
    view = GAME.view(state, 1)
    rng = random.Random(2)
    for _ in range(100):
        hands = deal_unseen(view, rng)
        assert hands[1] == view.hand
        assert sorted(c for h in hands for c in h) == sorted(GERMAN_32.cards)
        # the Rufer announcer cannot hold the called ace and holds a plain bell
        assert cards("AS")[0] not in hands[0]
        assert any(c.suit == "S" and c.rank not in "OU" for c in hands[0])


def test_passes_make_strong_hands_unlikely() -> None:
    """After three passes, most worlds have three hands that the normal level passes with.

    Drawn without the evidence (seat 0's view before anyone spoke), almost no
    world has three such hands beside the viewer's weak one.
    """
    state = bid(fresh(), "pass", "pass", "pass")
    view = GAME.view(state, 3)
    before = GAME.view(fresh(), 0)
    rng = random.Random(3)
    passes = view.bids
    read = sum(bid_likelihood(passes, deal_unseen(view, rng), 3) for _ in range(200))
    # the same question about worlds drawn without the evidence (from seat 0's first view)
    shifted = tuple(Bid(s, None) for s in (1, 2, 3))
    blind = sum(bid_likelihood(shifted, deal_unseen(before, rng), 0) for _ in range(200))
    assert read >= 140  # 156 of 200
    assert blind < 20  # 1 of 200


def test_the_normal_word_rises_above_the_highest_announcement_or_passes() -> None:
    assert normal_word(cards(SOLO_G), -1) == Announce("solo", "G")
    assert normal_word(cards(SOLO_G), CONTRACT_RANK["rufer"]) == Announce("solo", "G")
    assert normal_word(cards(SOLO_G), CONTRACT_RANK["solo"]) == Pass()
    assert normal_word(cards(RUFER), -1) == Announce("rufer", "G")
    assert normal_word(cards(RUFER), CONTRACT_RANK["rufer"]) == Pass()
    assert normal_word(cards(WEAK), -1) == Pass()
