"""The base of every protocol model and the protocol version."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

PROTOCOL_VERSION = 1
"""Sent in ``hello``; the server refuses any other with ``unsupported_version``."""

FEATURES = ("update_ref", "view_changes", "reasons")
"""Optional protocol features a client may ask for in ``hello`` (``docs/protocol.md``):

* ``update_ref``: the answer to an ``act`` may be the mover's own ``update``,
  carrying the act's id as ``ref``, instead of a separate ``ok``.
* ``view_changes``: an ``update``'s view holds only the fields that changed
  since the view last sent for that table in the same game; the client merges.
* ``reasons``: an ``error`` refusing a move carries ``reason``, why the rules
  refuse it as a key and parameters, for the client to say in its language.
"""


def known_features(names: Iterable[object]) -> tuple[str, ...]:
    """The names of :data:`FEATURES` among ``names``, in that order (others are
    ignored, not refused: a newer client may know more)."""
    asked = list(names)
    return tuple(f for f in FEATURES if f in asked)


RequestId = Annotated[int, Field(ge=0, le=2**53 - 1)]
"""A number the client picks for a request; replies and errors echo it as ``ref``."""

TableId = Annotated[str, Field(min_length=1, max_length=64)]
Seat = Annotated[int, Field(ge=0, le=63)]
Plain = dict[str, Any]
"""Game data as produced by :func:`engine.codec.to_plain` (the engine owns its shape)."""


class Model(BaseModel):
    """Frozen, strict, and no field beyond those declared."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)
