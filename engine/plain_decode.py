"""Plain data back to engine values: :func:`from_plain` (stdlib only).

The inverse of :func:`engine.codec.to_plain`: a value of a type annotation
(a dataclass, a union of tagged action classes, tuples, frozen sets, cards,
enums, literals and scalars) rebuilt from msgpack/JSON-ready data, so the round
trip is lossless.  Everything a client sends reaches the engine through it,
so it refuses anything that does not fit with a :class:`DecodeError` saying
where, and never lets an unexpected type through.  :mod:`engine.codec`
re-exports :func:`from_plain` and :class:`DecodeError`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any, Final, Literal, Union, get_args, get_origin

from engine.cards import Card, CardError, parse_card


class DecodeError(ValueError):
    """Plain data that does not fit the expected type; the message says where."""


INT_MIN: Final = -(2**63)
INT_MAX: Final = 2**64 - 1
"""The integers plain data may hold: msgpack's range (signed and unsigned 64 bits)."""

_LABEL_CHARS: Final = 40


def _label(value: object) -> str:
    """A short, always printable label for a piece of untrusted data in an error message."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, int) and not isinstance(value, bool):
        text = str(value) if INT_MIN <= value <= INT_MAX else "<huge integer>"
    else:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


@cache
def init_fields(cls: type) -> tuple[dataclasses.Field[Any], ...]:
    """The fields of the dataclass ``cls`` that plain data holds: set by ``__init__``,
    not private (cached)."""
    return tuple(f for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_"))


@cache
def field_types(cls: type) -> dict[str, Any]:
    """The resolved type annotations of ``cls``'s fields (cached)."""
    return typing.get_type_hints(cls)


def from_plain(tp: Any, data: Any, where: str = "$") -> Any:
    """Rebuild a value of type ``tp`` from plain data; raise :class:`DecodeError`."""
    if tp is Any or tp is object:
        return data
    if tp is type(None):
        if data is not None:
            raise DecodeError(f"{where}: expected null")
        return None
    if tp is Card:
        if not isinstance(data, str) or len(data) > _LABEL_CHARS:
            raise DecodeError(f"{where}: expected a card like '7D'")
        try:
            return parse_card(data)
        except CardError as exc:
            raise DecodeError(f"{where}: {exc}") from None
    if tp is bool:
        if not isinstance(data, bool):
            raise DecodeError(f"{where}: expected true or false")
        return data
    if tp is int:
        if not isinstance(data, int) or isinstance(data, bool):
            raise DecodeError(f"{where}: expected an integer")
        if not INT_MIN <= data <= INT_MAX:
            raise DecodeError(f"{where}: integer out of range")
        return data
    if tp is float:
        if not isinstance(data, (int, float)) or isinstance(data, bool):
            raise DecodeError(f"{where}: expected a number")
        if isinstance(data, int) and not INT_MIN <= data <= INT_MAX:
            raise DecodeError(f"{where}: number out of range")
        if not math.isfinite(data):
            raise DecodeError(f"{where}: expected a finite number")
        return float(data)
    if tp is str:
        if not isinstance(data, str):
            raise DecodeError(f"{where}: expected a string")
        return data
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            if isinstance(data, (list, dict)):
                raise ValueError(data)  # unhashable: never a member's value
            return tp(data)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in tp)
            raise DecodeError(f"{where}: expected one of {allowed}") from None
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _dataclass_from_plain(tp, data, where)
    origin = get_origin(tp)
    args = get_args(tp)
    if origin is Literal:
        if not any(type(data) is type(a) and data == a for a in args):
            raise DecodeError(f"{where}: expected one of {', '.join(map(repr, args))}")
        return data
    if origin in (Union, types.UnionType):
        return _union_from_plain(args, data, where)
    if origin is tuple:
        if not isinstance(data, (list, tuple)):
            raise DecodeError(f"{where}: expected a list")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise DecodeError(f"{where}: expected a list of {len(args)} items")
        pairs = enumerate(zip(args, data, strict=True))
        return tuple(from_plain(a, v, f"{where}[{i}]") for i, (a, v) in pairs)
    if origin in (frozenset, set):
        if not isinstance(data, (list, tuple)):
            raise DecodeError(f"{where}: expected a list")
        items = [from_plain(args[0], v, f"{where}[{i}]") for i, v in enumerate(data)]
        result = frozenset(items)
        if len(result) != len(items):
            raise DecodeError(f"{where}: items must be distinct")
        return result
    if origin in (dict, Mapping):
        if not isinstance(data, dict):
            raise DecodeError(f"{where}: expected a map")
        kt, vt = args if args else (Any, Any)
        return {
            from_plain(kt, k, f"{where}.key"): from_plain(vt, v, f"{where}.{_label(k)}")
            for k, v in data.items()
        }
    raise TypeError(f"{where}: cannot decode type {tp!r}")


def _union_from_plain(args: tuple[Any, ...], data: Any, where: str) -> Any:
    if data is None and type(None) in args:
        return None
    tagged = {tag: a for a in args if isinstance(tag := getattr(a, "kind", None), str)}
    if tagged and len(tagged) == sum(1 for a in args if a is not type(None)):
        if not isinstance(data, dict):
            names = ", ".join(map(repr, tagged))
            raise DecodeError(f"{where}: expected a map whose 'type' is one of {names}")
        tag = data.get("type")
        if not isinstance(tag, str) or tag not in tagged:
            raise DecodeError(f"{where}.type: expected one of {', '.join(map(repr, tagged))}")
        return _dataclass_from_plain(tagged[tag], data, where)
    errors = []
    for a in args:
        if a is type(None):
            continue
        try:
            return from_plain(a, data, where)
        except DecodeError as exc:
            errors.append(str(exc))
    raise DecodeError(errors[0] if len(errors) == 1 else f"{where}: no alternative fits")


def _dataclass_from_plain(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise DecodeError(f"{where}: expected a map")
    fields = init_fields(cls)
    names = {f.name for f in fields}
    kind = getattr(cls, "kind", None)
    extra = set(data) - names - ({"type"} if isinstance(kind, str) else set())
    if extra:
        shown = sorted(map(_label, extra))
        more = f" (+{len(shown) - 5} more)" if len(shown) > 5 else ""
        raise DecodeError(f"{where}: unknown field(s) {', '.join(shown[:5])}{more}")
    if isinstance(kind, str) and "type" in data and data["type"] != kind:
        raise DecodeError(f"{where}.type: expected {kind!r}")
    hints = field_types(cls)
    kwargs = {}
    for f in fields:
        if f.name in data:
            kwargs[f.name] = from_plain(hints[f.name], data[f.name], f"{where}.{f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise DecodeError(f"{where}: missing field {f.name!r}")
    try:
        return cls(**kwargs)
    except (ValueError, TypeError, ArithmeticError) as exc:
        raise DecodeError(f"{where}: {exc}") from None
