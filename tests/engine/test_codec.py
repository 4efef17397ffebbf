"""engine/codec.py — lossless plain-data round trips and clear decode errors."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar, Literal

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DOUDIZHU_54, Card
from engine.codec import DecodeError, from_plain, to_plain
from engine.game import IllegalAction
from engine.registry import GAMES


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


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


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


# -- untrusted input: anything msgpack can carry decodes or raises DecodeError --------
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats()
    | st.text(max_size=6)
    | st.binary(max_size=4)
    | st.sampled_from(["play", "bid", "pass", "announce", "7D", "AH", "OG", "BJ", "RJ", "solo"])
)
_KEYS = st.sampled_from(
    ["type", "card", "capture", "value", "cards", "combo", "contract", "suit"]
) | st.text(max_size=3)
_JUNK = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_KEYS, inner, max_size=4),
    max_leaves=16,
)
_ACTION_LIKE = (
    st.fixed_dictionaries({"type": _JUNK}, optional={"card": _JUNK, "value": _JUNK})
    | st.fixed_dictionaries(
        {"type": st.sampled_from(["play", "bid", "pass", "announce"])},
        optional={k: _JUNK for k in ["card", "capture", "value", "cards", "combo", "contract"]},
    )
    | _JUNK
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(GAMES)), _ACTION_LIKE)
def test_any_msgpack_junk_as_an_action_is_a_bad_action_or_decodes(game_id, data):
    game = GAMES[game_id]
    wire = msgpack.unpackb(msgpack.packb(data, use_bin_type=True))
    try:
        action = game.decode_action(wire)
    except IllegalAction as exc:
        assert exc.code == "bad_action"
        assert len(exc.message) < 300
    else:
        assert isinstance(action, game.action_types)


@pytest.mark.parametrize("game_id", ["doudizhu", "schafkopf"])
@pytest.mark.parametrize("tag", [{}, [], [1, 2], {"a": 1}, 1.5, None, True])
def test_an_unhashable_or_odd_type_tag_is_a_bad_action(game_id, tag):
    with pytest.raises(IllegalAction) as err:
        GAMES[game_id].decode_action({"type": tag})
    assert err.value.code == "bad_action"
    assert "action.type: expected one of" in err.value.message


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"type": "bid", "value": 2**64}, "$.value: integer out of range"),
        ({"type": "bid", "value": -(2**63) - 1}, "$.value: integer out of range"),
        ({"type": "bid", "value": 2, "mode": ["low"]}, "$.mode: expected one of"),
        ({"type": "bid", "value": 2, "mode": {"low": 1}}, "$.mode: expected one of"),
        ({"type": "bid", "value": 2, 10**5000: 1}, "unknown field(s) <huge integer>"),
        ({"type": "take", "card": "7" * 10_000}, "$.card: expected a card like '7D'"),
        ({"type": "take", "card": [[[[["7D"]]]]]}, "$.card: expected a card like '7D'"),
        ({"type": "take", "card": "7D", "group": [["7D"]]}, "$.group[0]: expected a card"),
        ({"type": "take", "card": "7D", "group": {"7D": 1}}, "$.group: expected a list"),
    ],
)
def test_hostile_values_give_a_decode_error(data, fragment):
    with pytest.raises(DecodeError) as err:
        from_plain(Action, data)
    assert fragment in str(err.value)
    assert len(str(err.value)) < 300


def test_many_unknown_fields_are_summarised():
    data = {"type": "bid", "value": 2} | {f"k{i}": i for i in range(1000)}
    with pytest.raises(DecodeError) as err:
        from_plain(Action, data)
    assert "(+995 more)" in str(err.value)


@dataclass(frozen=True)
class Measure:
    weight: float
    mode: Color | None = None


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"weight": float("nan")}, "$.weight: expected a finite number"),
        ({"weight": float("inf")}, "$.weight: expected a finite number"),
        ({"weight": 10**400}, "$.weight: number out of range"),
        ({"weight": 1.0, "mode": []}, "$.mode: expected one of"),
        ({"weight": 1.0, "mode": {}}, "$.mode: expected one of"),
    ],
)
def test_floats_and_enums_refuse_non_finite_huge_and_unhashable_values(data, fragment):
    with pytest.raises(DecodeError) as err:
        from_plain(Measure, data)
    assert fragment in str(err.value)


def test_literals_match_by_type_as_well_as_value():
    with pytest.raises(DecodeError):
        from_plain(Bid, {"type": "bid", "value": 1.0})
    with pytest.raises(DecodeError):
        from_plain(Literal[1, 2], 1.0)
    assert from_plain(Literal[1, 2], 2) == 2
