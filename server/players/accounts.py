"""Accounts: register, log in, change the password, delete (issue 54).

What needs no I/O is plain values and functions here: the password rules
(:func:`check_password`), the login throttle (:class:`Backoff`,
:class:`LoginThrottle`) and names (:mod:`server.players.names`: a registered
name is unique by :func:`~server.players.names.skeleton`, so neither ``ANN``,
``Аnn`` (Cyrillic А) nor ``Ａｎｎ`` can sit beside ``Ann``).  :class:`Accounts`
adds the SQL database (:mod:`server.persist.db`) and Argon2id hashing, run in
worker threads (:class:`Hasher`) so that a login never stalls the event loop
and the tables on it.

A wrong password and an unknown name get the same answer (``bad_credentials``),
after the same work (an unknown name is checked against a dummy hash), and both
count against the name and the address: there is no way to learn whether an
account exists.  Passwords are never logged, kept, or put in errors.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from protocol.errors import ErrorCode
from server.config import usable_cpus
from server.ops.logs import get_logger
from server.persist.db.engine import Database
from server.persist.db.models import AccountRow, ApiTokenRow, Base
from server.persist.db.records import anonymise
from server.players.names import NameError_, skeleton, validate_name
from server.tables.options import RequestError

PASSWORD_MIN = 8
"""Shortest password, in characters (NIST SP 800-63B's floor for chosen passwords)."""
PASSWORD_MAX = 256
"""Longest password, in characters: room for passphrases and managers, and a bound on
the hashing work one request may ask for."""
NAMES_REFRESH_S = 15.0
"""Seconds between re-reads of the registered names on a shared database (PostgreSQL:
other processes register too)."""
THROTTLE_KEYS_MAX = 100_000
"""Names and addresses the throttle remembers at most; past it the oldest quiet ones go."""

BOTS_MAX = 10
"""Bot accounts one person may own."""
TOKENS_MAX = 10
"""API tokens one bot may hold at once."""
TOKEN_PREFIX = "cdv_"
"""API tokens start with this, so that secret scanners and people can tell them."""
LABEL_MAX = 64
"""Longest token label, in characters."""

BAD_CREDENTIALS = "wrong name or password"
"""The one answer to a failed login, whichever part was wrong."""


@dataclass(frozen=True)
class Account:
    """A registered player or bot, as the rest of the server sees it."""

    account_id: str
    name: str
    bot: bool = False


@dataclass(frozen=True)
class TokenInfo:
    """An API token as its owner sees it later: never the token itself."""

    token_id: str
    label: str


@dataclass(frozen=True)
class BotInfo:
    """A bot account and its live tokens."""

    account: Account
    tokens: tuple[TokenInfo, ...]


@dataclass(frozen=True)
class NewToken:
    """A token just made: ``token`` is shown this once (only its digest is kept)."""

    token_id: str
    bot: Account
    label: str
    token: str


def token_digest(token: str) -> str:
    """The SHA-256 of an API token, as kept (a token is random: no salt or slow hash needed)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_password(password: str) -> None:
    """Refuse a new password outside :data:`PASSWORD_MIN`..:data:`PASSWORD_MAX` characters
    (``bad_password``, ``detail`` ``too_short`` or ``too_long``); the message never quotes it."""
    if len(password) < PASSWORD_MIN:
        raise RequestError(
            ErrorCode.BAD_PASSWORD,
            f"a password needs at least {PASSWORD_MIN} characters",
            "too_short",
        )
    if len(password) > PASSWORD_MAX:
        raise RequestError(
            ErrorCode.BAD_PASSWORD,
            f"a password has at most {PASSWORD_MAX} characters",
            "too_long",
        )


# -- throttling (values) ------------------------------------------------------------


@dataclass(frozen=True)
class Backoff:
    """Failed logins of one name or address: how many in a row, and until when it waits."""

    failures: int
    until: float


def after_failure(previous: Backoff | None, now: float, base: float, cap: float) -> Backoff:
    """The backoff after one more failure: ``base`` seconds, doubled at each failure in a
    row, at most ``cap`` (exponential backoff: guessing gets slower and slower)."""
    failures = 1 if previous is None else previous.failures + 1
    delay = min(cap, base * 2.0 ** min(failures - 1, 62))
    return Backoff(failures, now + delay)


@dataclass(frozen=True)
class ThrottleKey:
    """What a failure counts against: an account name (its skeleton) or a client address."""

    kind: str
    value: str


class LoginThrottle:
    """The backoffs of names and addresses; a login waits for the longest of its keys."""

    def __init__(self, base: float, cap: float) -> None:
        self.base = base
        self.cap = cap
        self._held: dict[ThrottleKey, Backoff] = {}

    def wait(self, keys: Iterable[ThrottleKey], now: float) -> float:
        """Seconds before a login with ``keys`` may be tried (0: now)."""
        waits = [b.until - now for k in keys if (b := self._held.get(k)) is not None]
        return max([0.0, *waits])

    def failed(self, keys: Iterable[ThrottleKey], now: float) -> None:
        """One more failure for each of ``keys``."""
        for key in keys:
            self._held[key] = after_failure(self._held.get(key), now, self.base, self.cap)
        if len(self._held) > THROTTLE_KEYS_MAX:
            self._prune(now)

    def succeeded(self, key: ThrottleKey) -> None:
        """A login of this name succeeded: its failures are forgotten (not the address's)."""
        self._held.pop(key, None)

    def _prune(self, now: float) -> None:
        """Forget keys quiet for ``cap`` seconds past their wait; then the oldest, if need be."""
        self._held = {k: b for k, b in self._held.items() if b.until + self.cap > now}
        while len(self._held) > THROTTLE_KEYS_MAX:
            del self._held[next(iter(self._held))]


class Backoffs(Protocol):
    """Where the login backoffs are kept: this process's memory (:class:`MemoryBackoffs`)
    or, with several processes on one Redis, Redis
    (:class:`~server.persist.login_backoffs.RedisBackoffs`), so that a guesser gets no
    fresh budget on each process."""

    async def wait(self, keys: Sequence[ThrottleKey], now: float) -> float:
        """Seconds before a login with ``keys`` may be tried (0: now)."""
        ...

    async def failed(self, keys: Sequence[ThrottleKey], now: float) -> None:
        """One more failure for each of ``keys``."""
        ...

    async def succeeded(self, key: ThrottleKey) -> None:
        """A login of this name succeeded: its failures are forgotten."""
        ...


class MemoryBackoffs:
    """The backoffs in this process's memory (a :class:`LoginThrottle`): one process."""

    def __init__(self, throttle: LoginThrottle) -> None:
        self.throttle = throttle

    async def wait(self, keys: Sequence[ThrottleKey], now: float) -> float:
        return self.throttle.wait(keys, now)

    async def failed(self, keys: Sequence[ThrottleKey], now: float) -> None:
        self.throttle.failed(keys, now)

    async def succeeded(self, key: ThrottleKey) -> None:
        self.throttle.succeeded(key)


def name_key(name: str) -> ThrottleKey:
    """The throttle key of a name as typed (its skeleton: look-alikes count together)."""
    return ThrottleKey("name", skeleton(name))


def address_key(address: str) -> ThrottleKey:
    """The throttle key of a client address (already grouped: an IPv6 address as its /64)."""
    return ThrottleKey("address", address)


# -- hashing, off the event loop -------------------------------------------------------


HASH_WORKERS_MAX = 4
"""Hashing threads at most (each hash takes one core for its whole time)."""
HASH_NICENESS = 10
"""How much lower than the event loop's the hashing threads' CPU priority is (Linux
``nice``): when cores are short, moves are served first and logins wait."""


def default_hasher() -> PasswordHasher:
    """Argon2id with OWASP's recommended minimum (19 MiB, 2 passes, one lane): one core
    per hash, so concurrent logins spread over the cores instead of each taking several."""
    return PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


def _lower_priority() -> None:
    """Run this (hashing) thread at a lower CPU priority than the event loop's."""
    with contextlib.suppress(AttributeError, OSError):  # not Linux, or not allowed
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), HASH_NICENESS)


class Hasher:
    """Argon2id (:func:`default_hasher`) in a few worker threads.

    The hash is memory-hard on purpose; running it in threads keeps the event
    loop free (argon2's C code releases the GIL), the threads run at a lower
    priority than the loop (:data:`HASH_NICENESS`), and a small pool bounds how
    much memory and CPU concurrent logins may take.
    """

    def __init__(self, workers: int | None = None, hasher: PasswordHasher | None = None) -> None:
        self._hasher = hasher or default_hasher()
        if workers is None:  # as the AI workers: one core is left to the event loop
            workers = max(1, min(HASH_WORKERS_MAX, usable_cpus() - 1))
        self._pool = ThreadPoolExecutor(
            workers, thread_name_prefix="argon2", initializer=_lower_priority
        )
        self._dummy: str | None = None

    async def hash(self, password: str) -> str:
        """The encoded Argon2id hash of ``password`` (salt included)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._hasher.hash, password)

    async def verify(self, encoded: str | None, password: str) -> bool:
        """Whether ``password`` matches ``encoded``; with no hash (an unknown name, a bot)
        a dummy one is checked instead, so the answer takes as long either way."""
        if encoded is None:
            if self._dummy is None:
                self._dummy = await self.hash(secrets.token_urlsafe(16))
            encoded = self._dummy
            await self._check(encoded, password)
            return False
        return await self._check(encoded, password)

    async def _check(self, encoded: str, password: str) -> bool:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._matches, encoded, password)

    def _matches(self, encoded: str, password: str) -> bool:
        try:
            return self._hasher.verify(encoded, password)
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, encoded: str) -> bool:
        """Whether ``encoded`` was made with other parameters than today's."""
        return self._hasher.check_needs_rehash(encoded)

    def close(self) -> None:
        """Stop the worker threads."""
        self._pool.shutdown(wait=False, cancel_futures=True)


# -- the accounts, on the database ------------------------------------------------------


def _now() -> datetime:
    return datetime.now(UTC)


def _account(row: AccountRow) -> Account:
    return Account(account_id=row.account_id, name=row.name, bot=row.bot)


async def _add_within(
    session: AsyncSession, row: Base, counted: ColumnElement[bool], cap: int, limit: str
) -> None:
    """Add ``row`` unless ``cap`` rows of its table already match ``counted``
    (``quota_exceeded``, saying ``limit``)."""
    held = await session.scalar(select(func.count()).select_from(type(row)).where(counted))
    if (held or 0) >= cap:
        raise RequestError(ErrorCode.QUOTA_EXCEEDED, limit)
    session.add(row)


def _checked_name(raw: str) -> str:
    try:
        return validate_name(raw)
    except NameError_ as exc:
        raise RequestError(ErrorCode.BAD_NAME, str(exc)) from None


class Accounts:
    """Registration, login, password changes and deletion over one :class:`Database`.

    :meth:`taken` answers from memory (the skeletons of every account, read at
    :meth:`open` and kept current here), so a ``hello`` needs no query.  On a
    shared database (PostgreSQL) other processes register and delete too: the
    names are read again every :data:`NAMES_REFRESH_S` seconds.
    """

    def __init__(
        self,
        db: Database,
        *,
        backoff: float = 1.0,
        backoff_max: float = 300.0,
        hasher: Hasher | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.db = db
        self.hasher = hasher or Hasher()
        self.throttle = LoginThrottle(backoff, backoff_max)
        self.backoffs: Backoffs = MemoryBackoffs(self.throttle)
        """Where failures are counted; the app puts them in Redis with the redis store."""
        self.clock = clock
        self._skeletons: set[str] = set()
        self._refresher: asyncio.Task[None] | None = None

    async def open(self, refresh_every: float | None = NAMES_REFRESH_S) -> None:
        """Open (migrate) the database and read the names taken; on a shared database,
        read them again every ``refresh_every`` seconds (``None``: never)."""
        await self.db.open()
        await self.refresh()
        if refresh_every is not None and not self.db.sqlite:
            self._refresher = asyncio.create_task(self._refresh_loop(refresh_every))

    async def refresh(self) -> None:
        """Read the registered names again (those other processes registered or deleted)."""
        async with self.db.session() as session:
            found = await session.execute(select(AccountRow.skeleton))
            self._skeletons = set(found.scalars())

    async def _refresh_loop(self, period: float) -> None:
        log = get_logger(component="accounts")
        while True:
            await asyncio.sleep(period)
            try:
                await self.refresh()
            except Exception as exc:  # the database is away: keep the names known
                log.warning("names_not_refreshed", error=repr(exc))

    async def close(self) -> None:
        """Stop the refreshes; close the database and the hashing threads."""
        if self._refresher is not None:
            self._refresher.cancel()
            await asyncio.gather(self._refresher, return_exceptions=True)
        await self.db.close()
        self.hasher.close()

    def registered(self) -> frozenset[str]:
        """The skeletons of every account's name (what :meth:`taken` compares with)."""
        return frozenset(self._skeletons)

    def taken(self, name: str) -> bool:
        """Whether ``name`` (or a look-alike of it) is a registered account's."""
        return skeleton(name) in self._skeletons

    async def register(self, name: str, password: str) -> Account:
        """A new account; ``bad_name``, ``bad_password`` or ``name_taken`` change nothing."""
        check_password(password)
        row = self._new_row(name)
        row.password_hash = await self.hasher.hash(password)
        return await self._insert(row)

    def _new_row(self, raw_name: str, owner: Account | None = None) -> AccountRow:
        """A new account's row (``owner``'s bot, without a password, when given), its
        name checked (``bad_name``) and free (``name_taken``); not stored yet."""
        name = _checked_name(raw_name)
        key = skeleton(name)
        if key in self._skeletons:
            raise RequestError(ErrorCode.NAME_TAKEN, "an account already has this name")
        return AccountRow(
            account_id="a_" + secrets.token_hex(8),
            name=name,
            skeleton=key,
            password_hash=None,
            bot=owner is not None,
            owner_id=None if owner is None else owner.account_id,
            created_at=_now(),
        )

    async def login(self, name: str, password: str, address: str) -> Account:
        """The account ``name`` if ``password`` is its own; else ``bad_credentials``
        (the same for an unknown name) or ``login_throttled`` while failures make
        this name or address wait."""
        keys = (name_key(name), address_key(address))
        await self._check_throttle(keys)
        async with self.db.session() as session:
            row = await session.scalar(
                select(AccountRow).where(AccountRow.skeleton == keys[0].value)
            )
        matches = await self.hasher.verify(None if row is None else row.password_hash, password)
        if row is None or not matches:
            await self.backoffs.failed(keys, self.clock())
            raise RequestError(ErrorCode.BAD_CREDENTIALS, BAD_CREDENTIALS)
        await self.backoffs.succeeded(keys[0])
        if row.password_hash is not None and self.hasher.needs_rehash(row.password_hash):
            await self._set_password(row.account_id, password)
        return _account(row)

    async def change_password(
        self, account: Account, password: str, new_password: str, address: str
    ) -> None:
        """Replace the password after checking the current one (throttled as a login)."""
        check_password(new_password)
        await self._verify(account, password, address)
        await self._set_password(account.account_id, new_password)

    async def delete(self, account: Account, password: str, address: str) -> tuple[str, ...]:
        """Delete the account, its bots and their tokens, after checking the password;
        the ids of the accounts gone (it and its bots).  Their seats in stored games
        become ``deleted player`` in the same transaction (the games stay whole)."""
        await self._verify(account, password, address)
        async with self.db.session() as session:
            owned = (
                await session.execute(
                    select(AccountRow.account_id, AccountRow.skeleton).where(
                        (AccountRow.account_id == account.account_id)
                        | (AccountRow.owner_id == account.account_id)
                    )
                )
            ).all()
            gone = {key for _, key in owned}
            await anonymise(session, [account_id for account_id, _ in owned])
            await session.execute(
                delete(AccountRow).where(AccountRow.owner_id == account.account_id)
            )
            await session.execute(
                delete(AccountRow).where(AccountRow.account_id == account.account_id)
            )
        self._skeletons -= gone
        return tuple(account_id for account_id, _ in owned)

    # -- bots and their API tokens -----------------------------------------------------

    async def create_bot(self, owner: Account, name: str) -> Account:
        """A bot account named ``name``, owned by the (human) ``owner``; it has no password."""
        if owner.bot:
            raise RequestError(ErrorCode.FORBIDDEN, "a bot cannot own bots")
        row = self._new_row(name, owner)
        return await self._insert(row, owner.account_id)

    async def _insert(self, row: AccountRow, owner_id: str | None = None) -> Account:
        """Add the account ``row`` (a bot of ``owner_id``: within :data:`BOTS_MAX`);
        ``name_taken`` if its skeleton was registered meanwhile (here or elsewhere)."""
        try:
            async with self.db.session() as session:
                if owner_id is None:
                    session.add(row)
                else:
                    owned = AccountRow.owner_id == owner_id
                    limit = f"an account owns at most {BOTS_MAX} bots"
                    await _add_within(session, row, owned, BOTS_MAX, limit)
        except IntegrityError:
            self._skeletons.add(row.skeleton)
            raise RequestError(ErrorCode.NAME_TAKEN, "an account already has this name") from None
        self._skeletons.add(row.skeleton)
        return _account(row)

    async def _owned_bot(self, owner: Account, bot_id: str) -> AccountRow:
        async with self.db.session() as session:
            row = await session.get(AccountRow, bot_id)
        if row is None or not row.bot or row.owner_id != owner.account_id:
            raise RequestError(ErrorCode.NOT_FOUND, "you own no bot with this id")
        return row

    async def create_token(self, owner: Account, bot_id: str, label: str) -> NewToken:
        """A new API token for ``owner``'s bot ``bot_id``."""
        label = label.strip()
        if not label or len(label) > LABEL_MAX or not label.isprintable():
            raise RequestError(
                ErrorCode.BAD_OPTIONS, f"a label is 1 to {LABEL_MAX} printable characters"
            )
        bot = await self._owned_bot(owner, bot_id)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = ApiTokenRow(
            token_id="t_" + secrets.token_hex(8),
            account_id=bot.account_id,
            digest=token_digest(token),
            label=label,
            created_at=_now(),
            uses=0,
        )
        async with self.db.session() as session:
            held = ApiTokenRow.account_id == bot.account_id
            limit = f"a bot holds at most {TOKENS_MAX} tokens"
            await _add_within(session, row, held, TOKENS_MAX, limit)
        return NewToken(row.token_id, _account(bot), label, token)

    async def revoke_token(self, owner: Account, token_id: str) -> Account:
        """Revoke ``owner``'s bot's token ``token_id``; the bot it belonged to."""
        async with self.db.session() as session:
            token = await session.get(ApiTokenRow, token_id)
            bot = None if token is None else await session.get(AccountRow, token.account_id)
            if token is None or bot is None or bot.owner_id != owner.account_id:
                raise RequestError(ErrorCode.NOT_FOUND, "you own no token with this id")
            await session.delete(token)
        return _account(bot)

    async def bots(self, owner: Account) -> tuple[BotInfo, ...]:
        """``owner``'s bots with their tokens (ids and labels), oldest first."""
        oldest = (AccountRow.created_at, AccountRow.account_id)
        mine = AccountRow.owner_id == owner.account_id
        async with self.db.session() as session:
            bots = list(await session.scalars(select(AccountRow).where(mine).order_by(*oldest)))
            tokens = await session.execute(
                select(ApiTokenRow.account_id, ApiTokenRow.token_id, ApiTokenRow.label)
                .join(AccountRow, AccountRow.account_id == ApiTokenRow.account_id)
                .where(mine)
                .order_by(ApiTokenRow.created_at, ApiTokenRow.token_id)
            )
            held: dict[str, list[TokenInfo]] = {}
            for account_id, token_id, label in tokens:
                held.setdefault(account_id, []).append(TokenInfo(token_id, label))
        return tuple(BotInfo(_account(bot), tuple(held.get(bot.account_id, ()))) for bot in bots)

    async def token_login(self, token: str, address: str) -> Account:
        """The bot whose API token ``token`` is; ``bad_credentials`` for any other (failures
        slow the address down, as failed logins do)."""
        keys = (address_key(address),)
        await self._check_throttle(keys)
        async with self.db.session() as session:
            row = await session.scalar(
                select(ApiTokenRow).where(ApiTokenRow.digest == token_digest(token))
            )
            bot = None if row is None else await session.get(AccountRow, row.account_id)
            if row is not None:
                row.uses += 1
        if bot is None:
            await self.backoffs.failed(keys, self.clock())
            raise RequestError(ErrorCode.BAD_CREDENTIALS, "unknown API token")
        return _account(bot)

    async def get(self, account_id: str) -> Account | None:
        """The account ``account_id``, if it still exists."""
        async with self.db.session() as session:
            row = await session.get(AccountRow, account_id)
        return None if row is None else _account(row)

    async def _check_throttle(self, keys: Sequence[ThrottleKey]) -> None:
        wait = await self.backoffs.wait(keys, self.clock())
        if wait > 0:
            raise RequestError(
                ErrorCode.LOGIN_THROTTLED,
                f"too many failed logins; try again in {wait:.1f} s",
                f"{wait:.1f}",
            )

    async def _verify(self, account: Account, password: str, address: str) -> None:
        """Check ``account``'s password as a login would (throttled; ``bad_credentials``)."""
        keys = (ThrottleKey("name", skeleton(account.name)), address_key(address))
        await self._check_throttle(keys)
        async with self.db.session() as session:
            row = await session.get(AccountRow, account.account_id)
        stored = None if row is None else row.password_hash
        if not await self.hasher.verify(stored, password):
            await self.backoffs.failed(keys, self.clock())
            raise RequestError(ErrorCode.BAD_CREDENTIALS, BAD_CREDENTIALS)
        await self.backoffs.succeeded(keys[0])

    async def _set_password(self, account_id: str, password: str) -> None:
        encoded = await self.hasher.hash(password)
        async with self.db.session() as session:
            row = await session.get_one(AccountRow, account_id)
            row.password_hash = encoded
            row.password_changed_at = _now()
