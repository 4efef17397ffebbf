"""A connection the server has begun closing runs no more of its requests.

Whatever such a request did could not be answered (the connection is going
away), so it must not change anything: a move read then is not played.
"""

from __future__ import annotations

from client_cli.client import Client, random_chooser
from protocol import client_messages as cm
from protocol import server_messages as sm
from protocol.codec import encode
from server.app import CardaviaServer

AI = [{"seat": 1, "level": "random"}]


async def test_a_move_read_after_the_server_began_closing_is_not_played(
    server: CardaviaServer,
) -> None:
    old = await Client.connect(server.url, "ann")
    table = (await old.create_table("scopa", {"seat": 0, "ai": AI})).table.id
    while not ((state := old.tables[table]).my_turn and state.view is not None):
        await old.receive(15)
    record = await server.store.load(table)
    assert record is not None
    logged = len(record.actions)
    move = random_chooser(0)(state.view)
    transport = old.ws.transport
    assert transport is not None
    transport.pause_reading()  # ann's old client does not see the close coming
    # resuming the session elsewhere makes the server close the old connection (4000)
    # before it answers the new one
    new = await Client.connect(server.url, "x", token=old.token)
    assert new.resumed
    await new.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, 15)
    act = cm.Act(id=77, table=table, seat=state.seat, version=state.version, action=dict(move))
    await old.ws.send(encode(act))  # read by the server after it began closing `old`
    transport.resume_reading()
    await old.ws.wait_closed()  # the server read the move before the close's answer
    await new.chat(table, "after")  # queued at the table behind anything the move did
    assert new.tables[table].version == state.version
    record = await server.store.load(table)
    assert record is not None and len(record.actions) == logged
    # the seat is still ann's to play, through the new connection
    await new.act(table, move, seat=state.seat, version=state.version)
    assert new.tables[table].version > state.version
    await new.close()
    await old.close()
