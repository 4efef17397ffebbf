"""Decoded actions kept by their bytes, so a move repeated is not decoded again.

:meth:`engine.game.Game.decode_action` walks the action's type annotations
for every move a player sends; it is a pure function of the plain data, and
the same few actions (play this card, bid that) come back game after game.
:class:`ActionDecoder` keeps each decoded action, with its canonical plain
form (what the log stores), under the msgpack bytes of what was received.

msgpack keeps apart exactly what the decoder keeps apart (``true`` and
``1``, ``1`` and ``1.0``, text and bytes); it packs a list and a tuple
alike, as the decoder reads them alike.  The key is packed by ormsgpack (the
same bytes as ``msgpack.packb``, in a third of the time: it is packed for
every move).  Whatever cannot be packed (a map with keys other than text,
say), or does not decode, is handed to the game every time (its error, never
a cached one).  The cache is bounded: when full it starts afresh.
"""

from __future__ import annotations

from typing import Any, Final

import ormsgpack

from engine.codec import to_plain
from engine.game import Game

MAX_ENTRIES: Final = 4096
"""Decoded actions kept per game before the cache starts afresh."""


class ActionDecoder:
    """``game.decode_action`` with its results kept (see the module docstring)."""

    def __init__(self, game: Game[Any, Any, Any, Any], max_entries: int = MAX_ENTRIES) -> None:
        self.game = game
        self.max_entries = max_entries
        self._known: dict[bytes, tuple[Any, Any]] = {}

    def decode(self, data: Any) -> tuple[Any, Any]:
        """The typed action in ``data`` and its canonical plain form.

        Raises :class:`~engine.game.IllegalAction` (``bad_action``) as the game does.
        """
        try:
            key = ormsgpack.packb(data)
        except TypeError:  # not msgpack data (MsgpackEncodeError): let the game say why
            key = None
        if key is not None:
            found = self._known.get(key)
            if found is not None:
                return found
        typed = self.game.decode_action(data)
        entry = (typed, to_plain(typed))
        if key is not None:
            if len(self._known) >= self.max_entries:
                self._known.clear()
            self._known[key] = entry
        return entry

    def __len__(self) -> int:
        return len(self._known)


_DECODERS: Final[dict[str, ActionDecoder]] = {}


def decoder_for(game: Game[Any, Any, Any, Any]) -> ActionDecoder:
    """The one :class:`ActionDecoder` of ``game`` in this process (shared by its tables)."""
    decoder = _DECODERS.get(game.id)
    if decoder is None or decoder.game is not game:
        decoder = _DECODERS[game.id] = ActionDecoder(game)
    return decoder
