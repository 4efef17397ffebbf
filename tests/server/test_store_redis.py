"""The Redis store against a real redis-server: records, fencing, replays, outages."""

from __future__ import annotations

import asyncio

import pytest

from server.config import load_config
from server.persist.redis_store import CHUNK, RedisStore
from server.persist.session_store import SessionStore, StoredSession, token_digest
from server.persist.store import LeaseLost, LoggedAction, StoreUnavailable, TableRecord
from server.players.accounts import Account
from server.players.sessions import Player
from tests.server.redis_fixture import RedisServer, free_port


def make(redis: RedisServer, **kw: float) -> RedisStore:
    return RedisStore(
        redis.url,
        prefix="t",
        lease_ttl=kw.get("lease_ttl", 0.5),
        timeout=kw.get("timeout", 0.5),
    )


async def test_record_round_trip(redis_server: RedisServer) -> None:
    store = make(redis_server)
    await store.open()
    await store.create(TableRecord(table_id="a", game="scopa", options={"seat": 0}))
    await store.start_game("a", 1, 2**62 + 5, 1)
    await store.append("a", LoggedAction(seat=0, action={"card": [1, "coins"]}, by="human"))
    await store.append("a", LoggedAction(seat=1, action={"card": [3, "cups"]}, by="ai"))
    await store.save_meta("a", {"owner": "p_1", "seats": []})
    rec = await store.load("a")
    assert rec is not None
    assert (rec.game, rec.options, rec.game_no, rec.seed, rec.version) == (
        "scopa",
        {"seat": 0},
        1,
        2**62 + 5,
        1,
    )
    assert rec.actions == (
        LoggedAction(0, {"card": [1, "coins"]}, "human"),
        LoggedAction(1, {"card": [3, "cups"]}, "ai"),
    )
    assert rec.meta["owner"] == "p_1"
    await store.start_game("a", 2, 7, 4)
    rec = await store.load("a")
    assert rec is not None and rec.actions == () and rec.seed == 7
    assert await store.table_ids() == ["a"]
    await store.delete("a")
    assert await store.load("a") is None
    assert await store.table_ids() == []
    await store.close()


async def test_a_second_create_of_one_id_is_refused(redis_server: RedisServer) -> None:
    one, two = make(redis_server), make(redis_server)
    await one.create(TableRecord(table_id="a", game="scopa", options={}))
    with pytest.raises(LeaseLost):
        await two.create(TableRecord(table_id="a", game="scopa", options={}))
    await one.close()
    await two.close()


async def test_fencing_a_taken_over_table_refuses_the_old_owner(redis_server: RedisServer) -> None:
    old, new = make(redis_server), make(redis_server)
    await old.create(TableRecord(table_id="a", game="scopa", options={}))
    await old.start_game("a", 1, 9, 1)
    await old.append("a", LoggedAction(0, {"x": 1}))
    assert not await new.acquire("a")  # the lease is alive
    assert await new.orphans() == []
    await asyncio.sleep(0.7)  # the old owner stopped renewing: the lease expires
    assert await new.orphans() == ["a"]
    assert await new.acquire("a")
    assert not await old.acquire("a")
    rec = await new.load("a")
    assert rec is not None and len(rec.actions) == 1
    await new.append("a", LoggedAction(1, {"x": 2}))
    with pytest.raises(LeaseLost):
        await old.append("a", LoggedAction(0, {"x": 3}))
    assert not old.owns("a")
    assert await old.renew() == []
    # a stale renew cannot steal it back either
    assert await new.renew() == []
    rec = await new.load("a")
    assert rec is not None and [a.action for a in rec.actions] == [{"x": 1}, {"x": 2}]
    await old.close()
    await new.close()


async def test_renew_reports_a_lost_table(redis_server: RedisServer) -> None:
    old, new = make(redis_server), make(redis_server)
    await old.create(TableRecord(table_id="a", game="scopa", options={}))
    await asyncio.sleep(0.7)
    assert await new.acquire("a")
    assert await old.renew() == ["a"]
    assert await new.renew() == []
    await old.close()
    await new.close()


async def test_periodic_passes_over_many_tables_and_players(redis_server: RedisServer) -> None:
    """Renewal, the takeover scan and the "connected here" records cover more tables
    and players than one Redis call takes (CHUNK), and name exactly the right ones."""
    # leases long enough to outlast creating them all on a busy machine, and a few
    # creations at a time: hundreds at once would wait on the connection pool
    old, new = (make(redis_server, lease_ttl=3.0, timeout=2.0) for _ in range(2))
    count = CHUNK + 120
    ids = [f"m{i:04d}" for i in range(count)]
    for first in range(0, count, 40):
        await asyncio.gather(
            *(
                old.create(TableRecord(table_id=t, game="scopa", options={}))
                for t in ids[first : first + 40]
            )
        )
    assert await new.orphans() == []
    await asyncio.sleep(3.2)  # every lease expires
    assert await new.orphans() == ids
    taken = [ids[3], ids[CHUNK + 7], ids[-1]]  # in both chunks of the renewal
    for table_id in taken:
        assert await new.acquire(table_id)
    assert await old.renew() == taken
    assert await new.orphans() == []  # the rest renewed: held by the old owner again
    assert sorted(old.owned()) == [t for t in ids if t not in taken]
    players = [f"p_{i}" for i in range(count)]
    await old.refresh_where(players, 100)
    assert await new.where(players) == {p: old.node for p in players}
    assert 0 < await old.redis.ttl(f"t:where:{players[-1]}") <= 100
    await new.set_where(players[0], 100)  # the player moved to the other process
    await old.clear_where(players[0])  # the old connection's end does not erase that
    await old.clear_where(players[1])
    assert await new.where(players[:2]) == {players[0]: new.node}
    await old.close()
    await new.close()


async def test_index_of_a_player_is_picked_inside_redis(redis_server: RedisServer) -> None:
    store = make(redis_server)
    members = {"a": ["p_1", "p_2"], "b": ["p_2"], "c": ["p_3"], "d": []}
    for table_id, who in members.items():
        await store.create(TableRecord(table_id=table_id, game="scopa", options={}))
        summary = {"info": {"id": table_id}, "members": who}
        await store.save_meta(table_id, {"seats": [], "summary": summary})
    assert sorted(await store.index_of("p_2")) == ["a", "b"]
    assert (await store.index_of("p_3"))["c"] == {"info": {"id": "c"}, "members": ["p_3"]}
    assert await store.index_of("p_") == {}  # a whole id, not a part of one
    assert await store.index_of("p_9") == {}
    # waiting quick-play tables of a game, written as save_meta writes them
    for table_id, game, quick, status in (
        ("q1", "scopa", True, "waiting"),
        ("q2", "scopa", True, "playing"),
        ("q3", "scopa", False, "waiting"),
        ("q4", "cicera", True, "waiting"),
    ):
        await store.create(TableRecord(table_id=table_id, game=game, options={}))
        info = {"id": table_id, "game": game, "quick": quick, "status": status}
        await store.save_meta(table_id, {"summary": {"info": info, "members": []}})
    assert list(await store.quick_candidates("scopa")) == ["q1"]
    assert list(await store.quick_candidates("cicera")) == ["q4"]
    await store.close()


async def test_append_at_an_unexpected_length_is_refused(redis_server: RedisServer) -> None:
    store = make(redis_server)
    await store.create(TableRecord(table_id="a", game="scopa", options={}))
    await store.start_game("a", 1, 9, 1)
    await store.append("a", LoggedAction(0, {"x": 1}))
    await store.redis.rpush("t:t:a:log", b"\x93\x00\x80\xa5human")  # an answer lost in transit
    with pytest.raises(LeaseLost):
        await store.append("a", LoggedAction(0, {"x": 2}))
    await store.close()


async def test_an_append_sent_twice_is_logged_once(redis_server: RedisServer) -> None:
    store = make(redis_server)
    await store.create(TableRecord(table_id="a", game="scopa", options={}))
    await store.start_game("a", 1, 9, 1)
    await store.append("a", LoggedAction(0, {"x": 1}))
    store._lens["a"] = 0  # as if the reply had been lost: the same append again
    await store.append("a", LoggedAction(0, {"x": 1}))
    await store.append("a", LoggedAction(1, {"x": 2}))
    rec = await store.load("a")
    assert rec is not None and [a.action for a in rec.actions] == [{"x": 1}, {"x": 2}]
    await store.close()


async def test_finished_games_are_kept_with_an_expiry(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url, prefix="t", replay_ttl=100, replays_kept=2)
    await store.create(TableRecord(table_id="a", game="scopa", options={}))
    for n in (1, 2, 3):
        await store.archive("a", n, {"game_no": n, "seed": n, "log": [], "seats": [], "result": {}})
    rec = await store.load("a")
    assert rec is not None and [r["game_no"] for r in rec.replays] == [2, 3]
    assert 0 < await store.redis.ttl("t:r:a:3") <= 100
    await store.delete("a")
    assert await store.redis.exists("t:r:a:3")  # replays outlive the table until they expire
    await store.close()


async def test_redis_down_is_store_unavailable(redis_server: RedisServer) -> None:
    store = make(redis_server)
    await store.create(TableRecord(table_id="a", game="scopa", options={}))
    await store.start_game("a", 1, 9, 1)
    redis_server.stop()
    assert not await store.ping()
    with pytest.raises(StoreUnavailable):
        await store.append("a", LoggedAction(0, {"x": 1}))
    redis_server.start()
    assert await store.ping()
    await store.append("a", LoggedAction(0, {"x": 1}))
    rec = await store.load("a")
    assert rec is not None and len(rec.actions) == 1
    await store.close()


async def test_open_names_the_fix_when_nothing_listens() -> None:
    store = RedisStore(f"redis://127.0.0.1:{free_port()}/0", timeout=0.5)
    with pytest.raises(StoreUnavailable, match="CARDAVIA_REDIS_URL"):
        await store.open()
    await store.close()


async def test_sessions_resume_by_token_and_a_rotated_token_replaces_the_old(
    redis_server: RedisServer,
) -> None:
    store = make(redis_server)
    sessions = SessionStore(store.redis, "t", ttl=100)
    player = Player(player_id="p_1", name="Ann", token="first-token")
    await sessions.save(player)
    assert await sessions.load("first-token") == StoredSession("p_1", "Ann")
    assert await store.redis.get("t:s:first-token") is None  # only the token's hash is kept
    assert await store.redis.exists(f"t:s:{token_digest('first-token')}")
    player.token = "second-token"
    await sessions.save(player)
    assert await sessions.load("first-token") is None
    assert await sessions.load("second-token") == StoredSession("p_1", "Ann")
    assert 0 < await store.redis.ttl(f"t:s:{token_digest('second-token')}") <= 100
    await sessions.forget(player)
    assert await sessions.load("second-token") is None
    player.account = Account("a_1", "Ann", bot=True)  # logged in: the account is kept too
    await sessions.save(player)
    assert await sessions.load("second-token") == StoredSession("p_1", "Ann", player.account)
    await store.close()


async def test_a_burst_beyond_the_connection_cap_waits_for_a_connection(
    redis_server: RedisServer,
) -> None:
    """More commands at once than the pool holds (3,000 clients saying hello at once)
    queue for a connection instead of failing with store_unavailable."""
    store = RedisStore(redis_server.url, prefix="t", timeout=2.0, connections=8)
    await store.open()
    sessions = SessionStore(store.redis, "t", ttl=100)
    players = [Player(player_id=f"p_{i}", name=f"N{i}", token=f"token-{i}") for i in range(300)]
    await asyncio.gather(
        *(sessions.save(p) for p in players),
        *(store.create(TableRecord(f"b{i}", "scopa", {})) for i in range(300)),
    )
    found = await asyncio.gather(*(sessions.load(p.token) for p in players))
    assert found == [StoredSession(p.player_id, p.name) for p in players]
    assert len(await store.table_ids()) == 300
    clients = await store.redis.client_list()
    assert 1 <= len(clients) <= 8  # the cap holds: commands waited for a free connection
    await store.close()


def test_redis_settings_are_checked() -> None:
    config = load_config(["--store", "redis", "--redis-url", "redis://db:6379/1"], env={})
    assert (config.store, config.redis_url) == ("redis", "redis://db:6379/1")
    env = {"CARDAVIA_STORE": "redis", "CARDAVIA_LEASE_TTL": "3"}
    assert load_config([], env=env).lease_ttl == 3.0
    assert load_config([], env={}).redis_connections == 64
    assert load_config([], env={"CARDAVIA_REDIS_CONNECTIONS": "8"}).redis_connections == 8
    for bad in (
        ["--store", "postgres"],
        ["--redis-url", "http://db"],
        ["--lease-ttl", "0"],
        ["--lease-ttl", "1", "--takeover-interval", "2"],
        ["--replay-ttl", "-1"],
        ["--redis-prefix", "a b"],
        ["--redis-connections", "1"],
    ):
        with pytest.raises(ValueError):
            load_config(bad, env={})
