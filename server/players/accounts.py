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
import secrets
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError

from protocol.errors import ErrorCode
from server.persist.db.engine import Database
from server.persist.db.models import AccountRow
from server.players.names import NameError_, skeleton, validate_name
from server.tables.options import RequestError

PASSWORD_MIN = 8
"""Shortest password, in characters (NIST SP 800-63B's floor for chosen passwords)."""
PASSWORD_MAX = 256
"""Longest password, in characters: room for passphrases and managers, and a bound on
the hashing work one request may ask for."""
THROTTLE_KEYS_MAX = 100_000
"""Names and addresses the throttle remembers at most; past it the oldest quiet ones go."""

BAD_CREDENTIALS = "wrong name or password"
"""The one answer to a failed login, whichever part was wrong."""


@dataclass(frozen=True)
class Account:
    """A registered player or bot, as the rest of the server sees it."""

    account_id: str
    name: str
    bot: bool = False


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


def name_key(name: str) -> ThrottleKey:
    """The throttle key of a name as typed (its skeleton: look-alikes count together)."""
    return ThrottleKey("name", skeleton(name))


def address_key(address: str) -> ThrottleKey:
    """The throttle key of a client address (already grouped: an IPv6 address as its /64)."""
    return ThrottleKey("address", address)


# -- hashing, off the event loop -------------------------------------------------------


class Hasher:
    """Argon2id (argon2-cffi's RFC 9106 defaults) in a few worker threads.

    The hash is memory-hard on purpose; running it in threads keeps the event
    loop free (argon2's C code releases the GIL), and a small pool bounds how
    much memory and CPU concurrent logins may take.
    """

    def __init__(self, workers: int = 2, hasher: PasswordHasher | None = None) -> None:
        self._hasher = hasher or PasswordHasher()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="argon2")
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


def _checked_name(raw: str) -> str:
    try:
        return validate_name(raw)
    except NameError_ as exc:
        raise RequestError(ErrorCode.BAD_NAME, str(exc)) from None


class Accounts:
    """Registration, login, password changes and deletion over one :class:`Database`.

    :meth:`taken` answers from memory (the skeletons of every account, read at
    :meth:`open` and kept current here), so a ``hello`` needs no query.
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
        self.clock = clock
        self._skeletons: set[str] = set()

    async def open(self) -> None:
        """Open (migrate) the database and read the names taken."""
        await self.db.open()
        async with self.db.session() as session:
            found = await session.execute(select(AccountRow.skeleton))
            self._skeletons = set(found.scalars())

    async def close(self) -> None:
        """Close the database and the hashing threads."""
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
        name = _checked_name(name)
        check_password(password)
        key = skeleton(name)
        if key in self._skeletons:
            raise RequestError(ErrorCode.NAME_TAKEN, "an account already has this name")
        row = AccountRow(
            account_id="a_" + secrets.token_hex(8),
            name=name,
            skeleton=key,
            password_hash=await self.hasher.hash(password),
            bot=False,
            created_at=_now(),
        )
        try:
            async with self.db.session() as session:
                session.add(row)
        except IntegrityError:  # registered meanwhile (here or by another process)
            self._skeletons.add(key)
            raise RequestError(ErrorCode.NAME_TAKEN, "an account already has this name") from None
        self._skeletons.add(key)
        return _account(row)

    async def login(self, name: str, password: str, address: str) -> Account:
        """The account ``name`` if ``password`` is its own; else ``bad_credentials``
        (the same for an unknown name) or ``login_throttled`` while failures make
        this name or address wait."""
        keys = (name_key(name), address_key(address))
        self._check_throttle(keys)
        async with self.db.session() as session:
            row = await session.scalar(
                select(AccountRow).where(AccountRow.skeleton == keys[0].value)
            )
        matches = await self.hasher.verify(None if row is None else row.password_hash, password)
        if row is None or not matches:
            self.throttle.failed(keys, self.clock())
            raise RequestError(ErrorCode.BAD_CREDENTIALS, BAD_CREDENTIALS)
        self.throttle.succeeded(keys[0])
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

    async def delete(self, account: Account, password: str, address: str) -> None:
        """Delete the account, its bots and their tokens, after checking the password."""
        await self._verify(account, password, address)
        async with self.db.session() as session:
            owned = await session.execute(
                select(AccountRow.skeleton).where(
                    (AccountRow.account_id == account.account_id)
                    | (AccountRow.owner_id == account.account_id)
                )
            )
            gone = set(owned.scalars())
            await session.execute(
                delete(AccountRow).where(AccountRow.owner_id == account.account_id)
            )
            await session.execute(
                delete(AccountRow).where(AccountRow.account_id == account.account_id)
            )
        self._skeletons -= gone

    async def get(self, account_id: str) -> Account | None:
        """The account ``account_id``, if it still exists."""
        async with self.db.session() as session:
            row = await session.get(AccountRow, account_id)
        return None if row is None else _account(row)

    def _check_throttle(self, keys: Iterable[ThrottleKey]) -> None:
        wait = self.throttle.wait(keys, self.clock())
        if wait > 0:
            raise RequestError(
                ErrorCode.LOGIN_THROTTLED,
                f"too many failed logins; try again in {wait:.1f} s",
                f"{wait:.1f}",
            )

    async def _verify(self, account: Account, password: str, address: str) -> None:
        """Check ``account``'s password as a login would (throttled; ``bad_credentials``)."""
        keys = (ThrottleKey("name", skeleton(account.name)), address_key(address))
        self._check_throttle(keys)
        async with self.db.session() as session:
            row = await session.get(AccountRow, account.account_id)
        stored = None if row is None else row.password_hash
        if not await self.hasher.verify(stored, password):
            self.throttle.failed(keys, self.clock())
            raise RequestError(ErrorCode.BAD_CREDENTIALS, BAD_CREDENTIALS)
        self.throttle.succeeded(keys[0])

    async def _set_password(self, account_id: str, password: str) -> None:
        encoded = await self.hasher.hash(password)
        async with self.db.session() as session:
            row = await session.get_one(AccountRow, account_id)
            row.password_hash = encoded
            row.password_changed_at = _now()
