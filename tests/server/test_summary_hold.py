"""server.tables.summary_hold: a table's summary-only changes are held briefly, a newer one
replacing a held one, and never held past the game's messages."""

from __future__ import annotations

import asyncio

import pytest

from client_cli.client import Client
from protocol import server_messages as sm
from protocol.codec import Frame
from server.app import CardaviaServer
from server.tables import summary_hold
from server.tables.summary_hold import HOLD_S, SummaryHold
from server.tables.values import Out
from tests.server.helpers import make_core


def _summary(spectators: int) -> sm.TableChanged:
    info = make_core("scopa").info().model_copy(update={"spectators": spectators})
    return sm.TableChanged(table=info)


def _to_all(message: object) -> list[Out]:
    return [("a", message), ("b", message)]  # type: ignore[list-item]


async def test_a_burst_of_summaries_sends_the_newest_once_after_the_hold() -> None:
    sent: list[list[Out]] = []
    hold = SummaryHold()
    for n in (1, 2, 3):
        hold.send(_to_all(_summary(n)), sent.append)
    assert sent == [] and hold.holding
    await asyncio.sleep(HOLD_S * 3)
    assert len(sent) == 1 and sent[0][0][1].table.spectators == 3  # type: ignore[union-attr]
    assert not hold.holding


async def test_other_messages_go_at_once_after_the_held_summary() -> None:
    sent: list[list[Out]] = []
    hold = SummaryHold()
    summary, ok = _to_all(_summary(1)), [("a", sm.Ok(ref=1))]
    hold.send(summary, sent.append)
    hold.send(ok, sent.append)  # type: ignore[arg-type]
    assert sent == [summary, ok] and not hold.holding
    # a change that carries a newer summary itself makes the held one moot
    hold.send(_to_all(_summary(2)), sent.append)
    newer: list[Out] = [*_to_all(_summary(3)), ("a", Frame(None, b"\x80"))]
    hold.send(newer, sent.append)
    assert sent[2:] == [newer]
    await asyncio.sleep(HOLD_S * 3)
    assert len(sent) == 3  # nothing was left to send later


async def test_a_dropped_summary_is_never_sent() -> None:
    sent: list[list[Out]] = []
    hold = SummaryHold()
    hold.send(_to_all(_summary(1)), sent.append)
    hold.drop()
    hold.send([], sent.append)
    await asyncio.sleep(HOLD_S * 3)
    assert sent == [] and not hold.holding


async def test_spectators_arriving_together_cost_the_owner_one_summary(
    server: CardaviaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(summary_hold, "HOLD_S", 0.5)  # the burst surely fits, however slow
    owner = await Client.connect(server.url, "Ann")
    watchers = [await Client.connect(server.url, f"W{i}") for i in range(3)]
    try:
        joined = await owner.create_table("scopa", {"seat": 0})
        table = joined.table.id
        await asyncio.gather(*(w.spectate(table) for w in watchers))
        summaries = []
        while True:
            try:
                msg = await owner.receive(1.5)
            except TimeoutError:
                break
            if isinstance(msg, sm.TableChanged):
                summaries.append(msg.table)
        assert [s.spectators for s in summaries] == [3]
        assert owner.tables[table].info is not None
        assert owner.tables[table].info.spectators == 3
    finally:
        for c in (owner, *watchers):
            await c.close()
