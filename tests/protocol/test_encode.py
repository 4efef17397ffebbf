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


def test_a_frame_of_fields_is_the_frame_of_their_message_made_when_asked_for() -> None:
    from protocol.codec import unchecked

    fields = {
        "type": "update", "table": "t1", "game_no": 2, "version": 7, "seat": 1, "actor": 0,
        "by": "human", "events": ({"kind": "play", "data": {"seat": 0, "card": "7D"}},),
        "view": {"hand": ["AS"], "counts": {0: 3, 1: 2}}, "timer_s": 12.5, "ref": 4,
    }  # fmt: skip
    frame = Frame.of_fields(Update, fields)
    assert frame.message_type is Update  # known without making the message
    assert frame.data == Frame.of(unchecked(Update, dict(fields))).data
    message = frame.message
    assert isinstance(message, Update) and frame.message is message  # made once
    assert message == Update.model_validate(fields)
    assert Frame(None, frame.data).message is None  # relayed bytes: no message


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
        "ref": 3,
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


@pytest.mark.parametrize("game_id", ["cicera", "doudizhu", "schafkopf", "scopa"])
def test_every_games_updates_encode_as_msgpack_does(game_id: str) -> None:
    """ormsgpack writes msgpack's very bytes for real views (int keys, nesting, floats)."""
    import itertools
    import random

    from engine.codec import to_plain
    from engine.registry import GAMES
    from protocol.models import TableOptions
    from server.tables.core import TableCore
    from server.tables.options import check_options

    seeds = itertools.count(5)
    core = TableCore(
        "t1", check_options(GAMES[game_id], TableOptions()), owner=None, quick=False,
        invite=None, seed_source=lambda: next(seeds), ai_delay=0.0, disconnect_grace=5.0,
    )  # fmt: skip
    messages = []
    for seat in range(len(core.seats)):
        messages += [m for _, m in core.join(f"p{seat}", f"P{seat}", seat, 0.0).outs]
    rng = random.Random(3)
    for _ in range(40):
        seat = core.game.to_act(core.state)[0]
        legal = to_plain(core.game.legal_actions(core.state, seat))
        messages += [m for _, m in core.act(f"p{seat}", seat, core.version, rng.choice(legal),
                                             "human", 1.0).outs]  # fmt: skip
        if core.status != "playing":
            break
    assert len(messages) > 40
    for message in messages:
        if isinstance(message, Frame):  # an update, encoded from its fields as it was made
            data = message.data
            message = message.message
            assert data == encode(message)
        dumped = message.model_dump(mode="python")
        assert encode(message) == msgpack.packb(dumped, use_bin_type=True)


def test_an_engine_value_is_never_packed_as_it_is() -> None:
    """Only plain data goes on the wire: an engine dataclass is refused, as msgpack refuses it."""
    from engine.cards import parse_card
    from protocol.codec import unchecked
    from protocol.server_messages import Ok

    with pytest.raises(TypeError):
        encode(unchecked(Ok, {"type": "ok", "ref": parse_card("7D")}))  # type: ignore[dict-item]
