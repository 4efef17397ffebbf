"""Cardavia's wire protocol: every message both ways, validated at the edge.

* :mod:`protocol.client_messages` — what a client sends (:data:`ClientMessage`),
* :mod:`protocol.server_messages` — what the server sends (:data:`ServerMessage`),
* :mod:`protocol.models` — values shared by both (table options, table info),
* :mod:`protocol.errors` — the typed error codes,
* :mod:`protocol.codec` — msgpack binary frames to and from the models,
* :mod:`protocol.schema` — the JSON Schema of every message.

Game-specific data (views, actions, events, game options, results) travel as
plain data produced by :func:`engine.codec.to_plain`: the engine owns their shape.
"""

from __future__ import annotations

from protocol.base import FEATURES, PROTOCOL_VERSION
from protocol.client_messages import CLIENT_MESSAGES, ClientMessage
from protocol.codec import (
    FrameError,
    decode_client,
    decode_server,
    encode,
)
from protocol.errors import ErrorCode
from protocol.server_messages import SERVER_MESSAGES, ServerMessage

__all__ = [
    "CLIENT_MESSAGES",
    "FEATURES",
    "PROTOCOL_VERSION",
    "SERVER_MESSAGES",
    "ClientMessage",
    "ErrorCode",
    "FrameError",
    "ServerMessage",
    "decode_client",
    "decode_server",
    "encode",
]
