"""Moderation (issue 54): mutes and blocks, kicks, reports and bans, as values, on
SQLite and on a real PostgreSQL, through a real server and sockets, and the
operators' console (``cardavia-admin``) as a subprocess."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from client_cli.client import Client, ClientClosed, ServerError
from protocol import server_messages as sm
from protocol.errors import ErrorCode
from protocol.models import TableOptions
from server.app import CardaviaServer, running_server
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.models import AccountRow, RelationRow
from server.players.accounts import Accounts
from server.players.moderation import Ban, BanList, Moderation, NewReport, ReportedChat
from server.players.relations import RelationKind, Relations, blocks_between
from tests.server.helpers import FAST
from tests.server.redis_fixture import RedisServer, fast_redis_config
from tests.server.test_accounts import PASSWORD, fast_hasher

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def ban(
    *,
    account: str | None = None,
    address: str | None = None,
    hours: float = 1.0,
    lifted: bool = False,
) -> Ban:
    return Ban(
        ban_id="b_1",
        account_id=account,
        account_name=None,
        address=address,
        until=NOW + timedelta(hours=hours),
        reason="spam",
        banned_by="op",
        created_at=NOW - timedelta(hours=1),
        lifted_at=NOW if lifted else None,
    )


# -- values -----------------------------------------------------------------------------


def test_relations_add_and_remove_without_changing_the_original() -> None:
    none = Relations()
    muted = none.with_(RelationKind.MUTE, "a_1", True)
    both = muted.with_(RelationKind.BLOCK, "p_2", True)
    assert none == Relations() and muted.muted == {"a_1"} and not muted.blocked
    assert both.blocked == {"p_2"} and both.muted == {"a_1"}
    assert both.with_(RelationKind.MUTE, "a_1", False) == Relations(blocked=frozenset({"p_2"}))
    assert muted.merged(both) == both


def test_a_block_either_way_keeps_a_pair_apart() -> None:
    ann = Relations(blocked=frozenset({"a_bo"}))
    assert blocks_between("a_ann", ann, "a_bo", Relations())
    assert blocks_between("a_bo", Relations(), "a_ann", ann)
    assert not blocks_between("a_ann", Relations(muted=frozenset({"a_bo"})), "a_bo", Relations())


def test_ban_list_matches_accounts_and_networks_in_force() -> None:
    bans = BanList(
        (
            ban(account="a_1"),
            ban(address="203.0.113.0/24"),
            ban(address="2001:db8:1::5"),
            ban(account="a_2", lifted=True),
            ban(account="a_3", hours=-1),
        )
    )
    assert bans.of_account("a_1", NOW) is not None
    assert bans.of_account("a_2", NOW) is None  # lifted
    assert bans.of_account("a_3", NOW) is None  # over
    assert bans.of_account("a_1", NOW + timedelta(hours=2)) is None
    assert bans.of_address("203.0.113.77", NOW) is not None
    assert bans.of_address("203.0.114.1", NOW) is None
    assert bans.of_address("2001:db8:1::/64", NOW) is not None  # a client's IPv6 group
    assert bans.of_address("2001:db8:2::/64", NOW) is None
    assert bans.of_address("not an address", NOW) is None


@given(st.ip_addresses(v=4), st.integers(min_value=8, max_value=32))
def test_an_address_ban_covers_exactly_its_network(address: Any, prefix: int) -> None:
    import ipaddress

    network = ipaddress.ip_network(f"{address}/{prefix}", strict=False)
    bans = BanList((ban(address=str(network)),))
    assert bans.of_address(str(address), NOW) is not None
    outside = network.broadcast_address + 1 if int(network.broadcast_address) < 2**32 - 1 else None
    if outside is not None:
        assert bans.of_address(str(outside), NOW) is None


# -- the database (SQLite and PostgreSQL) ----------------------------------------------


async def _accounts(db: Database, *names: str) -> list[str]:
    async with db.session() as session:
        for name in names:
            session.add(
                AccountRow(
                    account_id="a_" + name,
                    name=name.title(),
                    skeleton=name,
                    password_hash=None,
                    bot=False,
                    created_at=NOW,
                )
            )
    return ["a_" + n for n in names]


async def test_relations_are_kept_and_go_with_the_account(database: Database) -> None:
    ann, bo, cy = await _accounts(database, "ann", "bo", "cy")
    moderation = Moderation(database)
    await moderation.relate(ann, bo, RelationKind.MUTE, True)
    await moderation.relate(ann, bo, RelationKind.MUTE, True)  # twice: as once
    await moderation.relate(ann, cy, RelationKind.BLOCK, True)
    assert await moderation.relations(ann) == Relations(
        muted=frozenset({bo}), blocked=frozenset({cy})
    )
    assert await moderation.account_names([bo, cy, "a_gone"]) == {bo: "Bo", cy: "Cy"}
    await moderation.relate(ann, bo, RelationKind.MUTE, False)
    assert await moderation.relations(ann) == Relations(blocked=frozenset({cy}))
    async with database.session() as session:  # deleting an account deletes its rows
        await session.delete(await session.get_one(AccountRow, cy))
    async with database.session() as session:
        assert (await session.execute(select(RelationRow))).all() == []


async def test_reports_keep_the_chat_and_bans_are_made_lifted_and_listed(
    database: Database,
) -> None:
    (ann,) = await _accounts(database, "ann")
    moderation = Moderation(database)
    said = (ReportedChat("Bo", "p_2", "you are «awful» 🙃"),)
    new = NewReport("p_1", ann, "Ann", "p_2", None, "Bo", "t_1", 3, "insults", said)
    report_id = await moderation.add_report(new)
    (found,) = await moderation.reports()
    assert found.report_id == report_id and found.report == new
    made = await moderation.ban(
        until=datetime.now(UTC) + timedelta(hours=1),
        reason="abuse",
        banned_by="op",
        account_name="ANN",
    )
    assert made.account_id == ann and made.account_name == "Ann"
    assert await moderation.ban_of_account(ann) == made
    by_address = await moderation.ban(
        until=datetime.now(UTC) + timedelta(days=1),
        reason="flood",
        banned_by="op",
        address="198.51.100.7/24",
    )
    assert by_address.address == "198.51.100.0/24"
    assert {b.ban_id for b in await moderation.bans()} == {made.ban_id, by_address.ban_id}
    lifted = await moderation.lift(made.ban_id, "op2")
    assert lifted.lifted_by == "op2" and await moderation.ban_of_account(ann) is None
    assert [b.ban_id for b in await moderation.bans()] == [by_address.ban_id]
    assert len(await moderation.bans(in_force_only=False)) == 2
    (listed,) = (await moderation.ban_list()).bans
    assert listed.ban_id == by_address.ban_id


# -- a real server ------------------------------------------------------------------------


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[CardaviaServer]:
    """A server on an SQLite file that reads the bans every 0.2 s."""
    config = FAST.replace(database_url=sqlite_url(tmp_path / "cardavia.db"), ban_poll=0.2)
    app = CardaviaServer(config)
    app.accounts.hasher = fast_hasher()
    await app.start()
    await app.warmed()
    try:
        yield app
    finally:
        await app.shutdown()


async def _chat_seen(client: Client, text: str, timeout: float = 0.5) -> bool:
    try:
        await client.wait_for(lambda m: isinstance(m, sm.ChatLine) and m.text == text, timeout)
    except TimeoutError:
        return False
    return True


async def test_the_owner_kicks_a_player_who_cannot_come_back(server: CardaviaServer) -> None:
    async with (
        await Client.connect(server.url, "Ann") as ann,
        await Client.connect(server.url, "Bo") as bo,
        await Client.connect(server.url, "Cy") as cy,
    ):
        table = (await ann.create_table("cicera", TableOptions(seat=0))).table.id
        await bo.join(table)
        await cy.spectate(table)
        with pytest.raises(ServerError) as refused:
            await bo.kick(table, cy.player_id)
        assert refused.value.code == ErrorCode.FORBIDDEN
        with pytest.raises(ServerError) as refused:
            await ann.kick(table, ann.player_id)
        assert refused.value.code == ErrorCode.FORBIDDEN
        await ann.kick(table, bo.player_id)
        told = await bo.wait_for(lambda m: isinstance(m, sm.Kicked))
        assert told.table == table and table not in bo.tables
        changed = await ann.wait_for(
            lambda m: (
                isinstance(m, sm.TableChanged)
                and all(s.player_id != bo.player_id for s in m.table.seats)
            )
        )
        assert changed.table.status == "waiting"
        for again in (bo.join(table), bo.spectate(table)):
            with pytest.raises(ServerError) as refused:
                await again
            assert refused.value.code == ErrorCode.KICKED
        await ann.kick(table, cy.player_id)  # a spectator too
        await cy.wait_for(lambda m: isinstance(m, sm.Kicked))
        with pytest.raises(ServerError) as refused:
            await ann.kick(table, cy.player_id)
        assert refused.value.code == ErrorCode.NOT_AT_TABLE
        await ann.start(table)
        await ann.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update))
        async with await Client.connect(server.url, "Di") as di:
            await di.spectate(table)
            with pytest.raises(ServerError) as refused:
                await ann.kick(table, di.player_id)
            assert refused.value.code == ErrorCode.GAME_IN_PROGRESS


async def test_muted_chat_is_not_delivered_to_the_muter_only(server: CardaviaServer) -> None:
    async with (
        await Client.connect(server.url, "Ann") as ann,
        await Client.connect(server.url, "Bo") as bo,
        await Client.connect(server.url, "Cy") as cy,
    ):
        table = (await ann.create_table("cicera", TableOptions(seat=0))).table.id
        await bo.join(table)
        await cy.spectate(table)
        await ann.mute(bo.player_id)
        await bo.chat(table, "hello all")
        assert await _chat_seen(cy, "hello all")
        assert not await _chat_seen(ann, "hello all")
        listed = await ann.relations()
        assert listed.kept is False
        assert listed.muted == (sm.RelatedPlayer(player=bo.player_id, name="Bo"),)
        await ann.unmute(bo.player_id)
        await bo.chat(table, "again")
        assert await _chat_seen(ann, "again")
        await ann.block(bo.player_id)  # a block mutes too
        await bo.chat(table, "blocked")
        assert await _chat_seen(cy, "blocked") and not await _chat_seen(ann, "blocked")
        for wrong, code in (
            (ann.mute(ann.player_id), ErrorCode.FORBIDDEN),
            (ann.mute("p_nobody"), ErrorCode.NOT_FOUND),
            (ann.unblock("a_nobody"), ErrorCode.NOT_FOUND),
        ):
            with pytest.raises(ServerError) as refused:
                await wrong
            assert refused.value.code == code
        assert (await ann.relations()).blocked == (
            sm.RelatedPlayer(player=bo.player_id, name="Bo"),
        )


async def test_an_accounts_mutes_are_kept_with_it(server: CardaviaServer) -> None:
    async with await Client.connect(server.url, "x") as bo:
        await bo.register("Bo", PASSWORD)
        bo_account = bo.account
        assert bo_account is not None
        async with await Client.connect(server.url, "x") as ann:
            await ann.register("Ann", PASSWORD)
            await ann.mute(bo.player_id)
            listed = await ann.relations()
            assert listed.kept and listed.muted == (
                sm.RelatedPlayer(player=bo_account.account_id, name="Bo"),
            )
        # another device, later: the mute holds, by the account
        async with await Client.connect(server.url, "x", login=("Ann", PASSWORD)) as ann2:
            assert [r.player for r in (await ann2.relations()).muted] == [bo_account.account_id]
            table = (await ann2.create_table("cicera", TableOptions(seat=0))).table.id
            await bo.join(table)
            await bo.chat(table, "can you hear me")
            assert not await _chat_seen(ann2, "can you hear me")
            await ann2.unmute(bo_account.account_id)  # by the id listed, as the player may be gone
            assert (await ann2.relations()).muted == ()


async def test_quick_play_never_seats_a_blocked_pair_together(server: CardaviaServer) -> None:
    server.config = server.config.replace(quick_fill_wait=30.0)
    server.lobby.config = server.config
    async with (
        await Client.connect(server.url, "Ann") as ann,
        await Client.connect(server.url, "Bo") as bo,
        await Client.connect(server.url, "Cy") as cy,
    ):
        await ann.block(bo.player_id)
        first = (await ann.quick_play("cicera")).table.id
        second = (await bo.quick_play("cicera")).table.id  # blocked by Ann: elsewhere
        assert second != first
        third = (await cy.quick_play("cicera")).table.id  # nobody blocks Cy
        assert third == first
        async with await Client.connect(server.url, "Di") as di:
            await di.block(cy.player_id)  # the blocker arrives second: Ann's table has Cy
            fourth = (await di.quick_play("cicera")).table.id
            assert fourth == second


async def test_a_report_keeps_the_chat_and_the_game(server: CardaviaServer) -> None:
    async with (
        await Client.connect(server.url, "Ann") as ann,
        await Client.connect(server.url, "Bo") as bo,
    ):
        table = (await ann.create_table("scopa", TableOptions(seat=0))).table.id
        await bo.join(table)
        await bo.chat(table, "you play like a potato")
        await ann.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update))
        report_id = await ann.report(bo.player_id, "insults", table=table)
        (found,) = await server.moderation.reports()
        assert found.report_id == report_id
        report = found.report
        assert (report.reporter_name, report.target_name) == ("Ann", "Bo")
        assert report.target_player == bo.player_id and report.table_id == table
        assert report.game_no == 1  # the game on when reported (the first is 1)
        assert [(c.name, c.text) for c in report.chat] == [("Bo", "you play like a potato")]
        for wrong, code in (
            (ann.report(ann.player_id, "me"), ErrorCode.FORBIDDEN),
            (ann.report("p_nobody", "who"), ErrorCode.NOT_FOUND),
            (ann.report(bo.player_id, "x", table="t_elsewhere"), ErrorCode.NOT_AT_TABLE),
            (ann.report(bo.player_id, "   "), ErrorCode.BAD_MESSAGE),
            (ann.report(bo.player_id, "bell\x07"), ErrorCode.BAD_MESSAGE),
        ):
            with pytest.raises(ServerError) as refused:
                await wrong
            assert refused.value.code == code
        await ann.report(bo.player_id, "again")
        await ann.report(bo.player_id, "and again")
        with pytest.raises(ServerError) as refused:  # three at once, then one per six minutes
            await ann.report(bo.player_id, "flood")
        assert refused.value.code == ErrorCode.RATE_LIMITED
        assert len(await server.moderation.reports()) == 3


async def test_bad_moderation_messages_get_typed_errors_and_change_nothing(
    server: CardaviaServer,
) -> None:
    async with await Client.connect(server.url, "Ann") as ann:
        bad: list[dict[str, Any]] = [
            {"type": "kick", "id": 1, "table": "t_1"},
            {"type": "kick", "id": 2, "table": "t_1", "player": None},
            {"type": "mute", "id": 3, "player": "p" * 40},
            {"type": "block", "id": 4, "player": {"$ne": 1}},
            {"type": "report", "id": 5, "player": "p_1", "reason": "x" * 600},
            {"type": "report", "id": 6, "player": "p_1", "reason": "x", "game_no": "0"},
            {"type": "list_relations", "id": 7, "extra": True},
        ]
        for message in bad:
            await ann.send_raw(msgpack.packb(message))
            error = await ann.wait_for(
                lambda m, i=message["id"]: isinstance(m, sm.Error) and m.ref == i
            )
            assert error.code == ErrorCode.BAD_MESSAGE
        listed = await ann.relations()
        assert listed.muted == () and listed.blocked == ()
        assert await server.moderation.reports() == ()


# -- bans, and the operators' console ---------------------------------------------------


def admin(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``cardavia-admin`` in a subprocess, as an operator runs it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "server.admin", "--database", url, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


async def test_a_ban_from_the_console_ends_the_sessions_and_refuses_logins(
    server: CardaviaServer,
) -> None:
    url = server.config.database
    async with await Client.connect(server.url, "x") as bo:
        await bo.register("Bo", PASSWORD)
        done = await asyncio.to_thread(
            admin, url, "--json", "ban", "--account", "bo", "--for", "2h", "--reason", "abuse"
        )
        assert done.returncode == 0, done.stderr
        made = json.loads(done.stdout)
        assert made["account"] == "Bo" and made["reason"] == "abuse"
        told = await bo.wait_for(lambda m: isinstance(m, sm.Error) and m.code == "banned", 5.0)
        assert "abuse" in told.message
        with pytest.raises(ClientClosed):
            await bo.wait_for(lambda m: False, 5.0)
    with pytest.raises(ServerError) as refused:
        await Client.connect(server.url, "x", login=("Bo", PASSWORD))
    assert refused.value.code == ErrorCode.BANNED
    listed = await asyncio.to_thread(admin, url, "--json", "bans")
    assert [json.loads(line)["ban_id"] for line in listed.stdout.splitlines()] == [made["ban_id"]]
    lifted = await asyncio.to_thread(admin, url, "unban", made["ban_id"], "--by", "ops")
    assert lifted.returncode == 0 and "lifted" in lifted.stdout
    async with await Client.connect(server.url, "x", login=("Bo", PASSWORD)) as again:
        assert again.account is not None
    gone = await asyncio.to_thread(admin, url, "unban", made["ban_id"])
    assert gone.returncode == 1 and "no ban" in gone.stderr


async def test_an_address_ban_closes_and_refuses_connections(server: CardaviaServer) -> None:
    async with await Client.connect(server.url, "Ann") as ann:
        await server.moderation.ban(
            until=datetime.now(UTC) + timedelta(minutes=5),
            reason="flood",
            banned_by="op",
            address="127.0.0.0/8",
        )
        await ann.wait_for(lambda m: isinstance(m, sm.Error) and m.code == "banned", 5.0)
        with pytest.raises(ClientClosed):
            await ann.wait_for(lambda m: False, 5.0)
    with pytest.raises((ServerError, ClientClosed)) as refused:
        await Client.connect(server.url, "Bo")
    if isinstance(refused.value, ServerError):
        assert refused.value.code == ErrorCode.BANNED


def test_the_console_refuses_what_it_cannot_do(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "cardavia.db")
    unknown = admin(url, "ban", "--account", "nobody", "--for", "1d", "--reason", "x")
    assert unknown.returncode == 1 and "no account" in unknown.stderr
    bad_span = admin(url, "ban", "--address", "10.0.0.1", "--for", "forever", "--reason", "x")
    assert bad_span.returncode == 2
    bad_address = admin(url, "ban", "--address", "10.0.0.300", "--for", "1d", "--reason", "x")
    assert bad_address.returncode == 1
    past = admin(url, "ban", "--address", "10.0.0.1", "--until", "2001-01-01", "--reason", "x")
    assert past.returncode == 1 and "past" in past.stderr
    made = admin(url, "ban", "--address", "10.0.0.1", "--for", "1d", "--reason", "spam")
    assert made.returncode == 0 and "10.0.0.1/32" in made.stdout
    assert admin(url, "reports").stdout.strip() == "no reports"


async def test_a_stored_report_is_listed_by_the_console(tmp_path: Path) -> None:
    url = sqlite_url(tmp_path / "cardavia.db")
    accounts = Accounts(Database(url), hasher=fast_hasher())
    await accounts.open(refresh_every=None)
    try:
        said = (ReportedChat("Bo", "p_2", "rude words"),)
        await Moderation(accounts.db).add_report(
            NewReport("p_1", None, "Ann", "p_2", None, "Bo", "t_9", 1, "insults", said)
        )
    finally:
        await accounts.close()
    listed = await asyncio.to_thread(admin, url, "--json", "reports")
    (report,) = [json.loads(line) for line in listed.stdout.splitlines()]
    assert report["reason"] == "insults" and report["table"] == "t_9"
    assert report["chat"] == [{"name": "Bo", "player": "p_2", "text": "rude words"}]
    text = await asyncio.to_thread(admin, url, "reports")
    assert "Ann reports Bo" in text.stdout and "Bo: rude words" in text.stdout


async def test_a_ban_reaches_every_process_and_blocks_hold_across_them(
    redis_server: RedisServer, database_url: str
) -> None:
    """Two processes share Redis and one database (SQLite file or PostgreSQL): a ban made
    with the console ends the account's session on the process it is connected to, and
    quick play through the cluster bus keeps a blocked pair apart."""
    config = fast_redis_config(
        redis_server.url, database_url=database_url, ban_poll=0.2, quick_fill_wait=30.0
    )
    async with running_server(config) as one, running_server(config) as two:
        one.accounts.hasher = two.accounts.hasher = fast_hasher()
        async with (
            await Client.connect(one.url, "Ann") as ann,
            await Client.connect(two.url, "x") as bo,
        ):
            await bo.register("Bo", PASSWORD)
            first = (await ann.quick_play("cicera")).table.id
            await bo.block(ann.player_id)  # Ann's session is elsewhere: known by its id
            second = (await bo.quick_play("cicera")).table.id
            assert second != first and second in two.lobby.tables
            await bo.join(first)  # Ann's table, on process one: chat reaches Bo through the bus
            await ann.chat(first, "one")
            # Bo's own line comes the same way after Ann's: once it is here, "one" has been
            # through Bo's process (kept from him) before he unblocks her
            await bo.chat(first, "sync")
            line = await bo.wait_for(lambda m: isinstance(m, sm.ChatLine), 10.0)
            assert line.text == "sync"  # not "one": said while Bo blocked Ann
            await bo.unblock(ann.player_id)
            await ann.chat(first, "two")
            heard = await bo.wait_for(lambda m: isinstance(m, sm.ChatLine))
            assert heard.text == "two"
            assert await bo.report(ann.player_id, "rude", table=first)
            done = await asyncio.to_thread(
                admin, database_url, "ban", "--account", "Bo", "--for", "1h", "--reason", "x"
            )
            assert done.returncode == 0, done.stderr
            await bo.wait_for(lambda m: isinstance(m, sm.Error) and m.code == "banned", 10.0)
            with pytest.raises(ClientClosed):
                await bo.wait_for(lambda m: False, 5.0)
            # the server closes the connection, then ends the session: the client may see
            # the close first
            for _ in range(100):
                if all(p.account is None for p in two.sessions):
                    break
                await asyncio.sleep(0.05)
            assert all(p.account is None for p in two.sessions)
