"""Cicera for four players in two partnerships, one deal (rules/cicera.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engine.cards import BRESCIANE_52, Card
from engine.cicera.rules import (
    SINGLES,
    capture_bonuses,
    capture_options_by_rank,
    check_capture,
    score_deal,
    team_of,
)
from engine.cicera.state import (
    CiceraDeal,
    CiceraOptions,
    CiceraScore,
    CiceraState,
    CiceraView,
    Hands,
    LastPlay,
    Play,
    TeamBonuses,
)
from engine.game import (
    Contest,
    Event,
    Game,
    IllegalAction,
    Result,
    Seat,
    Transition,
    two_sides,
)
from engine.reasons import Reason, Why
from engine.rng import derive_rng, new_seed, shuffle
from engine.sharing import TO_ACT, replace, shared_counts

SEATS = 4
HAND_SIZE = 12
TABLE_SIZE = 4
SEAT_RANGE = range(SEATS)
NO_BONUSES = (TeamBonuses(), TeamBonuses())
_EMPTY: frozenset[Card] = frozenset()
_COMMON_PLAYS: dict[tuple[Card, frozenset[Card]], Play] = {
    **{(c, _EMPTY): Play(c, _EMPTY) for c in BRESCIANE_52.cards},
    **{
        (c, SINGLES[t]): Play(c, SINGLES[t])
        for c in BRESCIANE_52.cards
        for t in BRESCIANE_52.cards
        if t.rank == c.rank and t != c
    },
}
"""Every Place and every match, built once: immutable values shared by all states."""


def _turn_from_hands(dealer: int, hands: Hands) -> int:
    """The seat to act in a position: play starts right of the dealer, one card each in turn.

    In play order from seat ``dealer + 1`` the hand sizes must read
    ``m-1, …, m-1, m, …, m``; the first seat holding ``m`` cards is to act.
    """
    order = [(dealer + 1 + i) % SEATS for i in SEAT_RANGE]
    sizes = [len(hands[s]) for s in order]
    top = max(sizes)
    k = sizes.index(top)
    if top == 0 or any(n != top - 1 for n in sizes[:k]) or any(n != top for n in sizes[k:]):
        raise ValueError(
            "hand sizes do not fit the turn order: in play order from the seat right of the"
            f" dealer they must read m-1, …, m-1, m, …, m with m > 0 (got {sizes})"
        )
    return order[k]


def _with_hand(hands: Hands, seat: int, hand: tuple[Card, ...]) -> Hands:
    """``hands`` with ``seat``'s hand replaced."""
    h = list(hands)
    h[seat] = hand
    return (h[0], h[1], h[2], h[3])


class CiceraGame(Game[CiceraOptions, CiceraState, Play, CiceraView]):
    """Cicera behind the common :class:`~engine.game.Game` interface."""

    id = "cicera"
    title = "Cicera"
    deck = BRESCIANE_52
    options_type = CiceraOptions
    action_types = (Play,)
    view_type = CiceraView
    zero_sum = False  # both teams score points; the result names the winning team or a draw
    default_pattern = "bresciane"

    def num_seats(self, options: CiceraOptions) -> int:
        """Cicera is for exactly four players."""
        return SEATS

    def teams(self, options: CiceraOptions) -> tuple[frozenset[int], ...]:
        """The partnerships (Partnerships and seats): seats 0+2 against seats 1+3."""
        return (frozenset({0, 2}), frozenset({1, 3}))

    # -- dealing (Setup) ---------------------------------------------------------
    def new_state(self, options: CiceraOptions, seed: int) -> CiceraState:
        """A random dealer, 12 cards to each player and 4 face up on the table."""
        dealer = derive_rng(seed, "dealer").randrange(SEATS)
        order = list(self.deck.cards)
        shuffle(derive_rng(seed, "deal"), order)
        hands: list[tuple[Card, ...]] = [(), (), (), ()]
        for i in SEAT_RANGE:
            seat = (dealer + 1 + i) % SEATS
            hands[seat] = tuple(order[i * HAND_SIZE : (i + 1) * HAND_SIZE])
        return CiceraState(
            options=options,
            seed=seed,
            dealer=dealer,
            turn=(dealer + 1) % SEATS,
            hands=(hands[0], hands[1], hands[2], hands[3]),
            table=tuple(order[SEATS * HAND_SIZE : SEATS * HAND_SIZE + TABLE_SIZE]),
            piles=((), ()),
            bonuses=NO_BONUSES,
            last_capturer=None,
            last_play=None,
            score=None,
        )

    def from_deal(self, options: CiceraOptions, deal: CiceraDeal) -> CiceraState:
        """A position from an explicit deal (for tests and analysis); see :class:`CiceraDeal`."""
        if len(deal.hands) != SEATS:
            raise ValueError("a Cicera deal has four hands")
        cards = [*(c for h in deal.hands for c in h), *deal.table, *deal.piles[0], *deal.piles[1]]
        if sorted(cards) != sorted(self.deck.cards):
            raise ValueError("an explicit Cicera deal must hold each of the 52 cards once")
        if deal.dealer not in SEAT_RANGE:
            raise ValueError("dealer must be a seat 0..3")
        turn = _turn_from_hands(deal.dealer, deal.hands)
        if deal.piles == ((), ()):
            if deal.last_capturer is not None:
                raise ValueError("last_capturer is set but nobody has captured anything")
        elif (
            deal.last_capturer is None
            or deal.last_capturer not in SEAT_RANGE
            or not deal.piles[team_of(deal.last_capturer)]
        ):
            raise ValueError(
                "with cards in the piles, last_capturer must be a seat whose team has captured"
            )
        return CiceraState(
            options=options,
            seed=deal.seed,
            dealer=deal.dealer,
            turn=turn,
            hands=(
                tuple(deal.hands[0]),
                tuple(deal.hands[1]),
                tuple(deal.hands[2]),
                tuple(deal.hands[3]),
            ),
            table=tuple(deal.table),
            piles=(tuple(deal.piles[0]), tuple(deal.piles[1])),
            bonuses=NO_BONUSES,
            last_capturer=deal.last_capturer,
            last_play=None,
            score=None,
        )

    def start_events(self, state: CiceraState) -> tuple[Event, ...]:
        """The opening deal: the table and hand sizes to everyone, each hand to its owner."""
        return (
            Event(
                "deal",
                {
                    "dealer": state.dealer,
                    "first": state.turn,
                    "table": state.table,
                    "hand_counts": tuple(len(h) for h in state.hands),
                },
            ),
            *(
                Event("hand", {"seat": s, "hand": state.hands[s]}, frozenset((s,)))
                for s in SEAT_RANGE
            ),
        )

    # -- playing (A turn) ----------------------------------------------------------
    def to_act(self, state: CiceraState) -> tuple[Seat, ...]:
        """The one seat whose turn it is."""
        return () if state.turn is None else TO_ACT[state.turn]

    def legal_actions(self, state: CiceraState, seat: Seat) -> tuple[Play, ...]:
        """Each card of the hand with each capture it can make, and placed (always allowed)."""
        if state.turn != seat:
            return ()
        hand = state.hands[seat]
        by_rank = capture_options_by_rank([c.rank for c in hand], state.table)
        out: list[Play] = []
        known = _COMMON_PLAYS
        for card in hand:
            for group in by_rank[card.rank]:
                out.append(known.get((card, group)) or Play(card, group))
            out.append(known[card, _EMPTY])
        return tuple(out)

    def _apply(self, state: CiceraState, seat: Seat, action: Play) -> Transition[CiceraState]:
        card = action.card
        hand = state.hands[seat]
        if card not in hand:
            raise IllegalAction(
                "not_in_hand",
                f"{card} is not in your hand",
                Reason(Why.NOT_IN_HAND, {"cards": (str(card),)}),
            )
        captured = action.capture
        check_capture(card, captured, state.table)

        new_hand = tuple(c for c in hand if c != card)
        hands = _with_hand(state.hands, seat, new_hand)
        piles = state.piles
        team_bonuses = state.bonuses
        last_capturer = state.last_capturer
        if captured:
            table = tuple(c for c in state.table if c not in captured)
            taken = tuple(c for c in state.table if c in captured)
            bonuses = capture_bonuses(seat, card, captured, table, state.last_play)
            if team_of(seat) == 0:
                piles = (piles[0] + taken + (card,), piles[1])
                if bonuses:  # else the very same pair stays (engine.sharing)
                    team_bonuses = (team_bonuses[0].add(bonuses), team_bonuses[1])
            else:
                piles = (piles[0], piles[1] + taken + (card,))
                if bonuses:
                    team_bonuses = (team_bonuses[0], team_bonuses[1].add(bonuses))
            last_capturer = seat
        else:
            table = state.table + (card,)
            taken = ()
            bonuses = ()
        last = LastPlay(seat=seat, card=card, captured=taken, bonuses=bonuses)
        state = CiceraState(
            options=state.options,
            seed=state.seed,
            dealer=state.dealer,
            turn=(seat + 1) % SEATS,
            hands=hands,
            table=table,
            piles=piles,
            bonuses=team_bonuses,
            last_capturer=last_capturer,
            last_play=last,
            score=None,
        )
        events = [
            Event(
                "play",
                {"seat": seat, "card": card, "captured": taken, "bonuses": bonuses},
            )
        ]
        if not any(hands):
            state, ending = self._end_deal(state)
            events.extend(ending)
        return Transition(state, tuple(events))

    def _end_deal(self, state: CiceraState) -> tuple[CiceraState, tuple[Event, ...]]:
        """Leftovers to the last capturing team (no bonus), then score (End of the deal)."""
        events: list[Event] = []
        unclaimed: tuple[Card, ...] = ()
        if state.table:
            if state.last_capturer is None:
                unclaimed = state.table
                events.append(Event("unclaimed", {"cards": state.table}))
            else:
                team = team_of(state.last_capturer)
                piles = list(state.piles)
                piles[team] = piles[team] + state.table
                events.append(Event("leftover", {"team": team, "cards": state.table}))
                state = replace(state, table=(), piles=(piles[0], piles[1]))
        score = score_deal(state.piles, state.bonuses, unclaimed)
        events.append(Event("deal_scored", {"score": score}))
        return replace(state, turn=None, score=score), tuple(events)

    # -- information ---------------------------------------------------------------
    def view(self, state: CiceraState, seat: Seat | None) -> CiceraView:
        """Own hand, the other hands as counts, everything public; legal plays on one's turn."""
        h = state.hands
        return CiceraView(  # positional, in field order: a keyword call builds a dict (hot path)
            state.options,  # options
            seat,  # seat
            self.to_act(state),  # to_act
            state.dealer,  # dealer
            h[seat] if seat is not None else (),  # hand
            shared_counts((len(h[0]), len(h[1]), len(h[2]), len(h[3]))),  # hand_counts
            state.table,  # table
            state.piles,  # piles
            state.bonuses,  # bonuses
            state.last_capturer,  # last_capturer
            state.last_play,  # last_play
            state.turn is None,  # over
            state.score,  # score
            self.legal_actions(state, seat) if seat is not None else (),  # legal
        )

    def is_over(self, state: CiceraState) -> bool:
        """The game is one deal: over once every hand is empty."""
        return state.turn is None

    def result(self, state: CiceraState) -> Result | None:
        """Each seat gets its team's total; the winners are the winning team's seats."""
        score = state.score
        if score is None:
            return None
        winners = (
            frozenset()
            if score.winner is None
            else frozenset(s for s in SEAT_RANGE if team_of(s) == score.winner)
        )
        p = score.points
        return Result(
            scores=(p[0], p[1], p[0], p[1]), winners=winners, summary=_summary(state, score)
        )

    def contests(self, state: CiceraState) -> tuple[Contest, ...]:
        """One contest a match, partnership against partnership (equal points tie)."""
        score = state.score
        if score is None:
            return ()
        first_won = None if score.winner is None else score.winner == 0
        return (two_sides(frozenset((0, 2)), frozenset((1, 3)), first_won),)

    def sample_world(self, view: CiceraView, rng: random.Random) -> CiceraState:
        """Deal the cards ``view`` cannot see to the other hands at random, with a fresh seed."""
        seen = set(view.hand) | set(view.table) | set(view.piles[0]) | set(view.piles[1])
        unseen = [c for c in self.deck.cards if c not in seen]
        shuffle(rng, unseen)
        hands: list[tuple[Card, ...]] = [(), (), (), ()]
        for s in SEAT_RANGE:
            if s == view.seat:
                hands[s] = view.hand
            else:
                n = view.hand_counts[s]
                hands[s], unseen = tuple(unseen[:n]), unseen[n:]
        if unseen:
            raise ValueError("the view's counts do not account for every card")
        return CiceraState(
            options=view.options,
            seed=new_seed(rng),
            dealer=view.dealer,
            turn=None if view.over or not view.to_act else view.to_act[0],
            hands=(hands[0], hands[1], hands[2], hands[3]),
            table=view.table,
            piles=view.piles,
            bonuses=view.bonuses,
            last_capturer=view.last_capturer,
            last_play=view.last_play,
            score=view.score,
        )

    def redeal_hidden(
        self, state: CiceraState, seat: Seat | None, rng: random.Random
    ) -> CiceraState:
        """Shuffle the cards in every hand but ``seat``'s among those hands; fresh seed."""
        hidden = [s for s in SEAT_RANGE if s != seat]
        pool = [c for s in hidden for c in state.hands[s]]
        shuffle(rng, pool)
        hands = list(state.hands)
        for s in hidden:
            n = len(state.hands[s])
            hands[s], pool = tuple(pool[:n]), pool[n:]
        return replace(state, hands=(hands[0], hands[1], hands[2], hands[3]), seed=new_seed(rng))

    def card_zones(self, state: CiceraState) -> Mapping[str, Sequence[Card]]:
        """Four hands, the table (unclaimed cards stay there) and both team piles: 52 cards."""
        return {
            "hand0": state.hands[0],
            "hand1": state.hands[1],
            "hand2": state.hands[2],
            "hand3": state.hands[3],
            "table": state.table,
            "pile0": state.piles[0],
            "pile1": state.piles[1],
        }


def _summary(state: CiceraState, score: CiceraScore) -> dict[str, int | bool]:
    """Flat figures for the self-play report (rates, averages)."""
    b0, b1 = state.bonuses
    return {
        "team0_points": score.points[0],
        "team1_points": score.points[1],
        "team0_won": score.winner == 0,
        "team1_won": score.winner == 1,
        "draw": score.winner is None,
        "scua": b0.scua + b1.scua,
        "picada": b0.picada + b1.picada,
        "simili": b0.simili + b1.simili,
        "quadriglia": b0.quadriglia + b1.quadriglia,
        "team0_bonuses": score.bonuses[0],
        "team1_bonuses": score.bonuses[1],
        "team0_awards": score.awards[0],
        "team1_awards": score.awards[1],
        "napula_team0": score.napula[0],
        "napula_team1": score.napula[1],
        "team0_cards": score.cards[0],
        "team1_cards": score.cards[1],
        "unclaimed_cards": len(score.unclaimed),
    }
