"""JSON Schema of every protocol message, generated from the models, and of every game."""

from __future__ import annotations

from typing import Any

from protocol.base import PROTOCOL_VERSION
from protocol.codec import client_adapter, server_adapter


def json_schema() -> dict[str, Any]:
    """One schema document: ``client`` (what clients send), ``server`` (what they receive)
    and ``games`` (each game's options, view, action and event: protocol.game_schema)."""
    from protocol.game_schema import all_game_schemas

    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Cardavia protocol",
        "description": (
            "Messages are msgpack maps in binary WebSocket frames; "
            f"protocol version {PROTOCOL_VERSION} (sent in hello). The game-specific "
            "fields are typed per game under 'games/<game id>': a table's 'options' "
            "(create, table info) by 'options', the 'view' of update and snapshot by 'view' "
            "(a spectator's by 'spectator_view'), act's 'action' and the entries of a "
            "view's 'legal' by 'action', and each entry of update's 'events' (and of "
            "replay steps) by 'event'."
        ),
        "protocol_version": PROTOCOL_VERSION,
        "client": client_adapter().json_schema(ref_template="#/client/$defs/{model}"),
        "server": server_adapter().json_schema(ref_template="#/server/$defs/{model}"),
        "games": all_game_schemas("#/games"),
    }
