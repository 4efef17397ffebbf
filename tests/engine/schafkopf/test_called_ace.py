"""rules/schafkopf.md — The called ace (Rufer only), rules 1–4."""

from __future__ import annotations

import pytest

from engine.game import Event, IllegalAction
from engine.schafkopf import PlayCard, SchafkopfState
from tests.engine.schafkopf.helpers import (
    GAME,
    apply_all,
    bid,
    card,
    columns,
    deal,
    legal_cards,
    play,
    plays,
)
from tests.engine.schafkopf.test_scoring_examples import RUFER_PLAIN_WIN

# Rufer on the bells ace; seat 2 holds AS with KS 8S (two more bells only).
# s0: OE OG UE AH TH KH 7G 9S   s1: OH US 7H 8E 9E KE TE AE
# s2: OS UG 9H KS 8S AG 7E AS   s3: UH 8H 7S TS 9G 8G KG TG
HANDS = columns(RUFER_PLAIN_WIN)
# The same, but seat 2 has a third other bell (7S, for 7E): it may run away.
RUN = (HANDS[0], HANDS[1], HANDS[2].replace("7E", "7S"), HANDS[3].replace("7S", "7E"))


def rufer(hands: tuple[str, str, str, str] = HANDS) -> SchafkopfState:
    return bid(deal(*hands), "rufer S", "pass", "pass", "pass")


def refuse(state: SchafkopfState, seat: int, text: str, code: str) -> None:
    with pytest.raises(IllegalAction) as err:
        GAME.apply(state, seat, PlayCard(card(text)))
    assert err.value.code == code


def partners(state: SchafkopfState) -> list[int | None]:
    return [GAME.view(state, s).partner for s in (0, 1, 2, 3, None)]


def test_rule_1_the_partner_must_play_the_ace_when_its_suit_is_led_even_if_trumped() -> None:
    state = rufer()
    assert state.partner == 2
    state = play(state, "9S US")  # the declarer leads a bell, seat 1 trumps with US
    assert legal_cards(state, 2) == {"AS"}
    refuse(state, 2, "KS", "must_play_called_ace")
    refuse(state, 2, "8S", "must_play_called_ace")
    refuse(state, 2, "OS", "must_play_called_ace")
    state, events = apply_all(state, plays("AS"))
    assert [e.kind for e in events] == ["play", "partner_known"]
    assert events[1].data == {"seat": 2, "how": "called_ace_played"}
    assert partners(state) == [2, 2, 2, 2, 2]


def test_rule_2_no_discarding_the_ace_before_its_suit_was_led_unless_last_card() -> None:
    state = rufer()
    # six trump-and-heart tricks: the partner sheds trumps, KS, 8S, AG, never AS
    state = play(state, " ".join(f"{r}" for r in _by_play_order(RUFER_PLAIN_WIN[:6])))
    state = play(state, "7G TE")  # leaves led; the partner has AS 7E and no leaves
    assert legal_cards(state, 2) == {"7E"}
    refuse(state, 2, "AS", "may_not_discard_called_ace")
    state = play(state, "7E KG")  # seat 3 wins and leads leaves again
    state = play(state, "TG 9S AE")
    assert GAME.view(state, None).partner is None
    assert legal_cards(state, 2) == {"AS"}  # the last card: now it may be discarded


def test_rule_2_applies_while_void_in_trumps_too() -> None:
    state = rufer()
    state = play(state, "OE OH OS UH OG US UG 8H UE 7H 9H 7S AH 8E")
    # trumps led, the partner has none left: anything but the ace
    assert legal_cards(state, 2) == {"KS", "8S", "AG", "7E"}
    refuse(state, 2, "AS", "may_not_discard_called_ace")


def test_rule_3_leading_the_called_suit_means_leading_the_ace() -> None:
    state = rufer()
    state = play(state, "7G 8E AG 8G")  # the partner wins with AG and leads
    assert state.leader == 2
    assert legal_cards(state, 2) == {"OS", "UG", "9H", "7E", "AS"}
    refuse(state, 2, "KS", "must_lead_called_ace")
    refuse(state, 2, "8S", "must_lead_called_ace")


def test_rule_3_running_away_with_three_more_cards_of_the_suit() -> None:
    state = rufer(RUN)
    state = play(state, "7G 8E AG 8G")
    assert {"KS", "8S", "7S", "AS"} <= legal_cards(state, 2)
    state, events = apply_all(state, plays("7S"))
    # mid-trick nobody is told yet
    assert [e.kind for e in events] == ["play"]
    assert partners(state) == [None, None, None, None, None]
    state, events = apply_all(state, plays("TS 9S 9E"))
    assert [e.kind for e in events] == ["play", "play", "play", "trick", "partner_known"]
    assert events[-1].data == {"seat": 2, "how": "ran_away"}
    assert partners(state) == [2, 2, 2, 2, 2]
    # rule 4 / after running away the ace is an ordinary card: it may be discarded
    assert state.leader == 3
    state = play(state, "7E KH AE")
    assert legal_cards(state, 2) == {"OS", "UG", "9H", "KS", "8S", "AS"}
    state = play(state, "AS")
    assert partners(state) == [2, 2, 2, 2, 2]


def test_rule_4_until_then_no_view_names_the_partner() -> None:
    state = rufer()
    seen: list[Event] = []
    for action in plays("OE OH OS UH OG US UG 8H UE 7H 9H 7S AH 8E KS TS"):
        (seat,) = GAME.to_act(state)
        t = GAME.apply(state, seat, action)
        state = t.state
        seen.extend(t.events)
        assert partners(state) == [None, None, None, None, None]
        assert GAME.view(state, 0).contract == GAME.view(state, None).contract
    assert "partner_known" not in [e.kind for e in seen]
    assert all("partner" not in e.data for e in seen)


def _by_play_order(rows: list[str]) -> list[str]:
    """Trick rows (by seat) of RUFER_PLAIN_WIN's first six tricks: seat 0 leads them all."""
    return [c for row in rows for c in row.split()]
