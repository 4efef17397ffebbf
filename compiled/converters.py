"""The module of compiled conversions that :mod:`compiled.build` writes into its build.

:mod:`engine.codec` generates the source of a conversion to plain data per
class it meets (:data:`engine.codec.CONVERTER_SOURCES`).  The build plays a
few seeded games of each game to collect them (:func:`converter_sources`),
writes them as one typed module (:func:`converter_module`,
:data:`compiled.modules.GENERATED`) and compiles it with the hot path.
"""

from __future__ import annotations

import random
import re

from compiled.modules import COMPILED, module_name
from engine.codec import CONVERTER_SOURCES, PlainMemo, converter_namespace, to_plain
from engine.registry import GAMES

_TYPED_NAMES = {
    "_scalars": "frozenset[type]",
    "_immutable_types": "dict[type, bool]",
    "_missing": "object",
}
"""The generated conversions' names whose type helps mypyc (the others are called)."""

_TYPED_LOCALS = {"last": "dict[str, Any] | None", "d": "dict[str, Any]"}
"""The locals of a conversion with a :class:`~engine.codec.PlainMemo` whose type helps
mypyc: the last call's dict and its copy (a dict's methods, called directly)."""


def converter_sources(seeds: int = 3) -> list[str]:
    """The conversions :mod:`engine.codec` generates while ``seeds`` random games of
    each game are played and converted as the server converts them: every
    seat's view and a spectator's (each state's together, as a table does),
    the events, the legal moves, the result."""
    for game in GAMES.values():
        options = game.options()
        seats: list[int | None] = [*range(game.num_seats(options)), None]
        for seed in range(seeds):
            rng = random.Random(seed)
            state = game.new_state(options, seed)
            events = list(game.start_events(state))
            memo = PlainMemo()
            while True:
                views = [game.view(state, seat) for seat in seats]
                memo.convert(views)
                to_plain([*views, *events])
                if game.is_over(state):
                    break
                seat = game.to_act(state)[0]
                legal = game.legal_actions(state, seat)
                to_plain(legal)
                transition = game.apply(state, seat, rng.choice(legal))
                state, events = transition.state, list(transition.events)
            to_plain(game.result(state))
    return list(CONVERTER_SOURCES)


def converter_module(sources: list[str] | None = None) -> str:
    """The module of :data:`~compiled.modules.GENERATED`: each of ``sources`` (by
    default :func:`converter_sources`) as a typed function, and ``BY_SOURCE``, each
    function by the source it was made from.

    The code is the source's own, with its arguments and locals typed and
    ``_list``, ``_map`` and ``_sorted`` (bound to the builtins) called by their
    builtin names, which mypyc runs directly.  The value converted is typed as its
    class (named on the source's first line) when that class's module is compiled
    (:data:`~compiled.modules.COMPILED`: its dataclasses are native), so that
    compiled its fields are read directly."""
    if sources is None:
        sources = converter_sources()
    names = sorted(converter_namespace())
    lines = [
        '"""engine.codec\'s generated conversions, compiled: written by compiled.build',
        'into its build (see engine.codec.CONVERTER_SOURCES).  Not for editing."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any, Final",
        "",
        "from engine import codec as _codec",
        "",
        "_NAMES = _codec.converter_namespace()",
    ]
    for name in names:
        typed = _TYPED_NAMES.get(name)
        lines.append(f"{name}: Final{f'[{typed}]' if typed else ''} = _NAMES[{name!r}]")
    compiled = {module_name(path) for path in COMPILED}
    imports: list[str] = []
    table = []
    for i, source in enumerate(sources):
        named, head, body = source.split("\n", 2)
        module, _, qualname = named.removeprefix("# ").rpartition(".")
        value = "Any"
        if module in compiled:  # a native class: its fields read directly
            value = f"_V{i}"
            imports.append(f"from {module} import {qualname} as {value}")
        if head == "def convert(v, mine, prev, ch):":
            signature = f"v: {value}, mine: list[Any], prev: list[Any] | None, ch: dict[str, Any]"
        elif head == "def convert(v):":
            signature = f"v: {value}"
        else:  # pragma: no cover - engine.codec generates only these two
            raise ValueError(f"unexpected conversion: {head}")
        local = sorted(set(re.findall(r"\b(r\d+|x|t|k|c)\b(?= =| :=)", body)))
        typed_locals = [name for name in _TYPED_LOCALS if re.search(rf"\b{name} = ", body)]
        for builtin in ("list", "map", "sorted"):
            body = body.replace(f"_{builtin}(", f"{builtin}(")
        lines += ["", "", f"def _c{i}({signature}) -> dict[str, Any]:"]
        lines += [f"    {name}: Any" for name in local]
        lines += [f"    {name}: {_TYPED_LOCALS[name]}" for name in typed_locals]
        lines.append(body.rstrip("\n"))
        table.append(f"    {source!r}: _c{i},")
    lines += ["", "", "BY_SOURCE: Final[dict[str, Any]] = {", *table, "}", ""]
    at = lines.index("from engine import codec as _codec") + 1
    lines[at:at] = imports
    return "\n".join(lines)
