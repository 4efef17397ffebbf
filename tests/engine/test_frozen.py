"""fast_init writes the very __init__ dataclasses would: same parameters, defaults, results."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.frozen import fast_init


def _pair(post: bool = False) -> tuple[type[Any], type[Any]]:
    """The same class twice: with dataclasses' __init__, and with fast_init's."""

    def make() -> type[Any]:
        @dataclass(frozen=True, slots=True)
        class Value:
            a: int
            b: tuple[int, ...] = ()
            c: list[int] = field(default_factory=list)
            d: int = field(default=7, init=False)
            e: str = field(default="x", kw_only=True)
            f: int = field(default_factory=lambda: 3, kw_only=True)

            if post:

                def __post_init__(self) -> None:
                    if self.a < 0:
                        raise ValueError("a must be at least 0")

        return Value

    return make(), fast_init(make())


@given(
    a=st.integers(min_value=-5, max_value=5),
    b=st.none() | st.tuples(st.integers()),
    c=st.none() | st.lists(st.integers(), max_size=3),
    e=st.none() | st.text(max_size=3),
)
def test_the_same_values_as_dataclasses_init(
    a: int, b: tuple[int] | None, c: list[int] | None, e: str | None
) -> None:
    for post in (False, True):
        slow_cls, fast_cls = _pair(post)
        kwargs = {k: v for k, v in (("b", b), ("c", c), ("e", e)) if v is not None}
        try:
            slow = slow_cls(a, **kwargs)
        except ValueError:
            with pytest.raises(ValueError, match="at least 0"):
                fast_cls(a, **kwargs)
            continue
        fast = fast_cls(a, **kwargs)
        assert type(fast) is fast_cls  # built through its twin, and turned back
        assert dataclasses.astuple(fast) == dataclasses.astuple(slow)
        assert repr(fast).split("(", 1)[1] == repr(slow).split("(", 1)[1]
        assert fast_cls(a, b=(1,), e="y") == fast_cls(a, b=(1,), e="y")
        assert fast_cls(a).c is not fast_cls(a).c  # a fresh list per instance


def test_the_same_errors_and_immutability() -> None:
    slow_cls, fast_cls = _pair()
    for cls in (slow_cls, fast_cls):
        with pytest.raises(TypeError):
            cls()  # a is required
        with pytest.raises(TypeError):
            cls(1, (), [], "e")  # e is keyword-only
        with pytest.raises(TypeError):
            cls(1, d=3)  # d is not a parameter
        with pytest.raises(dataclasses.FrozenInstanceError):
            cls(1).a = 2
    replaced = dataclasses.replace(fast_cls(1, e="q"), a=4)
    assert type(replaced) is fast_cls and (replaced.a, replaced.e, replaced.d) == (4, "q", 7)


def test_only_frozen_slotted_dataclasses() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    @dataclass(slots=True)
    class NotFrozen:
        a: int

    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        a: int
        scale: dataclasses.InitVar[int] = 1

    for cls in (NoSlots, NotFrozen, WithInitVar, int):
        with pytest.raises(TypeError):
            fast_init(cls)


def _fast(cls: type[Any]) -> bool:
    if not dataclasses.fields(cls):  # nothing to set (a pass): dataclasses' own is as fast
        return True
    return any(n.startswith("_set_") for n in cls.__init__.__code__.co_names)


def test_the_engines_values_use_it() -> None:
    """The values built on every move (states, views, events, actions) have it."""
    from engine.codec import to_plain
    from engine.game import Event, Transition
    from engine.registry import GAMES

    assert _fast(Event) and _fast(Transition)
    for game in GAMES.values():
        state = game.new_state(game.options(), 3)
        for value in (state, game.view(state, 0), game.view(state, None)):
            if dataclasses.is_dataclass(value):  # Dou Dizhu's state is a NamedTuple
                assert _fast(type(value)), type(value).__name__
        seat = game.to_act(state)[0]
        for action in game.legal_actions(state, seat):
            assert _fast(type(action)), type(action).__name__
            assert game.decode_action(to_plain(action)) == action


def test_a_class_of_six_fields_or_more_is_built_through_its_twin() -> None:
    """The class of these tests takes the twin's path (engine.frozen.TWIN_FIELDS);
    a narrower one sets its slots through their descriptors."""
    from engine.frozen import TWIN_FIELDS

    _, fast_cls = _pair()
    assert len(dataclasses.fields(fast_cls)) >= TWIN_FIELDS
    assert "_twin" in fast_cls.__init__.__code__.co_names

    @dataclass(frozen=True, slots=True)
    class Narrow:
        a: int
        b: int = 0

    narrow = fast_init(Narrow)
    assert "_twin" not in narrow.__init__.__code__.co_names and _fast(narrow)
    assert narrow(1) == Narrow(1, 0)


def test_a_subclass_instance_is_not_turned_into_the_twin() -> None:
    """A subclass (with its own slots, so another layout) that inherits the
    __init__ keeps its class: its fields are set through the descriptors."""
    _, fast_cls = _pair()

    class Sub(fast_cls):  # type: ignore[misc, valid-type]
        __slots__ = ("extra",)

    sub = Sub(1, e="y")
    assert type(sub) is Sub
    assert (sub.a, sub.b, sub.c, sub.d, sub.e, sub.f) == (1, (), [], 7, "y", 3)


def test_a_class_with_a_base_gets_no_twin() -> None:
    """Only a class whose one base is object has the layout a plain twin copies."""
    from engine.frozen import _twin

    _, fast_cls = _pair()
    assert _twin(fast_cls) is not None

    @dataclass(frozen=True, slots=True)
    class Base:
        a: int

    @dataclass(frozen=True, slots=True)
    class Derived(Base):
        b: int = 0
        c: int = 0
        d: int = 0
        e: int = 0
        f: int = 0

    assert _twin(Derived) is None
    built = fast_init(Derived)(1, 2, 3)
    assert type(built) is Derived and (built.a, built.b, built.c, built.f) == (1, 2, 3, 0)
