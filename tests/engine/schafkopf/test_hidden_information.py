"""The secret partner and the other hidden cards (The called ace, rule 4; views).

``redeal_hidden`` must be able to move the called ace between every seat
that may hold it as far as the viewer knows, and the viewer's view (and what
events it receives) must not change when it does.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from engine.cards import GERMAN_32, Card
from engine.schafkopf import SchafkopfState
from engine.schafkopf.ai.greedy import GreedyPolicy
from engine.schafkopf.rules import mode_of
from tests.engine.schafkopf.helpers import GAME, bid, columns, deal, play, plays
from tests.engine.schafkopf.test_scoring_examples import RUFER_PLAIN_WIN, RUFER_SCHNEIDER

AG = Card("A", "G")
AS = Card("A", "S")


def holders(state: SchafkopfState, seat: int | None, n: int = 120) -> Counter[int]:
    """Who holds the called ace over ``n`` redeals for ``seat``; every view unchanged."""
    rng = random.Random(5)
    before = GAME.view(state, seat)
    seen: Counter[int] = Counter()
    for _ in range(n):
        other = GAME.redeal_hidden(state, seat, rng)
        assert GAME.view(other, seat) == before
        assert other.partner is not None
        ace = other.contract.called_ace  # type: ignore[union-attr]
        assert ace in other.dealt[other.partner]
        seen[other.partner] += 1
    return seen


def rufer_g() -> SchafkopfState:
    return bid(deal(*columns(RUFER_SCHNEIDER)), "rufer G", "pass", "pass", "pass")


def test_the_called_ace_moves_between_all_possible_holders_for_the_declarer() -> None:
    state = rufer_g()
    assert state.partner == 2
    seen = holders(state, 0)
    assert set(seen) == {1, 2, 3}  # never the declarer, anyone else


def test_the_called_ace_swaps_between_the_two_other_seats_for_a_defender() -> None:
    state = rufer_g()
    assert set(holders(state, 1)) == {2, 3}
    assert set(holders(state, 3)) == {1, 2}
    assert set(holders(state, None)) == {1, 2, 3}
    assert set(holders(state, 2)) == {2}  # the partner knows


def test_mid_trick_public_facts_narrow_the_holders() -> None:
    # bells called: the declarer leads a bell, seat 1 trumps without the ace
    state = bid(deal(*columns(RUFER_PLAIN_WIN)), "rufer S", "pass", "pass", "pass")
    state = play(state, "9S US")
    assert set(holders(state, None)) == {2, 3}
    assert set(holders(state, 0)) == {2, 3}


def test_a_follower_of_the_called_suit_without_the_ace_cannot_hold_it() -> None:
    # bells called; seat 1 follows the led bell with KS (not void): rule 1 says
    # it would have had to play AS, so only seats 2 and 3 remain
    state = deal(
        "OE UE AE 9E 7G AH 8H 7S",
        "OG OS UG TE TG KG 9H KS",
        "OH UH KE 8E 7E AG TH AS",
        "US 9G 8G KH 7H TS 9S 8S",
    )
    state = play(bid(state, "rufer S", "pass", "pass", "pass"), "7S KS")
    assert set(holders(state, None)) == {2, 3}
    assert set(holders(state, 0)) == {2, 3}


def test_after_running_away_the_partner_keeps_the_ace_in_every_redeal() -> None:
    hands = columns(RUFER_PLAIN_WIN)
    run = (hands[0], hands[1], hands[2].replace("7E", "7S"), hands[3].replace("7S", "7E"))
    state = bid(deal(*run), "rufer S", "pass", "pass", "pass")
    state = play(state, "7G 8E AG 8G 7S TS 9S 9E")
    assert GAME.view(state, None).partner == 2 and AS in state.hands[2]
    for seat in (0, 1, 3, None):
        assert set(holders(state, seat, 20)) == {2}


def test_running_away_in_progress_keeps_the_secret_and_the_rule() -> None:
    hands = columns(RUFER_PLAIN_WIN)
    run = (hands[0], hands[1], hands[2].replace("7E", "7S"), hands[3].replace("7S", "7E"))
    state = bid(deal(*run), "rufer S", "pass", "pass", "pass")
    state = play(state, "7G 8E AG 8G 7S")  # seat 2 leads 7S holding AS KS 8S
    rng = random.Random(9)
    seen: Counter[int] = Counter()
    eff = mode_of("rufer", "S").eff
    for _ in range(150):
        other = GAME.redeal_hidden(state, None, rng)
        assert GAME.view(other, None) == GAME.view(state, None)
        assert other.partner is not None
        seen[other.partner] += 1
        if other.partner == 2:  # a run-away needs three more bells at the lead
            assert sum(1 for c in other.dealt[2] if eff[c] == "S") >= 4
    assert set(seen) == {1, 2, 3}


def test_after_the_ace_or_the_run_away_the_partner_is_fixed() -> None:
    state = play(rufer_g(), "OE 9H KH 7H OG US OH 8H UE OS TE UH 7E AS KE AE 9G 8E AG")
    assert GAME.view(state, None).partner == 2
    for seat in (0, 1, 3, None):
        assert set(holders(state, seat, 20)) == {2}


def test_events_do_not_depend_on_who_holds_the_called_ace() -> None:
    state = rufer_g()
    rng = random.Random(3)
    moved = [o for o in (GAME.redeal_hidden(state, 0, rng) for _ in range(30)) if o.partner != 2]
    assert moved
    for action in plays("OE"):
        expected = GAME.apply(state, 0, action).events
        for other in moved:
            got = GAME.apply(other, 0, action).events
            for seat in (0, None):
                assert [e for e in got if e.visible_to(seat)] == [
                    e for e in expected if e.visible_to(seat)
                ]


def test_the_views_never_show_the_partner_or_other_hands() -> None:
    state = rufer_g()
    for seat in (0, 1, 3, None):
        v = GAME.view(state, seat)
        assert v.partner is None
        assert v.hand == (() if seat is None else state.hands[seat])
        assert v.hand_counts == (8, 8, 8, 8)
        assert v.legal == (GAME.legal_actions(state, seat) if seat is not None else ())
    assert GAME.view(state, 2).partner is None  # public field; the partner sees its hand
    assert AG in GAME.view(state, 2).hand


def _greedy_trace(seed: int) -> list[SchafkopfState]:
    policy = GreedyPolicy()
    rng = random.Random(seed)
    state = GAME.new_state(GAME.options({"deals": 2}), seed)
    out = [state]
    while not GAME.is_over(state):
        (seat,) = GAME.to_act(state)
        view = GAME.view(state, seat)
        state = GAME.apply(state, seat, policy.choose(view, view.legal, rng)).state
        out.append(state)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_no_leak_and_consistent_worlds_over_greedy_series(seed: int) -> None:
    """Greedy series play many Rufer deals: every view survives redeal and sampling."""
    rng = random.Random(seed)
    deck = Counter(GERMAN_32.cards)
    for state in _greedy_trace(seed)[::3]:
        for seat in (0, 1, 2, 3, None):
            view = GAME.view(state, seat)
            other = GAME.redeal_hidden(state, seat, rng)
            assert GAME.view(other, seat) == view
            world = GAME.sample_world(view, rng)
            assert GAME.view(world, seat) == view
            for s in (other, world):
                held = Counter(c for cs in GAME.card_zones(s).values() for c in cs)
                assert held == deck
                _assert_consistent(s)


def _assert_consistent(state: SchafkopfState) -> None:
    """A redealt or sampled state obeys the public facts it was built from."""
    contract = state.contract
    if contract is None or state.phase == "over":
        return
    for s in range(4):
        played = [c for c in state.dealt[s] if c not in state.hands[s]]
        assert len(played) == len(state.dealt[s]) - len(state.hands[s])
    ace = contract.called_ace
    if ace is not None:
        assert state.partner is not None and ace in state.dealt[state.partner]
        assert state.partner != contract.declarer
    # a seat that did not follow is void in the led suit
    eff = mode_of(contract.kind, contract.suit).eff
    rows: list[Any] = [(t.leader, t.cards) for t in state.tricks]
    if state.trick:
        rows.append((state.leader, state.trick))
    for leader, cs in rows:
        led = eff[cs[0]]
        for i in range(1, len(cs)):
            seat = (leader + i) % 4
            if eff[cs[i]] != led:
                assert all(eff[c] != led for c in state.hands[seat])


def test_views_of_states_in_turn_are_each_states_own() -> None:
    """The game works out what a state's views share once per state (the last state
    viewed); views of two states asked in turn are still each state's own."""
    from engine.schafkopf.game import SchafkopfGame

    rng = random.Random(8)
    states = []
    state = GAME.new_state(GAME.options(), 3)
    for _ in range(40):
        states.append(state)
        seat = GAME.to_act(state)[0]
        state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat))).state
    game = SchafkopfGame()
    for _ in range(200):
        state = rng.choice(states)
        seat = rng.choice([0, 1, 2, 3, None])
        view = game.view(state, seat)
        assert view == SchafkopfGame().view(state, seat)
        assert view.to_act == GAME.to_act(state)
        assert view.hand_counts == tuple(len(h) for h in state.hands)
