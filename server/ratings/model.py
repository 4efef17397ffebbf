"""The rating model (issue 55): OpenSkill's Plackett-Luce model over the game's own sides.

OpenSkill rates teams of unequal size, which our games need: Cicera is two
against two, Dou Dizhu one landlord against two farmers, Schafkopf a declaring
side of one or two against the rest, decided only during the deal.  What a side
is comes from the engine (:meth:`engine.game.Game.contests`); this module only
turns contests into new ratings.  Everything here is pure: the store
(:mod:`server.ratings.store`) reads the ratings, calls :func:`rate_game` and
writes the result in the transaction that stores the game's record.

Sides of unequal size, and roles that bring their own edge (the landlord's three
extra cards and choice of bid; a Schafkopf contract chosen for a strong hand),
are rated with a *role*: a pseudo-player on that side, one per game and role,
rated like anyone from every contest it appears in.  OpenSkill adds a side's
players' skills, so a lone landlord of 1500 would otherwise be expected to lose
nearly always to two farmers of 1500; the role learns how often that side
really wins, and the players are rated on what is left.  A role starts where
its side is even with the other.

A rating is shown on the familiar scale: ``1500 + 40 × (μ − 25)``; its
uncertainty is ``40 × σ``.  What a difference means depends on the game's luck
(:data:`BETA`): in Scopa 100 points give the stronger player about two chances
in three; docs/ratings.md gives every game's figures, measured by
``python -m bench.ratings``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from openskill.models import PlackettLuce, PlackettLuceRating

from engine.game import Contest

MU0 = 25.0
"""A newcomer's skill estimate (OpenSkill's default)."""
SIGMA0 = MU0 / 3
"""A newcomer's uncertainty (OpenSkill's default)."""
SCALE = 40.0
"""Display points a unit of μ (and of σ)."""
BASE = 1500
"""What a newcomer's rating shows."""
PROVISIONAL_GAMES = 20
"""Rated games below which a rating is provisional, whatever its uncertainty."""
PROVISIONAL_SIGMA = 8.0
"""σ above which a rating is provisional (shown as ``± 320`` and more): one still
about as uncertain as a newcomer's.  In the games of sides (a large :data:`BETA`)
σ shrinks slowly, since one deal tells little, so the count of games decides."""

BETA: dict[str, float] = {"scopa": 8.0, "cicera": 16.0, "doudizhu": 16.0, "schafkopf": 16.0}
"""How much a single contest's outcome owes to the cards rather than to skill, per game
(OpenSkill's β; its default is σ₀/2).  Chosen with ``python -m bench.ratings``:
with the default, the ratings were far too sure of the favourite in the games of
sides (favourites given 96–99% won 82–95% of held-out games) and predicted Dou
Dizhu worse than a coin toss; a Cicera hand, a Dou Dizhu deal or a Schafkopf deal
is much luckier than a Scopa match (docs/ratings.md, What a difference means)."""

_MODELS = {game: PlackettLuce(mu=MU0, sigma=SIGMA0, beta=beta) for game, beta in BETA.items()}
_DEFAULT_MODEL = PlackettLuce(mu=MU0, sigma=SIGMA0)


def _model(game: str) -> PlackettLuce:
    return _MODELS.get(game, _DEFAULT_MODEL)


@dataclass(frozen=True)
class Rating:
    """One account's rating at one game: skill ``mu``, uncertainty ``sigma``, and the rated
    games it rests on."""

    mu: float = MU0
    sigma: float = SIGMA0
    games: int = 0

    @property
    def points(self) -> int:
        """The rating as shown (1500 for a newcomer)."""
        return round(BASE + SCALE * (self.mu - MU0))

    @property
    def deviation(self) -> int:
        """The uncertainty as shown, in rating points."""
        return round(SCALE * self.sigma)

    @property
    def provisional(self) -> bool:
        """Too few games, or too uncertain, to be listed or trusted (shown with ``?``)."""
        return self.games < PROVISIONAL_GAMES or self.sigma > PROVISIONAL_SIGMA

    def shown(self) -> str:
        """``1612 ± 94``, or ``1612?`` while provisional."""
        if self.provisional:
            return f"{self.points}?"
        return f"{self.points} ± {self.deviation}"


NEWCOMER = Rating()
"""The rating of an account that has played no rated game yet."""


class RatingError(ValueError):
    """A contest that cannot be rated as given (a seat with no player, one player at two
    seats): the caller's mistake, never the players'."""


ROLE_PREFIX = "role:"
"""What starts the key of a role's rating (an account id never holds a colon)."""


def role_key(game: str, role: str) -> str:
    """The key under which ``role``'s rating at ``game`` is kept beside the players'."""
    return f"{ROLE_PREFIX}{game}:{role}"


def _os(r: Rating) -> PlackettLuceRating:
    return _DEFAULT_MODEL.rating(mu=r.mu, sigma=r.sigma)


def _sides(contest: Contest, game: str, seats: Mapping[int, str]) -> list[list[str]]:
    """The players of each side, its role's key last."""
    players = [seats.get(s) for side in contest.sides for s in sorted(side)]
    if any(p is None for p in players):
        raise RatingError("every seat of a rated contest has a player")
    if len(set(players)) != len(players):
        raise RatingError("a player sits at one seat of a rated contest")
    teams = [[seats[s] for s in sorted(side)] for side in contest.sides]
    for team, role in zip(teams, contest.roles, strict=False):
        if role:
            team.append(role_key(game, role))
    return teams


def _role_start(contest: Contest, side: int) -> Rating:
    """A role's first rating: the skill that makes its side even with the largest other."""
    other = max(len(s) for i, s in enumerate(contest.sides) if i != side)
    return Rating(mu=MU0 * (other - len(contest.sides[side])))


def rate_contest(
    contest: Contest,
    game: str,
    seats: Mapping[int, str],
    ratings: Mapping[str, Rating],
    leavers: frozenset[str] = frozenset(),
) -> dict[str, Rating]:
    """The new ratings of the players (and roles) of ``contest`` at ``game``, games not
    counted (see :func:`rate_game`).

    ``seats`` maps every seat to its player (an account id, or an AI level's system
    account); ``ratings`` holds each player's and role's rating before (one absent
    from it is a newcomer).  A player in ``leavers`` left the game: it counts as
    lost for them, whatever their side did; their partners are rated on the result.
    """
    teams = _sides(contest, game, seats)
    start = {
        role_key(game, role): _role_start(contest, i)
        for i, role in enumerate(contest.roles)
        if role
    }

    def before(key: str) -> Rating:
        return ratings.get(key) or start.get(key, NEWCOMER)

    def update(ranks: list[int]) -> dict[str, Rating]:
        rated = _model(game).rate(
            [[_os(before(p)) for p in team] for team in teams],
            ranks=[float(r) for r in ranks],
        )
        out: dict[str, Rating] = {}
        for team, new_team in zip(teams, rated, strict=True):
            for player, new in zip(team, new_team, strict=True):
                out[player] = replace(before(player), mu=new.mu, sigma=new.sigma)
        return out

    new = update(list(contest.ranks))
    last = max(contest.ranks) + 1
    for i, team in enumerate(teams):
        for player in team:
            if player in leavers and contest.ranks[i] < max(contest.ranks):
                ranks = [last if j == i else r for j, r in enumerate(contest.ranks)]
                new[player] = update(ranks)[player]
    return new


def rate_game(
    contests: tuple[Contest, ...],
    game: str,
    seats: Mapping[int, str],
    ratings: Mapping[str, Rating],
    leavers: frozenset[str] = frozenset(),
) -> dict[str, Rating]:
    """The ratings after a finished game's ``contests``, in order (a Schafkopf series
    rates each played deal): each player's game count grows by one, each role's by
    the contests it was in.  A game with no contest (every deal thrown in) changes
    nothing and returns nothing."""
    current = dict(ratings)
    counted: dict[str, int] = {}
    for contest in contests:
        new = rate_contest(contest, game, seats, current, leavers)
        current.update(new)
        for key in new:
            counted[key] = counted.get(key, 0) + 1
    return {
        key: replace(
            current[key], games=(current[key].games + (n if key.startswith(ROLE_PREFIX) else 1))
        )
        for key, n in sorted(counted.items())
    }


def contest_odds(
    contest: Contest, game: str, seats: Mapping[int, str], ratings: Mapping[str, Rating]
) -> tuple[float, ...]:
    """Each side's chance to win ``contest`` before it is played, roles included (what a
    rating predicts: :mod:`bench.ratings` scores it on held-out games)."""
    teams = _sides(contest, game, seats)
    start = {role_key(game, r): _role_start(contest, i) for i, r in enumerate(contest.roles) if r}
    return tuple(
        _model(game).predict_win(
            [[_os(ratings.get(p) or start.get(p, NEWCOMER)) for p in team] for team in teams]
        )
    )


def win_chance(game: str, sides: tuple[tuple[Rating, ...], ...]) -> tuple[float, ...]:
    """Each side's chance to win a contest against the others, by the model (for the
    README's table and :mod:`bench.ratings`' predictions)."""
    return tuple(_model(game).predict_win([[_os(r) for r in side] for side in sides]))
