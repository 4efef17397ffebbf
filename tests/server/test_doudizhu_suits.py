"""Dou Dizhu over real WebSockets: a play in non-listed suits is accepted and shown as played.

Suits never matter (rules/doudizhu.md, Cards, Decision): the landlord types a
pair of held cards other than the listed pair, the terminal client's typed
move mapping sends those cards, and every seat's update shows exactly them.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from typing import Any

from client_cli.client import Client, play_table
from client_cli.moves import Send, choose_move
from client_cli.render import Seats, renderer_for
from engine.doudizhu.hands import cards_of
from engine.doudizhu.state import Bid
from engine.registry import GAMES
from protocol import server_messages as sm
from server.app import CardaviaServer
from tests.server.helpers import Recorder, check_seen, drain, watch

GAME = GAMES["doudizhu"]


def landlord_pair(seed: int) -> list[str] | None:
    """The pair the first bidder, made landlord by bidding 3, will type: the last two
    suits of its lowest rank held three or four times (never the listed pair)."""
    state = GAME.new_state(GAME.options(), seed)
    state = GAME.apply(state, state.first_bidder, Bid(3)).state
    held = cards_of(state.hands[state.landlord])
    ranks = Counter(c.rank for c in held if c.rank not in "BR")
    rank = next((r for r, n in ranks.items() if n >= 3), None)
    if rank is None:
        return None
    return [c.rank + c.suit for c in held if c.rank == rank][-2:]


def chooser(seed: int, pair: list[str]) -> Any:
    """Bid 3 at once; lead ``pair`` typed as cards; otherwise random legal moves."""
    rng = random.Random(seed)
    render = renderer_for("doudizhu", Seats(me=None), "french")

    def choose(view: dict[str, Any]) -> Any:
        legal = view["legal"]
        if {"type": "bid", "value": 3} in legal:
            return {"type": "bid", "value": 3}
        if view["phase"] == "play" and not view["history"]:
            text = " ".join(pair)
            choice = choose_move(text, legal, render, view)
            assert isinstance(choice, Send), choice
            assert choice.action not in legal, "the typed pair is not the listed one"
            return dict(choice.action)
        return legal[rng.randrange(len(legal))]

    return choose


async def test_a_pair_in_other_suits_is_played_and_shown_to_every_seat(
    server: CardaviaServer,
) -> None:
    seed = next(s for s in range(100) if landlord_pair(s) is not None)
    pair = landlord_pair(seed)
    assert pair is not None
    server.lobby.seed_source = lambda: seed
    clients = [await Client.connect(server.url, f"p{i}") for i in range(3)]
    watcher = await Client.connect(server.url, "watcher")
    try:
        table = (await clients[0].create_table("doudizhu", {"seat": 0})).table.id
        await watcher.spectate(table)
        for i in (1, 2):
            assert (await clients[i].join(table)).seat == i
        recs = [Recorder() for _ in range(4)]
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    play_table(c, table, chooser(i, pair), on_message=recs[i])
                    for i, c in enumerate(clients)
                ),
                watch(watcher, table, recs[3]),
            ),
            60,
        )
        record = await server.store.load(table)
        assert record is not None and record.seed == seed
        replay = await watcher.replay(table)
        lead = next(i for i, s in enumerate(replay.steps) if s.action["type"] == "play")
        assert set(replay.steps[lead].action["cards"]) == set(pair)
        for seat, client in [*enumerate(clients), (None, watcher)]:
            rec = recs[seat if seat is not None else 3]
            await drain(client, rec)
            # every update equals the engine's view of the replayed game, exact cards included
            assert check_seen("doudizhu", replay, seed, seat, rec.messages, 1) > 0
            update = next(
                m for m in rec.messages if isinstance(m, sm.Update) and m.version == lead + 2
            )
            plays = [e["data"] for e in update.events if e["kind"] == "play"]
            assert [set(p["cards"]) for p in plays] == [set(pair)]
            assert set(update.view["last"]["cards"]) == set(pair)
            assert set(update.view["history"][-1]["play"]["cards"]) == set(pair)
    finally:
        for c in [*clients, watcher]:
            await c.close()
