"""JSON Schema of every protocol message, generated from the models."""

from __future__ import annotations

from typing import Any

from protocol.base import PROTOCOL_VERSION
from protocol.codec import client_adapter, server_adapter


def json_schema() -> dict[str, Any]:
    """One schema document: ``client`` (what clients send) and ``server`` (what they receive)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Cardavia protocol",
        "description": (
            "Messages are msgpack maps in binary WebSocket frames; "
            f"protocol version {PROTOCOL_VERSION} (sent in hello)."
        ),
        "protocol_version": PROTOCOL_VERSION,
        "client": client_adapter().json_schema(ref_template="#/client/$defs/{model}"),
        "server": server_adapter().json_schema(ref_template="#/server/$defs/{model}"),
    }
