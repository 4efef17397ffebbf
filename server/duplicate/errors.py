"""Typed refusals of duplicate play: each carries its wire :class:`ErrorCode`."""

from __future__ import annotations

from protocol.errors import ErrorCode


class DuplicateError(Exception):
    """A refused duplicate request; nothing was changed."""

    def __init__(self, code: ErrorCode, message: str, detail: str | None = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.detail = detail


def unknown_set(set_id: str) -> DuplicateError:
    """No set has this id."""
    return DuplicateError(ErrorCode.UNKNOWN_SET, f"no duplicate set {set_id!r}", set_id)


def set_closed(set_id: str) -> DuplicateError:
    """The set closed: no more joining or playing."""
    return DuplicateError(ErrorCode.SET_CLOSED, f"the duplicate set {set_id} is closed", set_id)


def board_not_played(board: int) -> DuplicateError:
    """Results of a board the asker has yet to finish stay hidden."""
    return DuplicateError(
        ErrorCode.BOARD_NOT_PLAYED, f"board {board} is shown once you have played it", str(board)
    )


def board_out_of_order(board: int, expected: int | None) -> DuplicateError:
    """Boards are played in order, each once."""
    if expected is None:
        msg = f"board {board}: every board of the set is played already"
    else:
        msg = f"board {board} is not your next board (board {expected} is)"
    return DuplicateError(ErrorCode.BOARD_OUT_OF_ORDER, msg, str(board))
