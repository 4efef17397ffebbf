"""The one interface every game implements (docs/architecture.md, engine/).

A game is a stateless object; its states are immutable values.  The shape
follows OpenSpiel (one Game/State API, per-seat observations), h11 (every
transition checked in one place; illegal input raises and changes nothing)
and boardgame.io (``view`` strips the secret parts before anything leaves).

* ``new_state(options, seed)`` deals from a seed; ``from_deal`` builds any
  position for tests.  Later deals of a match derive their shuffle from the
  seed (:func:`engine.rng.deal_rng`), so *options + seed + action log* always
  rebuilds the same state.
* ``apply(state, seat, action)`` returns a :class:`Transition` (new state and
  events tagged with their audience) or raises :class:`IllegalAction`.
* ``view(state, seat)`` — ``seat=None`` is the spectator — is the only exit for
  information from a state.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from engine.cards import Card, Deck, patterns_for
from engine.codec import DecodeError, from_plain
from engine.frozen import fast_init
from engine.reasons import Reason, Why

Seat = int


class IllegalAction(Exception):
    """An action that the rules refuse; the state it was applied to is unchanged.

    ``code`` is a stable, machine-readable reason (``not_your_turn``,
    ``game_over``, ``unknown_action``, ``not_in_hand`` or a game-specific
    one such as ``must_capture``); ``message`` explains it to a person in
    English; ``reason`` says it as data (:mod:`engine.reasons`) for a client to
    say in its player's language (default: the code, without parameters, when
    it is a :class:`~engine.reasons.Why`; else none).
    """

    def __init__(self, code: str, message: str, reason: Reason | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.reason: Reason | None = reason
        if reason is None and code in _WHY:
            self.reason = Reason(Why(code))


_WHY = frozenset(Why)


class OptionsError(ValueError):
    """Table options that the game does not accept; the message says which."""


Audience = frozenset[int] | None
"""Who may see an event: ``None`` is everybody (spectators too), else those seats."""

EVERYONE: Audience = None


@fast_init
@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, for the eyes of ``audience`` only.

    ``data`` holds plain values and cards; treat it as read-only.
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    audience: Audience = EVERYONE

    def visible_to(self, seat: Seat | None) -> bool:
        """Whether ``seat`` (``None``: a spectator) may see this event."""
        return self.audience is None or (seat is not None and seat in self.audience)


S = TypeVar("S")
A = TypeVar("A")
V = TypeVar("V")
OptT = TypeVar("OptT", bound="GameOptions")


@fast_init
@dataclass(frozen=True, slots=True)
class Transition(Generic[S]):
    """The result of applying one action: the new state and what happened."""

    state: S
    events: tuple[Event, ...]


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game.

    ``scores`` holds one number per seat (match points, units or team points
    as the game defines); ``winners`` the winning seats (empty: a draw);
    ``summary`` game-specific figures for reports.
    """

    scores: tuple[int, ...]
    winners: frozenset[int]
    summary: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Contest:
    """One rated contest of a finished game (issue 55): the game's own sides and places.

    ``sides`` partitions the seats into the sides that played against each other
    (Scopa: one against one; Cicera: the partnerships; Dou Dizhu: the landlord
    against both farmers; Schafkopf: the declaring side, called partner included,
    against the rest).  ``ranks`` holds each side's place, 0 the best; equal places
    tie.  ``deal`` is the deal the contest rates (0 for a game rated as one match).
    ``roles`` names what a side played when the game gives it an edge that is not
    its players' (Dou Dizhu's landlord, Schafkopf's contract; empty: none), so
    that the rating can learn that edge apart from the players' skill.
    """

    sides: tuple[frozenset[int], ...]
    ranks: tuple[int, ...]
    deal: int = 0
    roles: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if len(self.sides) != len(self.ranks) or len(self.sides) < 2:
            raise ValueError("a contest has two sides or more, each with a place")
        if self.roles and len(self.roles) != len(self.sides):
            raise ValueError("a contest names a role (or none) for every side")

    def side_of(self, seat: int) -> int:
        """The index of ``seat``'s side."""
        for i, side in enumerate(self.sides):
            if seat in side:
                return i
        raise ValueError(f"seat {seat} plays on no side")


def two_sides(
    first: frozenset[int],
    second: frozenset[int],
    first_won: bool | None,
    deal: int = 0,
    role: str = "",
) -> Contest:
    """A contest of two sides: ``first_won`` ``None`` is a tie; ``role`` the first
    side's (see :attr:`Contest.roles`)."""
    ranks = (0, 0) if first_won is None else (0, 1) if first_won else (1, 0)
    return Contest(sides=(first, second), ranks=ranks, deal=deal, roles=(role, "") if role else ())


@dataclass(frozen=True)
class GameOptions:
    """Options every game has; games subclass with their own fields.

    ``pattern`` names the regional card pattern (rules/cards.md): naming only.
    """

    pattern: str = ""


@dataclass(frozen=True)
class Budget:
    """How much a policy may think: iterations and/or wall-clock seconds.

    A budget is a cap.  A policy with a default budget of its own takes the
    caller's ``iterations`` when given (else its default) and the caller's
    ``seconds`` as given (``None``: no time limit), so an iteration-only
    budget makes a seeded policy deterministic.
    """

    iterations: int | None = None
    seconds: float | None = None

    def over(self, default: Budget) -> Budget:
        """This budget laid over a policy's ``default`` (see the class docstring)."""
        iterations = self.iterations if self.iterations is not None else default.iterations
        return Budget(iterations=iterations, seconds=self.seconds)


def resolve_budget(budget: Budget | None, default: Budget) -> Budget:
    """The budget a policy with ``default`` should spend for a caller's ``budget``."""
    return default if budget is None else budget.over(default)


DEADLINE_RESERVE = 0.1
"""The share of a time cap a search keeps in reserve: it starts no new iteration past
the rest, so its last iteration, its answer and the call around it fit in the cap."""


def decision_deadline(started: float, seconds: float | None) -> float:
    """When a search that began at ``started`` (``time.perf_counter()``, before its
    setup) and may think ``seconds`` (``None``: no limit, ``math.inf``) must stop
    starting iterations: the cap less :data:`DEADLINE_RESERVE` of it."""
    if seconds is None:
        return math.inf
    return started + seconds * (1.0 - DEADLINE_RESERVE)


class Game(ABC, Generic[OptT, S, A, V]):
    """One card game behind the common interface.

    Subclasses set the class variables and implement the abstract methods.
    :meth:`apply` does the common checks (game over, turn, action type) and
    then calls :meth:`_apply`, which validates the action against the rules.
    """

    id: ClassVar[str]
    title: ClassVar[str]
    deck: ClassVar[Deck]
    options_type: ClassVar[type[GameOptions]]
    action_types: ClassVar[tuple[type, ...]]
    view_type: ClassVar[type]
    zero_sum: ClassVar[bool]
    default_pattern: ClassVar[str]

    # -- options -------------------------------------------------------------
    def options(self, raw: Mapping[str, Any] | None = None) -> OptT:
        """Typed options from plain data; unknown keys or bad values raise OptionsError."""
        data = dict(raw or {})
        data.setdefault("pattern", self.default_pattern)
        try:
            opts = from_plain(self.options_type, data, "options")
        except DecodeError as exc:
            raise OptionsError(str(exc)) from None
        if opts.pattern not in patterns_for(self.deck.family):
            allowed = ", ".join(patterns_for(self.deck.family))
            raise OptionsError(f"options.pattern: {opts.pattern!r} is not one of {allowed}")
        return opts  # type: ignore[no-any-return]

    @abstractmethod
    def num_seats(self, options: OptT) -> int:
        """How many seats the table has."""

    # -- creating states -----------------------------------------------------
    @abstractmethod
    def new_state(self, options: OptT, seed: int) -> S:
        """A fresh game dealt from ``seed`` (the seed never leaves the server)."""

    @abstractmethod
    def from_deal(self, options: OptT, deal: Any) -> S:
        """A game started from an explicit deal (the game's own Deal value)."""

    def start_events(self, state: S) -> tuple[Event, ...]:
        """Events announcing the opening deal of ``state`` (each hand to its seat)."""
        return ()

    # -- playing -------------------------------------------------------------
    @abstractmethod
    def to_act(self, state: S) -> tuple[Seat, ...]:
        """The seats that may act now (empty when the game is over)."""

    @abstractmethod
    def legal_actions(self, state: S, seat: Seat) -> tuple[A, ...]:
        """Every legal action of ``seat`` (empty when it is not that seat's turn)."""

    def apply(self, state: S, seat: Seat, action: A) -> Transition[S]:
        """Apply ``action`` by ``seat``; if illegal raise :class:`IllegalAction`, change nothing."""
        if self.is_over(state):
            raise IllegalAction("game_over", "the game is over")
        if seat not in self.to_act(state):
            raise IllegalAction(
                "not_your_turn",
                f"it is not seat {seat}'s turn",
                Reason(Why.NOT_YOUR_TURN, {"seat": seat}),
            )
        if not isinstance(action, self.action_types):
            names = ", ".join(t.__name__ for t in self.action_types)
            raise IllegalAction(
                "unknown_action",
                f"{type(action).__name__} is not an action here ({names})",
                Reason(Why.UNKNOWN_ACTION, {"action": type(action).__name__}),
            )
        return self._apply(state, seat, action)

    @abstractmethod
    def _apply(self, state: S, seat: Seat, action: A) -> Transition[S]:
        """Validate ``action`` against the rules and apply it (turn already checked)."""

    def decode_action(self, data: Any) -> A:
        """An action from plain data; raise :class:`IllegalAction` (``bad_action``)."""
        union: Any = self.action_types[0]
        for t in self.action_types[1:]:
            union = union | t
        try:
            return from_plain(union, data, "action")  # type: ignore[no-any-return]
        except DecodeError as exc:
            raise IllegalAction("bad_action", str(exc)) from None

    # -- information ---------------------------------------------------------
    @abstractmethod
    def view(self, state: S, seat: Seat | None) -> V:
        """What ``seat`` may see (``None``: a spectator); the only exit for information."""

    @abstractmethod
    def is_over(self, state: S) -> bool:
        """Whether the game has ended."""

    @abstractmethod
    def result(self, state: S) -> Result | None:
        """The result of a finished game, else ``None``."""

    @abstractmethod
    def contests(self, state: S) -> tuple[Contest, ...]:
        """The rated contests of a finished game, in the order they were played (issue 55).

        Empty while the game is on, and for a deal nobody played (thrown in):
        such a deal changes no rating.
        """

    def seat_role(self, result: Result, seat: Seat) -> str | None:
        """The role ``seat`` played in a finished game, for reports (``None``: no roles).

        Games whose seats change roles from deal to deal (e.g. Dou Dizhu's
        landlord) override this so that measurements can be broken down by role.
        """
        return None

    @abstractmethod
    def sample_world(self, view: V, rng: random.Random) -> S:
        """A full state consistent with ``view``: hidden cards placed at random.

        The AI's determinization hook: ``view(sample_world(v, rng), v.seat) == v``.
        """

    @abstractmethod
    def redeal_hidden(self, state: S, seat: Seat | None, rng: random.Random) -> S:
        """``state`` with every card hidden from ``seat`` redistributed at random.

        Public information (counts, played cards, public history) is kept, so
        the view of ``seat`` must not change: the conformance suite's leak check.
        """

    @abstractmethod
    def card_zones(self, state: S) -> Mapping[str, Sequence[Card]]:
        """Every card of the current deal by where it lies (hands, table, piles …)."""
