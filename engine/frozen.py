"""A faster ``__init__`` for the engine's frozen, slotted dataclasses (stdlib only).

States, views, events and actions are immutable values, built anew on every
move, in every seat's view and in every play-out of the AI's searches.  The
``__init__`` that :mod:`dataclasses` writes for a frozen class sets each field
through ``object.__setattr__`` (a global lookup, an attribute lookup and a
generic call per field), which makes building a view with many fields a
measurable part of a move (docs/performance.md, The engine).  :func:`fast_init`
writes the same ``__init__`` (same parameters, defaults, factories,
``__post_init__``) without a call per field:

* a class of :data:`TWIN_FIELDS` fields or more, with no base but ``object``,
  gets a *builder twin*: a plain class with the very same slots (so the same
  memory layout) and no frozen ``__setattr__``.  The ``__init__`` turns the new
  instance into the twin, stores the fields as ordinary attribute stores (which
  Python runs without a call), and turns it back (``__class__`` assignment,
  which CPython allows between classes of one layout).  Nothing else can see
  the instance meanwhile, and only an instance of the class itself is turned
  (a subclass's instance takes the path below); for many fields it beats
  even the descriptors below;
* any other sets each slot through its own descriptor's ``__set__`` (one C
  call per field, no lookup).

Instances, equality, hashing, ``repr`` and immutability are untouched.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from typing import Any, TypeVar

_T = TypeVar("_T")

_NO_ARGUMENT = object()
"""The default of a parameter whose field has a ``default_factory``."""

TWIN_FIELDS = 6
"""Fields from which :func:`fast_init` builds through a twin class: its two
``__class__`` assignments cost about what the descriptors cost for 4 or 5 fields,
so from 6 the twin saves (docs/performance.md, The engine)."""


def fast_init(cls: type[_T]) -> type[_T]:
    """Give the frozen, slotted dataclass ``cls`` a faster ``__init__`` (see module docstring).

    Apply it on top of ``@dataclass(frozen=True, slots=True)``.  Raises
    :class:`TypeError` for anything else, and for ``InitVar`` fields.
    """
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen dataclass with slots")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    twin = _twin(cls) if len(fields) >= TWIN_FIELDS else None
    namespace: dict[str, Any] = {
        "_NO_ARGUMENT": _NO_ARGUMENT,
        "_cls": cls,
        "_twin": twin,
        "_type": type,
        "_as": object.__setattr__,
    }
    positional: list[str] = []
    keyword: list[str] = []
    body: list[str] = []
    stores: list[str] = []  # (twin) the attribute stores, after the defaults are worked out
    for f in fields:
        if not f.name.isidentifier() or f.name.startswith("__"):  # pragma: no cover
            raise TypeError(f"field {f.name!r} of {cls.__name__}")
        namespace[f"_set_{f.name}"] = _slot(cls, f.name).__set__
        if f.init:
            param = f.name
            if f.default is not dataclasses.MISSING:
                namespace[f"_default_{f.name}"] = f.default
                param += f"=_default_{f.name}"
            elif f.default_factory is not dataclasses.MISSING:
                namespace[f"_factory_{f.name}"] = f.default_factory
                param += "=_NO_ARGUMENT"
                body.append(
                    f"    if {f.name} is _NO_ARGUMENT:\n        {f.name} = _factory_{f.name}()\n"
                )
            (keyword if f.kw_only else positional).append(param)
        elif f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            body.append(f"    {f.name} = _default_{f.name}\n")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            body.append(f"    {f.name} = _factory_{f.name}()\n")
        else:
            continue  # not set by __init__ (dataclasses leaves it unset too)
        stores.append(f.name)
    if twin is None:
        body.extend(f"    _set_{name}(self, {name})\n" for name in stores)
    else:  # see the module docstring; a subclass's instance is not turned
        body.append("    if _type(self) is _cls:\n        _as(self, '__class__', _twin)\n")
        body.extend(f"        self.{name} = {name}\n" for name in stores)
        body.append("        self.__class__ = _cls\n    else:\n")
        body.extend(f"        _set_{name}(self, {name})\n" for name in stores)
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()\n")
    signature = ", ".join(["self", *positional, *(["*", *keyword] if keyword else [])])
    source = f"def __init__({signature}):\n{''.join(body) or '    pass'}\n"
    exec(source, namespace)  # the source holds only field names (identifiers)
    init = namespace["__init__"]
    if _names(init) != _names(cls.__init__):  # an InitVar, say: not written here
        raise TypeError(f"{cls.__name__}'s __init__ takes what fast_init cannot write")
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


def _twin(cls: type) -> type | None:
    """A plain class with ``cls``'s slots, that ``cls``'s instances may be turned
    into while they are built (see the module docstring); None if ``cls`` has a
    base other than ``object`` (its layout would not be the twin's)."""
    if cls.__bases__ != (object,):
        return None
    slots = cls.__dict__["__slots__"]
    twin = type(f"{cls.__name__}Builder", (object,), {"__slots__": slots})
    twin.__module__ = cls.__module__
    probe: object = object.__new__(cls)
    object.__setattr__(probe, "__class__", twin)  # raises if the layouts differ
    probe.__class__ = cls
    return twin


def _slot(cls: type, name: str) -> types.MemberDescriptorType:
    """The descriptor of the slot ``name`` (in ``cls`` or the slotted base declaring it)."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name)
        if isinstance(found, types.MemberDescriptorType):
            return found
    raise TypeError(f"{cls.__name__}.{name} is not a slot")


def _names(function: Any) -> list[tuple[str, Any]]:
    """The parameters of ``function``: names and kinds, in order."""
    return [(p.name, p.kind) for p in inspect.signature(function).parameters.values()]
