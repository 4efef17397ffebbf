"""Accounts (issue 54): the sans-I/O rules, the accounts on SQLite and on a real
PostgreSQL, and the account messages through a real server and socket."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
import pytest
from argon2 import PasswordHasher
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select
from websockets.asyncio.client import connect

from client_cli.client import Client, ClientClosed, ServerError
from protocol import server_messages as sm
from protocol.base import PROTOCOL_VERSION
from protocol.errors import ErrorCode
from server.app import CardaviaServer, running_server
from server.main import main as server_main
from server.persist.db.engine import Database, sqlite_url
from server.persist.db.models import AccountRow, ApiTokenRow
from server.persist.redis_store import RedisStore
from server.players.accounts import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    Accounts,
    Backoff,
    Hasher,
    LoginThrottle,
    ThrottleKey,
    address_key,
    after_failure,
    check_password,
    name_key,
    token_digest,
)
from server.ratings.levels import AI_ACCOUNTS
from server.tables.options import RequestError
from tests.server.helpers import FAST, database_away, next_message
from tests.server.redis_fixture import RedisServer, ServerProcess, fast_redis_config
from tests.server.test_store_restart import resume

PASSWORD = "correct horse battery"


def fast_hasher() -> Hasher:
    """Argon2id with the smallest costs: the tests check the logic, not the cost."""
    return Hasher(hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- the rules, as values --------------------------------------------------------------


def test_backoff_doubles_up_to_the_cap() -> None:
    waits = []
    backoff: Backoff | None = None
    for _ in range(12):
        backoff = after_failure(backoff, 0.0, 1.0, 300.0)
        waits.append(backoff.until)
    assert waits[:5] == [1.0, 2.0, 4.0, 8.0, 16.0]
    assert waits[-1] == 300.0


@given(st.integers(min_value=1, max_value=10_000))
def test_backoff_never_exceeds_the_cap(failures: int) -> None:
    backoff: Backoff | None = None
    for _ in range(min(failures, 200)):
        backoff = after_failure(backoff, 5.0, 0.5, 60.0)
    assert backoff is not None and 5.0 < backoff.until <= 65.0


def test_throttle_waits_for_the_longest_key_and_forgets_a_success() -> None:
    throttle = LoginThrottle(1.0, 300.0)
    name, address = ThrottleKey("name", "ann"), ThrottleKey("address", "10.0.0.1")
    assert throttle.wait([name, address], 0.0) == 0.0
    throttle.failed([name, address], 0.0)
    throttle.failed([address], 0.0)
    assert throttle.wait([name], 0.5) == 0.5
    assert throttle.wait([name, address], 0.5) == 1.5
    throttle.succeeded(name)
    assert throttle.wait([name], 0.5) == 0.0
    assert throttle.wait([address], 0.5) == 1.5  # the address keeps its failures


@pytest.mark.parametrize(
    ("password", "detail"),
    [("", "too_short"), ("x" * (PASSWORD_MIN - 1), "too_short"), ("x" * 257, "too_long")],
)
def test_password_length_rules(password: str, detail: str) -> None:
    with pytest.raises(RequestError) as caught:
        check_password(password)
    assert caught.value.code == ErrorCode.BAD_PASSWORD and caught.value.detail == detail
    assert password == "" or password not in caught.value.message
    check_password("x" * PASSWORD_MIN)
    check_password("x" * PASSWORD_MAX)


async def test_hashes_are_argon2id_and_run_off_the_loop() -> None:
    hasher = Hasher()  # the real costs
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    task = asyncio.create_task(ticker())
    encoded = await hasher.hash(PASSWORD)
    assert await hasher.verify(encoded, PASSWORD)
    assert not await hasher.verify(encoded, PASSWORD + "!")
    assert not await hasher.verify(None, PASSWORD)
    task.cancel()
    hasher.close()
    assert encoded.startswith("$argon2id$") and PASSWORD not in encoded
    assert ticks > 5  # the loop ran while the hashes were computed


# -- accounts on SQLite and PostgreSQL ------------------------------------------------------


@pytest.fixture
async def accounts(database_url: str) -> AsyncIterator[Accounts]:
    store = Accounts(Database(database_url), hasher=fast_hasher(), clock=Clock())
    await store.open()
    try:
        yield store
    finally:
        await store.close()


async def count_accounts(store: Accounts) -> int:
    async with store.db.session() as session:
        everyone = select(func.count()).select_from(AccountRow)
        people = everyone.where(AccountRow.account_id.not_in(AI_ACCOUNTS))  # not the AI's
        return int(await session.scalar(people) or 0)


async def refused(code: ErrorCode, awaitable: object) -> RequestError:
    with pytest.raises(RequestError) as caught:
        await awaitable  # type: ignore[misc]
    assert caught.value.code == code, caught.value.message
    return caught.value


async def test_register_then_log_in(accounts: Accounts) -> None:
    made = await accounts.register("  Ann  ", PASSWORD)
    assert made.name == "Ann" and not made.bot
    assert await accounts.login("ann", PASSWORD, "10.0.0.1") == made  # case-blind
    assert accounts.taken("ANN") and accounts.taken("Аnn") and not accounts.taken("Bea")


@pytest.mark.parametrize("look_alike", ["ANN", "ann", "Аnn", "Ａｎｎ", "Ꭺnn", "A\u0301nn"])
async def test_names_are_unique_by_skeleton(accounts: Accounts, look_alike: str) -> None:
    await accounts.register("Ann", PASSWORD)
    await refused(ErrorCode.NAME_TAKEN, accounts.register(look_alike, PASSWORD))
    assert await count_accounts(accounts) == 1


@pytest.mark.parametrize(
    ("name", "password", "code"),
    [
        ("Ann\x00", PASSWORD, ErrorCode.BAD_NAME),
        ("\u202eAnn", PASSWORD, ErrorCode.BAD_NAME),
        ("", PASSWORD, ErrorCode.BAD_NAME),
        ("x" * 300, PASSWORD, ErrorCode.BAD_NAME),
        ("Admin", PASSWORD, ErrorCode.BAD_NAME),
        ("Ann", "short", ErrorCode.BAD_PASSWORD),
        ("Ann", "x" * 1_000_000, ErrorCode.BAD_PASSWORD),
    ],
)
async def test_bad_registrations_change_nothing(
    accounts: Accounts, name: str, password: str, code: ErrorCode
) -> None:
    error = await refused(code, accounts.register(name, password))
    assert password not in error.message
    assert await count_accounts(accounts) == 0


async def test_sql_in_a_name_is_only_a_name(accounts: Accounts) -> None:
    hostile = "Bob'); DROP TABLE x;--"[:24]
    made = await accounts.register(hostile, PASSWORD)
    assert made.name == hostile
    assert await accounts.login(hostile, PASSWORD, "a") == made
    assert await count_accounts(accounts) == 1


async def test_a_wrong_password_and_an_unknown_name_look_the_same(accounts: Accounts) -> None:
    await accounts.register("Ann", PASSWORD)
    wrong = await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Ann", "nope-nope", "a"))
    unknown = await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Zed", PASSWORD, "b"))
    assert (wrong.message, wrong.detail) == (unknown.message, unknown.detail)


async def test_failed_logins_back_off_per_name_and_per_address(accounts: Accounts) -> None:
    clock = accounts.clock
    assert isinstance(clock, Clock)
    await accounts.register("Ann", PASSWORD)
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Ann", "wrong-one", "10.0.0.1"))
    # the right password is refused too while the name waits, from any address
    error = await refused(ErrorCode.LOGIN_THROTTLED, accounts.login("Ann", PASSWORD, "10.9.9.9"))
    assert error.detail == "1.0"
    clock.now += 1.0
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Ann", "wrong-two", "10.0.0.1"))
    clock.now += 1.0
    await refused(ErrorCode.LOGIN_THROTTLED, accounts.login("Ann", PASSWORD, "10.9.9.9"))
    clock.now += 1.0  # the second failure in a row waits 2 s
    assert (await accounts.login("Ann", PASSWORD, "10.9.9.9")).name == "Ann"
    # the address that failed waits for other names too (an unknown one as well)
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Bea", PASSWORD, "10.0.0.1"))
    await refused(ErrorCode.LOGIN_THROTTLED, accounts.login("Cid", PASSWORD, "10.0.0.1"))


async def test_change_password_and_delete(accounts: Accounts) -> None:
    ann = await accounts.register("Ann", PASSWORD)
    await refused(
        ErrorCode.BAD_CREDENTIALS,
        accounts.change_password(ann, "not-it-at-all", "new secret 1", "a"),
    )
    accounts.clock.now += 10  # type: ignore[attr-defined]
    await refused(ErrorCode.BAD_PASSWORD, accounts.change_password(ann, PASSWORD, "short", "a"))
    await accounts.change_password(ann, PASSWORD, "new secret 1", "a")
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Ann", PASSWORD, "b"))
    accounts.clock.now += 10  # type: ignore[attr-defined]
    assert await accounts.login("Ann", "new secret 1", "b") == ann
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.delete(ann, PASSWORD, "c"))
    assert await count_accounts(accounts) == 1
    accounts.clock.now += 10  # type: ignore[attr-defined]
    await accounts.delete(ann, "new secret 1", "c")
    assert await count_accounts(accounts) == 0
    assert not accounts.taken("Ann")
    assert await accounts.get(ann.account_id) is None


async def test_other_processes_registrations_are_seen(database_url: str) -> None:
    here = Accounts(Database(database_url), hasher=fast_hasher())
    there = Accounts(Database(database_url), hasher=fast_hasher())
    await here.open(refresh_every=0.05)
    await there.open()
    try:
        await there.register("Ann", PASSWORD)
        if here.db.sqlite:  # one process per SQLite file: nobody else registers there
            assert here._refresher is None
            await here.refresh()
        else:
            await asyncio.sleep(0.3)
        assert here.taken("ANN")
    finally:
        await here.close()
        await there.close()


async def test_accounts_outlive_a_restart(database_url: str) -> None:
    first = Accounts(Database(database_url), hasher=fast_hasher())
    await first.open()
    ann = await first.register("Ann", PASSWORD)
    await first.close()
    again = Accounts(Database(database_url), hasher=fast_hasher())
    await again.open()
    try:
        assert again.taken("ann")  # read back at open
        assert await again.login("Ann", PASSWORD, "a") == ann
    finally:
        await again.close()


# -- through a real server ------------------------------------------------------------------


@pytest.fixture
async def account_server(tmp_path: Path) -> AsyncIterator[CardaviaServer]:
    config = FAST.replace(database_url=sqlite_url(tmp_path / "cardavia.db"), login_backoff=0.2)
    async with running_server(config) as server:
        server.accounts.hasher = fast_hasher()
        yield server


async def test_register_login_logout_over_the_socket(account_server: CardaviaServer) -> None:
    url = account_server.url
    async with await Client.connect(url, "Ann") as first:
        account = await first.register("Ann", PASSWORD)
        assert (account.name, first.name, account.bot) == ("Ann", "Ann", False)
    # a second device: its own session, logged in to the same account
    phone = await Client.connect(url, login=("ann", PASSWORD))
    laptop = await Client.connect(url, login=("ANN", PASSWORD))
    assert phone.account == laptop.account and phone.token != laptop.token
    assert phone.name == "Ann"
    token = phone.token
    await phone.logout()
    with pytest.raises(ClientClosed):
        await phone.receive(5.0)
    with pytest.raises(ServerError) as caught:  # logout revoked the session's token
        await Client.connect(url, "Someone", token=token)
    assert caught.value.code == ErrorCode.BAD_TOKEN
    await laptop.ping()  # the other device stays logged in
    await laptop.close()


async def test_anonymous_players_cannot_take_a_registered_name(
    account_server: CardaviaServer,
) -> None:
    url = account_server.url
    async with await Client.connect(url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
    for look_alike in ("Ann", "ANN", "Аnn", "Ａｎｎ"):
        with pytest.raises(ServerError) as caught:
            await Client.connect(url, look_alike)
        assert caught.value.code == ErrorCode.NAME_TAKEN
    async with await Client.connect(url, "Bea") as bea:
        await bea.ping()


async def test_login_is_refused_at_a_table_and_when_logged_in(
    account_server: CardaviaServer,
) -> None:
    async with await Client.connect(account_server.url, "Ann") as ann:
        await ann.create_table("scopa")
        with pytest.raises(ServerError) as caught:
            await ann.register("Ann", PASSWORD)
        assert caught.value.code == ErrorCode.FORBIDDEN
        assert not account_server.accounts.taken("Ann")  # nothing changed
    async with await Client.connect(account_server.url, "Bea") as bea:
        await bea.register("Bea", PASSWORD)
        with pytest.raises(ServerError) as caught:
            await bea.login("Bea", PASSWORD)
        assert caught.value.code == ErrorCode.FORBIDDEN
        with pytest.raises(ServerError) as caught:
            await bea.register("Bea2", PASSWORD)
        assert caught.value.code == ErrorCode.FORBIDDEN


async def test_password_change_ends_the_other_devices(account_server: CardaviaServer) -> None:
    url = account_server.url
    async with await Client.connect(url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        other = await Client.connect(url, login=("Ann", PASSWORD))
        await ann.change_password(PASSWORD, "another secret")
        with pytest.raises(ClientClosed):
            await other.receive(5.0)
        await ann.ping()
        with pytest.raises(ServerError) as caught:
            await Client.connect(url, login=("Ann", PASSWORD))
        assert caught.value.code == ErrorCode.BAD_CREDENTIALS
        await asyncio.sleep(0.25)  # the failed login's backoff (login_backoff) passes
        await ann.delete_account("another secret")
        with pytest.raises(ClientClosed):
            await ann.receive(5.0)
    async with await Client.connect(url, "Ann") as again:  # the name is free again
        await again.ping()


async def test_account_requests_need_a_login(account_server: CardaviaServer) -> None:
    async with await Client.connect(account_server.url, "Ann") as ann:
        for request in (
            ann.logout(),
            ann.change_password(PASSWORD, PASSWORD + "!"),
            ann.delete_account(PASSWORD),
        ):
            with pytest.raises(ServerError) as caught:
                await request
            assert caught.value.code == ErrorCode.NOT_LOGGED_IN


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "register", "name": "Ann"},
        {"type": "register", "name": ["Ann"], "password": PASSWORD},
        {"type": "register", "name": "Ann", "password": "p" * 60_000},
        {"type": "login", "name": "Ann'; DELETE FROM accounts;--", "password": 1},
        {"type": "login", "name": "Ann", "password": PASSWORD, "admin": True},
        {"type": "change_password", "password": PASSWORD},
        {"type": "delete_account"},
    ],
)
async def test_malformed_account_messages_get_typed_errors(
    account_server: CardaviaServer, fields: dict[str, object]
) -> None:
    async with connect(account_server.url, max_size=2**20) as ws:
        hello = {"type": "hello", "id": 1, "version": PROTOCOL_VERSION, "name": "Eve"}
        await ws.send(msgpack.packb(hello))
        assert (await next_message(ws))["type"] == "welcome"
        await ws.send(msgpack.packb({**fields, "id": 2}))
        reply = await next_message(ws)
        assert (reply["type"], reply["code"], reply["ref"]) == ("error", "bad_message", 2)
        assert "p" * 100 not in reply["message"] and PASSWORD not in reply["message"]
    assert await count_accounts(account_server.accounts) == 0


async def test_logins_hash_off_the_event_loop(account_server: CardaviaServer) -> None:
    """Every Argon2id hash and check of a login runs in a worker thread, never the
    loop's, at a lower CPU priority than the loop; pings are answered meanwhile."""
    hasher = account_server.accounts.hasher
    threads: list[int] = []
    real = hasher._hasher

    class Recording(PasswordHasher):
        def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
            threads.append(threading.get_ident())
            return real.hash(password, salt=salt)

        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            threads.append(threading.get_ident())
            return real.verify(hash, password)

    hasher._hasher = Recording()
    url = account_server.url
    async with await Client.connect(url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
    logins = asyncio.gather(*(Client.connect(url, login=("Ann", PASSWORD)) for _ in range(4)))
    async with await Client.connect(url, "Bea") as bea:
        while not logins.done():
            await bea.ping()
    for client in await logins:
        await client.close()
    assert len(threads) >= 5 and threading.get_ident() not in threads
    niceness = [os.getpriority(os.PRIO_PROCESS, t.native_id or 0) for t in hashing_threads()]
    assert niceness and all(n > os.getpriority(os.PRIO_PROCESS, 0) for n in niceness)


def hashing_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("argon2")]


# -- bots and their API tokens ----------------------------------------------------------------


async def test_bots_log_in_with_tokens_never_a_password(accounts: Accounts) -> None:
    ann = await accounts.register("Ann", PASSWORD)
    bot = await accounts.create_bot(ann, "Robo")
    assert bot.bot and accounts.taken("R0B0")
    made = await accounts.create_token(ann, bot.account_id, "laptop")
    assert made.token.startswith("cdv_")
    assert await accounts.token_login(made.token, "a") == bot
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.login("Robo", "", "b"))  # no password
    listed = await accounts.bots(ann)
    assert [(b.account.name, [t.label for t in b.tokens]) for b in listed] == [("Robo", ["laptop"])]
    async with accounts.db.session() as session:  # only the digest is kept
        stored = await session.scalar(select(ApiTokenRow.digest))
    assert stored == token_digest(made.token) and made.token not in stored
    assert await accounts.revoke_token(ann, made.token_id) == bot
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.token_login(made.token, "c"))


async def test_only_the_owner_manages_a_bot(accounts: Accounts) -> None:
    ann = await accounts.register("Ann", PASSWORD)
    bea = await accounts.register("Bea", PASSWORD)
    bot = await accounts.create_bot(ann, "Robo")
    await refused(ErrorCode.NOT_FOUND, accounts.create_token(bea, bot.account_id, "x"))
    made = await accounts.create_token(ann, bot.account_id, "x")
    await refused(ErrorCode.NOT_FOUND, accounts.revoke_token(bea, made.token_id))
    await refused(ErrorCode.FORBIDDEN, accounts.create_bot(bot, "Robo Two"))
    await refused(ErrorCode.BAD_OPTIONS, accounts.create_token(ann, bot.account_id, "\x00"))
    await refused(ErrorCode.NAME_TAKEN, accounts.create_bot(ann, "ann"))
    assert set(await accounts.delete(ann, PASSWORD, "a")) == {ann.account_id, bot.account_id}
    assert not accounts.taken("Robo")
    await refused(ErrorCode.BAD_CREDENTIALS, accounts.token_login(made.token, "b"))


async def test_a_bot_seat_is_labelled_before_anyone_joins(account_server: CardaviaServer) -> None:
    url = account_server.url
    async with await Client.connect(url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        bot = await ann.create_bot("Robo")
        token = await ann.create_api_token(bot.account_id, "ci")
        assert [b.name for b in await ann.list_bots()] == ["Robo"]
        robo = await Client.connect(url, api_token=token.token)
        assert robo.account is not None and robo.account.bot and robo.name == "Robo"
        joined = await robo.create_table("scopa")
        async with await Client.connect(url, "Cid") as cid:
            (listed,) = [t for t in await cid.list_tables() if t.id == joined.table.id]
            assert [(s.name, s.bot) for s in listed.seats if s.kind == "human"] == [("Robo", True)]
        await robo.chat(joined.table.id, "beep")
        line = await robo.wait_for(lambda m: isinstance(m, sm.ChatLine))
        assert (line.name, line.bot) == ("Robo", True)
        await ann.revoke_api_token(token.token_id)  # the bot's session ends with its token
        with pytest.raises(ClientClosed):
            while True:
                await robo.receive(5.0)
        with pytest.raises(ServerError) as caught:
            await Client.connect(url, api_token=token.token)
        assert caught.value.code == ErrorCode.BAD_CREDENTIALS


async def test_a_resume_on_another_process_stays_logged_in(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Two processes share Redis (sessions) and one database: a session logged in on
    one, resumed on the other, is still the account's there."""
    config = fast_redis_config(redis_server.url, database_url=sqlite_url(tmp_path / "c.db"))
    async with running_server(config) as one, running_server(config) as two:
        one.accounts.hasher = two.accounts.hasher = fast_hasher()
        first = await Client.connect(one.url, "Ann")
        await first.register("Ann", PASSWORD)
        token = first.token
        await first.close()
        again = await Client.connect(two.url, "ignored", token=token)
        assert again.resumed and again.name == "Ann"
        player = two.sessions.get(again.player_id)
        assert player is not None and player.account is not None
        assert player.account.name == "Ann" and not player.account.bot
        await again.logout()  # needs a login: not_logged_in if the binding were lost
        await again.close()


@pytest.mark.heavy
async def test_a_resume_on_the_process_that_took_the_table_over_stays_logged_in(
    redis_server: RedisServer, servers: list[ServerProcess], tmp_path: Path
) -> None:
    """Ann's process dies; the other takes her table over, with a stand-in for her (made
    before she comes back, knowing only her id and name). Her resume there finds the
    stand-in and is still logged in to her account, as the session store holds it."""
    shared = ("--database-url", sqlite_url(tmp_path / "shared.db"))
    a, b = ServerProcess(redis_server.url, *shared), ServerProcess(redis_server.url, *shared)
    servers += [a, b]
    a.start()
    b.start()
    ann = await Client.connect(a.url, "guest a")
    await ann.register("Ann", PASSWORD)
    bob = await Client.connect(b.url, "Bob")
    table = (await ann.create_table("scopa", {"seat": 0})).table.id
    await bob.join(table)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot | sm.Update), 10)
    a.signal(signal.SIGKILL)
    await bob.wait_for(lambda m: isinstance(m, sm.Snapshot) and m.table == table, 10)
    await ann.close()
    ann = await resume(b.url, ann.token, table)
    assert (await ann.history()).games == ()  # not_logged_in if the stand-in kept no account
    await ann.logout()
    await ann.close()
    await bob.close()


async def test_redis_backoffs_count_every_failure_and_double_to_the_cap(
    redis_server: RedisServer,
) -> None:
    """Failures from two processes at once all count (one script each, atomic), and the
    wait doubles up to the cap as :func:`after_failure` does in memory."""
    from redis import asyncio as aioredis

    from server.persist.login_backoffs import RedisBackoffs

    redis = aioredis.Redis.from_url(redis_server.url)
    try:
        one, two = (RedisBackoffs(redis, "lbtest", 1.0, 8.0) for _ in range(2))
        name, address = name_key("Ann"), address_key("10.0.0.1")
        assert await one.wait([name, address], 0.0) == 0.0
        await asyncio.gather(*(b.failed([name, address], 0.0) for b in [one, two] * 3))
        assert await redis.get("lbtest:lb:n:name:" + name.value) == b"6"
        assert 7.5 < await two.wait([name], 0.0) <= 8.0  # 2 ** 5 s, held to the cap
        await one.succeeded(name)
        assert await two.wait([name], 0.0) == 0.0
        assert 7.5 < await two.wait([name, address], 0.0) <= 8.0  # the address keeps its
    finally:
        await redis.aclose()


async def test_failed_logins_back_off_across_processes(
    redis_server: RedisServer, tmp_path: Path
) -> None:
    """Two processes on one Redis count a name's and an address's failures once: a
    failure on one makes the other wait too (the same ``login_throttled`` and seconds),
    and the doubling goes on across them, where each process's memory would restart."""
    config = fast_redis_config(
        redis_server.url, database_url=sqlite_url(tmp_path / "c.db"), login_backoff=0.5
    )
    async with running_server(config) as one, running_server(config) as two:
        one.accounts.hasher = two.accounts.hasher = fast_hasher()
        async with await Client.connect(one.url, "Ann") as ann:
            await ann.register("Ann", PASSWORD)
        async with await Client.connect(one.url, "x") as a, await Client.connect(two.url, "y") as b:
            with pytest.raises(ServerError) as caught:
                await a.login("Ann", "wrong-one")
            assert caught.value.code == ErrorCode.BAD_CREDENTIALS
            with pytest.raises(ServerError) as caught:
                await b.login("Ann", PASSWORD)  # the other process: the name waits
            assert caught.value.code == ErrorCode.LOGIN_THROTTLED
            assert 0.0 < float(caught.value.detail or "0") <= 0.5
            await asyncio.sleep(0.55)
            with pytest.raises(ServerError) as caught:
                await b.login("Ann", "wrong-two")  # the second failure in a row: 1 s
            assert caught.value.code == ErrorCode.BAD_CREDENTIALS
            await asyncio.sleep(0.55)
            with pytest.raises(ServerError) as caught:
                await a.login("Ann", PASSWORD)
            assert caught.value.code == ErrorCode.LOGIN_THROTTLED
            assert 0.0 < float(caught.value.detail or "0") <= 0.5
            await asyncio.sleep(0.5)
            assert (await a.login("Ann", PASSWORD)).name == "Ann"
        # the success forgot the name's failures in Redis, for both processes
        assert isinstance(one.store, RedisStore)
        keys = await one.store.redis.keys(f"{config.redis_prefix}:lb:*:name:*")
        assert keys == []


def test_the_server_command_names_a_database_it_cannot_open(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "postgresql+asyncpg://nobody:secret@127.0.0.1:1/none"
    assert server_main(["--port", "0", "--ai-mode", "thread", "--database-url", url]) == 1
    err = capsys.readouterr().err
    assert "cardavia-server: the database" in err and "cannot be opened" in err
    assert "secret" not in err


async def test_an_unreachable_database_is_store_unavailable(account_server: CardaviaServer) -> None:
    async with await Client.connect(account_server.url, "Ann") as ann:
        await ann.register("Ann", PASSWORD)
        async with database_away(account_server.accounts):
            with pytest.raises(ServerError) as caught:
                await ann.change_password(PASSWORD, "another secret")
            assert caught.value.code == ErrorCode.STORE_UNAVAILABLE
        assert await account_server.accounts.login("Ann", PASSWORD, "b")  # unchanged
