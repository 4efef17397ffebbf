"""Checking a table's options against its game before the table exists."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game, OptionsError
from engine.registry import GAMES, policy_names
from protocol.errors import ErrorCode
from protocol.models import TableOptions
from protocol.server_messages import Reason
from server.ratings.levels import RATED_LEVELS


class RequestError(Exception):
    """A refused request: the ``error`` message to answer, nothing changed.  ``reason``:
    why the rules refused a move, as data (sent to clients with the ``reasons`` feature)."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        detail: str | None = None,
        reason: Reason | None = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.detail = detail
        self.reason = reason


def game_named(game_id: str) -> Game[Any, Any, Any, Any]:
    """The game ``game_id`` names, else ``unknown_game`` listing the games played here:
    every request that names a game checks it here, so they all answer alike."""
    game = GAMES.get(game_id)
    if game is None:
        raise RequestError(
            ErrorCode.UNKNOWN_GAME, f"no game {game_id!r}; known: {', '.join(GAMES)}"
        )
    return game


@dataclass(frozen=True)
class TableSetup:
    """Options that passed every check: the typed game options and the seat count."""

    game: Game[Any, Any, Any, Any]
    options: TableOptions
    game_options: Any
    seats: int
    levels: tuple[str, ...]

    @property
    def strongest(self) -> str:
        """The default AI level: the game's strongest policy."""
        return self.levels[-1]

    @property
    def fallback(self) -> str:
        """The policy that moves when an AI misses its deadline: ``normal``, else the weakest."""
        return "normal" if "normal" in self.levels else self.levels[0]


def check_options(game: Game[Any, Any, Any, Any], options: TableOptions) -> TableSetup:
    """The table setup of ``options`` for ``game``; raise ``bad_options``."""
    try:
        game_options = game.options(options.game)
    except OptionsError as exc:
        raise RequestError(ErrorCode.BAD_OPTIONS, str(exc)) from None
    seats = game.num_seats(game_options)
    levels = policy_names(game.id)
    if not levels:
        raise RequestError(ErrorCode.BAD_OPTIONS, f"{game.id} has no AI policy")
    ai_seats = [a.seat for a in options.ai]
    for a in options.ai:
        if a.seat >= seats:
            raise RequestError(ErrorCode.BAD_OPTIONS, f"{game.id} has seats 0 to {seats - 1}")
        if a.level is not None and a.level not in levels:
            known = ", ".join(levels)
            raise RequestError(ErrorCode.BAD_OPTIONS, f"unknown AI level {a.level!r}; {known}")
    if len(set(ai_seats)) != len(ai_seats):
        raise RequestError(ErrorCode.BAD_OPTIONS, "a seat is listed twice in ai")
    if options.seat is not None:
        if options.seat >= seats:
            raise RequestError(ErrorCode.BAD_OPTIONS, f"{game.id} has seats 0 to {seats - 1}")
        if options.seat in ai_seats:
            raise RequestError(ErrorCode.BAD_OPTIONS, f"seat {options.seat} is an AI seat")
    if options.rated:
        options = check_rated(game, options, game_options, levels[-1])
    return TableSetup(game, options, game_options, seats, levels)


def check_rated(
    game: Game[Any, Any, Any, Any], options: TableOptions, game_options: Any, strongest: str
) -> TableOptions:
    """The options of a rated table (issue 55), or ``bad_options``.

    A rating compares players across tables, so every rated game is played by the
    same rules: the game's standard options (only the card pattern, which changes
    how cards look, not the game, may be chosen), AI seats at a rated level only
    (:data:`~server.ratings.levels.RATED_LEVELS`), and no hints (an AI's advice
    would rate the AI, not the player): a rated table's ``hints`` is always off.
    """
    chosen = {k: v for k, v in options.game.items() if k == "pattern"}
    if game.options(chosen) != game_options:
        raise RequestError(
            ErrorCode.BAD_OPTIONS,
            f"a rated table plays {game.id}'s standard rules: only the card pattern may be chosen",
            "rated",
        )
    for a in options.ai:
        if (a.level or strongest) not in RATED_LEVELS:
            raise RequestError(
                ErrorCode.BAD_OPTIONS,
                f"AI level {a.level!r} does not play rated games; {', '.join(RATED_LEVELS)}",
                "rated",
            )
    return options.model_copy(update={"hints": False})
