"""Structural sharing: the engine hands out *the very same object* for a value that
did not change, and the server tells "unchanged" by identity (``is``), not equality.

The contract.  States are immutable values (rules: ``view`` is the only exit), so
a value held by one state and the next is never copied:

* :func:`replace` builds the next state from the last one, keeping every field it
  is not told to change as the very object the old state held (a pile nobody
  added to, the options, the history of past deals);
* :data:`TO_ACT` gives one ``(seat,)`` tuple per seat, so ``to_act`` of one seat is
  always the same object;
* :func:`shared_counts` and :class:`Interned` give one object per value for what
  the engine builds afresh at every state (the counts of the hands, a legal move).

A game's ``view`` then puts those objects into each seat's view as they are.  Who
relies on it, in the order a move travels:

1. :class:`engine.codec.PlainMemo` (held by :class:`server.tables.updates.UpdateBuilder`,
   one per table) compares each field of a view with the same field of that seat's
   last view *by identity*; the same object takes its last plain form, itself the
   very same object, and only a new object is converted.  It notes per seat the
   last plain view and the fields that are not that very object
   (:attr:`engine.codec.PlainMemo.changes`).
2. :mod:`server.tables.updates` puts that note on the seat's frame as
   :attr:`protocol.codec.Frame.hint`.
3. :mod:`server.net.view_changes` (the ``view_changes`` feature) sends a connection
   only the fields that changed: when the view it last sent is the hint's very
   dict, the hint's fields go as they are; else it compares each field with
   :func:`server.net.view_changes.changed_fields`, again by identity.

What breaks when it is violated, and how (silently either way, no error is raised):

* an unchanged value rebuilt as an equal but *new* object (a copy, a fresh tuple)
  is converted again and sent again: more CPU and more bytes on the wire, never a
  wrong view, since the client merges a field equal to the one it holds;
* a value *changed in place* behind a kept identity (a mutable list or dict shared
  between states, or a plain form edited after it was made) is taken as
  unchanged: the client keeps the old value, a wrong view.  That is why
  :class:`~engine.codec.PlainMemo` keeps only immutable values from one call to
  the next and its results are read-only, and why states are frozen.

``tests/engine/test_sharing.py`` pins both halves on a real game.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

S = TypeVar("S")

TO_ACT: tuple[tuple[int, ...], ...] = tuple((seat,) for seat in range(16))
"""``(seat,)`` for each seat, one tuple each: a ``to_act`` of one seat is always the
same object, so the views of a state (and of the next states while the turn stays)
share it, and :class:`engine.codec.PlainMemo` converts it once."""

_K = TypeVar("_K")
_T = TypeVar("_T")


class Interned(dict[_K, _T]):
    """One shared object per key, made by ``make(key)`` when first asked for
    (``table[key]``); at most ``kept`` are kept, then it starts afresh (what was
    handed out stays as it is).

    For values the engine builds again and again (a legal move, the counts of
    the hands): each comes back as the very same object, which
    :class:`engine.codec.PlainMemo` and the codec's kept moves then convert once.
    """

    def __init__(self, make: Callable[[_K], _T], kept: int) -> None:
        super().__init__()
        self._make = make
        self._kept = kept

    def __missing__(self, key: _K) -> _T:
        if len(self) >= self._kept:
            self.clear()
        value = self[key] = self._make(key)
        return value


_Counts = TypeVar("_Counts", bound=tuple[int, ...])
_COUNTS: Interned[tuple[int, ...], Any] = Interned(lambda counts: counts, 4096)


def shared_counts(counts: _Counts) -> _Counts:
    """``counts`` (integers only: cards per hand, say) as one shared object per value.

    Every seat's view of a state then holds the very same tuple, which
    :class:`engine.codec.PlainMemo` converts once for all of them (at most
    4,096 values are kept, :class:`Interned`).
    """
    found: _Counts = _COUNTS[counts]
    return found


def replace(obj: S, **changes: Any) -> S:
    """``dataclasses.replace`` with a precise type for mypy, and faster: the class is
    called with its fields positionally (a keyword call to a class builds a dict of
    its arguments, and ``dataclasses.replace`` looks at every field's kind first).
    Every field not in ``changes`` is the very object ``obj`` holds (the contract
    above)."""
    cls = type(obj)
    names = _INIT_FIELDS.get(cls)
    if names is None:
        names = _INIT_FIELDS[cls] = _init_fields(cls)
    if not names or not changes.keys() <= names[1]:  # an InitVar, or a field not to set
        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    return cls(*[changes[n] if n in changes else getattr(obj, n) for n in names[0]])


def _init_fields(cls: type) -> tuple[tuple[str, ...], frozenset[str]] | tuple[()]:
    """The fields ``cls.__init__`` takes, in order and as a set; empty when it takes
    anything else too (an ``InitVar``: :func:`dataclasses.replace` handles that)."""
    names = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    if tuple(inspect.signature(cls).parameters) != names:
        return ()
    return names, frozenset(names)


_INIT_FIELDS: dict[type, tuple[tuple[str, ...], frozenset[str]] | tuple[()]] = {}
"""Per class :func:`replace` met, :func:`_init_fields`' answer."""
