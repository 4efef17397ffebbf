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


def test_an_unchecked_message_is_the_validated_one() -> None:
    from protocol.codec import encode_json, unchecked
    from protocol.server_messages import Ok

    fields = {
        "type": "update",
        "table": "t1",
        "game_no": 2,
        "version": 7,
        "seat": 1,
        "actor": 0,
        "by": "human",
        "events": ({"kind": "play", "data": {"card": "7D"}},),
        "view": {"hand": ["AS"], "legal": [{"type": "play", "card": "AS"}]},
        "timer_s": 12.5,
    }
    fast = unchecked(Update, dict(fields))
    slow = Update.model_validate(fields)
    assert fast == slow and fast.model_dump() == slow.model_dump()
    assert encode(fast) == encode(slow) and encode_json(fast) == encode_json(slow)
    assert unchecked(Ok, {"type": "ok", "ref": 4}) == Ok(ref=4)
    with pytest.raises(ValueError, match="fields"):
        unchecked(Ok, {"ref": 4, "type": "ok"})  # not in declaration order
    with pytest.raises(ValueError, match="fields"):
        unchecked(Ok, {"type": "ok"})  # one missing
