"""Rebuilding games from their record: the replay of a finished game, every card shown,
and a whole table (seats, spectators, the game in play) after a restart or a takeover.

A table's durable record is options + seed + action log; replaying the log
through the engine reproduces every state and every event exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.codec import to_plain
from engine.game import Game
from protocol.models import SeatInfo
from protocol.server_messages import Replay, ReplayStep
from server.persist.store import LoggedAction, TableRecord
from server.tables.core import TableCore
from server.tables.updates import plain_event
from server.tables.values import FinishedGame, SeatSlot


def rebuild(
    game: Game[Any, Any, Any, Any], game_options: Any, seed: int, log: Sequence[LoggedAction]
) -> Any:
    """The state after replaying ``log`` from ``seed`` (raises if the log does not fit)."""
    state = game.new_state(game_options, seed)
    for step in log:
        state = game.apply(state, step.seat, game.decode_action(step.action)).state
    return state


def build_replay(
    table_id: str, game: Game[Any, Any, Any, Any], game_options: Any, finished: FinishedGame
) -> Replay:
    """The ``replay`` message of a finished game: all events of all audiences, final zones."""
    state = game.new_state(game_options, finished.seed)
    start = tuple(plain_event(e) for e in game.start_events(state))
    steps = []
    for step in finished.log:
        transition = game.apply(state, step.seat, game.decode_action(step.action))
        state = transition.state
        steps.append(
            ReplayStep(
                seat=step.seat,
                by=step.by,  # type: ignore[arg-type]
                action=step.action,
                events=tuple(plain_event(e) for e in transition.events),
            )
        )
    return Replay(
        table=table_id,
        game=game.id,
        game_no=finished.game_no,
        options=to_plain(game_options),
        seats=finished.seats,
        start_events=start,
        steps=tuple(steps),
        final={zone: to_plain(cards) for zone, cards in game.card_zones(state).items()},
        result=finished.result,
    )


# -- a table's record, both ways --------------------------------------------------------
@dataclass(frozen=True)
class FixedSeed:
    """The seed source of a table that deals one given seed: every table of a Duplicate
    Swiss round deals the round's (issue 56).  Kept in the table's stored meta, so that
    a process that rebuilds the table before its game began deals that seed too; like
    every seed it stays on the server."""

    seed: int

    def __call__(self) -> int:
        return self.seed


def table_meta(core: TableCore, mono_now: float, wall_now: float) -> dict[str, Any]:
    """What a rebuilt table needs beyond options + seed + log: seating, owner, invite,
    the quick-play fill (as a wall-clock time: monotonic clocks differ between processes)
    and the players the owner removed (a kick lasts for the table's life, failovers too)."""
    return {
        "owner": core.owner,
        "quick": core.quick,
        "invite": core.invite,
        "fill_level": core.fill_level,
        "deal_seed": core.seed_source.seed if isinstance(core.seed_source, FixedSeed) else None,
        "ai_delay": core.ai_delay,
        "fill_at": None if core.fill_at is None else wall_now + (core.fill_at - mono_now),
        "seats": [
            {
                "kind": s.kind,
                "player_id": s.player_id,
                "name": s.name,
                "level": s.level,
                "left": s.left,
                "bot": s.bot,
                "account": s.account,
            }
            for s in core.seats
        ],
        "spectators": dict(core.spectators),
        "rematch_votes": sorted(core.rematch_votes),
        "kicked": sorted(core.kicked),
    }


def finished_to_plain(finished: FinishedGame) -> dict[str, Any]:
    """A finished game as plain data (what the store keeps for its replay)."""
    return {
        "game_no": finished.game_no,
        "seed": finished.seed,
        "log": [[a.seat, a.action, a.by] for a in finished.log],
        "seats": [s.model_dump() for s in finished.seats],
        "result": finished.result,
    }


def finished_from_plain(data: dict[str, Any]) -> FinishedGame:
    """The inverse of :func:`finished_to_plain`."""
    return FinishedGame(
        game_no=int(data["game_no"]),
        seed=int(data["seed"]),
        log=tuple(LoggedAction(seat=s, action=a, by=b) for s, a, b in data["log"]),
        seats=tuple(SeatInfo.model_validate(s) for s in data["seats"]),
        result=dict(data["result"]),
    )


def restore_core(core: TableCore, record: TableRecord, mono_now: float, wall_now: float) -> None:
    """Bring a freshly made core (options from ``record``) to the recorded table.

    Seats, AI seats, spectators, owner, rematch votes and the players removed
    (kicked) come from the meta;
    the current game is replayed from seed + log (raises if the log does not
    fit).  Humans count as away from now on, so their grace period starts: a
    reconnect re-seats them.  The turn timer keeps the time already used.
    """
    meta = record.meta
    core.owner = meta.get("owner", core.owner)
    fill_at = meta.get("fill_at")
    core.fill_at = None if fill_at is None else mono_now + (float(fill_at) - wall_now)
    for i, slot in enumerate(meta.get("seats", ())):
        core.seats[i] = SeatSlot(
            kind=slot["kind"],
            player_id=slot["player_id"],
            name=slot["name"],
            level=slot["level"],
            left=bool(slot["left"]),
            bot=bool(slot.get("bot", False)),  # absent in records written before bots
            account=slot.get("account"),  # absent in records written before game records
        )
        if slot["kind"] == "human":
            core.seats[i].connected = False
            core.seats[i].away_since = mono_now
    core.spectators = dict(meta.get("spectators", {}))
    core.rematch_votes = set(meta.get("rematch_votes", ()))
    core.kicked = set(meta.get("kicked", ()))  # absent in records written before kicks
    core.archive = [finished_from_plain(f) for f in record.replays]
    if record.game_no == 0 or record.seed is None:
        return
    core.seed = record.seed
    core.game_no = record.game_no
    core.state = rebuild(core.game, core.setup.game_options, record.seed, record.actions)
    core.log = list(record.actions)
    core.version = record.version + len(record.actions)
    core.status = "finished" if core.game.is_over(core.state) else "playing"
    turn_at = float(meta.get("turn_at") or wall_now)
    core.turn_started = mono_now - max(0.0, wall_now - turn_at)
