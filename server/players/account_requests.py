"""The account requests of a session: register, login, logout, change_password,
delete_account (docs/protocol.md, "Accounts").

Each either succeeds whole or raises :class:`~server.tables.options.RequestError`
having changed nothing.  Logging in binds the session to the account and gives
it the account's name, so it is refused while the session is at a table (the
name shown there would change under the other players).  Logout and deletion end
the session: its token stops working, its seats go to the AI, the connection
closes and the client may say ``hello`` again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.server_messages import Account as AccountMessage
from protocol.server_messages import Ok
from server.ops.logs import get_logger
from server.players.accounts import Account, Accounts
from server.players.sessions import Player
from server.tables.options import RequestError

if TYPE_CHECKING:
    from server.app import CardaviaServer

ACCOUNT_REQUESTS = (cm.Register, cm.Login, cm.Logout, cm.ChangePassword, cm.DeleteAccount)
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


async def handle(app: CardaviaServer, accounts: Accounts, player: Player, msg: object) -> None:
    """Answer one account request of ``player``."""
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
        await accounts.delete(account, msg.password, player.address)
        player.send(Ok(ref=msg.id))
        for other in app.sessions.of_account(account.account_id):
            await end_session(app, other, "the account was deleted")
        _log.info("account_deleted", account=account.account_id)
    else:  # pragma: no cover - the app dispatches only ACCOUNT_REQUESTS here
        raise RequestError(ErrorCode.BAD_MESSAGE, "not an account request")


async def _bind(app: CardaviaServer, player: Player, account: Account, ref: int | None) -> None:
    """The session is now the account's, under its name; tell the client."""
    player.account = account
    player.name = account.name
    if app.session_store is not None:
        await app.session_store.save(player)
    player.send(
        AccountMessage(ref=ref, account_id=account.account_id, name=account.name, bot=account.bot)
    )


async def end_session(app: CardaviaServer, player: Player, reason: str) -> None:
    """Revoke ``player``'s session: tokens forgotten, seats left (the AI plays on),
    the connection closed after what is queued for it (an ``ok``) is sent."""
    link = player.link
    if link is not None:
        app.sessions.detach(player, link, app.clock())
    app.lobby.forget(player)
    app.sessions.forget(player)
    app.lobby.quotas.drop_session(player)
    if app.session_store is not None:
        await app.session_store.forget(player)
    if link is not None:
        link.close(LOGGED_OUT, reason)
