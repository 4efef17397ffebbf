"""encode() writes the same bytes as packing model_dump(), without building that copy."""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest

from protocol.codec import Frame, decode_server, encode
from protocol.server_messages import Update
from tests.protocol.test_messages import SERVER_SAMPLES


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_encode_is_byte_for_byte_the_packed_model_dump(message: Any) -> None:
    assert encode(message) == msgpack.packb(message.model_dump(mode="python"), use_bin_type=True)


def test_a_frame_carries_its_message_and_its_encoding() -> None:
    update = Update.model_construct(
        table="t1", game_no=1, version=3, seat=None, events=({"kind": "k", "data": {}},), view={}
    )
    frame = Frame.of(update)
    assert frame.message is update
    assert frame.data == encode(Update.model_validate(update.model_dump()))
    assert decode_server(frame.data) == Update.model_validate(update.model_dump(), strict=False)
