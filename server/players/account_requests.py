"""The account requests of a session: register, login, logout, change_password,
delete_account (docs/protocol.md, "Accounts").

Each either succeeds whole or raises :class:`~server.tables.options.RequestError`
having changed nothing.  Logging in binds the session to the account and gives
it the account's name, so it is refused while the session is at a table (the
name shown there would change under the other players).  Logout and deletion end
the session: its token stops working, its seats go to the AI, the connection
closes and the client may say ``hello`` again.

Bots: a logged-in person creates bot accounts (``create_bot``) and their API
tokens (``create_api_token``, shown once; ``revoke_api_token`` ends the bot's
sessions too); a bot's session logs in with a token (``bot_login``), never a
password.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from sqlalchemy.exc import DBAPIError

from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.server_messages import Account as AccountMessage
from protocol.server_messages import ApiToken, Bot, BotInfo, Bots, Ok, TokenInfo
from server.ops.logs import get_logger
from server.players.accounts import Account, Accounts
from server.players.sessions import Player
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.lobby import Lobby
    from server.persist.session_store import SessionStore
    from server.players.moderation import Moderation
    from server.players.sessions import Sessions


class AccountHost(Protocol):
    """What the account requests need of the server (:class:`server.app.AccountHost`):
    the sessions an account holds, their durable copy, and the lobby that forgets a
    session's tables when an account request ends it."""

    @property
    def sessions(self) -> Sessions:
        """This process's sessions."""

    @property
    def session_store(self) -> SessionStore | None:
        """The sessions' durable copy (Redis), if any."""

    @property
    def lobby(self) -> Lobby:
        """This process's tables."""

    @property
    def moderation(self) -> Moderation:
        """Bans, mutes and blocks, kept with the accounts."""

    def clock(self) -> float:
        """The server's monotonic clock."""

    async def leave_queue(self, player: Player) -> None:
        """Take an ending session out of the rated queue (issue 55): nobody seats a
        session that is gone."""


ACCOUNT_REQUESTS = (
    cm.Register,
    cm.Login,
    cm.Logout,
    cm.ChangePassword,
    cm.DeleteAccount,
    cm.CreateBot,
    cm.ListBots,
    cm.CreateApiToken,
    cm.RevokeApiToken,
    cm.BotLogin,
)
"""The messages :func:`handle` answers."""

LOGGED_OUT = 1000
"""The close code after ``logout`` and ``delete_account``: a normal end."""

_log = get_logger(component="accounts")


def _logged_in(player: Player) -> Account:
    if player.account is None:
        raise RequestError(ErrorCode.NOT_LOGGED_IN, "log in first")
    return player.account


def _may_log_in(player: Player) -> None:
    if player.account is not None:
        raise RequestError(ErrorCode.FORBIDDEN, "this session is logged in already; log out first")
    if player.tables:
        raise RequestError(
            ErrorCode.FORBIDDEN, "leave your tables first: logging in changes the name shown there"
        )


async def handle(app: AccountHost, accounts: Accounts, player: Player, msg: object) -> None:
    """Answer one account request of ``player``; ``store_unavailable`` when the
    database cannot be reached (its transaction rolled back: nothing changed)."""
    try:
        await _handle(app, accounts, player, msg)
    except (DBAPIError, OSError) as exc:
        _log.warning("database_unavailable", type=type(msg).__name__, error=type(exc).__name__)
        raise RequestError(
            ErrorCode.STORE_UNAVAILABLE, "accounts cannot be reached now; retry soon"
        ) from None


async def _handle(app: AccountHost, accounts: Accounts, player: Player, msg: object) -> None:
    if isinstance(msg, cm.Register):
        _may_log_in(player)
        account = await accounts.register(msg.name, msg.password)
        _log.info("account_registered", account=account.account_id, player=player.player_id)
        await _bind(app, player, account, msg.id)
    elif isinstance(msg, cm.Login):
        _may_log_in(player)
        account = await accounts.login(msg.name, msg.password, player.address)
        _log.info("logged_in", account=account.account_id, player=player.player_id)
        await _bind(app, player, account, msg.id)
    elif isinstance(msg, cm.Logout):
        account = _logged_in(player)
        player.send(Ok(ref=msg.id))
        await end_session(app, player, "logged out")
        _log.info("logged_out", account=account.account_id, player=player.player_id)
    elif isinstance(msg, cm.ChangePassword):
        account = _logged_in(player)
        await accounts.change_password(account, msg.password, msg.new_password, player.address)
        player.send(Ok(ref=msg.id))
        for other in app.sessions.of_account(account.account_id):
            if other is not player:  # the other devices sign in again, with the new password
                await end_session(app, other, "the account's password changed")
        _log.info("password_changed", account=account.account_id)
    elif isinstance(msg, cm.DeleteAccount):
        account = _logged_in(player)
        gone = await accounts.delete(account, msg.password, player.address)
        player.send(Ok(ref=msg.id))
        for account_id in gone:  # the account's sessions, and its bots'
            for other in app.sessions.of_account(account_id):
                await end_session(app, other, "the account was deleted")
        _log.info("account_deleted", account=account.account_id)
    elif isinstance(msg, cm.BotLogin):
        _may_log_in(player)
        account = await accounts.token_login(msg.token, player.address)
        _log.info("bot_logged_in", account=account.account_id, player=player.player_id)
        await _bind(app, player, account, msg.id)
    else:
        await _bots(app, accounts, player, msg)


async def _bots(app: AccountHost, accounts: Accounts, player: Player, msg: object) -> None:
    """The requests of a bot's owner: create bots, list them, make and revoke tokens."""
    owner = _logged_in(player)
    if isinstance(msg, cm.CreateBot):
        bot = await accounts.create_bot(owner, msg.name)
        player.send(Bot(ref=msg.id, account_id=bot.account_id, name=bot.name))
        _log.info("bot_created", account=bot.account_id, owner=owner.account_id)
    elif isinstance(msg, cm.ListBots):
        bots = await accounts.bots(owner)
        listed = tuple(
            BotInfo(
                account_id=b.account.account_id,
                name=b.account.name,
                tokens=tuple(TokenInfo(token_id=t.token_id, label=t.label) for t in b.tokens),
            )
            for b in bots
        )
        player.send(Bots(ref=msg.id, bots=listed))
    elif isinstance(msg, cm.CreateApiToken):
        made = await accounts.create_token(owner, msg.bot, msg.label)
        player.send(
            ApiToken(
                ref=msg.id,
                token_id=made.token_id,
                bot=made.bot.account_id,
                label=made.label,
                token=made.token,
            )
        )
        _log.info("api_token_created", account=made.bot.account_id, token_id=made.token_id)
    elif isinstance(msg, cm.RevokeApiToken):
        bot = await accounts.revoke_token(owner, msg.token_id)
        player.send(Ok(ref=msg.id))
        for other in app.sessions.of_account(bot.account_id):  # a revoked token cuts access
            await end_session(app, other, "the bot's API token was revoked")
        _log.info("api_token_revoked", account=bot.account_id, token_id=msg.token_id)
    else:  # pragma: no cover - handle() passes only the owner's requests here
        raise RequestError(ErrorCode.BAD_MESSAGE, "not an account request")


async def _bind(app: AccountHost, player: Player, account: Account, ref: int | None) -> None:
    """The session is now the account's, under its name, with its mutes and blocks;
    tell the client.  A banned account is refused (``banned``), read from the database
    so that a ban made a moment ago holds already."""
    ban = await app.moderation.ban_of_account(account.account_id)
    if ban is not None:
        raise RequestError(ErrorCode.BANNED, ban.describe(), ban.until.isoformat())
    kept = await app.moderation.relations(account.account_id)
    player.relations = kept.merged(player.relations)  # the session's own ones stay too
    player.account = account
    player.name = account.name
    if app.session_store is not None:
        await app.session_store.save(player)
    player.send(
        AccountMessage(ref=ref, account_id=account.account_id, name=account.name, bot=account.bot)
    )


async def end_session(
    app: AccountHost, player: Player, reason: str, *, code: int = LOGGED_OUT
) -> None:
    """Revoke ``player``'s session: tokens forgotten, seats left (the AI plays on),
    the connection closed (with ``code``) after what is queued for it (an ``ok``) is sent."""
    link = player.link
    if link is not None:
        app.sessions.detach(player, link, app.clock())
    app.lobby.forget(player)
    await app.leave_queue(player)
    app.sessions.forget(player)
    app.lobby.quotas.drop_session(player)
    if app.session_store is not None:
        await app.session_store.forget(player)
    if link is not None:
        link.close(code, reason)
