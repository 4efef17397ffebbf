"""Scopa policies that decide from a seat's view only (docs/architecture.md, AI).

* ``random`` — any legal play.
* ``easy`` — ``greedy`` that now and then plays at random.
* ``greedy`` — the best immediate value (:func:`greedy_score`).
* ``normal`` — counts the unseen cards and weighs each play against the
  opponent's best answer, expected over the hands the opponent may hold:
  guards against sweeps, goes for the settebello, sevens and diamonds.
* ``hard`` — determinized search on a fast Scopa simulator
  (:mod:`engine.scopa.ai_search`): every play is rolled out to the end of the
  deal in the same worlds sampled from the view (drawn in proportion to how
  well they explain the opponent's last play), scored by the chance to win
  the match; solved exactly once the stock is empty.

:func:`determinized_policy` is the generic :mod:`engine.search` on Scopa
(the earlier ``hard``), kept as the baseline the Scopa search is measured against.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from math import comb

from engine.cards import SCOPA_40, Card
from engine.game import Budget
from engine.policy import Policy, RandomPolicy
from engine.scopa.ai_search import ScopaSearch
from engine.scopa.game import ScopaGame
from engine.scopa.rules import PRIME_SUIT, SETTEBELLO, VALUE, capture_options
from engine.scopa.state import Play, ScopaState, ScopaView
from engine.search import DeterminizedSearch, SearchSpec

SCOPA_BONUS = 12.0
_CARD_WORTH = {"7": 3.0, "6": 1.5, "A": 1.0}


def card_worth(card: Card) -> float:
    """How much a captured card is worth toward the awards (cards, diamonds, 7D, primiera)."""
    worth = 1.0 + _CARD_WORTH.get(card.rank, 0.0)
    if card.suit == PRIME_SUIT:
        worth += 1.0
    if card == SETTEBELLO:
        worth += 8.0
    return worth


def _worth(cards: Sequence[Card]) -> float:
    return sum(card_worth(c) for c in cards)


def play_gain(view: ScopaView, play: Play, lay_cost: float) -> tuple[float, list[Card]]:
    """What ``play`` takes (a sweep included), or ``lay_cost`` × the worth of a laid card;
    and the table it leaves."""
    if play.capture:
        table = [c for c in view.table if c not in play.capture]
        gain = _worth([play.card, *play.capture])
        last = view.stock_count == 0 and sum(view.hand_counts) == 1
        if not table and not last:
            gain += SCOPA_BONUS
        return gain, table
    return -_worth([play.card]) * lay_cost, [*view.table, play.card]


def greedy_score(view: ScopaView, play: Play) -> float:
    """Immediate value of ``play``: what it takes, a sweep, and the sweep it leaves open."""
    score, table = play_gain(view, play, lay_cost=1.0)
    # a table whose values add up to at most 10 can be swept by the opponent
    if table and sum(VALUE[c.rank] for c in table) <= 10:
        score -= 6.0
    return score


def _pick_best(scored: Sequence[tuple[float, Play]], rng: random.Random) -> Play:
    best = max(s for s, _ in scored)
    top = [p for s, p in scored if s == best]
    return top[rng.randrange(len(top))]


class GreedyPolicy:
    """Takes the play with the best immediate value (see :func:`greedy_score`)."""

    name = "greedy"

    def choose(
        self,
        view: ScopaView,
        legal: Sequence[Play],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Play:
        """The best-scoring legal play; ties broken at random."""
        if not legal:
            raise ValueError("no legal action to choose from")
        return _pick_best([(greedy_score(view, p), p) for p in legal], rng)


class EasyPolicy:
    """Greedy with noise: a plausible but beatable opponent."""

    name = "easy"
    noise = 0.3

    def choose(
        self,
        view: ScopaView,
        legal: Sequence[Play],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Play:
        """Usually the greedy play, sometimes any legal play."""
        if rng.random() < self.noise:
            return legal[rng.randrange(len(legal))]
        return GreedyPolicy().choose(view, legal, rng)


def _answer_value(card: Card, table: Sequence[Card], last_play: bool) -> float:
    """The best the opponent gains by playing ``card`` on ``table``."""
    best = -_worth([card]) * 0.5
    for group in capture_options(card, table):
        gain = _worth([card, *group])
        if len(group) == len(table) and not last_play:
            gain += SCOPA_BONUS
        best = max(best, gain)
    return best


def expected_best_answer(
    table: Sequence[Card], unseen: Sequence[Card], held: int, last_play: bool
) -> float:
    """Expected value of the opponent's best answer when it holds ``held`` of ``unseen``.

    The opponent's hand is a uniform ``held``-subset of the unseen cards; it
    plays the card with the best answer, so the expectation runs over the
    rank of its best card: P(best is the k-th) = C(n-k, h-1) / C(n, h).
    """
    n = len(unseen)
    if held <= 0 or n == 0:
        return 0.0
    held = min(held, n)
    gains = sorted((_answer_value(c, table, last_play) for c in unseen), reverse=True)
    total_ways = comb(n, held)
    return sum(g * comb(n - k, held - 1) for k, g in enumerate(gains, start=1)) / total_ways


class NormalPolicy:
    """One ply of lookahead with card counting (see the module docstring)."""

    name = "normal"

    def choose(
        self,
        view: ScopaView,
        legal: Sequence[Play],
        rng: random.Random,
        budget: Budget | None = None,
    ) -> Play:
        """The play with the best gain minus the opponent's expected best answer."""
        if not legal:
            raise ValueError("no legal action to choose from")
        assert view.seat is not None
        opponent = 1 - view.seat
        seen = set(view.hand) | set(view.table) | set(view.piles[0]) | set(view.piles[1])
        unseen = [c for c in SCOPA_40.cards if c not in seen]
        held = view.hand_counts[opponent]
        if held == 0 and view.stock_count:
            held = 3  # the opponent is refilled before answering
        answer_is_last = view.stock_count == 0 and held == 1 and view.hand_counts[view.seat] == 1
        scored = []
        for play in legal:
            gain, table = play_gain(view, play, lay_cost=0.5)
            risk = expected_best_answer(table, unseen, held, answer_is_last)
            scored.append((gain - 0.8 * risk, play))
        return _pick_best(scored, rng)


GAME = ScopaGame()


def _rollout(state: ScopaState, seat: int, rng: random.Random) -> Play:
    """Fast rollout move on an imagined state: the capture worth most, else the cheapest card."""
    best: Play | None = None
    best_score = -1e9
    table = state.table
    for card in state.hands[seat]:
        groups = capture_options(card, table)
        if groups:
            for g in groups:
                score = _worth([card, *g]) + (SCOPA_BONUS if len(g) == len(table) else 0.0)
                if score > best_score:
                    best, best_score = Play(card, g), score
        else:
            score = -card_worth(card) + rng.random() * 0.1
            if score > best_score:
                best, best_score = Play(card), score
    assert best is not None
    return best


def _deal_done(start: ScopaState, state: ScopaState) -> bool:
    return state.deal_no != start.deal_no or state.winner is not None


def _deal_value(start: ScopaState, state: ScopaState, seat: int) -> float:
    """Deal points won minus deal points conceded (scope and awards)."""
    if len(state.history) == len(start.history):
        return 0.0
    points = state.history[len(start.history)].points
    return float(points[seat] - points[1 - seat])


SCOPA_SEARCH = SearchSpec[ScopaState](
    game=GAME, done=_deal_done, value=_deal_value, rollout=_rollout, scale=4.0
)


def determinized_policy() -> DeterminizedSearch:
    """The generic determinized search (:mod:`engine.search`) over the rest of the deal."""
    return DeterminizedSearch(SCOPA_SEARCH, name="determinized")


def hard_policy() -> ScopaSearch:
    """Determinized search on the fast simulator (:mod:`engine.scopa.ai_search`)."""
    return ScopaSearch(name="hard")


POLICIES: Mapping[str, Callable[[], Policy]] = {
    "random": RandomPolicy,
    "easy": EasyPolicy,
    "greedy": GreedyPolicy,
    "normal": NormalPolicy,
    "hard": hard_policy,
}
