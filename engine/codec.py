"""Plain-data conversion of engine values (stdlib only).

Views, actions, events, options and results are frozen dataclasses holding
cards, tuples and scalars.  :func:`to_plain` turns them into msgpack/JSON-ready
data (dicts, lists, str, int, bool, None; cards as their two-character text)
and :func:`from_plain` (:mod:`engine.plain_decode`, re-exported here) rebuilds
the typed value from a type annotation, so the round trip is lossless.  A
dataclass that declares a ``kind`` class variable is tagged with ``"type":
kind`` so a union of such classes (the actions of a game) can be decoded.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from operator import is_
from typing import Any, Final, Literal, Union, get_args, get_origin

from engine.cards import Card
from engine.plain_decode import DecodeError, field_types, from_plain, init_fields

__all__ = ["DecodeError", "PlainMemo", "from_plain", "to_plain", "to_plain_shared"]


_is: Final = is_
"""``operator.is_``, read as a C static when compiled (a plain global is a dict lookup)."""
_SCALARS: Final = frozenset({type(None), bool, int, str, float})
"""The types whose values are their own plain form."""


def to_plain(value: object) -> Any:
    """Convert an engine value into plain data (see module docstring).

    Each type's conversion is worked out once and kept (:func:`_converter`):
    views are converted for every seat after every move, so this is hot.
    """
    convert = _CONVERTERS.get(type(value))
    if convert is None:
        convert = _converter(type(value))
    return convert(value)


def _identity(value: Any) -> Any:
    return value


def _card(value: Card) -> str:
    return value.rank + value.suit


def _enum(value: enum.Enum) -> Any:
    return value.value


def _card_texts(
    values: tuple[Any, ...] | list[Any] | frozenset[Any] | set[Any],
) -> list[str] | None:
    """The text of each card in ``values``, or None if not all of them are cards."""
    if {*map(type, values)} != _CARD_ONLY:
        return None
    return list(map(_CARD_TEXT.__getitem__, values))


def _sequence(value: tuple[Any, ...] | list[Any]) -> list[Any]:
    if value:
        first = type(value[0])
        if first is Card:  # hands, piles, tables: cards only, most often
            cards = _card_texts(value)
            if cards is not None:
                return cards
        elif first in _SCALARS:  # counts, scores, seats: their own plain form
            for v in value:
                if type(v) not in _SCALARS:
                    break
            else:
                return list(value)
    return _plain_list(value)


def _plain_list(values: Iterable[Any]) -> list[Any]:
    """``[to_plain(v) for v in values]``, each through the converter table directly."""
    get = _CONVERTERS.get
    out = []
    for v in values:
        convert = get(type(v))
        out.append(convert(v) if convert is not None else to_plain(v))
    return out


def _plain_actions(actions: Iterable[Any]) -> list[Any]:
    """``[to_plain(a) for a in actions]`` (legal moves), keeping the plain form of
    each action of a class that declares ``interned = True``: its game hands out
    the very same object for the same move (``legal_actions``), so each is
    converted once, then found by identity (the kept object held, so that its
    identity cannot pass to another).  The plain forms are shared: read-only."""
    out = []
    kept = _KEPT_ACTIONS
    for a in actions:
        cls = type(a)
        interned = _INTERNED.get(cls)
        if interned is None:
            interned = _INTERNED[cls] = getattr(cls, "interned", False) is True
        if not interned:
            out.append(to_plain(a))
            continue
        found = kept.get(id(a))
        if found is not None and found[0] is a:
            out.append(found[1])
            continue
        plain = to_plain(a)
        if len(kept) >= _KEPT_ACTIONS_MAX:
            kept.clear()
        kept[id(a)] = (a, plain)
        out.append(plain)
    return out


_INTERNED: Final[dict[type, bool]] = {}
"""Per action class met by :func:`_plain_actions`: whether it declares ``interned``."""
_KEPT_ACTIONS: Final[dict[int, tuple[Any, Any]]] = {}
"""Interned actions met so far, by ``id``: the action and its plain form."""
_KEPT_ACTIONS_MAX: Final = 4096
"""Interned actions kept at most; then :data:`_KEPT_ACTIONS` starts afresh."""


def _set(value: frozenset[Any] | set[Any]) -> list[Any]:
    """Sorted by ``repr`` of the plain values (a total order whatever they are);
    text of letters and digits (cards) sorts the same by itself, without the reprs."""
    cards = _card_texts(value)  # captures, plays: most often
    if cards is not None:
        cards.sort()
        return cards
    out = _plain_list(value)
    try:
        text = all(map(str.isalnum, out))  # TypeError: not all text
    except TypeError:
        text = False
    if text:
        out.sort()
    else:
        out.sort(key=repr)
    return out


def _mapping(value: Mapping[Any, Any]) -> dict[str | int, Any]:
    get = _CONVERTERS.get
    out: dict[str | int, Any] = {}
    for k, v in value.items():
        key = k if type(k) is str else _key(k)  # events and views: text keys, mostly
        t = type(v)
        if t in _SCALARS:  # seats, counts, flags: their own plain form
            out[key] = v
            continue
        convert = get(t)
        out[key] = convert(v) if convert is not None else to_plain(v)
    return out


def _dataclass_converter(cls: type, *, shared: bool = False) -> Callable[..., dict[str, Any]]:
    """A function building the plain dict of a ``cls`` instance, field by field.

    The function is generated once per class (as :mod:`dataclasses` generates
    ``__init__``), so a conversion costs no lookups.  Each field is converted
    as its type annotation says (:func:`_plan`): a field of plain scalars
    (``int``, ``str``, ``bool``, ``float``, ``None``, their literals and
    unions) is taken as it is, without a look at its value; a card becomes its
    text, a tuple of cards their texts and a frozen set of cards their sorted
    texts, all in C (:data:`_CARD_TEXT`); a tuple of scalars becomes a list;
    any other field is converted by its value's type (:func:`to_plain`), with
    no call at all for a scalar or, in a plain conversion, a card.
    ``shared``: the function takes three more arguments, the instance's memo of
    the last call and the memo of the value converted just before it (or
    None), as :class:`PlainMemo` keeps them: ``[cls, object, plain, object,
    plain, ..., last dict]``, a pair per field, and a dict that gets each field
    whose plain form is not the very object of the memo's pair (what changed
    since the last call).  A field holding the very object its memo (or the
    one before) holds takes that plain form; what it converts, if immutable,
    it keeps in its memo for the next call, and each plain form goes into the
    memo's pair (the last call's dict holds just those).  A new tuple of cards (a
    hand, the table) becomes its texts at once, without :func:`to_plain`'s dispatch.
    Fields are taken to hold what they are annotated to hold (the engine is
    type-checked, and tests compare every game's values with the definition);
    a field of cards holding something else fails (``TypeError``).
    """
    kind = getattr(cls, "kind", None)
    items = [f"'type': {kind!r}"] if isinstance(kind, str) else []
    lines = []
    plans = _plans(cls)
    for i, f in enumerate(init_fields(cls)):
        if not f.name.isidentifier():  # pragma: no cover - dataclass fields always are
            raise TypeError(f"field {f.name!r} of {cls.__name__}")
        plan = plans.get(f.name, "any")
        if not shared:
            if plan != "any":
                items.append(f"{f.name!r}: " + _PLAN_SOURCE[plan].format(x=f"v.{f.name}"))
            else:
                items.append(
                    f"{f.name!r}: (x if (t := type(x := v.{f.name})) in _scalars"
                    f" else _text(x) if t is _Card else _plain(x))"
                )
            continue
        a, b = 1 + 2 * i, 2 + 2 * i
        changed = _noted(i, f.name, f"mine[{b}]", "        ")
        if plan in _AT_ONCE:  # nothing to keep: converted as met, compared as plain
            lines.append(
                f"    r{i} = {_PLAN_SOURCE[plan].format(x=f'v.{f.name}')}\n"
                + _noted(i, f.name, f"mine[{b}]", "    ")
            )
        elif plan in _PLAN_SOURCE:  # an immutable value of a known shape: kept as it is
            convert = _PLAN_SOURCE[plan].format(x="x")
            lines.append(
                f"    x = v.{f.name}\n"
                f"    if x is mine[{a}]:\n        r{i} = mine[{b}]\n"
                f"    else:\n"
                f"        if prev is not None and x is prev[{a}]:\n            r{i} = prev[{b}]\n"
                f"        else:\n            r{i} = {convert}\n"
                f"        mine[{a}] = x\n{changed}"
            )
        else:
            lines.append(
                f"    x = v.{f.name}\n"
                f"    t = type(x)\n"
                f"    if t in _scalars:\n        r{i} = x\n"
                + _noted(i, f.name, f"mine[{a}] = mine[{b}]", "        ")
                + f"    elif x is mine[{a}]:\n        r{i} = mine[{b}]\n"
                f"    else:\n"
                f"        if prev is not None and x is prev[{a}]:\n            r{i} = prev[{b}]\n"
                f"        elif t is tuple and x and type(x[0]) is _Card and (\n"
                f"            r{i} := _card_texts(x)\n"
                f"        ) is not None:\n            pass\n"
                f"        else:\n            r{i} = _grown(x, mine[{a}], mine[{b}])\n"
                f"        k = _immutable_types.get(t)\n"
                f"        mine[{a}] = x if k or (k is None and _kept(t)) else _missing\n"
                f"{changed}"
            )
        items.append(f"{f.name!r}: r{i}")
    args = "v, mine, prev, ch" if shared else "v"
    whole = f"{{{', '.join(items)}}}"
    if shared:  # after a first call: the last dict with what changed (a copy: no dict built)
        lines.append(
            "    last = mine[-1]\n"
            f"    if last is None:\n        return {whole}\n"
            "    d = last.copy()\n    d.update(ch)\n    return d\n"
        )
    else:
        lines.append(f"    return {whole}\n")
    # the class named first: a source is one class's own (the build may type ``v`` by it)
    source = f"# {cls.__module__}.{cls.__qualname__}\ndef convert({args}):\n{''.join(lines)}"
    CONVERTER_SOURCES[source] = None
    built = _built_converters().get(source)
    if built is not None:  # the same source, compiled (see CONVERTER_SOURCES)
        return built
    namespace = converter_namespace()
    exec(source, namespace)  # the source holds only field names (identifiers)
    return namespace["convert"]  # type: ignore[no-any-return]


CONVERTER_SOURCES: Final[dict[str, None]] = {}
"""The source of every conversion :func:`_dataclass_converter` generated so far.

The optional build (``python -m compiled.build``) plays a few games of each
(``compiled.converters.converter_sources``), writes the sources they generated
into one module, ``compiled.codec_converters``, and compiles it: a
conversion whose source is one of them is then that compiled function
(:func:`_built_converters`), the very same code run as C, instead of the
interpreted one.  A class changed since the build generates another source,
which is run interpreted as before."""


def converter_namespace() -> dict[str, Any]:
    """The names a generated conversion uses (a fresh dict to run it in)."""
    return {
        "_plain": to_plain,
        "_scalars": _SCALARS,
        "_missing": _MISSING,
        "_kept": _kept,
        "_grown": _grown,
        "_Card": Card,
        "_card_texts": _card_texts,
        "_immutable_types": _IMMUTABLE,
        "_text": _CARD_TEXT.__getitem__,
        "_actions": _plain_actions,
        "_list": list,
        "_map": map,
        "_sorted": sorted,
    }


@cache
def _built_converters() -> dict[str, Callable[..., dict[str, Any]]]:
    """The compiled conversions by their source (see :data:`CONVERTER_SOURCES`); none
    unless the optional build's module is there (then only as a library)."""
    try:
        from compiled import codec_converters  # type: ignore[attr-defined]
    except ImportError:  # no build: the interpreted conversions
        return {}
    return dict(codec_converters.BY_SOURCE)


def _noted(i: int, name: str, store: str, indent: str) -> str:
    """Generated source: the plain form ``r{i}`` of field ``name``, if it is not the very
    object the memo's pair holds (``store`` ends with it), goes into ``ch`` (what
    changed) and into ``store``."""
    b = 2 + 2 * i
    return (
        f"{indent}if r{i} is not mine[{b}]:\n"
        f"{indent}    ch[{name!r}] = r{i}\n"
        f"{indent}    {store} = r{i}\n"
    )


class _CardTexts(dict[Card, str]):
    """Each card's text, one string object per card, worked out once (a dict lookup
    in C then, not a concatenation); keyed by value, as cards are equal tuples."""

    def __missing__(self, card: Card) -> str:
        if type(card) is not Card:
            raise TypeError(f"not a card: {card!r}")
        text = self[card] = _card(card)
        return text


_CARD_TEXT: Final = _CardTexts()
_CARD_ONLY = {Card}

_PLAN_SOURCE = {
    "scalar": "{x}",
    "card": "_text({x})",
    "card_or_none": "(None if (c := {x}) is None else _text(c))",
    "cards": "_list(_map(_text, {x}))",
    "card_set": "_sorted(_map(_text, {x}))",
    "scalars": "_list({x})",
    "actions": "_actions({x})",
}
"""The conversion of a field by its plan (:func:`_plan`), ``{x}`` its value."""

_AT_ONCE = frozenset(("scalar", "card", "card_or_none"))
"""Plans converted as they are met even by a :class:`PlainMemo` (nothing to keep)."""


def _plans(cls: type) -> dict[str, str]:
    """Each field's :func:`_plan`, from ``cls``'s type annotations (none if they
    cannot be resolved: every field is then converted by its value's type)."""
    try:
        hints = field_types(cls)
    except Exception:  # an annotation naming what is not importable: no plans
        return {}
    return {f.name: _plan(hints[f.name]) for f in init_fields(cls) if f.name in hints}


_SCALAR_HINTS = (int, str, bool, float, type(None))


def _plan(hint: Any) -> str:
    """How a field annotated ``hint`` is converted: ``scalar`` (as it is), ``card``,
    ``card_or_none``, ``cards`` (a tuple of cards), ``card_set`` (a frozen set of
    cards), ``scalars`` (a tuple of scalars) or ``any`` (by its value's type)."""
    if _is_scalar(hint):
        return "scalar"
    if hint is Card:
        return "card"
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType) and set(args) == {Card, type(None)}:
        return "card_or_none"
    if origin is tuple and args:
        elements = args[:1] if len(args) == 2 and args[1] is Ellipsis else args
        if all(a is Card for a in elements):
            return "cards"
        if all(_is_scalar(a) for a in elements):
            return "scalars"
        if len(elements) == 1 and _is_action(elements[0]):
            return "actions"
    if origin is frozenset and args == (Card,):
        return "card_set"
    return "any"


def _is_action(hint: Any) -> bool:
    """Whether ``hint`` is an action class or a union of them (tagged dataclasses):
    a tuple of them (legal moves) is new at every turn, so it is converted as a
    whole, not compared with the last one entry by entry (:func:`_grown`)."""
    members = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    return all(
        isinstance(m, type)
        and dataclasses.is_dataclass(m)
        and isinstance(getattr(m, "kind", None), str)
        for m in members
    )


def _is_scalar(hint: Any) -> bool:
    """Whether every value of ``hint`` is its own plain form (a plain scalar)."""
    if hint in _SCALAR_HINTS:
        return True
    origin, args = get_origin(hint), get_args(hint)
    if origin is Literal:
        return all(type(a) in _SCALARS for a in args)
    if origin in (Union, types.UnionType):
        return all(_is_scalar(a) for a in args)
    return False


def _converter(cls: type) -> Callable[[Any], Any]:
    """The conversion of ``cls`` instances, decided as the module docstring says; kept."""
    convert: Callable[[Any], Any]
    if cls is type(None) or issubclass(cls, (bool, int, str, float)):
        convert = _identity
    elif cls is Card:
        convert = _CARD_TEXT.__getitem__
    elif issubclass(cls, Card):
        convert = _card
    elif issubclass(cls, enum.Enum):
        convert = _enum
    elif issubclass(cls, (tuple, list)):
        convert = _sequence
    elif issubclass(cls, (frozenset, set)):
        convert = _set
    elif issubclass(cls, Mapping):
        convert = _mapping
    elif dataclasses.is_dataclass(cls):
        convert = _dataclass_converter(cls)
    else:
        raise TypeError(f"cannot convert {cls.__name__} to plain data")
    _CONVERTERS[cls] = convert
    return convert


_CONVERTERS: Final[dict[type, Callable[[Any], Any]]] = {}
"""The conversion of each type met so far (see :func:`_converter`)."""


def to_plain_shared(values: Sequence[object]) -> list[Any]:
    """``[to_plain(v) for v in values]``, converting what the values share only once.

    Meant for the views of one state, one per seat: their fields mostly hold
    the very same objects (the table, the tricks, the scores, the options),
    and only the hand and the legal moves differ.  A dataclass's field value
    met again (the same object, by identity) is converted once and its plain
    form shared by the results, which are therefore read-only.
    """
    return PlainMemo().convert(values)


_MISSING: Final = object()


class PlainMemo:
    """:func:`to_plain_shared` that also remembers the previous call's field values.

    One per table, converting the views of each new state in the same order
    (one per seat): they hold many of the very objects the last state's views
    held (the options, a pile nobody added to, the history of past deals),
    since states are immutable values that share what did not change, and
    the views of one state share most of their fields.  So each field of the
    value at position *i* is compared, by identity, with what the same field
    of position *i* held in the last call, then with the same field of the
    value converted just before it in this call; either match takes that
    plain form, and only a new object is converted.  Only immutable field
    values (tuples, frozen sets, cards, enums, frozen dataclasses) are kept
    from one call to the next, held until then, so an identity cannot be
    taken by a new object meanwhile; mutable ones (lists, dicts) are
    converted afresh each time.  The results are shared: read-only.

    As it goes it notes what changed (:attr:`changes`): for each position, the
    dict the last call gave there and the fields whose plain form is not the
    very object that dict holds, which is what a client that was sent that
    dict needs (``server.net.view_changes``), without comparing every field again.
    """

    __slots__ = ("_memos", "changes")

    def __init__(self) -> None:
        self._memos: list[list[Any] | None] = []
        self.changes: list[tuple[dict[str, Any], dict[str, Any]] | None] = []
        """Per position of the last call: ``(the dict the call before gave there,
        the fields of the new dict that are not the very objects it holds)``;
        None where there was none (a first call, another class, no dataclass)."""

    def convert(self, values: Sequence[object]) -> list[Any]:
        """The plain form of each of ``values`` (see the class docstring)."""
        memos = self._memos
        del memos[len(values) :]  # what this call does not meet is forgotten
        memos.extend([None] * (len(values) - len(memos)))
        out = []
        changes: list[tuple[dict[str, Any], dict[str, Any]] | None] = []
        prev: list[Any] | None = None
        for i, value in enumerate(values):
            cls = type(value)
            convert = _SHARED_CONVERTERS.get(cls)
            if convert is None:
                if not dataclasses.is_dataclass(cls):
                    out.append(to_plain(value))
                    changes.append(None)
                    memos[i] = prev = None
                    continue
                convert = _SHARED_CONVERTERS[cls] = _dataclass_converter(cls, shared=True)
            mine = memos[i]
            if mine is None or mine[0] is not cls:
                width = 2 * len(init_fields(cls))  # type: ignore[arg-type]
                mine = memos[i] = [cls, *([_MISSING] * width), None]  # last: the last dict
            changed: dict[str, Any] = {}
            plain = convert(
                value, mine, prev if prev is not None and prev[0] is cls else None, changed
            )
            last = mine[-1]
            changes.append(None if last is None else (last, changed))
            mine[-1] = plain
            out.append(plain)
            prev = mine
        self.changes = changes
        return out


def _grown(value: Any, old: Any, old_plain: Any) -> Any:
    """``to_plain(value)``, reusing ``old_plain``, the plain form of ``old``, where
    ``value`` is a tuple that shares objects with the tuple ``old``.

    When ``value`` starts with the very objects of ``old`` (a history, a list of
    tricks: one more entry since the last view), only the new entries are
    converted and put after ``old_plain``; when both hold as many tuples (the
    piles, one per seat: one of them grew), each is worked out so, the same
    one taking its old plain form.
    """
    if type(value) is not tuple:
        return to_plain(value)
    if type(old) is tuple and old:
        n = len(old)
        if n <= len(value) and all(map(_is, value, old)):
            return [*old_plain, *_plain_list(value[n:])]
        if n == len(value) and type(value[0]) is tuple:
            return [
                p if v is o else _grown(v, o, p)
                for v, o, p in zip(value, old, old_plain, strict=True)
            ]
    return _sequence(value)  # to_plain's conversion of a tuple, without its dispatch


def _kept(cls: type) -> bool:
    """Whether a :class:`PlainMemo` keeps values of ``cls`` (:func:`_immutable`), cached."""
    immutable = _IMMUTABLE.get(cls)
    if immutable is None:
        immutable = _IMMUTABLE[cls] = _immutable(cls)
    return immutable


def _immutable(cls: type) -> bool:
    """Whether values of ``cls`` never change (so their plain form may be kept)."""
    if cls in (tuple, frozenset, Card) or issubclass(cls, enum.Enum):
        return True
    params = getattr(cls, "__dataclass_params__", None)
    return params is not None and bool(params.frozen)


_IMMUTABLE: Final[dict[type, bool]] = {}
"""Per type met by a :class:`PlainMemo`, :func:`_immutable`'s answer."""


_SHARED_CONVERTERS: Final[
    dict[type, Callable[[Any, list[Any], list[Any] | None, dict[str, Any]], Any]]
] = {}
"""Per dataclass, its conversion with a :class:`PlainMemo` of field values."""


def _key(k: object) -> str | int:
    if isinstance(k, (str, int)) and not isinstance(k, bool):
        return k
    if isinstance(k, Card):
        return k.rank + k.suit
    if isinstance(k, enum.Enum):
        return typing.cast(str, k.value)
    raise TypeError(f"mapping key {k!r} cannot be plain data")
