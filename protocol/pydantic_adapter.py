"""pydantic's private model slots, written in this one place: probed once, at import,
with pydantic's public path as the fallback.

:func:`protocol.codec.unchecked` makes a message the server built from its own values
without validating them again, a message per move: it makes the instance and fills
the four slots every :class:`~pydantic.BaseModel` has (``__dict__``, the fields'
values; ``__pydantic_fields_set__``; ``__pydantic_extra__``;
``__pydantic_private__``) through their descriptors, as pydantic's
``model_construct`` does, without that method's keyword call and its walk over
every field's alias and default.  Those slots are pydantic's internals, which a
release may rename or change (``pyproject.toml`` bounds pydantic below 3, where they
are pydantic 2's; a 2.x release that moves one is caught here).  So each is tried
here on a real model, through what pydantic's public API reads back (the fields,
``model_fields_set``, ``model_extra``, equality, ``model_copy``); a slot that is
missing or behaves otherwise is named in :data:`FELL_BACK`, and the codec then
builds every message with :func:`construct_public` (``model_construct``: slower,
the same message).
``tests/protocol/test_pydantic_adapter.py`` fails when anything fell back on the
installed pydantic, so that an upgrade that moved a slot is noticed.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Final, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

_B = TypeVar("_B", bound=BaseModel)

Setter = Callable[[BaseModel, Any], None]
"""Writes one slot of a model made by ``object.__new__``."""


class Slot(enum.Enum):
    """A private slot of :class:`~pydantic.BaseModel` that the codec writes (the value:
    its name in ``BaseModel.__dict__``)."""

    DICT = "__dict__"
    FIELDS_SET = "__pydantic_fields_set__"
    EXTRA = "__pydantic_extra__"
    PRIVATE = "__pydantic_private__"


class _Inner(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)
    n: int


class _Probe(BaseModel):
    """A model shaped as the protocol's (:class:`protocol.base.Model`'s configuration,
    a literal tag, a nested model, a default) to try the slots on."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)
    type: Literal["probe"] = "probe"
    inner: _Inner
    note: str | None = None


def _setter(base: type[BaseModel], slot: Slot) -> Setter | None:
    """The ``__set__`` of ``slot``'s descriptor on ``base`` (None: it has none)."""
    descriptor = base.__dict__.get(slot.value)
    setter = getattr(descriptor, "__set__", None)
    return setter if callable(setter) else None


def probe(base: type[BaseModel] = BaseModel) -> frozenset[Slot]:
    """The slots of ``base`` that cannot be written as :func:`protocol.codec.unchecked`
    writes them (empty: all can): each is written on a new :class:`_Probe` and
    read back through pydantic's public API."""
    found = {slot: _setter(base, slot) for slot in Slot}
    setters = {slot: setter for slot, setter in found.items() if setter is not None}
    missing = frozenset(Slot) - setters.keys()
    if missing:  # nothing can be tried without all of them
        return missing
    fields: dict[str, Any] = {"type": "probe", "inner": _Inner(n=3), "note": None}
    validated = _Probe.model_validate({"type": "probe", "inner": {"n": 3}, "note": None})
    try:
        message = object.__new__(_Probe)
        for slot, value in (
            (Slot.DICT, fields),
            (Slot.FIELDS_SET, set(fields)),
            (Slot.EXTRA, None),
            (Slot.PRIVATE, None),
        ):
            setters[slot](message, value)
    except Exception:
        return frozenset(Slot)
    checks: dict[Slot, Callable[[], bool]] = {
        Slot.DICT: lambda: (
            message.__dict__ is fields
            and message.inner is fields["inner"]
            and message.model_dump() == validated.model_dump()
        ),
        Slot.FIELDS_SET: lambda: message.model_fields_set == set(fields),
        Slot.EXTRA: lambda: message.model_extra is None,
        Slot.PRIVATE: lambda: (
            message == validated
            and message.model_copy(update={"note": "x"}).note == "x"
            and hash(message) == hash(validated)
        ),
    }
    return frozenset(slot for slot, check in checks.items() if not _holds(check))


def _holds(check: Callable[[], bool]) -> bool:
    """Whether ``check`` answers True (an exception: it does not)."""
    try:
        return check()
    except Exception:
        return False


def construct_public(cls: type[_B], fields: dict[str, Any]) -> _B:
    """The fallback of :func:`protocol.codec.unchecked`: the same message through
    pydantic's public ``model_construct`` (no validation either; the fields' values
    are the message's, in a dict of its own)."""
    return cls.model_construct(**fields)


def _refusing(slot: Slot) -> Setter:
    """What stands for a setter pydantic does not have: never called (the codec
    takes :func:`construct_public` when :data:`BY_SLOTS` is False), and says so if it were."""

    def refuse(model: BaseModel, value: Any) -> None:
        raise AttributeError(f"pydantic has no {slot.value} slot to write (fell back)")

    return refuse


FELL_BACK: Final[frozenset[Slot]] = probe()
"""The slots that could not be written on the installed pydantic (empty: none)."""

BY_SLOTS: Final[bool] = not FELL_BACK
"""Whether :func:`protocol.codec.unchecked` writes the slots (else it takes
:func:`construct_public`)."""

SET_DICT: Final[Setter] = _setter(BaseModel, Slot.DICT) or _refusing(Slot.DICT)
SET_FIELDS_SET: Final[Setter] = _setter(BaseModel, Slot.FIELDS_SET) or _refusing(Slot.FIELDS_SET)
SET_EXTRA: Final[Setter] = _setter(BaseModel, Slot.EXTRA) or _refusing(Slot.EXTRA)
SET_PRIVATE: Final[Setter] = _setter(BaseModel, Slot.PRIVATE) or _refusing(Slot.PRIVATE)
"""The slots' setters, read by the codec into Final names of its own (compiled: C
statics, no call through this module per message)."""
