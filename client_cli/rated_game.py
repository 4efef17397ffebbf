"""After a rated game: the player's new rating and what the game changed, as rated players
expect to see at once (issue 55).

The server rates a game in the transaction that stores its record, written in the
background after the game ends (``server/tables/record.py``), so the new rating is
not in the ``game_over`` message.  The client asks for its own ``profile`` when
the game starts (the rated games it had) and again after it ends, a few times,
until the profile counts one game more: then it says the rating and the change.
"""

from __future__ import annotations

import asyncio
import contextlib

from client_cli.client import Client, ClientClosed, RequestTimeout, ServerError
from client_cli.lang import Language
from client_cli.rating_view import change_text, rating_text
from protocol import server_messages as sm

TRIES = 20
"""Profiles asked for after a game before giving up (the record is written within a
second on a healthy server; a busy one may take longer)."""
PAUSE = 0.5
"""Seconds between those tries."""


def game_rating(profile: sm.Profile, game: str) -> sm.ProfileRating | None:
    """The profile's rating at ``game`` (None: no rated game of it yet)."""
    return next((r for r in profile.ratings if r.game == game), None)


def rating_line(rating: sm.ProfileRating, title: str, lang: Language) -> str:
    """``Your Scopa rating: 1532 ± 120 (+32).``"""
    return lang.t(
        "ratings.after",
        game=title,
        rating=rating_text(rating.rating, rating.deviation, rating.provisional),
        change=change_text(rating.change),
    )


class RatingChange:
    """The rating of one player at one game across a rated game: counted before, read
    back once the server has rated the game."""

    def __init__(
        self, game: str, *, at_least: int = 0, tries: int = TRIES, pause: float = PAUSE
    ) -> None:
        self.game = game
        self.at_least = at_least
        """The rated games the player has at least: after a rematch, the last game's
        record may not be written yet when the next game starts, but it will count."""
        self.tries = tries
        self.pause = pause
        self.games_before: int | None = None

    def next_game(self) -> RatingChange:
        """The change of the game after this one at the same table."""
        counted = 0 if self.games_before is None else self.games_before + 1
        return RatingChange(self.game, at_least=counted, tries=self.tries, pause=self.pause)

    async def before(self, client: Client) -> None:
        """Count the rated games the player has at the start of a game."""
        profile = await own_profile(client)
        if profile is not None:
            rating = game_rating(profile, self.game)
            self.games_before = max(rating.games if rating is not None else 0, self.at_least)

    async def after(self, client: Client) -> sm.ProfileRating | None:
        """The rating once it counts the game just over; None when it was not counted
        before the game, or the server does not rate it in time."""
        if self.games_before is None:
            return None
        for _ in range(self.tries):
            profile = await own_profile(client)
            rating = game_rating(profile, self.game) if profile is not None else None
            if rating is not None and rating.games > self.games_before:
                return rating
            await asyncio.sleep(self.pause)
        return None


async def own_profile(client: Client) -> sm.Profile | None:
    """The player's own profile, or None when the request fails: the rating line is a
    courtesy, never a reason to stop the game."""
    with contextlib.suppress(ServerError, ClientClosed, RequestTimeout, TimeoutError):
        return await client.profile()
    return None
