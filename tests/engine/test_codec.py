"""engine/codec.py — lossless plain-data round trips and clear decode errors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import DOUDIZHU_54, Card
from engine.codec import DecodeError, from_plain, to_plain


@dataclass(frozen=True)
class Take:
    kind: ClassVar[str] = "take"
    card: Card
    group: frozenset[Card] = frozenset()


@dataclass(frozen=True)
class Bid:
    kind: ClassVar[str] = "bid"
    value: int
    mode: Literal["low", "high"] = "low"


@dataclass(frozen=True)
class Holder:
    seat: int | None
    cards: tuple[Card, ...]
    pair: tuple[int, str]
    scores: dict[str, int]


Action = Take | Bid


@given(
    st.sampled_from(DOUDIZHU_54.cards),
    st.frozensets(st.sampled_from(DOUDIZHU_54.cards), max_size=6),
)
def test_actions_round_trip_through_msgpack(card, group):
    action = Take(card, group)
    wire = msgpack.unpackb(msgpack.packb(to_plain(action)))
    assert wire["type"] == "take"
    assert from_plain(Action, wire) == action


def test_unions_are_decoded_by_their_type_tag():
    assert from_plain(Action, {"type": "bid", "value": 2}) == Bid(2)
    assert from_plain(Action, {"type": "bid", "value": 2, "mode": "high"}) == Bid(2, "high")


def test_nested_values_round_trip():
    h = Holder(None, (Card("7", "D"), Card("B", "J")), (3, "x"), {"a": 1})
    assert to_plain(h) == {
        "seat": None,
        "cards": ["7D", "BJ"],
        "pair": [3, "x"],
        "scores": {"a": 1},
    }
    assert from_plain(Holder, to_plain(h)) == h


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"type": "nope"}, "$.type: expected one of 'take', 'bid'"),
        ({"type": "bid"}, "missing field 'value'"),
        ({"type": "bid", "value": "2"}, "$.value: expected an integer"),
        ({"type": "bid", "value": True}, "$.value: expected an integer"),
        ({"type": "bid", "value": 2, "extra": 1}, "unknown field(s) extra"),
        ({"type": "bid", "value": 2, "mode": "mid"}, "$.mode: expected one of"),
        ({"type": "take", "card": "ZZ"}, "$.card: bad card 'ZZ'"),
        ({"type": "take", "card": "7D", "group": ["7D", "7D"]}, "items must be distinct"),
        ({"type": "take", "card": "7D", "group": "7D"}, "$.group: expected a list"),
        ([1, 2], "expected"),
        (None, "expected"),
    ],
)
def test_bad_data_gives_a_clear_decode_error(data, fragment):
    with pytest.raises(DecodeError) as err:
        from_plain(Action, data)
    assert fragment in str(err.value)
