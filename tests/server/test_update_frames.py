"""Every update the table core builds without validation is exactly the validated message."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.codec import Frame, encode, encode_json
from protocol.models import AiSeat, TableInfo, TableOptions
from tests.server.helpers import make_core


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_updates_along_whole_games_encode_as_validated_ones_and_show_each_seat_its_view(
    game_id: str,
) -> None:
    core = make_core(game_id, TableOptions(turn_timer=30), seed=5)
    core.spectate("watcher", "W", 0.0)
    outs: list[tuple[str, Any]] = []
    for i in range(len(core.seats)):
        outs = core.join(f"p{i}", f"P{i}", i, 0.0).outs
    rng = random.Random(3)
    games = checked = 0
    now = 0.0
    while games < 2:
        for pid, out in outs:
            if not isinstance(out, Frame):  # updates go out as frames made from their fields
                assert not isinstance(out, sm.Update)
                continue
            message = out.message
            assert isinstance(message, sm.Update)
            validated = sm.Update.model_validate(message.model_dump())
            assert message == validated
            assert out.data == encode(validated)
            assert encode(message) == encode(validated)
            assert encode_json(message) == encode_json(validated)
            assert message.view == to_plain(core.game.view(core.state, message.seat))
            assert message.seat == core.seat_of(pid)
            checked += 1
        if core.status == "finished":
            games += 1
            outs = [o for i in range(len(core.seats)) for o in core.rematch(f"p{i}", now).outs]
            continue
        now += 1.0
        seat = core.game.to_act(core.state)[0]
        action = to_plain(rng.choice(core.game.legal_actions(core.state, seat)))
        outs = core.act(f"p{seat}", seat, core.version, action, "human", now).outs
    assert checked > 20


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_table_summaries_built_without_validation_are_the_validated_ones(game_id: str) -> None:
    """:meth:`TableCore.info` at every stage of a table's life: waiting with empty,
    AI and human seats, watched, playing with a human away (then covered by the AI),
    finished with rematch votes; equal to, and encoding as, the validated summary."""
    ai = (AiSeat(seat=1, level=None),)
    options = TableOptions(ai=ai, private=True, turn_timer=30, ai_delay=0)
    core = make_core(game_id, options, seed=7, owner="p0", invite="inv", ai_delay=0)
    summaries = [core.info(0.0)]
    core.join("p0", "Ann", 0, 0.0)
    core.spectate("w", "Wes", 0.0)
    summaries.append(core.info(0.0))
    for seat in range(2, len(core.seats)):
        core.join(f"p{seat}", f"P{seat}", seat, 0.0)
    summaries.append(core.info(1.0))  # playing
    core.disconnect("p0", 2.0)
    summaries += [core.info(3.0), core.info(100.0)]  # away, then covered by the AI
    core.reconnect("p0", 101.0)
    rng = random.Random(5)
    now = 102.0
    while core.status == "playing":
        (seat, *_) = core.game.to_act(core.state)
        action = to_plain(rng.choice(core.game.legal_actions(core.state, seat)))
        pid = core.seats[seat].player_id if core.seats[seat].kind == "human" else None
        core.act(pid, seat, core.version, action, "human" if pid else "ai", now)
        now += 1.0
    summaries.append(core.info(now))
    core.rematch("p0", now)
    summaries.append(core.info(now))
    # a vote counted, or (Ann the only human) the next game started at once
    assert summaries[-1].rematch_votes == (0,) or summaries[-1].game_no == 2
    assert {s.status for s in summaries} == {"waiting", "playing", "finished"}
    assert any(seat.ai_covering for s in summaries for seat in s.seats)
    for fast in summaries:
        validated = TableInfo.model_validate(fast.model_dump())
        assert fast == validated
        assert encode(sm.TableChanged(table=fast)) == encode(sm.TableChanged(table=validated))
        assert encode_json(sm.TableChanged(table=fast)) == encode_json(
            sm.TableChanged(table=validated)
        )
