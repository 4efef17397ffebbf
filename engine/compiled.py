"""Which modules run compiled (``scripts/compile.py``, mypyc), and whether any is stale.

Compiling is optional: each module in :data:`COMPILED` is plain Python unless
its shared library lies next to it, and either way it computes the same
results.  A library older than its source would run old code, so the server
refuses to start on one (:func:`stale`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from pathlib import Path

AI: tuple[str, ...] = (
    "engine/doudizhu/combos.py",
    "engine/doudizhu/hands.py",
    "engine/doudizhu/ai/hand.py",
    "engine/doudizhu/ai/normal.py",
    "engine/doudizhu/ai/bidding.py",
    "engine/doudizhu/ai/worlds.py",
    "engine/doudizhu/ai/search.py",
)
"""Dou Dizhu's rank-level combinations and card masks and its AI, whose search
runs on packed integers and gains most (twice the play-outs in the same
time).  The other games' searches spend their time in the shared engine
(states, ``replace``, :mod:`engine.search`) and gained nothing measurable
compiled.  Dou Dizhu's ``game.py``, which reads what clients send, stays plain
Python; of this compiled code, only :func:`engine.doudizhu.hands.mask_of` sees a
client's cards unchecked, and it takes any object; the rest gets what
``game.py`` has checked (``tests/engine/test_compiled.py`` sends malformed
plays through both builds).  Schafkopf's compiled ``game.py`` (:data:`GAMES`)
gets its moves decoded and typed by :func:`engine.codec.from_plain` first, as
the fuzzer's frames show."""

HOT_PATH: tuple[str, ...] = (
    "engine/codec.py",
    "engine/plain_decode.py",
    "engine/rng.py",
    "protocol/codec.py",
    "server/tables/action_cache.py",
    "server/tables/at_once.py",
    "server/net/connection.py",
    "server/net/flusher.py",
    "server/ops/metric_series.py",
    "server/net/outbox.py",
    "server/players/ratelimit.py",
    "server/players/sessions.py",
    "server/tables/summary_hold.py",
    "server/tables/actor.py",
    "server/tables/commands.py",
    "server/tables/core.py",
    "server/tables/reach.py",
    "server/tables/updates.py",
    "server/tables/values.py",
    "server/net/view_changes.py",
    "server/net/frames.py",
)
"""The server's path from a move to its updates: the connection's reading and sending, the
table's actor, core and values, the views' plain forms and their changes (and plain data
read back, :mod:`engine.plain_decode`), the deals' shuffle (:func:`engine.rng.shuffle`),
the frames and their queues, the WebSocket framing, the rate limit, the cache of decoded
moves and the metrics' series. A move takes about a third fewer instructions with them,
:data:`GENERATED` and :data:`GAMES` compiled (Schafkopf 677k → 392k, Scopa 484k → 333k:
``python -m bench.instructions --game schafkopf --against DIR``, ``DIR`` a plain
checkout). Each gets only what the server has checked already, as in plain Python, or
checks it itself (the codecs, which read what clients send: a compiled server meets the
fuzzer's frames with typed errors, no crash and no ``internal_error``, and the leak
audit's games with nothing leaked, see ``tests/engine/test_compiled.py``).
``server/net/batching.py`` stays plain: its class extends websockets' own connection, and
compiled (then in ``server/net/connection.py``) it crashed in the garbage collector. So do
the other games' modules: compiled with their values as Python classes, Schafkopf's
moves got no faster (see :data:`GAMES` for what did). In these modules, constants and
the names read on every move from modules that are not compiled (message classes,
``time.perf_counter``) are ``Final``: compiled, a Final name is a C static, any other
global a lookup in the module's dict at each use (5% of a Schafkopf move's
instructions)."""

GAMES: tuple[str, ...] = (
    "engine/schafkopf/state.py",
    "engine/schafkopf/hidden.py",
    "engine/schafkopf/rules.py",
    "engine/schafkopf/game.py",
)
"""Schafkopf's rules, state and views, compiled with their values made native
(:data:`NATIVE_VALUES`): a move's ``apply`` and four views take about half the
time (7.0 → 3.9 µs and 5.6 → 2.3 µs, random play), and the server's instructions
a move fall by 18% (475k → 388k).  Its moves (:mod:`engine.schafkopf.actions`:
mypyc's dataclasses lose their class variables) and its AI stay plain Python;
the ``hard`` AI decides the same in 13% less CPU (``python -m bench.search
--game schafkopf``).  The other games' states could follow the same way."""

NATIVE_VALUES: tuple[str, ...] = ("engine/schafkopf/state.py", "engine/schafkopf/hidden.py")
"""Modules whose frozen dataclasses the build makes native classes before compiling
them (:func:`engine.native_build.native_values`): compiled as they are, a
dataclass keeps the interpreted ``__init__`` :mod:`dataclasses` writes."""

COMPILED: tuple[str, ...] = AI + HOT_PATH + GAMES
"""The modules ``scripts/compile.py`` compiles, relative to the project root."""

GENERATED: tuple[str, ...] = ("engine/codec_converters.py",)
"""Modules that ``scripts/compile.py`` writes into its build and compiles, whose
libraries it puts beside the sources like the others' (no source of theirs is
in the tree): the conversions to plain data that :mod:`engine.codec` generates
for the games' views, events and moves (:data:`engine.codec.CONVERTER_SOURCES`),
compiled; :mod:`engine.codec_build` writes the module.  Run interpreted, they
were about a tenth of the server's time at 500 Schafkopf tables (py-spy)."""

ROOT = Path(__file__).resolve().parent.parent
GROUP = "cardavia_compiled__mypyc"
"""The name of the shared runtime library mypyc builds beside the modules."""


def module_name(path: str) -> str:
    """``engine/scopa/game.py`` → ``engine.scopa.game``."""
    return path.removesuffix(".py").replace("/", ".")


def _libraries(source: Path) -> Iterator[Path]:
    """The compiled libraries of the module ``source`` (``search.py`` →
    ``search.cpython-311-x86_64-linux-gnu.so``)."""
    return source.parent.glob(f"{source.stem}.*.so")


def compiled_files(root: Path = ROOT) -> Iterator[Path]:
    """The compiled libraries present under ``root`` (the modules' and the runtime's)."""
    yield from root.glob(f"{GROUP}.*")
    for path in COMPILED + GENERATED:
        yield from _libraries(root / path)


def loaded() -> list[str]:
    """The modules of :data:`COMPILED` and :data:`GENERATED` that import as compiled
    libraries."""
    out = []
    for path in COMPILED + GENERATED:
        spec = importlib.util.find_spec(module_name(path))
        if spec is not None and spec.origin is not None and not spec.origin.endswith(".py"):
            out.append(module_name(path))
    return out


def built(root: Path = ROOT) -> list[str]:
    """The modules of :data:`COMPILED` and :data:`GENERATED` that have a library
    under ``root`` (the modules a server started there runs compiled;
    ``root``-relative paths)."""
    return [path for path in COMPILED + GENERATED if any(_libraries(root / path))]


def stale(root: Path = ROOT) -> list[str]:
    """Sources changed after their library was built (``root``-relative paths)."""
    out = []
    for path in COMPILED:
        source = root / path
        if any(source.stat().st_mtime > lib.stat().st_mtime for lib in _libraries(source)):
            out.append(path)
    return out
