"""The ``hard`` Schafkopf policy: determinized search (PIMC) over the rest of the deal.

Bidding is by play-outs of every contract the hand could announce
(:mod:`engine.schafkopf.ai.bid_search`), against passing.  For each card to play:

1. **Worlds.**  ``sample_world`` places the unseen cards consistently with
   every public fact (voids, eligibility of the announcements, the called
   ace).  On top of that the bidding is read as evidence
   (:func:`bid_likelihood`): a world in which a seat would have bid
   otherwise than it did (by the ``normal`` evaluation) is kept only with a
   small probability, so a pass makes strong hands unlikely and an
   announcement makes its typical hands likely.
2. **Playouts.**  In every world each legal card is tried (cards that are
   equivalent — same suit and points, nothing still out between them — only
   once, :func:`distinct_cards`) and the deal is played to its end by a fast,
   deterministic rollout on plain lists (:func:`playout`).  The rollout knows
   the world's cards and values each card as the ``normal`` level does, with
   certainties for chances: it schmiert to a trick its side keeps, takes a
   trick only with a card nobody behind can beat, spends no trump on an
   empty trick, draws trumps for the declaring side, cashes aces nobody can
   trump and looks for the called ace.  The same world serves every
   candidate card (common random numbers), which makes the comparison sharp
   with few worlds.
3. **Value.**  The seat's settlement of the deal in units, exactly as
   :func:`engine.schafkopf.rules.score_deal` scores it (Schneider, Schwarz,
   Laufende, Tout), plus a small share of the own side's card points to break
   ties between cards that win or lose the same.

The root never sees more than the view; the rollouts may use the sampled
world's cards (that is what a determinization is).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cards import Card
from engine.game import Budget, decision_deadline, resolve_budget
from engine.policy import BasePolicy
from engine.schafkopf.ai.bidding import normal_word
from engine.schafkopf.game import SchafkopfGame
from engine.schafkopf.rules import (
    BASE_VALUE,
    CARD_POINTS,
    CONTRACT_RANK,
    TOUTS,
    TRUMP,
    WENZ_LIKE,
    Mode,
    laufende,
    legal_plays,
    mode_of,
    trick_winner,
)
from engine.schafkopf.state import (
    Action,
    Bid,
    Four,
    Pass,
    PlayCard,
    SchafkopfState,
    SchafkopfView,
    legal_cards,
)

GAME = SchafkopfGame()
DEFAULT_BUDGET = Budget(iterations=4000, seconds=0.22)
"""Playouts (worlds × candidate cards) and wall time per decision."""

SHAPE = 0.25
"""Units for the own side's card points from 60 to 120 (a tie-break)."""

MISMATCH = 0.2
"""Chance of keeping a world in which a seat would have bid otherwise."""

SAMPLE_TRIES = 6


# -- the deal as plain values ----------------------------------------------------
@dataclass(frozen=True, slots=True)
class Deal:
    """What stays fixed while one decision is searched."""

    me: int
    kind: str
    declarer: int
    mode: Mode
    ace: Card | None
    partner_known: int | None
    tricks_done: int
    points: Four
    won_tricks: Four


def _deal_of(view: SchafkopfView) -> Deal:
    contract = view.contract
    assert contract is not None and view.seat is not None
    won = [0, 0, 0, 0]
    for t in view.tricks:
        won[t.winner] += 1
    return Deal(
        me=view.seat,
        kind=contract.kind,
        declarer=contract.declarer,
        mode=mode_of(contract.kind, contract.suit),
        ace=contract.called_ace,
        partner_known=view.partner,
        tricks_done=len(view.tricks),
        points=view.points,
        won_tricks=(won[0], won[1], won[2], won[3]),
    )


def settlement(
    deal: Deal, side: frozenset[int], side_points: int, side_tricks: int, tricks: int, lauf: int
) -> int:
    """The viewer's units for a finished deal (Scoring), ``lauf`` the Laufende units."""
    kind = deal.kind
    schneider = schwarz = False
    if kind in TOUTS:
        won = side_tricks == tricks == 8
    else:
        won = side_points >= 61
        winner_tricks = side_tricks if won else tricks - side_tricks
        schwarz = winner_tricks == 8
        schneider = not schwarz and (side_points >= 91 if won else 120 - side_points >= 90)
    value = BASE_VALUE[kind] + (2 if schwarz else 1 if schneider else 0) + lauf
    sign = 1 if won else -1
    me = deal.me
    if kind == "rufer":
        return sign * value if me in side else -sign * value
    return sign * 3 * value if me == deal.declarer else -sign * value


def laufende_units(deal: Deal, dealt: Sequence[Sequence[Card]], side: frozenset[int]) -> int:
    """The Laufende of the deal in units (Scoring: from 3, from 2 in Wenz; doubled in a Tout)."""
    count, _ = laufende(deal.mode, (dealt[0], dealt[1], dealt[2], dealt[3]), side)  # type: ignore[arg-type]
    if count < (2 if deal.kind in WENZ_LIKE else 3):
        return 0
    return count * (2 if deal.kind in TOUTS else 1)


# -- the rollout ---------------------------------------------------------------
def _beats(a: Card, b: Card, led: str, mode: Mode) -> bool:
    """Whether ``a`` beats the trick's winning card ``b`` (A trick)."""
    ea = mode.eff[a]
    if ea == TRUMP:
        return mode.eff[b] != TRUMP or mode.power[a] > mode.power[b]
    return ea == led and mode.eff[b] != TRUMP and mode.power[a] > mode.power[b]


def _can_beat(hand: Sequence[Card], b: Card, led: str, mode: Mode) -> bool:
    eff = mode.eff
    follow = [c for c in hand if eff[c] == led]
    return any(_beats(c, b, led, mode) for c in (follow or hand))


def _top_of_suit(card: Card, hands: Sequence[Sequence[Card]], mode: Mode) -> bool:
    eff, power = mode.eff, mode.power
    suit, p = eff[card], power[card]
    return not any(eff[d] == suit and power[d] > p for h in hands for d in h)


def _keep(card: Card, mode: Mode, out: Sequence[Card]) -> float:
    """What keeping ``card`` is worth later, from the cards still ``out``.

    A trump keeps its power to win a trick and likely its own points; a plain
    card nobody can beat any more is worth an ace's trick; others little.
    """
    eff, power = mode.eff, mode.power
    suit, p = eff[card], power[card]
    higher = sum(1 for d in out if eff[d] == suit and power[d] > p)
    pts = CARD_POINTS[card]
    if suit == TRUMP:
        survive = 0.4 + 0.6 / (1 + higher)
        return survive * pts + 2.0 + 6.0 / (1 + higher)
    if higher == 0:
        return 4.0 + 0.3 * pts
    return 1.0 if pts >= 10 else 0.0


def rollout_card(
    deal: Deal,
    hands: list[list[Card]],
    legal: Sequence[Card],
    trick: Sequence[Card],
    leader: int,
    seat: int,
    in_side: Sequence[bool],
    ace_active: bool,
) -> Card:
    """The rollout's card for ``seat`` in a fully known world.

    Following, each card is valued like the ``normal`` level does, with the
    world's cards in place of chances: ± (points in the trick) as the own side
    takes it or not — a card wins when nobody of the other side behind can
    beat it — less what the card is still worth later.
    """
    if len(legal) == 1:
        return legal[0]
    mode = deal.mode
    power = mode.power
    mine = in_side[seat]
    if not trick:
        return _rollout_lead(deal, hands, legal, seat, in_side, ace_active)
    led = mode.eff[trick[0]]
    wi = trick_winner(trick, mode)
    wcard = trick[wi]
    rest = [(leader + k) % 4 for k in range(len(trick) + 1, 4)]
    foes_rest = [hands[s] for s in rest if in_side[s] != mine]
    pot = sum(CARD_POINTS[c] for c in trick) + 3 * len(rest)
    if deal.kind in TOUTS:
        pot += 200  # every trick decides a Tout
    if in_side[(leader + wi) % 4] == mine:
        hold = not any(_can_beat(h, wcard, led, mode) for h in foes_rest)
    else:  # a friend playing last who can beat the trick will take it
        hold = (
            len(rest) == 2
            and in_side[rest[1]] == mine
            and in_side[rest[0]] != mine
            and _can_beat(hands[rest[1]], wcard, led, mode)
            and not _can_beat(hands[rest[0]], wcard, led, mode)
        ) or (
            len(rest) == 1
            and in_side[rest[0]] == mine
            and _can_beat(hands[rest[0]], wcard, led, mode)
        )
    best = -1e9
    choice = legal[0]
    out = [d for s in range(4) if s != seat for d in hands[s]]
    for c in legal:
        if _beats(c, wcard, led, mode):
            wins = not any(_can_beat(h, c, led, mode) for h in foes_rest)
        else:
            wins = hold
        gain = pot + CARD_POINTS[c]
        keep = _keep(c, mode, out)
        value = (gain if wins else -gain) - keep - 0.001 * power[c]
        if value > best:
            best, choice = value, c
    return choice


def _cheap(card: Card, mode: Mode) -> tuple[int, int]:
    return (CARD_POINTS[card], mode.power[card])


def _rollout_lead(
    deal: Deal,
    hands: list[list[Card]],
    legal: Sequence[Card],
    seat: int,
    in_side: Sequence[bool],
    ace_active: bool,
) -> Card:
    mode = deal.mode
    eff, power = mode.eff, mode.power
    mine = in_side[seat]
    trumps = [c for c in legal if eff[c] == TRUMP]
    plain = [c for c in legal if eff[c] != TRUMP]
    others = [hands[s] for s in range(4) if s != seat]
    if deal.kind in TOUTS:
        if mine and trumps:
            return max(trumps, key=power.__getitem__)
        return max(legal, key=power.__getitem__)
    ace = deal.ace
    if ace is not None and ace_active:
        called = [c for c in plain if eff[c] == ace.suit and c != ace]
        if called and (not mine or seat == deal.declarer):
            return min(called, key=power.__getitem__)
    foes = [hands[s] for s in range(4) if in_side[s] != mine]
    if mine and trumps and any(eff[c] == TRUMP for h in foes for c in h):
        top = max(trumps, key=power.__getitem__)
        if _top_of_suit(top, others, mode):
            return top
        if len(trumps) >= 2 or not plain:
            return min(trumps, key=lambda c: _cheap(c, mode))
    cash = []
    for c in plain:
        if CARD_POINTS[c] >= 10 and _top_of_suit(c, others, mode):
            suit = eff[c]
            ruffed = any(
                not any(eff[d] == suit for d in h) and any(eff[d] == TRUMP for d in h) for h in foes
            )
            if not ruffed:
                cash.append(c)
    if cash:
        return max(cash, key=CARD_POINTS.__getitem__)
    if plain:
        return min(plain, key=lambda c: _cheap(c, mode))
    return min(trumps, key=lambda c: _cheap(c, mode))


def playout(
    deal: Deal,
    hands: list[list[Card]],
    trick: list[Card],
    leader: int,
    partner: int | None,
    first: Card | None,
    lauf: int,
) -> float:
    """Play ``first`` for the viewer, then the rest of the deal; the viewer's value.

    The seat to play is the one after ``trick`` (the viewer when ``first`` is
    given); ``first=None`` lets the rollout choose every card, from any seat.
    """
    mode = deal.mode
    eff = mode.eff
    declarer = deal.declarer
    side = frozenset({declarer} if partner is None else {declarer, partner})
    in_side = [s in side for s in range(4)]
    ace = deal.ace
    ace_active = (
        ace is not None
        and deal.partner_known is None
        and partner is not None
        and ace in hands[partner]
        and not (trick and leader == partner and eff[trick[0]] == ace.suit)
    )
    side_points = sum(deal.points[s] for s in side)
    side_tricks = sum(deal.won_tricks[s] for s in side)
    n_tricks = deal.tricks_done
    tout = deal.kind in TOUTS
    seat = (leader + len(trick)) % 4
    suit = ace.suit if ace is not None else ""
    card: Card | None = first
    while True:
        hand = hands[seat]
        if card is None:
            active = ace if ace_active and seat == partner else None
            legal = legal_plays(tuple(hand), trick, mode, active)
            card = rollout_card(deal, hands, legal, trick, leader, seat, in_side, ace_active)
        if ace_active and seat == partner and (card == ace or (not trick and eff[card] == suit)):
            ace_active = False  # the ace fell, or the partner ran away
        hand.remove(card)
        trick.append(card)
        card = None
        if len(trick) < 4:
            seat = (seat + 1) % 4
            continue
        winner = (leader + trick_winner(trick, mode)) % 4
        n_tricks += 1
        if in_side[winner]:
            side_points += sum(CARD_POINTS[c] for c in trick)
            side_tricks += 1
        elif tout:
            break
        if n_tricks == 8:
            break
        leader = seat = winner
        trick = []
    units = settlement(deal, side, side_points, side_tricks, n_tricks, lauf)
    mine = side_points if deal.me in side else 120 - side_points
    return units + SHAPE * (mine - 60) / 60.0


# -- inference from the bidding -------------------------------------------------
def bid_likelihood(bids: Sequence[Bid], dealt: Sequence[Sequence[Card]], me: int) -> bool:
    """Whether every other seat's word is what the ``normal`` evaluation says for its hand."""
    highest = -1
    for b in bids:
        if b.seat != me:
            said = normal_word(dealt[b.seat], highest)
            if isinstance(said, Pass):
                if b.contract is not None:
                    return False
            elif b.contract != said.contract or b.suit != said.suit:
                return False
        if b.contract is not None:
            highest = max(highest, CONTRACT_RANK[b.contract])
    return True


def sample(view: SchafkopfView, rng: random.Random) -> SchafkopfState:
    """A world consistent with the view, weighted by how well it explains the bidding."""
    world = GAME.sample_world(view, rng)
    for _ in range(SAMPLE_TRIES - 1):
        if bid_likelihood(view.bids, world.dealt, view.seat or 0) or rng.random() < MISMATCH:
            return world
        world = GAME.sample_world(view, rng)
    return world


# -- the policy ----------------------------------------------------------------
def _twins(low: Card, high: Card, mode: Mode, gone: set[Card]) -> bool:
    eff, power = mode.eff, mode.power
    suit = eff[high]
    if eff[low] != suit or CARD_POINTS[low] != CARD_POINTS[high]:
        return False
    lo, hi = power[low], power[high]
    return not any(eff[x] == suit and lo < power[x] < hi and x not in gone for x in eff)


def distinct_cards(view: SchafkopfView, cards: Sequence[Card]) -> list[Card]:
    """``cards`` less those equivalent to a lower one kept.

    Two cards of the same effective suit and the same points are equivalent
    when no card still out ranks between them: whichever is played, the same
    tricks go the same way.  The lowest of each group stays.
    """
    contract = view.contract
    assert contract is not None
    mode = mode_of(contract.kind, contract.suit)
    power = mode.power
    gone = {c for t in view.tricks for c in t.cards} | set(view.trick) | set(view.hand)
    ace = contract.called_ace
    out: list[Card] = []
    for c in sorted(cards, key=power.__getitem__):
        if c != ace and any(_twins(d, c, mode, gone) for d in out if d != ace):
            continue
        out.append(c)
    order = {c: i for i, c in enumerate(cards)}
    return sorted(out, key=order.__getitem__)


class PimcSearch:
    """Perfect-information Monte Carlo over sampled worlds with rollouts."""

    def __init__(self, default_budget: Budget = DEFAULT_BUDGET) -> None:
        self.default_budget = default_budget
        self.last_worlds = 0

    def choose_card(
        self, view: SchafkopfView, cards: Sequence[Card], rng: random.Random, budget: Budget | None
    ) -> Card:
        """The card with the best mean value over the sampled worlds."""
        budget = resolve_budget(budget, self.default_budget)
        cards = distinct_cards(view, cards)
        if len(cards) == 1:
            self.last_worlds = 0
            return cards[0]
        n = len(cards)
        max_worlds = max(1, budget.iterations // n) if budget.iterations is not None else 10**9
        deadline = decision_deadline(time.perf_counter(), budget.seconds)
        deal = _deal_of(view)
        totals = [0.0] * n
        worlds = 0
        while worlds < max_worlds and (worlds == 0 or time.perf_counter() < deadline):
            world = sample(view, rng)
            partner = None
            if deal.ace is not None:
                partner = next(s for s in range(4) if deal.ace in world.dealt[s])
            side = frozenset({deal.declarer} if partner is None else {deal.declarer, partner})
            lauf = laufende_units(deal, world.dealt, side)
            for i, card in enumerate(cards):
                hands = [list(h) for h in world.hands]
                totals[i] += playout(
                    deal, hands, list(view.trick), view.leader, partner, card, lauf
                )
            worlds += 1
        self.last_worlds = worlds
        best = max(range(n), key=lambda i: (totals[i], -i))
        return cards[best]


class HardPolicy(BasePolicy[SchafkopfView, Action]):
    """Bids by play-outs (:mod:`engine.schafkopf.ai.bid_search`), then PIMC search for
    every card; a lone legal action is returned unsearched."""

    name = "hard"
    lone_is_forced = True

    def __init__(
        self, default_budget: Budget = DEFAULT_BUDGET, bid_budget: Budget | None = None
    ) -> None:
        from engine.schafkopf.ai.bid_search import BID_BUDGET, BidSearch  # it builds on this module

        self.search = PimcSearch(default_budget)
        self.bidder = BidSearch(bid_budget or BID_BUDGET)

    def decide(
        self,
        view: SchafkopfView,
        legal: Sequence[Action],
        rng: random.Random,
        budget: Budget | None,
    ) -> Action:
        """One of ``legal``, from ``view`` only."""
        if view.phase == "bidding":
            return self.bidder.choose(view, legal, rng, budget)
        cards = legal_cards(legal)
        card = self.search.choose_card(view, cards, rng, budget)
        return PlayCard(card)
