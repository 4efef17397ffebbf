"""``hint`` over a real socket: the strongest policy's move from the seat's own view (the
same as the terminal's hint), and the typed refusals."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client_cli.client import Client, ServerError, table_peers
from client_cli.hint import hint as terminal_hint
from engine.codec import from_plain, to_plain
from engine.registry import get_game, policy_names
from protocol import client_messages as cm
from protocol import server_messages as sm
from server.app import CardaviaServer, running_server
from server.tables import hints
from tests.server.helpers import FAST


async def _hint(client: Client, table: str) -> sm.HintReply:
    return await client._request(cm.Hint(table=table), sm.HintReply)


async def _refused(client: Client, table: str) -> ServerError:
    with pytest.raises(ServerError) as info:
        await _hint(client, table)
    return info.value


async def _my_turn(client: Client, table: str) -> dict[str, Any]:
    await client.wait_for(lambda m: client.tables[table].my_turn, 10)
    view = client.tables[table].view
    assert view is not None
    return view


@pytest.mark.parametrize("game", ["scopa", "doudizhu", "schafkopf"])
async def test_a_hint_is_the_strongest_policy_s_move_from_the_seat_s_view(
    server: CardaviaServer, game: str
) -> None:
    async with await Client.connect(server.url, "Ann") as ann:
        joined = await ann.create_table(game, {"seat": 0, "fill_after": 0})
        table = joined.table.id
        for _ in range(2):  # two turns of the seat: each hint for the view it was asked at
            view = await _my_turn(ann, table)
            reply = await _hint(ann, table)
            state = ann.tables[table]
            assert (reply.table, reply.seat, reply.version) == (table, 0, state.version)
            assert reply.level == policy_names(game)[-1]
            # what the terminal computes from the same view, with no server at all
            index, _ = await asyncio.to_thread(terminal_hint, game, view, None, table_peers(state))
            assert reply.index == index
            assert reply.action == view["legal"][index]
            again = await _hint(ann, table)  # the same view, the same hint
            assert again.model_copy(update={"ref": None}) == reply.model_copy(update={"ref": None})
            await ann.act(table, reply.action)


def test_the_seed_depends_on_the_view_only() -> None:
    """The seed comes from the seat's plain view: the same view (in any key order, as
    JSON or as typed values made plain) gives the same seed, a view that differs in
    anything another."""
    game = get_game("scopa")
    state = game.new_state(game.options(), 7)
    plain = dict(to_plain(game.view(state, 0)))
    assert hints.view_seed(plain) == hints.view_seed(dict(reversed(list(plain.items()))))
    assert hints.view_seed(to_plain(from_plain(game.view_type, plain, "view"))) == (
        hints.view_seed(plain)
    )
    other = {**plain, "stock_count": int(plain["stock_count"]) + 1}
    assert hints.view_seed(other) != hints.view_seed(plain)
    assert hints.view_seed(dict(to_plain(game.view(state, 1)))) != hints.view_seed(plain)


async def test_refusals_are_typed_and_change_nothing(server: CardaviaServer) -> None:
    async with (
        await Client.connect(server.url, "Ann") as ann,
        await Client.connect(server.url, "Bob") as bob,
        await Client.connect(server.url, "Cy") as cy,
    ):
        waiting = await ann.create_table("scopa", {"seat": 0})
        refused = await _refused(ann, waiting.table.id)
        assert refused.code == "not_playing"
        await bob.join(waiting.table.id, seat=1)
        table = waiting.table.id
        await ann.wait_for(lambda m: ann.tables[table].view is not None, 10)
        await bob.wait_for(lambda m: bob.tables[table].view is not None, 10)
        to_act, waiter = (ann, bob) if ann.tables[table].my_turn else (bob, ann)
        version = to_act.tables[table].version
        assert (await _refused(waiter, table)).code == "not_your_turn"
        assert (await _refused(cy, table)).code == "not_at_table"
        await cy.spectate(table)
        refused = await _refused(cy, table)
        assert (refused.code, refused.error.detail) == ("forbidden", "spectator")
        assert (await _hint(to_act, table)).version == version
        assert server.lobby.tables[table].core.version == version  # a hint moves nothing

        off = await ann.create_table("scopa", {"seat": 0, "fill_after": 0, "hints": False})
        await _my_turn(ann, off.table.id)
        refused = await _refused(ann, off.table.id)
        assert (refused.code, refused.error.detail) == ("forbidden", "hints_off")


async def test_hints_count_against_the_connection_s_rate() -> None:
    config = FAST.replace(rate_per_s=0.5, rate_burst=8)
    async with running_server(config) as server, await Client.connect(server.url, "Ann") as ann:
        joined = await ann.create_table("scopa", {"seat": 0, "fill_after": 0})
        await _my_turn(ann, joined.table.id)
        codes = []
        for _ in range(8):
            try:
                await ann._request_once(cm.Hint(table=joined.table.id), sm.HintReply)
                codes.append("hint")
            except ServerError as exc:
                codes.append(exc.code)
        assert "hint" in codes and "rate_limited" in codes
