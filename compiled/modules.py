"""Which modules the build compiles (:mod:`compiled.build`, mypyc).

Compiling is optional: each module listed here is plain Python unless its
shared library lies next to it, and either way it computes the same results
(``tests/engine/test_compiled.py`` runs the engine's conformance suite and the
server's socket tests against a compiled copy).  A module compiled here must
compile as written: its classes are native classes where mypyc makes them so
(undecorated or ``@dataclass`` only) and Python classes otherwise; nothing is
rewritten before compiling.
"""

from __future__ import annotations

from typing import Final

AI: Final[tuple[str, ...]] = (
    "engine/doudizhu/combos.py",
    "engine/doudizhu/hands.py",
    "engine/doudizhu/ai/hand.py",
    "engine/doudizhu/ai/normal.py",
    "engine/doudizhu/ai/bidding.py",
    "engine/doudizhu/ai/worlds.py",
    "engine/doudizhu/ai/search.py",
)
"""Dou Dizhu's rank-level combinations and card masks and its AI, whose search
runs on packed integers and gains most (about twice the play-outs in the same
time).  The other games' searches spend their time in the shared engine
(states, ``replace``, :mod:`engine.search`) and gained nothing measurable
compiled.  Dou Dizhu's ``game.py``, which reads what clients send, stays plain
Python; of this compiled code, only :func:`engine.doudizhu.hands.mask_of` sees a
client's cards unchecked, and it takes any object; the rest gets what
``game.py`` has checked (``tests/engine/test_compiled.py`` sends malformed
plays through both builds)."""

HOT_PATH: Final[tuple[str, ...]] = (
    "engine/codec.py",
    "engine/plain_decode.py",
    "engine/rng.py",
    "protocol/codec.py",
    "server/tables/action_cache.py",
    "server/tables/at_once.py",
    "server/tables/commands.py",
    "server/net/connection.py",
    "server/net/flusher.py",
    "server/ops/metric_series.py",
    "server/net/outbox.py",
    "server/players/ratelimit.py",
    "server/players/sessions.py",
    "server/tables/summary_hold.py",
    "server/tables/actor.py",
    "server/tables/core.py",
    "server/tables/reach.py",
    "server/tables/updates.py",
    "server/tables/values.py",
    "server/net/view_changes.py",
    "server/net/frames.py",
)
"""The server's path from a move to its updates: the connection's reading and
sending, the table's actor, core and values, the views' plain forms and their
changes (and plain data read back, :mod:`engine.plain_decode`), the deals'
shuffle (:func:`engine.rng.shuffle`), the frames and their queues, the WebSocket
framing, the rate limit, the cache of decoded moves and the metrics' series.
Each gets only what the server has checked already, as in plain Python, or
checks it itself (the codecs, which read what clients send: a compiled server
meets the fuzzer's frames with typed errors, no crash and no ``internal_error``,
and the leak audit's games with nothing leaked).  ``server/net/batching.py``
stays plain: its class extends websockets' own connection, and compiled it
crashed in the garbage collector.  In these modules, constants and the names
read on every move from modules that are not compiled (message classes,
``time.perf_counter``) are ``Final``: compiled, a Final name is a C static, any
other global a lookup in the module's dict at each use."""

GAMES: Final[tuple[str, ...]] = (
    "engine/schafkopf/state.py",
    "engine/schafkopf/rules.py",
    "engine/schafkopf/game.py",
)
"""Schafkopf's values, rules and game (moves applied, views made).  The values
(:mod:`engine.schafkopf.state`) are written so that mypyc makes them native
classes as they are: plain frozen dataclasses, each with an ``__init__`` of
``object.__setattr__`` calls (compiled: stores into the instance) and a
``__reduce__`` (the AI's processes get them pickled), their annotations set
again as written after the classes (mypyc leaves evaluated types there, which
:mod:`engine.codec` cannot plan or decode by), their fixed length tuples typed
as tuples of any length (:data:`engine.schafkopf.state.Four`); plain Python
gives them :func:`engine.frozen.fast_init`'s ``__init__`` instead.  The moves and
options, whose class variables mypyc would make fields and whose base is a
Python class, live in :mod:`engine.schafkopf.moves`, not compiled; so do the
AI and :mod:`engine.schafkopf.hidden`."""

GENERATED: Final[tuple[str, ...]] = ("compiled/codec_converters.py",)
"""The module the build writes into its copy of the sources and compiles, whose
library it puts in this package (no source of it is in the tree): the
conversions to plain data that :mod:`engine.codec` generates for the games'
views, events and moves (:data:`engine.codec.CONVERTER_SOURCES`), written by
:func:`compiled.converters.converter_module`."""

COMPILED: Final[tuple[str, ...]] = AI + HOT_PATH + GAMES
"""The modules of the tree that the build compiles, relative to the project root."""

GROUP: Final = "cardavia_compiled__mypyc"
"""The name of the shared runtime library mypyc builds beside the modules."""


def module_name(path: str) -> str:
    """``engine/scopa/game.py`` → ``engine.scopa.game``."""
    return path.removesuffix(".py").replace("/", ".")
