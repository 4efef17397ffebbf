"""The worlds ``hard`` searches (engine.doudizhu.ai.worlds): dealt from the view
alone, read against the passes and the auction, drawn as the standard library draws."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from client_cli.rlcard_agent import RLCardRulePolicy
from engine.doudizhu.ai.bidding import modeled_want
from engine.doudizhu.ai.worlds import WorldSampler, below, card_count, could_beat, shuffle
from engine.doudizhu.game import read_play
from engine.doudizhu.hands import mask_of, packed_counts
from engine.doudizhu.state import Bid, Pass, Play

from ..helpers import GAME, cards, deal, play, position, ranks, run, states

PASS = Pass()


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40))
def test_the_compiled_shuffle_draws_as_the_standard_library(seed: int, size: int) -> None:
    """``shuffle`` and ``below`` make the draws of ``random.Random.shuffle`` and
    ``randrange``: the same permutation, the same state after (a seeded decision
    is the same in either build, and as before they were compiled)."""
    ours, theirs = random.Random(seed), random.Random(seed)
    items = list(range(size))
    expected = items[:]
    shuffle(items, ours)
    theirs.shuffle(expected)
    assert items == expected
    assert below(ours, size + 1) == theirs.randrange(size + 1)
    assert ours.getstate() == theirs.getstate()


def test_sampled_worlds_match_the_view() -> None:
    state = [s for s in states(40, seed=7) if s.landlord is not None][-1]  # type: ignore[attr-defined]
    (seat,) = GAME.to_act(state)
    view = GAME.view(state, seat)
    sampler = WorldSampler(view)
    own = packed_counts(mask_of(view.hand))
    played = sum(read_play(t.play)[0].packed for t in view.history if t.play is not None)
    deck = sum((4 if r <= 12 else 1) << (4 * r) for r in range(15))
    rng = random.Random(0)
    for _ in range(20):
        hands = sampler.sample(rng)
        assert hands[seat] == own
        assert sum(hands) + played == deck
        for s in range(3):
            assert sum((hands[s] >> (4 * r)) & 15 for r in range(15)) == view.hand_counts[s]


def test_sampled_worlds_give_the_landlord_the_bottom_cards_still_held() -> None:
    state = position(("3S 4S 5S", "9S 9H", "TS JS"), landlord=0)
    state = state._replace(bottom=mask_of(cards("3S 4S 5S")))
    view = GAME.view(state, 1)
    hands = WorldSampler(view).sample(random.Random(3))
    assert hands[0] == packed_counts(mask_of(cards("3S 4S 5S")))


def test_sampled_worlds_mostly_agree_with_the_auction() -> None:
    # seat 1 passed on a bid of 1 (it wants at most 1), seat 2 bid 2 (it wants 2)
    state = run(deal(first_bidder=0), Bid(1), PASS, Bid(2), Bid(3))
    sampler = WorldSampler(GAME.view(state, 0))
    assert sampler.bounds == {1: (0, 1), 2: (2, 2)}
    rng = random.Random(5)
    worlds = [sampler.sample(rng) for _ in range(200)]
    agree = sum(sampler.misfits(hands) == 0 for hands in worlds)
    unread = sum(sampler.misfits(sampler.deal(rng)) == 0 for _ in range(200))
    assert agree >= 120 and agree > 2 * unread


def test_the_auction_is_read_for_the_hand_each_seat_bid_with() -> None:
    # seat 2 won the auction and led: its hand at the auction is its hand now plus
    # what it played, less the bottom it took
    start = deal(first_bidder=0)
    dealt = [packed_counts(h) for h in start.hands]
    state = run(start, PASS, Bid(1), Bid(3))
    view = GAME.view(state, 2)
    state = GAME.apply(state, 2, next(a for a in view.legal if isinstance(a, Play))).state
    state = GAME.apply(state, 0, PASS).state
    sampler = WorldSampler(GAME.view(state, 1))
    now = [packed_counts(h) for h in state.hands]
    assert [now[s] + sampler.since_bid[s] for s in (0, 2)] == [dealt[0], dealt[2]]
    assert sampler.bounds == {0: (0, 0), 2: (3, 3)}
    assert sampler.misfits(now) == sum(
        1
        for s in (0, 2)
        if modeled_want(dealt[s]) not in range(sampler.bounds[s][0], sampler.bounds[s][1] + 1)
    )


def test_an_auction_of_passes_ended_by_a_3_is_read_too() -> None:
    state = run(deal(first_bidder=0), PASS, Bid(3))
    assert WorldSampler(GAME.view(state, 2)).bounds == {0: (0, 0), 1: (3, 3)}
    state = run(deal(first_bidder=0), PASS, Bid(2), PASS, PASS)
    assert WorldSampler(GAME.view(state, 2)).bounds == {0: (0, 0), 1: (2, 2)}


def test_could_beat_reads_the_type_and_rank() -> None:
    single_k = read_play(play("KS", "single"))[0]
    assert could_beat(ranks("3A"), single_k)
    assert not could_beat(ranks("3QQ"), single_k)
    assert not could_beat(ranks("4444"), single_k)  # bombs are not counted
    straight = read_play(play("3S 4S 5S 6S 7S", "straight"))[0]
    assert could_beat(ranks("45678"), straight)
    assert not could_beat(ranks("4567K"), straight)


def test_sampled_worlds_mostly_respect_passes_on_an_opponents_play() -> None:
    # seat 0 (landlord) leads a single Q; farmer 1 passes: it likely holds nothing above Q
    high = "KS KH KD KC AS AH AD AC 2S 2H 2D BJ RJ"  # all above Q but 2C
    state = deal(hands=("QS", "", high), first_bidder=0)
    state = GAME.apply(state, 0, Bid(3)).state
    view0 = GAME.view(state, 0)
    queen = next(
        a
        for a in view0.legal
        if isinstance(a, Play) and read_play(a)[0].combo == "single" and read_play(a)[0].main == 9
    )
    state = run(state, queen, PASS)
    view = GAME.view(state, 2)
    sampler = WorldSampler(view)
    assert len(sampler.passes) == 1
    sampler.bounds = {}  # the passes alone (the landlord's bid of 3 is read too)
    rng = random.Random(5)
    raw = sum(sampler.violations(sampler.deal(rng)) for _ in range(60))
    kept = sum(sampler.violations(sampler.sample(rng)) for _ in range(60))
    assert raw > 15 and kept < raw / 3


def test_a_seat_shown_to_pass_by_choice_gives_no_pass_inference() -> None:
    state = position(("5S 6S 9S 9H", "KS 3S 4S", "7S 8S 3H"), landlord=0)
    # farmer 1 passes on the landlord's five though it holds the king, and later shows it
    state = run(state, play("5S", "single"), PASS, PASS, play("6S", "single"))
    state = run(state, play("KS", "single"))
    sampler = WorldSampler(GAME.view(state, 0))
    assert sampler.voluntary == frozenset({1})
    assert [m[0] for m in sampler.passes] == [2]  # farmer 2's pass still counts


def test_a_pass_is_trusted_while_nothing_shows_it_was_a_choice() -> None:
    state = position(("5S 6S 9S 9H", "KS 3S 4S", "7S 8S 3H"), landlord=0)
    state = run(state, play("5S", "single"), PASS, PASS, play("6S", "single"))
    sampler = WorldSampler(GAME.view(state, 0))
    assert sampler.voluntary == frozenset()
    assert sorted(m[0] for m in sampler.passes) == [1, 2]


def test_a_farmer_shown_to_let_its_partner_play_stand_by_choice_is_voluntary() -> None:
    state = position(("3S 4S 5S 6S", "8S 9S TS", "7S KS JS"), landlord=0)
    # farmer 2 lets its partner's nine stand though it holds the king, and later shows it
    state = run(state, play("3S", "single"), play("9S", "single"), PASS, PASS)
    state = run(state, play("8S", "single"), play("KS", "single"))
    sampler = WorldSampler(GAME.view(state, 0))
    assert sampler.voluntary == frozenset({2})
    assert sampler.passes == []  # a pass on a partner's play never constrains the hand


def _capped(sampler: WorldSampler, seat: int) -> dict[str, int]:
    """A seat's caps below 4, by rank letter."""
    cap = sampler.caps[seat]
    assert cap is not None
    return {"3456789TJQKA2BR"[r]: n for r, n in enumerate(cap) if n < 4}


def test_a_simple_players_lead_holds_its_lowest_card() -> None:
    state = position(("7S 7H KS", "3S 4S 5S", "8S 9S TS"), landlord=0)
    state = run(state, play("7S 7H", "pair"))
    sampler = WorldSampler(GAME.view(state, 1))
    assert _capped(sampler, 0) == {"3": 0, "4": 0, "5": 0, "6": 0}
    assert sampler.caps[2] == [4] * 15  # seat 2 has not played: nothing caps it
    assert sampler.simple == 0  # nobody has shown it plays as a simple player


def test_a_simple_player_beats_with_the_lowest_of_the_type_and_passes_only_without_one() -> None:
    state = position(("5S 6S 9S", "TS 3S 4S", "8S 8H 3H"), landlord=0)
    # farmer 1 answers the five with a ten: it held no 6 to 9; farmer 2 passes the ten
    # (its partner's): it held no single above the ten, nor joker
    state = run(state, play("5S", "single"), play("TS", "single"), PASS)
    sampler = WorldSampler(GAME.view(state, 0))
    assert _capped(sampler, 1) == {"6": 0, "7": 0, "8": 0, "9": 0}
    assert _capped(sampler, 2) == dict.fromkeys("JQKA2BR", 0)
    assert sampler.overtook == frozenset() and sampler.simple == 0


def test_cards_played_later_count_against_the_caps() -> None:
    state = position(("5S 5H 6S 6H 9S", "8S 8H 3S 4S", "7S KS JS"), landlord=0)
    # farmer 1 passes the landlord's pair of sixes, then plays the pair of eights it
    # held: no simple player does that, so its turns cap nothing
    state = run(state, play("6S 6H", "pair"), PASS, PASS, play("5S 5H", "pair"))
    state = run(state, play("8S 8H", "pair"))
    sampler = WorldSampler(GAME.view(state, 0))
    assert sampler.caps[1] is None


def test_a_farmer_that_beats_its_partners_play_is_read_as_a_simple_player() -> None:
    state = position(("5S 6S 9S", "8S 3S 4S", "KS 8H 3H"), landlord=0)
    # farmer 2 beats its partner's eight with a king: ``normal`` lets a partner's
    # play stand, a simple player beats it with its lowest single that can
    state = run(state, play("5S", "single"), play("8S", "single"), play("KS", "single"))
    sampler = WorldSampler(GAME.view(state, 0))
    assert sampler.overtook == frozenset({2}) and sampler.simple == 0b100
    assert _capped(sampler, 2) == dict.fromkeys("9TJQ", 0)
    assert _capped(sampler, 1) == {"6": 0, "7": 0}  # read, but not dealt by (no sign)
    # a seat the table shows as the server's own AI is modelled, not read
    told = WorldSampler(GAME.view(state, 0), modelled=frozenset({2}))
    assert told.overtook == frozenset() and told.simple == 0


def test_worlds_dealt_to_simple_players_keep_their_caps() -> None:
    state = run(deal(hands=("5S 6S 9S", "8S 3S 4S", "KS 8H 3H"), first_bidder=0), Bid(3))
    state = run(state, play("5S", "single"), play("8S", "single"), play("KS", "single"))
    view = GAME.view(state, 0)
    sampler = WorldSampler(view)
    assert sampler.simple == 0b100
    cap = sampler.caps[2]
    assert cap is not None
    rng = random.Random(2)
    for _ in range(50):
        hands = sampler.sample(rng)
        assert [card_count(h) for h in hands] == list(view.hand_counts)
        assert all((hands[2] >> (4 * r)) & 15 <= cap[r] for r in range(15))
    plain = [sampler.deal(rng) for _ in range(50)]  # the view alone: caps unread
    assert any(any((h[2] >> (4 * r)) & 15 > cap[r] for r in range(15)) for h in plain)


def test_the_hands_of_rlcards_players_are_within_their_caps() -> None:
    """RLCard's rule agent is a simple player: wherever the card play stands, its
    hidden hands are within the caps the others read from its turns."""
    policy = RLCardRulePolicy()
    rng = random.Random(4)
    checked = 0
    for seed in range(4):
        state = run(deal(first_bidder=seed % 3, seed=seed), Bid(3))
        while not GAME.is_over(state):
            (seat,) = GAME.to_act(state)
            view = GAME.view(state, seat)
            sampler = WorldSampler(view)
            for s in range(3):
                if s == seat:
                    continue
                cap = sampler.caps[s]
                assert cap is not None
                held = state.counts[s] - (sampler.forced if s == state.landlord else 0)
                assert all((held >> (4 * r)) & 15 <= cap[r] for r in range(15))
                checked += sampler.simple >> s & 1
            state = GAME.apply(state, seat, policy.choose(view, view.legal, rng)).state
    assert checked > 20
