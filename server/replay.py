"""Rebuilding games from their record: the replay of a finished game, every card shown.

A table's durable record is options + seed + action log; replaying the log
through the engine reproduces every state and every event exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.codec import to_plain
from engine.game import Game
from protocol.server_messages import Replay, ReplayStep
from server.store import LoggedAction
from server.table_core import FinishedGame, plain_event


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
