"""Every update the table core builds without validation is exactly the validated message."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from engine.codec import to_plain
from engine.registry import GAMES
from protocol import server_messages as sm
from protocol.codec import encode, encode_json
from protocol.models import TableOptions
from server.table_core import TableCore
from server.table_options import check_options


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_updates_along_whole_games_encode_as_validated_ones_and_show_each_seat_its_view(
    game_id: str,
) -> None:
    setup = check_options(GAMES[game_id], TableOptions(turn_timer=30))
    seeds = itertools.count(5)
    core = TableCore(
        "t1", setup, owner=None, quick=False, invite=None, seed_source=lambda: next(seeds),
        ai_delay=0.0, disconnect_grace=5.0,
    )  # fmt: skip
    core.spectate("watcher", "W", 0.0)
    outs: list[tuple[str, Any]] = []
    for i in range(len(core.seats)):
        outs = core.join(f"p{i}", f"P{i}", i, 0.0).outs
    rng = random.Random(3)
    games = checked = 0
    now = 0.0
    while games < 2:
        for pid, message in outs:
            if not isinstance(message, sm.Update):
                continue
            validated = sm.Update.model_validate(message.model_dump())
            assert message == validated
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
