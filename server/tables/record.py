"""A finished game's record, taken from its table's core when the game ends (issue 54).

The actor builds it after the last move is stored and sent, and hands it to the
writer (:class:`server.persist.db.records.RecordWriter`): the seats as they sat
at the end (with their accounts, kept on a seat the AI took over mid-game), the
engine's result per seat, and the seed, now that the game is over.  At a rated
table it also names the game's rated contests (:meth:`engine.game.Game.contests`):
the sides and places the ratings are updated from, in the write that stores it.
"""

from __future__ import annotations

import time

from engine.codec import to_plain
from engine.game import Result
from server.duplicate.scoring import board_score
from server.persist.db.game_record import (
    DuplicateResult,
    GameRecord,
    SeatKind,
    SeatRecord,
    TeamResult,
)
from server.tables.core import TableCore
from server.tables.values import SeatSlot


def _kind(slot: SeatSlot) -> SeatKind:
    if slot.kind == "human" or slot.left:
        return SeatKind.BOT if slot.bot else SeatKind.HUMAN
    return SeatKind.AI


def _duplicate_result(core: TableCore, result: Result) -> DuplicateResult | None:
    """The player's result of a duplicate board's table (issue 56), else ``None``; a
    board played without an account (cannot happen: ``play_duplicate`` needs one) has
    no result; a board its player left is played out by the AI and counts as theirs."""
    ref, seat = core.setup.options.duplicate, core.setup.options.seat
    if ref is None or seat is None or ref.match_table is not None:
        return None
    account = core.seats[seat].account
    if account is None:
        return None
    score = board_score(core.game.id, result, seat)
    return DuplicateResult(ref.set_id, ref.board, account, score)


def _team_result(core: TableCore, result: Result) -> TeamResult | None:
    """A team match table's result of its board (issue 56), else ``None``."""
    ref = core.setup.options.duplicate
    if ref is None or ref.match_table is None:
        return None
    return TeamResult(ref.set_id, ref.board, ref.match_table, tuple(int(s) for s in result.scores))


def game_record(
    core: TableCore, now: float | None = None, finished_at: float | None = None
) -> GameRecord:
    """The record of the game ``core`` has just finished (``finished_at``: now).

    A seat counts as left when its human left, or was still away past the grace at
    the end (``now``, the table's clock): the AI had played it since, and a rated
    game counts as lost for them (issue 55), as for one who left.  A player who came
    back before the end, also after the table moved process, did not leave.
    """
    result = core.game.result(core.state)
    if result is None:
        raise ValueError(f"table {core.id}: game {core.game_no} is not over")
    seats = tuple(
        SeatRecord(
            seat=i,
            kind=_kind(slot),
            name=slot.name,
            account_id=slot.account,
            level=None if _kind(slot) is not SeatKind.AI else slot.level,
            left=slot.left or (now is not None and core.covered(slot, now)),
            score=int(result.scores[i]) if i < len(result.scores) else 0,
            won=i in result.winners,
        )
        for i, slot in enumerate(core.seats)
    )
    rated = core.setup.options.rated
    return GameRecord(
        duplicate=_duplicate_result(core, result),
        team=_team_result(core, result),
        table_id=core.id,
        game_no=core.game_no,
        game=core.game.id,
        private=core.setup.options.private,
        options=core.setup.options.model_dump(mode="json"),
        seed=core.seed,
        log=tuple(core.log),
        seats=seats,
        result=to_plain(result),
        finished_at=time.time() if finished_at is None else finished_at,
        rated=rated,
        contests=core.game.contests(core.state) if rated else (),
    )
