"""protocol.pydantic_adapter: pydantic's private slots probed at import, the public path
when one is missing or behaves otherwise, and the codec's messages the same either way."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from protocol import codec, pydantic_adapter
from protocol.codec import Frame, encode, encode_json, unchecked
from protocol.pydantic_adapter import Slot, construct_public, probe
from protocol.server_messages import Ok, Update

_SLOTS = {slot.value: BaseModel.__dict__[slot.value] for slot in Slot}


def _update() -> dict[str, Any]:
    return {
        "type": "update", "table": "t1", "game_no": 2, "version": 7, "seat": 1, "actor": 0,
        "by": "human", "events": ({"kind": "play", "data": {"seat": 0, "card": "7D"}},),
        "view": {"hand": ["AS"], "counts": {0: 3, 1: 2}}, "timer_s": 12.5, "ref": 4,
    }  # fmt: skip


def test_nothing_fell_back_on_the_installed_pydantic() -> None:
    """Fails when an upgrade of pydantic moved or changed a slot the codec writes:
    the codec then runs the slower public path (see pyproject.toml's bound)."""
    assert not pydantic_adapter.FELL_BACK
    assert pydantic_adapter.BY_SLOTS
    assert not probe()


def test_a_missing_slot_is_named() -> None:
    base = type("NoPrivate", (), {k: v for k, v in _SLOTS.items() if k != Slot.PRIVATE.value})
    assert probe(base) == {Slot.PRIVATE}
    nothing = type("Nothing", (), {})  # a class's own __dict__ slot only
    assert probe(nothing) == {Slot.FIELDS_SET, Slot.EXTRA, Slot.PRIVATE}


def test_a_slot_that_behaves_otherwise_is_named() -> None:
    class ElsewhereExtra:
        """Writes something else than it is given (a pydantic that keeps extras apart)."""

        def __set__(self, model: BaseModel, value: Any) -> None:
            _SLOTS[Slot.EXTRA.value].__set__(model, {"kept": value})

    base = type("Changed", (), {**_SLOTS, Slot.EXTRA.value: ElsewhereExtra()})
    assert Slot.EXTRA in probe(base)
    assert Slot.DICT not in probe(base)


def test_the_public_path_makes_the_same_messages() -> None:
    for cls, fields in ((Update, _update()), (Ok, {"type": "ok", "ref": 4})):
        public = construct_public(cls, dict(fields))
        private = unchecked(cls, dict(fields))
        validated = cls.model_validate(fields)
        assert public == private == validated
        assert public.model_fields_set == private.model_fields_set == set(fields)
        assert encode(public) == encode(private) == encode(validated)
        assert encode_json(public) == encode_json(validated)


def test_the_codec_forced_onto_the_public_path_serves_as_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a pydantic that fell back gets: unchecked and Frame.message through
    ``model_construct`` (a dict of the message's own), the very same bytes."""
    fields = _update()
    by_slots = unchecked(Update, dict(fields))
    monkeypatch.setattr(codec, "_BY_SLOTS", False)
    given = dict(fields)
    message = unchecked(Update, given)
    assert message.__dict__ is not given  # the public path was taken
    assert message == by_slots == Update.model_validate(fields)
    assert encode(message) == encode(by_slots)
    frame = Frame.of_fields(Update, dict(fields))
    assert frame.message == by_slots and frame.data == encode(by_slots)
    with pytest.raises(ValueError, match="fields"):
        unchecked(Ok, {"ref": 4, "type": "ok"})  # still checked: declaration order
