"""Search under hidden information by determinization (docs/architecture.md, AI).

:class:`DeterminizedSearch` is a policy that decides from a view only: each
iteration samples a full world consistent with the view (the game's
``sample_world``), picks a root action by UCB1, plays the rest of the deal in
that world with a fast rollout policy and scores the outcome for the seat.
The root statistics are shared across worlds (flat Monte Carlo over
information sets), so the answer is the action that is best *on average over
the worlds the seat cannot tell apart* — never a peek at the real cards.

The game-specific parts come in a :class:`SearchSpec`: when a rollout stops
(usually the end of the current deal) and what it is worth to the seat.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from engine.game import Budget, Game, resolve_budget
from engine.policy import SearchPolicy
from engine.rng import shuffle

S = TypeVar("S")
T = TypeVar("T")

Rollout = Callable[[Any, int, random.Random], Any]
"""``rollout(state, seat, rng)`` picks an action for ``seat`` in an imagined world."""


@dataclass(frozen=True)
class SearchSpec(Generic[S]):
    """What the generic search needs to know about one game.

    ``done(start, state)``: whether a rollout begun at ``start`` has finished
    (e.g. the deal is over).  ``value(start, state, seat)``: the outcome for
    ``seat``, larger is better.  ``rollout``: the move chooser used inside
    imagined worlds.  ``scale`` is the typical spread of values (for UCB1).
    """

    game: Game[Any, S, Any, Any]
    done: Callable[[S, S], bool]
    value: Callable[[S, S, int], float]
    rollout: Rollout
    scale: float = 1.0


def random_rollout(game: Game[Any, Any, Any, Any]) -> Rollout:
    """A rollout that plays uniformly random legal actions."""

    def choose(state: Any, seat: int, rng: random.Random) -> Any:
        legal = game.legal_actions(state, seat)
        return legal[rng.randrange(len(legal))]

    return choose


DEFAULT_BUDGET = Budget(iterations=400, seconds=0.2)
EXPLORATION = 0.7


class DeterminizedSearch(SearchPolicy[Any, Any]):
    """Flat UCB1 over root actions, each iteration in a freshly sampled world."""

    def __init__(
        self, spec: SearchSpec[Any], name: str = "hard", default_budget: Budget = DEFAULT_BUDGET
    ) -> None:
        self.spec = spec
        self.name = name
        self.default_budget = default_budget
        self.last_iterations = 0

    def decide(
        self, view: Any, legal: Sequence[Any], rng: random.Random, budget: Budget | None
    ) -> Any:
        """The legal action with the best mean outcome over sampled worlds."""
        budget = resolve_budget(budget, self.default_budget)
        spec = self.spec
        game = spec.game
        seat = view.seat
        max_iter = budget.iterations if budget.iterations is not None else 10**9
        deadline = time.perf_counter() + budget.seconds if budget.seconds is not None else math.inf
        n = len(legal)
        visits = [0] * n
        totals = [0.0] * n
        it = 0
        while it < max_iter and (it < n or time.perf_counter() < deadline):
            it += 1
            if it <= n:
                i = it - 1
            else:
                log_t = math.log(it)
                c = EXPLORATION * spec.scale
                i = max(
                    range(n),
                    key=lambda k: totals[k] / visits[k] + c * math.sqrt(log_t / visits[k]),
                )
            world = game.sample_world(view, rng)
            start = world
            state = game.apply(world, seat, legal[i]).state
            while not spec.done(start, state):
                actor = game.to_act(state)[0]
                state = game.apply(state, actor, spec.rollout(state, actor, rng)).state
            visits[i] += 1
            totals[i] += spec.value(start, state, seat)
        self.last_iterations = it
        best = max(range(n), key=lambda k: totals[k] / visits[k] if visits[k] else -math.inf)
        return legal[best]


def survivors(active: list[int], results: list[list[float]], drop: float) -> list[int]:
    """Successive halving of paired candidates: those of ``active`` not clearly worse
    than the leader over the same worlds.

    ``results[k]`` holds candidate ``k``'s outcome in each world seen so far, all
    over the same worlds.  The leader has the largest total (ties: the lower
    index); a candidate leaves when its mean paired deficit to the leader exceeds
    ``drop`` standard errors of the differences.
    """
    lead = max(active, key=lambda k: (math.fsum(results[k]), -k))
    top = results[lead]
    w = len(top)
    keep = []
    for k in active:
        if k == lead:
            keep.append(k)
            continue
        diffs = [a - b for a, b in zip(top, results[k], strict=True)]
        mean = math.fsum(diffs) / w
        var = math.fsum((d - mean) ** 2 for d in diffs) / (w - 1)
        if mean <= drop * math.sqrt(var / w) + 1e-9:
            keep.append(k)
    return keep


# -- inference from a play seen ------------------------------------------------
class ChoiceChance:
    """The chance that a player made one play seen, by the cards it held, under a
    softmax model of its moves.

    ``scored`` lists every move of every card the player might have held, as
    ``(card, capture, score)`` with cards numbered ``0 .. cards - 1``; a move is
    chosen with weight ``exp(score / temperature)``, so a player is expected to
    prefer better moves the more sharply the lower the temperature.  A card's
    moves do not depend on the rest of the hand, so the weights are summed per
    card once (per decision) and the chance for a hand is a sum over its cards.
    The weights are not scaled by the best score, so ``score / temperature`` must
    stay well inside the range of :func:`math.exp`.
    """

    __slots__ = ("card", "chosen", "weights")

    def __init__(
        self,
        scored: Iterable[tuple[int, frozenset[int], float]],
        card: int,
        taken: frozenset[int],
        temperature: float,
        cards: int,
    ) -> None:
        self.card = card
        weights = [0.0] * cards
        chosen = 0.0
        for c, group, score in scored:
            w = math.exp(score / temperature)
            weights[c] += w
            if c == card and group == taken:
                chosen = w
        self.weights = weights
        self.chosen = chosen

    def __call__(self, held: Sequence[int]) -> float:
        """The chance that a player holding ``held`` besides the card played chose the
        play (``card`` taking ``taken``)."""
        weights = self.weights
        total = weights[self.card]
        for c in held:
            total += weights[c]
        return self.chosen / total


def keep_likely(
    cards: list[T],
    hand: slice,
    chance: Callable[[list[T]], float],
    rng: random.Random,
    tries: int,
) -> None:
    """Redeal the shuffled ``cards`` until the deal explains a play seen, in place.

    The deal is kept with probability ``chance(cards[hand])`` (the chance that
    the player dealt ``cards[hand]`` made the play, e.g. a :class:`ChoiceChance`),
    else shuffled again; after
    ``tries`` deals in all the last one is kept.  Worlds so come in proportion
    to how well they explain the play.
    """
    for _ in range(tries - 1):
        if rng.random() < chance(cards[hand]):
            break
        shuffle(rng, cards)
