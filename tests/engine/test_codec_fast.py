"""to_plain's per-type converters give exactly what the plain recursive definition gives."""

from __future__ import annotations

import dataclasses
import enum
import random
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import codec
from engine.cards import FAMILIES, Card
from engine.codec import PlainMemo, to_plain, to_plain_shared
from engine.registry import GAMES


def reference(value: object) -> Any:
    """The module docstring's rules, written out as plainly as possible."""
    if value is None or isinstance(value, (bool, int, str, float)):
        return value
    if isinstance(value, Card):
        return value.rank + value.suit
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (tuple, list)):
        return [reference(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((reference(v) for v in value), key=repr)
    if isinstance(value, Mapping):
        return {reference(k): reference(v) for k, v in value.items()}
    assert dataclasses.is_dataclass(value) and not isinstance(value, type)
    out: dict[str, Any] = {}
    kind = getattr(type(value), "kind", None)
    if isinstance(kind, str):
        out["type"] = kind
    for f in dataclasses.fields(value):
        if f.init and not f.name.startswith("_"):
            out[f.name] = reference(getattr(value, f.name))
    return out


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_views_actions_events_and_results_convert_as_the_reference_does(game_id: str) -> None:
    game = GAMES[game_id]
    options = game.options()
    rng = random.Random(7)
    state = game.new_state(options, 3)
    seats = [*range(game.num_seats(options)), None]
    checked = 0
    while not game.is_over(state) and checked < 200:
        for seat in seats:
            view = game.view(state, seat)
            assert to_plain(view) == reference(view)
        seat = game.to_act(state)[0]
        action = rng.choice(game.legal_actions(state, seat))
        assert to_plain(action) == reference(action)
        transition = game.apply(state, seat, action)
        for event in transition.events:
            assert to_plain(dict(event.data)) == reference(dict(event.data))
        state = transition.state
        checked += 1
    assert to_plain(game.result(state)) == reference(game.result(state))
    assert to_plain(options) == reference(options)


def test_mixed_sequences_and_unknown_types() -> None:
    cards = (Card("7", "D"), Card("A", "S"))
    assert to_plain((*cards, 3, ("x", Card("2", "C")))) == ["7D", "AS", 3, ["x", "2C"]]
    assert to_plain([Card("7", "D"), None]) == ["7D", None]
    assert to_plain((3, 1, 2)) == [3, 1, 2]  # scalars only: their own plain form
    assert to_plain((1, True, None, 2.5, "x")) == [1, True, None, 2.5, "x"]
    assert to_plain((3, Card("2", "C"), (1,))) == [3, "2C", [1]]  # a scalar first, then not
    assert to_plain(frozenset(cards)) == reference(frozenset(cards))
    with pytest.raises(TypeError, match="object"):
        to_plain(object())


@given(st.lists(st.one_of(st.integers(), st.booleans(), st.none(), st.text(max_size=3))))
def test_a_tuple_of_scalars_converts_as_the_reference_does(values: list[Any]) -> None:
    assert to_plain(tuple(values)) == reference(tuple(values)) == values


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_views_of_a_state_share_its_turn_and_hand_counts(game_id: str) -> None:
    """Every seat's view (and the spectator's) holds the very same ``to_act`` and
    ``hand_counts`` objects, which a :class:`PlainMemo` then converts once per state;
    a hand the last move left alone is the object the last view held."""
    game = GAMES[game_id]
    options = game.options()
    rng = random.Random(3)
    state = game.new_state(options, 9)
    seats = [*range(game.num_seats(options)), None]
    last = None
    for _ in range(60):
        if game.is_over(state):
            break
        views = [game.view(state, seat) for seat in seats]
        for name in ("to_act", "hand_counts"):
            if hasattr(views[0], name):
                assert len({id(getattr(v, name)) for v in views}) == 1, name
        if last is not None:  # a hand the move left alone is the very same object
            for before, now in zip(last, views, strict=True):
                if before.hand == now.hand:
                    assert before.hand is now.hand
        last = views
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat))).state


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_views_converted_together_equal_each_converted_alone(game_id: str) -> None:
    game = GAMES[game_id]
    options = game.options()
    rng = random.Random(11)
    state = game.new_state(options, 5)
    seats = [*range(game.num_seats(options)), None]
    for _ in range(150):
        if game.is_over(state):
            break
        views = [game.view(state, seat) for seat in seats]
        together = to_plain_shared(views)
        assert together == [reference(v) for v in views]
        assert to_plain_shared(views[:1]) == [to_plain(views[0])]
        seat = game.to_act(state)[0]
        state = game.apply(state, seat, rng.choice(game.legal_actions(state, seat))).state
    assert to_plain_shared([options, (1, 2), "x"]) == [to_plain(options), [1, 2], "x"]


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_memo_kept_from_move_to_move_converts_each_view_as_the_reference_does(
    game_id: str,
) -> None:
    """And notes exactly what changed since each position's last view: what the
    connections would find comparing each view with the last one sent; the games
    that intern their moves give the same object for the same move."""
    game = GAMES[game_id]
    options = game.options()
    rng = random.Random(13)
    memo = PlainMemo()
    seats = [*range(game.num_seats(options)), None]
    before: list[Any] | None = None
    interned = 0
    for deal in range(2):  # a new game on the same memo too
        state = game.new_state(options, 21 + deal)
        for _ in range(120):
            if game.is_over(state):
                break
            views = [game.view(state, seat) for seat in seats]
            out = memo.convert(views)
            expected = [reference(v) for v in views]
            assert out == expected
            # after the first view, each is the last one's copy with what changed: same order
            assert [list(o) for o in out] == [list(e) for e in expected]
            _assert_changes(memo, out, before)
            before = out
            seat = game.to_act(state)[0]
            legal = game.legal_actions(state, seat)
            for a, b in zip(legal, game.legal_actions(state, seat), strict=True):
                if getattr(type(a), "interned", False) is True:  # the very same move
                    assert a is b
                    interned += 1
            state = game.apply(state, seat, rng.choice(legal)).state
    # Schafkopf and Scopa hand out each move's one object (engine.codec keeps its plain form)
    assert (interned > 30) == (game_id in ("schafkopf", "scopa"))


def _changed_since(view: dict[str, Any], last: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``view`` that are not the very objects ``last`` holds, in order."""
    return {k: v for k, v in view.items() if last[k] is not v}


def _assert_changes(memo: PlainMemo, out: list[Any], before: list[Any] | None) -> None:
    """``memo.changes`` after a call that gave ``out``, the call before having given ``before``."""
    assert len(memo.changes) == len(out)
    for i, (plain, change) in enumerate(zip(out, memo.changes, strict=True)):
        if before is None:
            assert change is None  # nothing was given at this position before
            continue
        assert change is not None
        last, changed = change
        assert last is before[i]
        expected = _changed_since(plain, last)
        assert list(changed.items()) == list(expected.items())
        assert all(changed[k] is expected[k] for k in changed)  # the very plain forms


@dataclasses.dataclass(frozen=True)
class _Slot:
    value: Any
    count: int


def test_a_field_that_comes_back_to_an_object_after_a_scalar_converts_that_object() -> None:
    """A contract, then none, then the same contract again: the memo's pair follows
    the field through the scalar, so the object's plain form is not mistaken."""
    kept = (Card("7", "D"), 3)
    memo = PlainMemo()
    steps = [_Slot(kept, 1), _Slot(None, 1), _Slot(kept, 2), _Slot("x", 2), _Slot(kept, 2)]
    before: list[Any] | None = None
    for step in steps:
        out = memo.convert([step, step])
        assert out == [reference(step), reference(step)]
        _assert_changes(memo, out, before)
        before = out
    memo.convert([_Box((1,), [])])  # another class at the position: nothing to compare with
    assert memo.changes == [None]


@dataclasses.dataclass(frozen=True)
class _Box:
    fixed: tuple[int, ...]
    loose: list[int]


def test_only_immutable_values_are_carried_from_one_call_to_the_next() -> None:
    fixed, loose = (1, 2), [1, 2]
    memo = PlainMemo()
    first = memo.convert([_Box(fixed, loose)])[0]
    loose.append(3)  # a list may change between two calls: converted again
    second = memo.convert([_Box(fixed, loose)])[0]
    assert second == {"fixed": [1, 2], "loose": [1, 2, 3]}
    assert second["fixed"] is first["fixed"]  # the same tuple: its plain form reused
    assert second["loose"] is not first["loose"]
    third = memo.convert([_Box((1, 2, 3), loose)])[0]  # an equal-looking new tuple is new
    assert third["fixed"] == [1, 2, 3]
    memo.convert([])  # the memo forgets what the last call did not meet
    assert memo.convert([_Box(fixed, loose)])[0]["fixed"] is not first["fixed"]


@given(
    st.frozensets(
        st.text(max_size=4) | st.integers() | st.none() | st.booleans() | st.sampled_from("AB12"),
        max_size=8,
    )
)
def test_a_set_sorts_as_by_repr_of_its_plain_values(values: frozenset[Any]) -> None:
    """The shortcut for text of letters and digits keeps the order of ``repr``."""
    assert to_plain(values) == sorted((reference(v) for v in values), key=repr)


_ALL_CARDS = sorted({c for family in FAMILIES.values() for c in family.cards()})


@given(
    st.frozensets(st.sampled_from(_ALL_CARDS), max_size=20),
    st.frozensets(st.integers(-3, 12) | st.text(max_size=2), max_size=3),
)
def test_a_set_of_cards_sorts_as_by_repr_of_its_plain_values(
    cards: frozenset[Card], others: frozenset[Any]
) -> None:
    """Cards of every family (a play, a capture) take the shortcut for cards alone;
    with anything else among them, the general order."""
    assert to_plain(cards) == sorted((reference(c) for c in cards), key=repr)
    mixed = cards | others
    assert to_plain(mixed) == sorted((reference(v) for v in mixed), key=repr)


@dataclasses.dataclass(frozen=True)
class _Log:
    entries: tuple[Any, ...]


def test_a_tuple_grown_by_a_few_entries_converts_only_the_new_ones() -> None:
    memo = PlainMemo()
    first = (Card("7", "D"), (1, 2), _Log(()))
    before = memo.convert([_Log(first)])[0]["entries"]
    grown = (*first, Card("A", "S"), frozenset({Card("K", "C")}))
    after = memo.convert([_Log(grown)])[0]["entries"]
    assert after == reference(grown)
    assert after[1] is before[1] and after[2] is before[2]  # the old entries' plain forms
    assert after is not before  # a new list: the old one stays as it was sent
    assert before == reference(first)
    changed = (Card("7", "D"), (1, 2), _Log(()), Card("A", "S"))  # equal, not the same objects
    assert memo.convert([_Log(changed)])[0]["entries"] == reference(changed)
    assert memo.convert([_Log(grown[:2])])[0]["entries"] == reference(grown[:2])  # shorter


def test_tuples_of_tuples_reuse_each_unchanged_or_grown_one() -> None:
    """The piles, one per seat: the one that did not change keeps its plain form, the
    one that grew converts only its new cards (their texts equal the reference's)."""
    memo = PlainMemo()
    kept, grows = (Card("7", "D"), Card("A", "S")), (Card("K", "C"),)
    before = memo.convert([_Log((kept, grows))])[0]["entries"]
    grown = (*grows, Card("2", "H"), Card("3", "H"))
    after = memo.convert([_Log((kept, grown))])[0]["entries"]
    assert after == reference((kept, grown))
    assert after[0] is before[0]  # the same tuple: its plain form reused
    assert before == reference((kept, grows))  # what was sent stays as it was
    other = (Card("4", "S"),)  # not grown from before: converted whole
    assert memo.convert([_Log((other, grown))])[0]["entries"] == reference((other, grown))
    assert memo.convert([_Log((kept, (), ()))])[0]["entries"] == reference((kept, (), ()))


@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(_ALL_CARDS[:12]), max_size=4),
            st.lists(st.sampled_from(_ALL_CARDS[:12]), max_size=4),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_a_memo_converts_tuples_of_growing_tuples_as_the_reference_does(
    steps: list[tuple[list[Card], list[Card], bool]],
) -> None:
    """Each step grows the first tuple, and grows or replaces the second."""
    memo = PlainMemo()
    first: tuple[Card, ...] = ()
    second: tuple[Card, ...] = ()
    for more, other, grow in steps:
        first = (*first, *more)
        second = (*second, *other) if grow else tuple(other)
        value = _Log((first, second))
        assert memo.convert([value])[0] == reference(value)


@dataclasses.dataclass(frozen=True)
class _Tagged:
    kind: ClassVar[str] = "tagged"
    card: Card


@dataclasses.dataclass(frozen=True)
class _Planned:
    """A field of every plan :func:`engine.codec._plan` knows, and one it does not."""

    count: int
    flag: bool
    name: str | None
    mode: Literal["a", "b", 3]
    card: Card
    maybe: Card | None
    cards: tuple[Card, ...]
    pair: tuple[Card, Card]
    taken: frozenset[Card]
    counts: tuple[int, int | None]
    moves: tuple[_Tagged, ...]
    other: tuple[tuple[Card, ...], ...]


_CARDS = st.sampled_from([c for family in FAMILIES.values() for c in family.cards()])


@given(
    st.builds(
        _Planned,
        count=st.integers(),
        flag=st.booleans(),
        name=st.none() | st.text(max_size=3),
        mode=st.sampled_from(["a", "b", 3]),
        card=_CARDS,
        maybe=st.none() | _CARDS,
        cards=st.lists(_CARDS, max_size=5).map(tuple),
        pair=st.tuples(_CARDS, _CARDS),
        taken=st.frozensets(_CARDS, max_size=5),
        counts=st.tuples(st.integers(), st.none() | st.integers()),
        moves=st.lists(st.builds(_Tagged, card=_CARDS), max_size=3).map(tuple),
        other=st.lists(st.lists(_CARDS, max_size=3).map(tuple), max_size=3).map(tuple),
    )
)
def test_each_field_is_converted_by_its_annotation_as_the_reference_does(
    value: _Planned,
) -> None:
    assert codec._plans(_Planned) == {
        "count": "scalar",
        "flag": "scalar",
        "name": "scalar",
        "mode": "scalar",
        "card": "card",
        "maybe": "card_or_none",
        "cards": "cards",
        "pair": "cards",
        "taken": "card_set",
        "counts": "scalars",
        "moves": "actions",
        "other": "any",
    }
    assert to_plain(value) == reference(value)
    memo = PlainMemo()
    assert memo.convert([value, value]) == [reference(value)] * 2
    assert memo.convert([value]) == [reference(value)]


def test_a_field_of_cards_holding_something_else_is_refused() -> None:
    """Fields are converted as annotated; what does not fit fails loudly."""
    not_cards: Any = (("7", "X"),)
    pair: Any = (Card("7", "D"), Card("A", "S"))
    bad = _Planned(
        1, True, None, "a", Card("7", "D"), None, not_cards, pair, frozenset(), (1, 2), (), ()
    )
    with pytest.raises(TypeError, match="not a card"):
        to_plain(bad)


@dataclasses.dataclass(frozen=True)
class _Move:
    kind: ClassVar[str] = "move"
    interned: ClassVar[bool] = True
    card: Card


@dataclasses.dataclass(frozen=True)
class _Legal:
    legal: tuple[_Move | _Tagged, ...]


def test_the_plain_form_of_an_interned_move_is_kept_and_found_by_identity() -> None:
    """A class that declares ``interned`` (its game hands out the same object for the
    same move) is converted once; an equal object of it, or a move of another
    class, is converted anew; every result equals the reference."""
    seven, ace = _Move(Card("7", "D")), _Move(Card("A", "S"))
    fresh = _Tagged(Card("7", "D"))
    first = to_plain(_Legal((seven, ace, fresh)))["legal"]
    again = to_plain(_Legal((ace, seven, _Tagged(Card("7", "D")))))["legal"]
    assert first == [reference(seven), reference(ace), reference(fresh)]
    assert again == [reference(ace), reference(seven), reference(fresh)]
    assert again[0] is first[1] and again[1] is first[0]  # kept: the very plain forms
    assert again[2] is not first[2]  # not interned: converted each time
    equal = _Move(Card("7", "D"))  # equal to seven, but another object
    assert to_plain(_Legal((equal,)))["legal"][0] is not first[0]
    assert to_plain(_Legal((equal,)))["legal"] == [reference(seven)]
