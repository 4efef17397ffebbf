"""``hint``: the strongest AI's move for a player's own seat, from that seat's view only.

The terminal computes its hint itself (client_cli/hint.py); the browser cannot
run the engine, so the server answers ``hint`` the same way: the game's
strongest policy, given the seat's view and legal moves (never the state),
with a fixed number of search iterations and a seed drawn from the view
itself, so the same view always gets the same hint and the terminal and the
page suggest the same move. The decision runs off the event loop in the AI
pool, queued with the table's own AI turns (server/ai/pool.py).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.codec import to_plain
from engine.game import Budget
from engine.policy import Peers
from engine.registry import policy_names
from protocol import client_messages as cm
from protocol.errors import ErrorCode
from protocol.server_messages import Error, HintReply
from server.ai.pool import AiBusy, AiRunner
from server.players.sessions import Player
from server.tables.actor import TableActor
from server.tables.options import RequestError

HINT_ITERATIONS = 200
"""Search iterations for one hint: a fixed budget, so that a hint is reproducible
(the terminal's ``hint`` uses the same, client_cli/hint.py)."""


def view_seed(view: Mapping[str, Any]) -> int:
    """The seed of a hint: from the seat's plain view alone (as the terminal draws it),
    so that nothing the seat cannot see changes the hint."""
    digest = hashlib.sha256(json.dumps(view, sort_keys=True, default=str).encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class HintAsk:
    """A hint to compute: what the seat's view showed when it was asked for."""

    table: str
    seat: int
    version: int
    game_id: str
    view: Any
    plain: Mapping[str, Any]
    peers: Peers
    ref: int | None


def ask(actor: TableActor, player: Player, msg: cm.Hint) -> HintAsk:
    """Check a ``hint`` request and take the seat's view, or refuse with a typed error:
    ``forbidden`` for a spectator (detail ``spectator``) or at a table created
    without hints (``hints_off``), ``not_playing`` with no game on,
    ``not_your_turn`` when the seat has no move now."""
    core = actor.core
    seat = core.seat_of(player.player_id)
    if seat is None:
        if core.is_member(player.player_id):
            raise RequestError(ErrorCode.FORBIDDEN, "spectators get no hints", "spectator")
        raise RequestError(ErrorCode.NOT_AT_TABLE, "you are not at this table")
    if not core.setup.options.hints:
        raise RequestError(ErrorCode.FORBIDDEN, "this table was created without hints", "hints_off")
    if core.status != "playing" or core.state is None:
        raise RequestError(ErrorCode.NOT_PLAYING, f"the table is {core.status}")
    if seat not in core.game.to_act(core.state):
        raise RequestError(ErrorCode.NOT_YOUR_TURN, "a hint is for your turn")
    view = core.game.view(core.state, seat)  # the only exit of what the seat may know
    return HintAsk(
        actor.id, seat, core.version, core.game.id, view, to_plain(view), core.peers(), msg.id
    )


async def answer(asked: HintAsk, ai: AiRunner, player: Player) -> None:
    """Compute the hint in the AI pool and send it (``server_busy`` when the pool cannot
    answer in time). The reply names the version it was computed for: the table may
    have moved on meanwhile."""
    level = policy_names(asked.game_id)[-1]
    budget = Budget(iterations=HINT_ITERATIONS)
    seed = view_seed(asked.plain)
    legal = tuple(asked.view.legal)
    try:
        choice = await ai.advise(
            asked.game_id, level, asked.view, legal, seed, budget, asked.table, asked.peers
        )
    except AiBusy as exc:
        player.send(
            Error(ref=asked.ref, code=ErrorCode.SERVER_BUSY, message=str(exc), table=asked.table)
        )
        return
    action = to_plain(choice)
    index = next(i for i, a in enumerate(asked.plain["legal"]) if a == action)
    reply = HintReply(
        ref=asked.ref,
        table=asked.table,
        seat=asked.seat,
        version=asked.version,
        index=index,
        action=action,
        level=level,
    )
    player.send(reply)


def start(actor: TableActor, ai: AiRunner, player: Player, msg: cm.Hint) -> asyncio.Task[None]:
    """Check ``msg`` now (a refusal raises at once), then answer it in a task of its
    own: the player's later requests, their moves included, never wait for the AI."""
    return asyncio.create_task(answer(ask(actor, player, msg), ai, player))
